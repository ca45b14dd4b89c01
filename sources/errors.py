"""The error a trace source raises for input a user can fix (a bad workload, trace or truth
file); the message is one line. The CLI prints it like the warehouse's EtplanError."""


class SourceError(ValueError):
    """A trace, workload or truth file that cannot be used; str(err) says what to fix."""

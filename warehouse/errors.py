"""Errors a user can cause; their message is one line that says what to do."""


class EtplanError(Exception):
    """A problem with the user's input or environment; the CLI prints str(err) and exits 1."""


class WarehouseBusy(EtplanError):
    """Another process held the warehouse file (DuckDB's lock) longer than the open waits."""

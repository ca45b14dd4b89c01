"""One deadline per decision (DESIGN §10): made once from the time limit, on the monotonic clock,
and handed to every stage (heuristic start, model build, column generation, full MIP,
fallbacks), so that the decision returns within its limit plus build time plus 10 %.

Build time is what the decision must do whatever the limit, in time proportional to the
window: the capacity release, the first feasible plan (greedy's, the fallback), the model build
(with the solver libraries loaded) and the plan's assembly (ETCs, rows, their `why`).
`build()` / `building()` run such a stage and move the deadline on by its duration, so the
search stages (the other heuristics, column generation, the full MIP) share the whole limit.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

R = TypeVar("R")

# the stage that ended a decision (Plan.stopped_by): the last one that ran when the deadline
# ended it, or complete when it ended on its own (a proof, or a baseline's plan)
HEURISTIC, COLUMNS, MIP, COMPLETE = "heuristic", "columns", "mip", "complete"

# Set-up costs of the stages that cannot be stopped before their search starts, per unit of
# size; a stage whose predicted set-up does not fit the time left is left out. Measured on the
# shared 2-core machine (1,000 to 10,000 jobs): HiGHS loads and presolves the full MIP before it
# looks at its time limit, 16-20 µs per variable under load, and then overshoots the limit by
# as much again (presolve checks the clock rarely: 2,000 jobs, limit 3.3 s, 3.7-4.7 s); column
# generation's pool of simple schedules costs 0.9 µs per schedule to value on a quiet machine
# and 3-4 µs under load (a stage that overruns its share still ends at the deadline's stage
# checks: pricing stops, the integer step is left out). Column generation itself needs, before
# its first bound, its set-up (valuation arrays, the master with the start's columns), one
# master LP and one exact pricing round: 15-40 µs per job (10,000 jobs, quiet to loaded); the
# pool is made only when exact pricing gives up or the integer step looks beyond the master.
MIP_SECONDS_PER_VAR = 4e-5
POOL_SECONDS_PER_SCHEDULE = 2.5e-6
COLUMN_SECONDS_PER_JOB = 5e-5


@dataclass
class Deadline:
    """`limit` seconds of search from `start` (time.monotonic), plus the build time spent."""
    limit: float
    start: float = field(default_factory=time.monotonic)
    build_seconds: float = 0.0

    @classmethod
    def unlimited(cls) -> Deadline:
        return cls(float("inf"))

    def elapsed(self) -> float:
        """Seconds since the decision began, build time included."""
        return time.monotonic() - self.start

    def remaining(self) -> float:
        """Search seconds left (never below 0)."""
        return max(self.start + self.build_seconds + self.limit - time.monotonic(), 0.0)

    def expired(self) -> bool:
        return self.remaining() <= 0.0

    def share(self, fraction: float) -> float:
        """Seconds a stage may take when it should leave the rest of the time to later stages:
        `fraction` of the limit, at most what remains."""
        return min(self.remaining(), fraction * self.limit)

    @contextmanager
    def building(self) -> Iterator[None]:
        """Count the time of the enclosed stage as build time (it moves the deadline on)."""
        t0 = time.monotonic()
        try:
            yield
        finally:
            self.build_seconds += time.monotonic() - t0

    def build(self, stage: Callable[[], R]) -> R:
        """Run `stage` as build time and return its result."""
        with self.building():
            return stage()

"""What every policy is given besides the instance: the solver settings and the hint type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from solver.instance import DEFAULT_GAP, DEFAULT_TIME_LIMIT

# node counts per slot by job id from an earlier plan (e.g. the previous window's plan shifted
# by one slot)
Hint = Mapping[str, Sequence[int]]


@dataclass
class Settings:
    solver: str = "auto"    # one of solver.backends.SOLVERS
    time_limit: float = DEFAULT_TIME_LIMIT
    gap: float = DEFAULT_GAP   # relative (docs/benchmarks.md)
    threads: int = 1
    preemption: bool = False
    warm_start: bool = True
    columns: bool = True    # with solver auto or columns: column generation first

"""What a backend (and a plan) reports: the status enum, the result of one solve, and the one
exception a backend raises."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np


class Status(StrEnum):
    """A plan's or a solve's status; a str, so it compares and serialises as its value."""

    OPTIMAL = "optimal"        # proven within the gap (or a baseline's plan)
    TIME_LIMIT = "time_limit"  # the solver's incumbent when the time ran out
    FALLBACK = "fallback"      # a heuristic's plan: no solver incumbent, or a worse one
    FAILED = "failed"          # a backend found nothing (never a plan's status)


class LicenceTooSmall(Exception):
    """Gurobi's licence does not admit this model (error 10010) or Gurobi cannot be used."""


@dataclass
class BackendResult:
    status: Status                   # optimal | time_limit | failed
    x: np.ndarray | None
    objective: float | None
    best_bound: float | None
    gap: float | None
    seconds: float
    detail: str = ""
    backend: str = ""                # which backend answered: highs | gurobi

    @classmethod
    def failed(cls, backend: str, seconds: float, detail: str) -> BackendResult:
        return cls(Status.FAILED, None, None, None, None, seconds, detail, backend)

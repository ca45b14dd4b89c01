"""Solver backends for a SparseModel (HiGHS, Gurobi) and the choice between them.

Each backend returns a BackendResult; none raises for a solver's own failure except
LicenceTooSmall, which tells the caller to use another backend.
"""

from __future__ import annotations

import logging

import numpy as np

from solver.backends.gurobi import gurobi_available, restricted_licence, solve_gurobi
from solver.backends.highs import solve_highs
from solver.backends.status import BackendResult, LicenceTooSmall
from solver.model import SparseModel

log = logging.getLogger(__name__)

BACKENDS = {"gurobi": solve_gurobi, "highs": solve_highs}
# auto: column generation, then Gurobi when its licence admits the model, else HiGHS (a
#   model of at most solver.policies.mip.MIP_FIRST_VARS variables goes to Gurobi first);
# columns: column generation, then HiGHS; a backend's name: the full MIP on it only
SOLVERS = ("auto", "columns", *BACKENDS)


def load(solver: str) -> None:
    """Import the libraries `solver` may use and, when Gurobi may run, ask once (per process)
    whether its licence is the restricted one: a decision counts this as build time, not as
    search time (it takes up to half a second the first time)."""
    import highspy  # noqa: F401

    if solver == "gurobi" or (solver == "auto" and gurobi_available()):
        restricted_licence()


def solve(m: SparseModel, *, solver: str, time_limit: float, gap: float, threads: int,
          warm_start: np.ndarray | None = None) -> tuple[BackendResult, str]:
    """The full MIP on the backend that `solver` (one of SOLVERS) asks for: Gurobi when asked,
    or with `auto` when gurobipy is importable and its licence admits the model; HiGHS
    otherwise. Returns the result and why Gurobi was not used ("" when it was, or not asked)."""
    reason = ""
    if solver == "gurobi" or (solver == "auto" and gurobi_available()):
        try:
            return solve_gurobi(m, time_limit=time_limit, gap=gap, threads=threads,
                                warm_start=warm_start), reason
        except LicenceTooSmall as err:
            reason = str(err)
            if solver == "gurobi":
                log.warning("%s; using HiGHS", reason)
    elif solver == "auto":
        reason = "gurobipy not importable"
    return solve_highs(m, time_limit=time_limit, gap=gap, threads=threads,
                       warm_start=warm_start), reason

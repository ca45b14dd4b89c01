"""The Gurobi backend (gurobipy's matrix API), with the size check of the pip package's
restricted licence (DESIGN §9: error 10010 comes from optimize(), so the size is checked first
and the error still caught)."""

from __future__ import annotations

import time
from functools import cache

import numpy as np

from solver.backends.status import BackendResult, LicenceTooSmall, Status
from solver.model import SparseModel

GUROBI_RESTRICTED_LIMIT = 2000   # variables or constraints under the pip package's licence


@cache
def gurobi_available() -> bool:
    try:
        import gurobipy  # noqa: F401
    except ImportError:
        return False
    return True


def _env():
    """A started, silent Gurobi environment (the one place it is set up)."""
    import gurobipy as gp

    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 0)
    env.start()
    return env


@cache
def restricted_licence() -> bool:
    """True when gurobipy runs on the size-limited licence that ships with the pip package
    (asked once per process with a model one variable too large)."""
    import gurobipy as gp

    try:
        model = gp.Model(env=_env())
        v = model.addMVar(GUROBI_RESTRICTED_LIMIT + 1)
        model.addConstr(v.sum() <= 1)
        model.optimize()
    except gp.GurobiError as err:
        return getattr(err, "errno", None) == 10010
    return False


def _constraints(m: SparseModel) -> int:
    """The model's constraints as Gurobi counts them (a ranged row is two)."""
    ranged = int((np.isfinite(m.row_lo) & np.isfinite(m.row_hi) & (m.row_lo != m.row_hi)).sum())
    return m.num_rows + ranged


def licence_admits(m: SparseModel) -> bool:
    """Whether gurobipy is importable and its licence takes the model (a restricted licence
    only up to GUROBI_RESTRICTED_LIMIT variables and constraints)."""
    if not gurobi_available():
        return False
    too_big = max(m.num_vars, _constraints(m)) > GUROBI_RESTRICTED_LIMIT
    return not (too_big and restricted_licence())


def _check_size(m: SparseModel) -> None:
    """Raise LicenceTooSmall when the model exceeds a restricted licence (with a full licence
    the model is simply solved)."""
    if not licence_admits(m):
        raise LicenceTooSmall(
            f"gurobi restricted licence: {m.num_vars} variables, {_constraints(m)} constraints "
            f"> {GUROBI_RESTRICTED_LIMIT}")


def _add_rows(model, v, m: SparseModel) -> None:
    """lo ≤ A·v ≤ hi as Gurobi constraints: ≤, ≥, = and ranged rows (two constraints each)."""
    A = m.A.tocsr()
    le = np.isfinite(m.row_hi) & ~np.isfinite(m.row_lo)
    ge = np.isfinite(m.row_lo) & ~np.isfinite(m.row_hi)
    both = np.isfinite(m.row_lo) & np.isfinite(m.row_hi)
    if le.any():
        model.addMConstr(A[le], v, "<", m.row_hi[le])
    if ge.any():
        model.addMConstr(A[ge], v, ">", m.row_lo[ge])
    if both.any():
        eq = both & (m.row_lo == m.row_hi)
        rng = both & ~eq
        if eq.any():
            model.addMConstr(A[eq], v, "=", m.row_lo[eq])
        if rng.any():
            model.addMConstr(A[rng], v, "<", m.row_hi[rng])
            model.addMConstr(A[rng], v, ">", m.row_lo[rng])


def solve_gurobi(m: SparseModel, *, time_limit: float, gap: float, threads: int,
                 warm_start: np.ndarray | None = None) -> BackendResult:
    try:
        import gurobipy as gp
        from gurobipy import GRB
    except ImportError as err:
        raise LicenceTooSmall("gurobipy is not installed") from err
    _check_size(m)
    try:
        model = gp.Model(env=_env())
        model.Params.TimeLimit = float(time_limit)
        model.Params.MIPGap = float(gap)
        model.Params.Threads = int(threads)
        vtype = np.where(m.integer, GRB.BINARY, GRB.CONTINUOUS)
        v = model.addMVar(m.num_vars, lb=m.col_lo, ub=m.col_hi, vtype=vtype)
        _add_rows(model, v, m)
        model.setObjective(m.c @ v, GRB.MAXIMIZE)
        if warm_start is not None:
            v.Start = warm_start
        start = time.perf_counter()
        model.optimize()
        seconds = time.perf_counter() - start
    except gp.GurobiError as err:
        if getattr(err, "errno", None) in (10009, 10010):
            raise LicenceTooSmall(f"gurobi licence: {err}") from err
        return BackendResult.failed("gurobi", 0.0, f"gurobi: {err}")
    if model.Status == GRB.OPTIMAL:
        kind = Status.OPTIMAL
    elif model.Status == GRB.TIME_LIMIT and model.SolCount > 0:
        kind = Status.TIME_LIMIT
    else:
        return BackendResult.failed("gurobi", seconds, f"gurobi: status {model.Status}")
    return BackendResult(kind, np.array(v.X), float(model.ObjVal), float(model.ObjBound),
                         float(model.MIPGap), seconds, backend="gurobi")

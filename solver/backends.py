"""Solver backends for a SparseModel: HiGHS (highspy) and Gurobi (gurobipy's matrix API).

Each returns a BackendResult; none raises for a solver's own failure except LicenceTooSmall,
which tells the caller to use another backend.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache

import numpy as np

from solver.model import SparseModel

log = logging.getLogger(__name__)

GUROBI_RESTRICTED_LIMIT = 2000   # variables or constraints under the pip package's licence


class LicenceTooSmall(Exception):
    """Gurobi's licence does not admit this model (error 10010) or Gurobi cannot be used."""


@dataclass
class BackendResult:
    status: str                      # optimal | time_limit | failed
    x: np.ndarray | None
    objective: float | None
    best_bound: float | None
    gap: float | None
    seconds: float
    detail: str = ""


def gurobi_available() -> bool:
    try:
        import gurobipy  # noqa: F401
    except ImportError:
        return False
    return True


_highs_banner_shown = False


@contextmanager
def _no_banner():
    """HiGHS prints a copyright banner to the process's stdout when the first Highs object is
    made, before any option can silence it; keep it out of stdout (plans may be printed there).
    """
    global _highs_banner_shown
    if _highs_banner_shown:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
        _highs_banner_shown = True


_highs_threads: int | None = None


def new_highs(threads: int):
    """A silent Highs object that runs on `threads` threads. HiGHS keeps one scheduler per
    process thread, sized by the first run; a later run asking for another thread count fails
    at once with status "Not Set" (ERGO-Code/HiGHS#715), so the scheduler is reset when the
    count changes."""
    global _highs_threads
    import highspy

    with _no_banner():
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    if _highs_threads is not None and _highs_threads != threads:
        highspy.Highs.resetGlobalScheduler(True)
    _highs_threads = threads
    h.setOptionValue("threads", int(threads))
    return h


def solve_highs(m: SparseModel, *, time_limit: float, gap: float, threads: int,
                warm_start: np.ndarray | None = None) -> BackendResult:
    import highspy

    h = new_highs(threads)
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("mip_rel_gap", float(gap))
    lp = highspy.HighsLp()
    lp.num_col_ = m.num_vars
    lp.num_row_ = m.num_rows
    lp.col_cost_ = m.c
    lp.col_lower_ = m.col_lo
    lp.col_upper_ = m.col_hi
    lp.row_lower_ = m.row_lo
    lp.row_upper_ = m.row_hi
    lp.sense_ = highspy.ObjSense.kMaximize
    csc = m.A.tocsc()
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = csc.indptr
    lp.a_matrix_.index_ = csc.indices
    lp.a_matrix_.value_ = csc.data
    lp.a_matrix_.num_col_ = m.num_vars
    lp.a_matrix_.num_row_ = m.num_rows
    lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                       for i in m.integer]
    h.passModel(lp)
    if warm_start is not None:
        h.setSolution(m.num_vars, np.arange(m.num_vars, dtype=np.int32),
                      warm_start.astype(float))
    start = time.perf_counter()
    h.run()
    seconds = time.perf_counter() - start
    status = h.getModelStatus()
    info = h.getInfo()
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    if status == highspy.HighsModelStatus.kOptimal:
        kind = "optimal"
    elif status == highspy.HighsModelStatus.kTimeLimit and has_solution:
        kind = "time_limit"
    else:
        return BackendResult("failed", None, None, None, None, seconds,
                             f"highs: {h.modelStatusToString(status)}")
    x = np.array(h.getSolution().col_value)
    reported = float(info.objective_function_value)
    value = float(m.c @ x)
    if warm_start is not None and abs(value - reported) > 1e-9 * max(1.0, abs(reported)):
        # seen with HiGHS 1.16 on tiny models: it reports a better objective than that of the
        # solution it hands back (the warm start); solve again cold and keep the better one
        log.info("highs returned a solution worth %s but reported %s; solving cold", value,
                 reported)
        cold = solve_highs(m, time_limit=max(time_limit - seconds, 0.01), gap=gap,
                           threads=threads)
        if cold.x is not None and cold.objective is not None and cold.objective > value:
            cold.seconds += seconds
            return cold
    return BackendResult(kind, x, value, float(info.mip_dual_bound), float(info.mip_gap),
                         seconds)


def solve_gurobi(m: SparseModel, *, time_limit: float, gap: float, threads: int,
                 warm_start: np.ndarray | None = None) -> BackendResult:
    try:
        import gurobipy as gp
        from gurobipy import GRB
    except ImportError as err:
        raise LicenceTooSmall("gurobipy is not installed") from err
    ranged = int((np.isfinite(m.row_lo) & np.isfinite(m.row_hi) & (m.row_lo != m.row_hi)).sum())
    n_constraints = m.num_rows + ranged       # a ranged row is two constraints in Gurobi
    too_big = m.num_vars > GUROBI_RESTRICTED_LIMIT or n_constraints > GUROBI_RESTRICTED_LIMIT
    # the size check comes first; with a full licence the model is simply solved
    if too_big and _restricted_licence():
        raise LicenceTooSmall(
            f"gurobi restricted licence: {m.num_vars} variables, {n_constraints} constraints "
            f"> {GUROBI_RESTRICTED_LIMIT}")
    try:
        env = gp.Env(empty=True)
        env.setParam("OutputFlag", 0)
        env.start()
        model = gp.Model(env=env)
        model.Params.TimeLimit = float(time_limit)
        model.Params.MIPGap = float(gap)
        model.Params.Threads = int(threads)
        vtype = np.where(m.integer, GRB.BINARY, GRB.CONTINUOUS)
        v = model.addMVar(m.num_vars, lb=m.col_lo, ub=m.col_hi, vtype=vtype)
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
        model.setObjective(m.c @ v, GRB.MAXIMIZE)
        if warm_start is not None:
            v.Start = warm_start
        start = time.perf_counter()
        model.optimize()
        seconds = time.perf_counter() - start
    except gp.GurobiError as err:
        if getattr(err, "errno", None) in (10009, 10010):
            raise LicenceTooSmall(f"gurobi licence: {err}") from err
        return BackendResult("failed", None, None, None, None, 0.0, f"gurobi: {err}")
    if model.Status == GRB.OPTIMAL:
        kind = "optimal"
    elif model.Status == GRB.TIME_LIMIT and model.SolCount > 0:
        kind = "time_limit"
    else:
        return BackendResult("failed", None, None, None, None, seconds,
                             f"gurobi: status {model.Status}")
    return BackendResult(kind, np.array(v.X), float(model.ObjVal), float(model.ObjBound),
                         float(model.MIPGap), seconds)


@cache
def _restricted_licence() -> bool:
    """True when gurobipy runs on the size-limited licence that ships with the pip package
    (asked once per process with a model one variable too large)."""
    import gurobipy as gp

    try:
        env = gp.Env(empty=True)
        env.setParam("OutputFlag", 0)
        env.start()
        model = gp.Model(env=env)
        v = model.addMVar(GUROBI_RESTRICTED_LIMIT + 1)
        model.addConstr(v.sum() <= 1)
        model.optimize()
    except gp.GurobiError as err:
        return getattr(err, "errno", None) == 10010
    return False

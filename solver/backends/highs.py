"""The HiGHS backend (highspy): a silent Highs object, and the window MIP solved on it."""

from __future__ import annotations

import logging
import os
import sys
import time
from contextlib import contextmanager

import numpy as np

from solver.backends.status import BackendResult, Status
from solver.model import SparseModel

log = logging.getLogger(__name__)

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


def _lp(m: SparseModel):
    """The model as a HighsLp (maximise, column-wise matrix)."""
    import highspy

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
    return lp


def solve_highs(m: SparseModel, *, time_limit: float, gap: float, threads: int,
                warm_start: np.ndarray | None = None) -> BackendResult:
    import highspy

    h = new_highs(threads)
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("mip_rel_gap", float(gap))
    h.passModel(_lp(m))
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
        kind = Status.OPTIMAL
    elif status == highspy.HighsModelStatus.kTimeLimit and has_solution:
        kind = Status.TIME_LIMIT
    else:
        return BackendResult.failed("highs", seconds, f"highs: {h.modelStatusToString(status)}")
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
                         seconds, backend="highs")

"""Slot prices (DESIGN §4.3): the duals of the capacity rows of the column-generation master LP,
the value of one node in each slot of the window.

The MIP policy takes them from its own column-generation run (`ColumnResult.slot_prices`). For
any other plan (a baseline, the full MIP without columns) `lp_prices` runs column generation on
the same instance up to the master LP only, from that plan, within the time it is given: the
prices are the LP's once exact pricing has proven it optimal, and None when that does not
happen in time (the explanations then do without prices). Then `explained` fills every plan
row's `why` (solver/explain.py).
"""

from __future__ import annotations

import logging
import time

import numpy as np

from solver import columns
from solver.explain import annotate, plan_nodes
from solver.instance import Instance
from solver.model import build
from solver.plans import Plan

log = logging.getLogger(__name__)

MIN_SECONDS = 0.05   # below this, no LP is attempted


def lp_prices(inst: Instance, nodes: np.ndarray, *, released: set[str], preemption: bool,
              time_limit: float, threads: int = 1) -> list[float] | None:
    """The master LP's capacity duals for `inst`, column generation starting from the feasible
    plan `nodes`; None when the LP is not proven optimal within `time_limit` seconds."""
    if not inst.jobs or time_limit < MIN_SECONDS:
        return None
    t0 = time.perf_counter()
    model = build(inst, released=released, preemption=preemption)
    free = {j for j, job in enumerate(inst.jobs) if preemption or job.job_id in released}
    left = time_limit - (time.perf_counter() - t0)
    if left < MIN_SECONDS:
        return None
    result = columns.solve(inst, model, np.asarray(nodes, dtype=np.int64), free=free,
                           time_limit=left, gap=0.0, threads=threads, lp_only=True)
    if result is None or result.bound is None:
        log.info("no slot prices: the master LP was not proven optimal in %.2f s", time_limit)
        return None
    return result.slot_prices


def explained(inst: Instance, plan: Plan, *, released: set[str], preemption: bool,
              time_limit: float | None, threads: int = 1) -> Plan:
    """`plan` with slot prices (its own, else the LP's within `time_limit` seconds; None:
    none computed) and every row's `why` and `why_text` (in place; also returned)."""
    if plan.slot_prices is None and time_limit is not None and inst.jobs:
        plan.slot_prices = lp_prices(inst, plan_nodes(inst, plan), released=released,
                                     preemption=preemption, time_limit=time_limit,
                                     threads=threads)
    free = {job.job_id for job in inst.jobs} if preemption else released
    return annotate(inst, plan, free)

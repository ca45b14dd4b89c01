"""`optimus` (DESIGN §6): marginal gain on the estimated curves."""

from __future__ import annotations

import bisect
import heapq
import math

import numpy as np

from solver.instance import Instance
from solver.policies.churn import fit_first_slot, has_rules, rescaled
from solver.policies.fitting import fit_capacity, tenant_room
from solver.policies.horizon import hold, start_guaranteed, start_room


def _minimums(inst: Instance, released: set[str], base: list[int], fixed: set[int]
              ) -> list[int]:
    """Running jobs keep their minimum (fitted to the first slot's capacity), those in `fixed`
    their size in `base` (the churn-fitted current sizes); the guarantees' first pass starts
    (DESIGN §4.2), then queued jobs start at their minimum in submit order while it fits (in
    capacity and in their tenant's max_nodes)."""
    cap = inst.capacity[0]
    size = [0] * len(inst.jobs)
    for j, job in enumerate(inst.jobs):
        if job.remaining_work > 0 and job.current_nodes > 0:
            size[j] = base[j] if j in fixed or base[j] == 0 else job.allowed[0]
    fit_capacity(inst, size, cap, released)
    start_guaranteed(inst, size)
    free = cap - sum(size)
    # a started job holds its minimum to the end: it must fit the tightest slot too
    free = min(free, start_room(inst, size, released, 0))
    room = tenant_room(inst, size)   # recomputed only when a job of a capped tenant starts
    for j, job in enumerate(inst.jobs):
        if job.remaining_work > 0 and size[j] == 0 and job.current_nodes == 0 \
                and job.allowed and job.allowed[0] <= min(free, room[j]):
            size[j] = job.allowed[0]
            free -= size[j]
            if job.tenant in inst.quotas:
                room = tenant_room(inst, size)
    return size


def _next_step(inst: Instance, size: list[int], j: int, fixed: set[int]
               ) -> tuple[float, int, int] | None:
    """(−gain, j, next size) of job j's next step, the gain being how much its estimated
    remaining time R / f(n) drops per extra node; None when it has no step that gains (or is
    off, or in `fixed`)."""
    job = inst.jobs[j]
    if size[j] == 0 or j in fixed:
        return None
    k = bisect.bisect_right(job.allowed, size[j])
    if k >= len(job.allowed):
        return None
    nxt = job.allowed[k]
    before = job.remaining_work / job.rate(size[j])
    after = job.remaining_work / job.rate(nxt)
    gain = (before - after) / (nxt - size[j])
    return (-gain, j, nxt) if gain > 0 else None


def _marginal(inst: Instance, released: set[str], base: list[int], fixed: set[int]
              ) -> list[int]:
    """Slot-0 sizes: the minimums, then the free nodes one step at a time by marginal gain (the
    largest gain first, then submit order). The steps wait in a heap; one that does not fit the
    free nodes or its tenant's room now never will (both only shrink), so it is dropped."""
    size = _minimums(inst, released, base, fixed)
    free = inst.capacity[0] - sum(size)
    room = {job.tenant: r for job, r in zip(inst.jobs, tenant_room(inst, size), strict=True)
            if job.tenant is not None}
    heap = [s for j in range(len(size)) if (s := _next_step(inst, size, j, fixed))]
    heapq.heapify(heap)
    while free > 0 and heap:
        _, j, nxt = heapq.heappop(heap)
        grow, tenant = nxt - size[j], inst.jobs[j].tenant
        if grow > min(free, room.get(tenant, math.inf)):
            continue
        free -= grow
        size[j] = nxt
        if tenant in room:
            room[tenant] -= grow
        if step := _next_step(inst, size, j, fixed):
            heapq.heappush(heap, step)
    return size


def _churn_free(inst: Instance, released: set[str]) -> list[int]:
    """`_marginal` under the churn rules (DESIGN §4.1): jobs in their cooldown keep their
    (churn-fitted) current size; while more running jobs than `max_rescales` change size, those
    beyond the budget in submit order keep theirs too and the rest is handed out again."""
    base = [job.current_nodes if job.remaining_work > 0 else 0 for job in inst.jobs]
    fit_first_slot(inst, base, released)
    forced = set(rescaled(inst, base))
    fixed = {j for j, job in enumerate(inst.jobs) if inst.in_cooldown(job)}
    # forced shrinks count first; past the budget no other job may change size
    room = len(inst.jobs) if inst.max_rescales is None else max(inst.max_rescales - len(forced), 0)
    while True:
        size = _marginal(inst, released, base, fixed)
        new = [j for j in rescaled(inst, size) if j not in forced and j not in fixed]
        if len(new) <= room:
            return size
        fixed |= set(new[room:])


def optimus(inst: Instance, released: set[str] | None = None) -> np.ndarray:
    """Optimus-style marginal gain: the minimums first, then the remaining nodes go one step at
    a time to the job whose estimated remaining time drops the most per node. The allocation
    is held over the horizon, a job's nodes freed from the slot after its work runs out. Under
    the churn rules slot 0 keeps them."""
    released = released or set()
    if has_rules(inst):
        return hold(inst, _churn_free(inst, released), released)
    base = [job.current_nodes for job in inst.jobs]
    return hold(inst, _marginal(inst, released, base, set()), released)

"""`optimus` (DESIGN §6): marginal gain on the estimated curves."""

from __future__ import annotations

import bisect

import numpy as np

from solver.instance import Instance
from solver.policies.churn import fit_first_slot, has_rules, rescaled
from solver.policies.fitting import fit_capacity
from solver.policies.horizon import hold, start_room


def _minimums(inst: Instance, released: set[str], base: list[int], fixed: set[int]
              ) -> list[int]:
    """Running jobs keep their minimum (fitted to the first slot's capacity), those in `fixed`
    their size in `base` (the churn-fitted current sizes); queued jobs start at their minimum
    in submit order while it fits."""
    cap = inst.capacity[0]
    size = [0] * len(inst.jobs)
    for j, job in enumerate(inst.jobs):
        if job.remaining_work > 0 and job.current_nodes > 0:
            size[j] = base[j] if j in fixed or base[j] == 0 else job.allowed[0]
    fit_capacity(inst, size, cap, released)
    free = cap - sum(size)
    # a started job holds its minimum to the end: it must fit the tightest slot too
    free = min(free, start_room(inst, size, released, 0))
    for j, job in enumerate(inst.jobs):
        if job.remaining_work > 0 and size[j] == 0 and job.current_nodes == 0 \
                and job.allowed and job.allowed[0] <= free:
            size[j] = job.allowed[0]
            free -= size[j]
    return size


def _best_step(inst: Instance, size: list[int], free: int, fixed: set[int]
               ) -> tuple[int, int]:
    """(job, next size) whose estimated remaining time R / f(n) drops the most per extra node
    within `free`, jobs in `fixed` aside; job −1 when no step fits or gains."""
    best, best_gain, best_next = -1, 0.0, 0
    for j, job in enumerate(inst.jobs):
        if size[j] == 0 or j in fixed:
            continue
        k = bisect.bisect_right(job.allowed, size[j])
        if k >= len(job.allowed):
            continue
        nxt = job.allowed[k]
        if nxt - size[j] > free:
            continue
        before = job.remaining_work / job.rate(size[j])
        after = job.remaining_work / job.rate(nxt)
        gain = (before - after) / (nxt - size[j])
        if gain > best_gain:
            best, best_gain, best_next = j, gain, nxt
    return best, best_next


def _marginal(inst: Instance, released: set[str], base: list[int], fixed: set[int]
              ) -> list[int]:
    """Slot-0 sizes: the minimums, then the free nodes one step at a time by marginal gain."""
    size = _minimums(inst, released, base, fixed)
    free = inst.capacity[0] - sum(size)
    while free > 0:
        best, best_next = _best_step(inst, size, free, fixed)
        if best < 0:
            break
        free -= best_next - size[best]
        size[best] = best_next
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

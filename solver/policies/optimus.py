"""`optimus` (DESIGN §6): marginal gain on the estimated curves."""

from __future__ import annotations

import bisect

import numpy as np

from solver.instance import Instance
from solver.policies.horizon import fit_capacity, hold


def _minimums(inst: Instance, released: set[str]) -> list[int]:
    """Running jobs keep their minimum (fitted to the first slot's capacity); queued jobs start
    at their minimum in submit order while it fits."""
    cap = inst.capacity[0]
    size = [0] * len(inst.jobs)
    for j, job in enumerate(inst.jobs):
        if job.remaining_work > 0 and job.current_nodes > 0:
            size[j] = job.allowed[0]
    fit_capacity(inst, size, cap, released)
    free = cap - sum(size)
    for j, job in enumerate(inst.jobs):
        if job.remaining_work > 0 and size[j] == 0 and job.current_nodes == 0 \
                and job.allowed and job.allowed[0] <= free:
            size[j] = job.allowed[0]
            free -= size[j]
    return size


def _best_step(inst: Instance, size: list[int], free: int) -> tuple[int, int]:
    """(job, next size) whose estimated remaining time R / f(n) drops the most per extra node
    within `free`; job −1 when no step fits or gains."""
    best, best_gain, best_next = -1, 0.0, 0
    for j, job in enumerate(inst.jobs):
        if size[j] == 0:
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


def optimus(inst: Instance, released: set[str] | None = None) -> np.ndarray:
    """Optimus-style marginal gain: the minimums first, then the remaining nodes go one step at
    a time to the job whose estimated remaining time drops the most per node. The allocation
    is held over the horizon, a job's nodes freed from the slot after its work runs out."""
    size = _minimums(inst, released or set())
    free = inst.capacity[0] - sum(size)
    while free > 0:
        best, best_next = _best_step(inst, size, free)
        if best < 0:
            break
        free -= best_next - size[best]
        size[best] = best_next
    return hold(inst, size)

"""Baseline policies of DESIGN §6 over the whole horizon: `greedy` and `fifo`.

Both simulate their own horizon with the instance's throughput: a job that runs out of work in
a slot frees its nodes from the next slot on. When a slot's capacity is below what the running
jobs hold, they shrink toward their minimum (latest submitted first), and only jobs released by
the capacity rule (solver.capacity) are stopped.
"""

from __future__ import annotations

import bisect

import numpy as np

from solver.instance import Instance, Job


def _largest_allowed(job: Job, limit: int) -> int:
    """The largest allowed node count ≤ limit (0 if none)."""
    allowed = job.allowed
    k = bisect.bisect_right(allowed, limit)
    return allowed[k - 1] if k else 0


def _fit_capacity(inst: Instance, size: list[int], cap: int, released: set[str]) -> None:
    over = sum(size) - cap
    order = sorted((j for j in range(len(size)) if size[j] > 0), reverse=True)
    for j in order:
        if over <= 0:
            return
        job = inst.jobs[j]
        target = _largest_allowed(job, max(size[j] - over, job.min_nodes))
        if 0 < target < size[j]:
            over -= size[j] - target
            size[j] = target
    for j in order:
        if over <= 0:
            return
        if inst.jobs[j].job_id in released and size[j] > 0:
            over -= size[j]
            size[j] = 0


def optimus(inst: Instance, released: set[str] | None = None) -> np.ndarray:
    """Optimus-style marginal gain: running jobs keep their minimum, queued jobs start at their
    minimum in submit order while it fits, then the remaining nodes go one step at a time to
    the job whose estimated remaining time R / f(n) drops the most per node. The allocation is
    held over the horizon, a job's nodes freed from the slot after its work runs out."""
    released = released or set()
    J, T = len(inst.jobs), inst.T
    cap = inst.capacity[0]
    size = [0] * J
    for j, job in enumerate(inst.jobs):
        if job.remaining_work > 0 and job.current_nodes > 0:
            size[j] = job.allowed[0]
    _fit_capacity(inst, size, cap, released)
    free = cap - sum(size)
    for j, job in enumerate(inst.jobs):
        if job.remaining_work > 0 and size[j] == 0 and job.current_nodes == 0 \
                and job.allowed and job.allowed[0] <= free:
            size[j] = job.allowed[0]
            free -= size[j]
    while free > 0:
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
        if best < 0:
            break
        free -= best_next - size[best]
        size[best] = best_next
    nodes = np.zeros((J, T), dtype=int)
    delta = inst.slot_seconds
    for j, job in enumerate(inst.jobs):
        left, prev = job.remaining_work, job.current_nodes
        for t in range(T):
            if size[j] == 0 or left <= 0:
                break
            nodes[j, t] = size[j]
            r = min(job.rescale_seconds, delta)
            left -= job.rate(size[j]) * (delta if size[j] == prev else delta - r)
            prev = size[j]
    return nodes


def simulate_policy(inst: Instance, policy: str, released: set[str] | None = None
                    ) -> np.ndarray:
    """nodes[j, t] for `greedy`, `fifo` or `optimus`."""
    if policy == "optimus":
        return optimus(inst, released)
    if policy not in ("greedy", "fifo"):
        raise ValueError(f"unknown baseline {policy!r}")
    released = released or set()
    J, T = len(inst.jobs), inst.T
    nodes = np.zeros((J, T), dtype=int)
    left = [job.remaining_work for job in inst.jobs]
    size = [job.current_nodes if job.remaining_work > 0 else 0 for job in inst.jobs]
    prev = [job.current_nodes for job in inst.jobs]
    delta = inst.slot_seconds
    for t in range(T):
        cap = inst.capacity[t]
        _fit_capacity(inst, size, cap, released)
        free = cap - sum(size)
        for j, job in enumerate(inst.jobs):
            if left[j] <= 0:
                continue
            if size[j] > 0:
                if policy == "greedy" and free > 0:
                    grown = _largest_allowed(job, min(job.max_nodes, size[j] + free))
                    if grown > size[j]:
                        free -= grown - size[j]
                        size[j] = grown
            elif policy == "greedy":
                if job.allowed and job.allowed[0] <= free:
                    size[j] = _largest_allowed(job, min(job.max_nodes, free))
                    free -= size[j]
            else:  # fifo: the head of the queue waits for its requested size; nobody overtakes
                want = job.requested_nodes if job.requested_nodes in job.allowed else \
                    _largest_allowed(job, job.requested_nodes) or job.allowed[0]
                if want <= free:
                    size[j] = want
                    free -= want
                else:
                    break
        for j, job in enumerate(inst.jobs):
            n = size[j]
            nodes[j, t] = n
            if n > 0:
                r = min(job.rescale_seconds, delta)
                left[j] -= job.rate(n) * (delta if n == prev[j] else delta - r)
            prev[j] = n
            if left[j] <= 0:
                size[j] = 0
    return nodes

"""Fitting a slot's sizes: the largest allowed size under a limit, and shrinking running jobs
to a slot's capacity (the rule of solver.policies.horizon)."""

from __future__ import annotations

import bisect

from solver.instance import Instance, Job


def largest_allowed(job: Job, limit: int) -> int:
    """The largest allowed node count ≤ limit (0 if none)."""
    allowed = job.allowed
    k = bisect.bisect_right(allowed, limit)
    return allowed[k - 1] if k else 0


def shrink(inst: Instance, size: list[int], order: list[int], over: int) -> int:
    """Shrink the jobs of `order`, in that order, in place toward their minimum until `over`
    nodes are given back; the nodes still over."""
    for j in order:
        if over <= 0:
            break
        job = inst.jobs[j]
        target = largest_allowed(job, max(size[j] - over, job.allowed[0]))
        if 0 < target < size[j]:
            over -= size[j] - target
            size[j] = target
    return over


def fit_capacity(inst: Instance, size: list[int], cap: int, released: set[str]) -> None:
    """Shrink `size` in place to fit `cap`: running jobs toward their minimum, latest submitted
    first, then the released jobs stop (latest first) until it fits."""
    order = sorted((j for j in range(len(size)) if size[j] > 0), reverse=True)
    over = shrink(inst, size, order, sum(size) - cap)
    for j in order:
        if over <= 0:
            return
        if inst.jobs[j].job_id in released and size[j] > 0:
            over -= size[j]
            size[j] = 0

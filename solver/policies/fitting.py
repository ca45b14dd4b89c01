"""Fitting a slot's sizes: the largest allowed size under a limit, and shrinking running jobs
to a slot's capacity and to each tenant's max_nodes (the rule of solver.policies.horizon)."""

from __future__ import annotations

import bisect
import math

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


def tenant_room(inst: Instance, size: list[int]) -> list[float]:
    """Per job, the nodes its tenant may still add under its max_nodes (inf: no cap)."""
    used: dict[str, int] = {}
    for job, n in zip(inst.jobs, size, strict=True):
        if job.tenant is not None:
            used[job.tenant] = used.get(job.tenant, 0) + n
    out = []
    for job in inst.jobs:
        q = inst.quotas.get(job.tenant or "")
        cap = None if q is None or job.tenant is None else q.max_nodes
        out.append(math.inf if cap is None else cap - used[job.tenant or ""])
    return out


def cap_tenants(inst: Instance, before: list[int], size: list[int]) -> set[int]:
    """Undo, in place and latest submitted first, what a step added (over `before`) beyond a
    tenant's max_nodes: a grown job back toward its size before, a start to a smaller size or
    off. The jobs cut back."""
    cut: set[int] = set()
    room = tenant_room(inst, size)
    for j in reversed(range(len(size))):
        over = -room[j]
        if over <= 0 or size[j] <= before[j]:
            continue
        job = inst.jobs[j]
        target = largest_allowed(job, max(size[j] - int(over), before[j]))
        target = max(target, before[j]) if before[j] else target
        for i, other in enumerate(inst.jobs):
            if other.tenant == job.tenant:
                room[i] += size[j] - target
        size[j] = target
        cut.add(j)
    return cut


def _fit(inst: Instance, size: list[int], jobs: list[int], cap: float, released: set[str]
         ) -> None:
    """Shrink the running `jobs` in place until they fit `cap`: toward their minimum, latest
    submitted first, then the released ones stop (latest first)."""
    order = sorted((j for j in jobs if size[j] > 0), reverse=True)
    over = shrink(inst, size, order, int(sum(size[j] for j in jobs) - cap))
    for j in order:
        if over <= 0:
            return
        if inst.jobs[j].job_id in released and size[j] > 0:
            over -= size[j]
            size[j] = 0


def fit_capacity(inst: Instance, size: list[int], cap: int, released: set[str]) -> None:
    """Shrink `size` in place to fit each tenant's max_nodes, then `cap` (the rule of `_fit`)."""
    for tenant, q in inst.quotas.items():
        if q.max_nodes is not None:
            mine = [j for j, job in enumerate(inst.jobs) if job.tenant == tenant]
            _fit(inst, size, mine, q.max_nodes, released)
    _fit(inst, size, list(range(len(size))), cap, released)

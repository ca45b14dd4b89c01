"""`greedy` (DESIGN §6, the paper's benchmark): in submit order, each job starts when its
smallest size fits and takes as many nodes as are free up to its maximum; nodes freed later go
to running jobs in submit order; never scales down (except to fit a smaller capacity)."""

from __future__ import annotations

import numpy as np

from solver.instance import Instance, Job
from solver.policies.fitting import largest_allowed
from solver.policies.horizon import simulate


def _step(jobs: list[Job], size: list[int], left: np.ndarray, free: int) -> None:
    for j, job in enumerate(jobs):
        if left[j] <= 0:
            continue
        if size[j] > 0:
            if free > 0:
                grown = largest_allowed(job, min(job.max_nodes, size[j] + free))
                if grown > size[j]:
                    free -= grown - size[j]
                    size[j] = grown
        elif job.allowed and job.allowed[0] <= free:
            size[j] = largest_allowed(job, min(job.max_nodes, free))
            free -= size[j]


def greedy(inst: Instance, released: set[str] | None = None) -> np.ndarray:
    """nodes[j, t] of the greedy plan; jobs in `released` may be stopped to fit capacity."""
    return simulate(inst, released or set(), _step)

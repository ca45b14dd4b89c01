"""`fifo` (DESIGN §6): non-elastic; in submit order, each job starts at its requested size when
that many nodes are free and keeps it to the end. The head of the queue waits for its size;
nobody overtakes it."""

from __future__ import annotations

import numpy as np

from solver.instance import Instance, Job
from solver.policies.fitting import largest_allowed
from solver.policies.horizon import simulate


def _step(jobs: list[Job], size: list[int], left: np.ndarray, free: int) -> None:
    for j, job in enumerate(jobs):
        if left[j] <= 0 or size[j] > 0:
            continue
        want = job.requested_nodes if job.requested_nodes in job.allowed else \
            largest_allowed(job, job.requested_nodes) or job.allowed[0]
        if want > free:
            break
        size[j] = want
        free -= want


def fifo(inst: Instance, released: set[str] | None = None) -> np.ndarray:
    """nodes[j, t] of the FIFO plan; jobs in `released` may be stopped to fit capacity."""
    return simulate(inst, released or set(), _step)

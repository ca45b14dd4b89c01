"""What the heuristic policies share: running a per-slot allocation rule over the horizon with
the instance's throughput, and fitting running jobs into a slot's capacity.

A job that runs out of work in a slot frees its nodes from the next slot on. When a slot's
capacity is below what the running jobs hold, they shrink toward their minimum (latest
submitted first), and only jobs released by the capacity rule (solver.capacity) are stopped.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

import numpy as np

from solver.instance import Instance, Job
from solver.objective import slot_progress

# one slot's decision: grows `size` (nodes per job, in submit order) in place, given each job's
# work `left` (samples) and the nodes `free` in the slot
Step = Callable[[list[Job], list[int], np.ndarray, int], None]


def largest_allowed(job: Job, limit: int) -> int:
    """The largest allowed node count ≤ limit (0 if none)."""
    allowed = job.allowed
    k = bisect.bisect_right(allowed, limit)
    return allowed[k - 1] if k else 0


def fit_capacity(inst: Instance, size: list[int], cap: int, released: set[str]) -> None:
    """Shrink `size` in place to fit `cap`: running jobs toward their minimum, latest submitted
    first, then the released jobs stop (latest first) until it fits."""
    over = sum(size) - cap
    order = sorted((j for j in range(len(size)) if size[j] > 0), reverse=True)
    for j in order:
        if over <= 0:
            return
        job = inst.jobs[j]
        target = largest_allowed(job, max(size[j] - over, job.min_nodes))
        if 0 < target < size[j]:
            over -= size[j] - target
            size[j] = target
    for j in order:
        if over <= 0:
            return
        if inst.jobs[j].job_id in released and size[j] > 0:
            over -= size[j]
            size[j] = 0


def work_left(inst: Instance, nodes: np.ndarray, prev: np.ndarray, left: np.ndarray
              ) -> np.ndarray:
    """Samples each job has left after one slot on `nodes` (after `prev`), by the one
    slot-progress rule; 0 once done."""
    rate = np.array([job.rate(int(n)) for job, n in zip(inst.jobs, nodes, strict=True)])
    rescale = np.array([min(job.rescale_seconds, inst.slot_seconds) for job in inst.jobs])
    return left - slot_progress(rate, nodes, prev, left, 1.0, rescale, inst.slot_seconds)


def simulate(inst: Instance, released: set[str], step: Step) -> np.ndarray:
    """nodes[j, t] when every slot the running jobs are fitted to its capacity and then `step`
    hands out the free nodes."""
    J, T = len(inst.jobs), inst.T
    nodes = np.zeros((J, T), dtype=int)
    left = np.array([job.remaining_work for job in inst.jobs], dtype=float)
    size = [job.current_nodes if job.remaining_work > 0 else 0 for job in inst.jobs]
    prev = np.array([job.current_nodes for job in inst.jobs], dtype=int)
    for t in range(T):
        cap = inst.capacity[t]
        fit_capacity(inst, size, cap, released)
        step(inst.jobs, size, left, cap - sum(size))
        nodes[:, t] = size
        left = work_left(inst, nodes[:, t], prev, left)
        prev = nodes[:, t]
        size = [0 if rest <= 0 else n for n, rest in zip(size, left, strict=True)]
    return nodes


def hold(inst: Instance, size: list[int]) -> np.ndarray:
    """nodes[j, t]: each job keeps `size[j]` over the horizon until its work runs out."""
    J, T = len(inst.jobs), inst.T
    nodes = np.zeros((J, T), dtype=int)
    want = np.array(size, dtype=int)
    left = np.array([job.remaining_work for job in inst.jobs], dtype=float)
    prev = np.array([job.current_nodes for job in inst.jobs], dtype=int)
    for t in range(T):
        nodes[:, t] = np.where(left > 0, want, 0)
        left = work_left(inst, nodes[:, t], prev, left)
        prev = nodes[:, t]
    return nodes

"""What the heuristic policies share: running a per-slot allocation rule over the horizon with
the instance's throughput, and fitting running jobs into a slot's capacity.

A job that runs out of work in a slot frees its nodes from the next slot on. When a slot's
capacity is below what the running jobs hold, they shrink toward their minimum (latest
submitted first), and only jobs released by the capacity rule (solver.capacity) are stopped.
A queued job starts only when its smallest size still fits the tightest later slot beside the
smallest sizes of the jobs already on (no job stops before it is done, DESIGN §4), so a plan
never holds more nodes than a slot has.

Tenant quotas (DESIGN §4.2): the fit also keeps each tenant within its max_nodes, whatever a
step adds beyond it is cut back and handed out again to other tenants' jobs, and in slot 0 the
queued jobs of the guarantees' first pass (solver.quotas) start first, at their minimum size,
so every tenant gets its effective guarantee.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from solver.instance import Instance, Job
from solver.objective import slot_progress
from solver.policies.churn import fit_first_slot, limit_churn
from solver.policies.fitting import cap_tenants, fit_capacity
from solver.quotas import guaranteed_starts

# one slot's decision: grows `size` (nodes per job, in submit order) in place, given each job's
# work `left` (samples) and the nodes `free` in the slot
Step = Callable[[list[Job], list[int], np.ndarray, int], None]


def start_room(inst: Instance, size: list[int], released: set[str], t: int) -> int:
    """Nodes a job starting in slot t may take for good: the tightest capacity from t on less
    the smallest sizes of the jobs on that may not stop (not released)."""
    held = sum(job.allowed[0] for job, n in zip(inst.jobs, size, strict=True)
               if n > 0 and job.job_id not in released)
    return min(inst.capacity[t:]) - held


def keep_fitting_starts(inst: Instance, before: list[int], size: list[int], released: set[str],
                        t: int) -> None:
    """Undo, in place and in submit order, the starts of slot t (jobs off in `before`, on in
    `size`) whose smallest size would not fit the tightest later slot."""
    room = start_room(inst, before, released, t)
    for j, job in enumerate(inst.jobs):
        if before[j] == 0 and size[j] > 0:
            if job.allowed[0] <= room:
                room -= job.allowed[0]
            else:
                size[j] = 0


def work_left(inst: Instance, nodes: np.ndarray, prev: np.ndarray, left: np.ndarray
              ) -> np.ndarray:
    """Samples each job has left after one slot on `nodes` (after `prev`), by the one
    slot-progress rule; 0 once done."""
    rate = np.array([job.rate(int(n)) for job, n in zip(inst.jobs, nodes, strict=True)])
    rescale = np.array([min(job.rescale_seconds, inst.slot_seconds) for job in inst.jobs])
    return left - slot_progress(rate, nodes, prev, left, 1.0, rescale, inst.slot_seconds)


def start_guaranteed(inst: Instance, size: list[int]) -> None:
    """Start the queued jobs of the guarantees' first pass at their minimum size (in place)."""
    for j in guaranteed_starts(inst):
        if size[j] == 0:
            size[j] = inst.jobs[j].allowed[0]


def step_within_quotas(inst: Instance, step: Step, before: list[int], size: list[int],
                       left: np.ndarray, cap: int) -> None:
    """`step`, then what it added beyond a tenant's max_nodes cut back (latest first) and the
    freed nodes handed out again by `step` to the jobs of the tenants not yet cut."""
    step(inst.jobs, size, left, cap - sum(size))
    held: set[str | None] = set()
    while True:
        cut = cap_tenants(inst, before, size)
        if not cut:
            return
        held |= {inst.jobs[j].tenant for j in cut}
        masked = np.where([job.tenant in held for job in inst.jobs], 0.0, left)
        step(inst.jobs, size, masked, cap - sum(size))


def simulate(inst: Instance, released: set[str], step: Step) -> np.ndarray:
    """nodes[j, t] when every slot the running jobs are fitted to its capacity and then `step`
    hands out the free nodes; in slot 0 both keep the churn rules (solver.policies.churn)."""
    J, T = len(inst.jobs), inst.T
    nodes = np.zeros((J, T), dtype=int)
    left = np.array([job.remaining_work for job in inst.jobs], dtype=float)
    size = [job.current_nodes if job.remaining_work > 0 else 0 for job in inst.jobs]
    prev = np.array([job.current_nodes for job in inst.jobs], dtype=int)
    for t in range(T):
        cap = inst.capacity[t]
        if t == 0:
            fit_first_slot(inst, size, released)
            start_guaranteed(inst, size)
        else:
            fit_capacity(inst, size, cap, released)
        before = list(size)
        step_within_quotas(inst, step, before, size, left, cap)
        keep_fitting_starts(inst, before, size, released, t)
        if t == 0:
            limit_churn(inst, before, size)
        nodes[:, t] = size
        left = work_left(inst, nodes[:, t], prev, left)
        prev = nodes[:, t]
        size = [0 if rest <= 0 else n for n, rest in zip(size, left, strict=True)]
    return nodes


def hold(inst: Instance, size: list[int], released: set[str] | None = None) -> np.ndarray:
    """nodes[j, t]: each job keeps `size[j]` over the horizon until its work runs out. With
    `released` given, fitted to each slot's capacity (shrunk toward its minimum; a released job
    once stopped stays off); without, exactly `size` (the churn-free `keep` plan)."""
    J, T = len(inst.jobs), inst.T
    nodes = np.zeros((J, T), dtype=int)
    want = list(size)
    left = np.array([job.remaining_work for job in inst.jobs], dtype=float)
    prev = np.array([job.current_nodes for job in inst.jobs], dtype=int)
    for t in range(T):
        slot = [n if rest > 0 else 0 for n, rest in zip(want, left, strict=True)]
        if released is not None:
            fit_capacity(inst, slot, inst.capacity[t], released)
        want = [0 if n == 0 and w > 0 and rest > 0 else w
                for n, w, rest in zip(slot, want, left, strict=True)]
        nodes[:, t] = slot
        left = work_left(inst, nodes[:, t], prev, left)
        prev = nodes[:, t]
    return nodes

"""`greedy-elastic` (DESIGN §6): the greedy an elastic platform runs, re-deciding every window
in submit order. Running jobs keep at least their minimum; queued jobs start at their minimum
while it fits, running jobs shrinking toward their minimum (latest submitted first) to make
room; then the nodes left go in submit order, each job up to its maximum.

A queued job whose minimum does not fit even then waits and later ones may start (backfill).
Like every baseline: capacity per slot (running jobs fitted first, solver.policies.fitting),
no preemption (a start must fit the tightest later slot beside the minimums of the jobs on, as
in solver.policies.horizon; only jobs the capacity rule released stop, and they stay off), and
in slot 0 the churn rules (DESIGN §4.1): a job in its cooldown keeps its size and at most
`max_rescales` running jobs change size, the rescales forced by capacity counting first; and
each tenant's max_nodes (DESIGN §4.2; its guarantees are not sought).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from solver.instance import Instance
from solver.policies.churn import fit_first_slot, rescaled
from solver.policies.fitting import fit_capacity, largest_allowed, shrink, tenant_room
from solver.policies.horizon import start_guaranteed, start_room, work_left


@dataclass
class _Gate:
    """Which running jobs may change size in a slot: all of them past slot 0; in slot 0 those
    out of their cooldown, within the budget (`changed`: the jobs already counted)."""
    inst: Instance
    active: bool
    changed: set[int] = field(default_factory=set)

    def counts(self, j: int) -> bool:
        """Whether a change of job j would be a new rescale against the budget."""
        return self.active and self.inst.jobs[j].current_nodes > 0 and j not in self.changed

    def can(self, j: int, spent: int = 0) -> bool:
        """Whether job j may change size, with `spent` more rescales already promised."""
        if not self.active or self.inst.jobs[j].current_nodes == 0:
            return True
        if self.inst.in_cooldown(self.inst.jobs[j]):
            return False
        budget = math.inf if self.inst.max_rescales is None else self.inst.max_rescales
        return j in self.changed or len(self.changed) + spent < budget

    def spend(self, j: int) -> None:
        if self.counts(j):
            self.changed.add(j)


def _make_room(inst: Instance, size: list[int], cap: int, gate: _Gate, need: int) -> bool:
    """Shrink running jobs in place toward their minimum, latest submitted first, until `need`
    nodes are free; False (nothing changed) when they cannot give that much."""
    free = cap - sum(size)
    if free >= need:
        return True
    order, spare, spent = [], 0, 0
    for j in reversed(range(len(size))):
        job = inst.jobs[j]
        if size[j] > job.allowed[0] and gate.can(j, spent):
            spent += gate.counts(j)
            order.append(j)
            spare += size[j] - job.allowed[0]
    if free + spare < need:
        return False
    before = list(size)
    shrink(inst, size, order, need - free)
    for j in order:
        if size[j] != before[j]:
            gate.spend(j)
    return True


def _quota_room(inst: Instance, size: list[int], j: int) -> float:
    """Nodes job j's tenant may still add under its max_nodes (DESIGN §4.2; inf: no cap)."""
    return tenant_room(inst, size)[j] if inst.quotas else math.inf


def _step(inst: Instance, size: list[int], cap: int, left: np.ndarray, gate: _Gate,
          room: int, stopped: set[int]) -> None:
    """One slot in place: starts at the minimum (making room), then growth in submit order,
    each within its tenant's max_nodes."""
    for j, job in enumerate(inst.jobs):
        if size[j] > 0 or left[j] <= 0 or j in stopped or not job.allowed:
            continue
        need = job.allowed[0]
        if need <= min(room, _quota_room(inst, size, j)) \
                and _make_room(inst, size, cap, gate, need):
            size[j] = need
            room -= need
    free = cap - sum(size)
    for j, job in enumerate(inst.jobs):
        if free <= 0:
            break
        if size[j] > 0 and left[j] > 0 and gate.can(j):
            limit = min(job.max_nodes, size[j] + free, size[j] + _quota_room(inst, size, j))
            grown = largest_allowed(job, int(limit))
            if grown > size[j]:
                gate.spend(j)
                free -= grown - size[j]
                size[j] = grown


def greedy_elastic(inst: Instance, released: set[str] | None = None) -> np.ndarray:
    """nodes[j, t] of the greedy-elastic plan; jobs in `released` may be stopped to fit
    capacity (and then stay off over the horizon)."""
    released = released or set()
    J, T = len(inst.jobs), inst.T
    nodes = np.zeros((J, T), dtype=int)
    left = np.array([job.remaining_work for job in inst.jobs], dtype=float)
    size = [job.current_nodes if job.remaining_work > 0 else 0 for job in inst.jobs]
    prev = np.array([job.current_nodes for job in inst.jobs], dtype=int)
    stopped: set[int] = set()
    for t in range(T):
        on = [n > 0 for n in size]
        if t == 0:
            fit_first_slot(inst, size, released)
            start_guaranteed(inst, size)   # tenant guarantees' first pass (DESIGN §4.2)
        else:
            fit_capacity(inst, size, inst.capacity[t], released)
        stopped |= {j for j in range(J) if on[j] and size[j] == 0 and left[j] > 0}
        gate = _Gate(inst, active=t == 0, changed=set(rescaled(inst, size)) if t == 0 else set())
        _step(inst, size, inst.capacity[t], left, gate, start_room(inst, size, released, t),
              stopped)
        nodes[:, t] = size
        left = work_left(inst, nodes[:, t], prev, left)
        prev = nodes[:, t]
        size = [0 if rest <= 0 else n for n, rest in zip(size, left, strict=True)]
    return nodes

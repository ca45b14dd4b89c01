"""Tenant quotas (DESIGN §4.2): the one rule for each tenant's cap and effective guarantee per
slot, read by the model, column generation, the baselines and the quota check.

In every slot t a tenant k's jobs hold at most `max_k` nodes and at least the effective
guarantee G[k, t] = min(g'_k(t), D_k(t)):
- g'_k(t) is the guarantee g_k, scaled down in proportion (rounded down) when the guarantees
  together exceed the slot's capacity C_t; the plan warns;
- D_k(t) is what the tenant's jobs surely use at their minimum sizes in slot t: the minimum
  sizes of its "guaranteed jobs" that cannot have finished before t even at their fastest size.
  Its guaranteed jobs are its running jobs that may not stop (not released by solver.capacity)
  and the queued jobs the first pass admits: in submit order, a queued job of a tenant still
  under g'_k starts at its minimum size while that fits beside every running job at its current
  size (in slot 0, in capacity and in the tenant's max_k) and beside the minimums of the jobs
  that stay on (in the tightest slot). When running jobs do not fit slot 0 as they are, the
  first pass admits nobody.
The plan "running jobs keep their size in slot 0, then every guaranteed job runs at its minimum
until done" obeys capacity, max_k, no-preemption and the churn rules, and gives every tenant at
least G[k, t]: the guarantees never make the model infeasible. The baselines start the first
pass's jobs in slot 0 (`guaranteed_starts`), so they honour the guarantees too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from solver.capacity import preemptible_jobs, scaled_guarantees
from solver.instance import Instance, Job


@dataclass
class TenantRows:
    """The quota rows of a window: one per (tenant with a quota and jobs, slot)."""
    tenants: list[str]
    members: np.ndarray          # [K, J] bool: job j belongs to tenant k
    cap: np.ndarray              # [K] max_k (inf: no cap)
    floor: np.ndarray            # [K, T] effective guarantee G[k, t]
    starts: list[int] = field(default_factory=list)   # queued jobs of the first pass
    warnings: list[str] = field(default_factory=list)

    @property
    def K(self) -> int:  # noqa: N802 - the model's notation
        return len(self.tenants)

    def usage(self, nodes: np.ndarray) -> np.ndarray:
        """[K, T]: the nodes each tenant holds per slot under `nodes[j, t]`."""
        return self.members.astype(float) @ np.asarray(nodes, dtype=float)

    def active(self) -> np.ndarray:
        """[K, T] bool: the (tenant, slot) pairs with a row: a cap or a positive guarantee."""
        return np.isfinite(self.cap)[:, None] | (self.floor > 0)

    def guaranteed(self) -> np.ndarray:
        """[K] bool: the tenant has a positive guarantee in some slot."""
        return (self.floor > 0).any(axis=1)


def _sure_alive(inst: Instance, job: Job) -> np.ndarray:
    """[T] bool: the job cannot have finished before slot t, even at its fastest size."""
    fastest = max((job.rate(n) for n in job.allowed), default=0.0)
    share = fastest * inst.slot_seconds / job.remaining_work if job.remaining_work > 0 else 1.0
    return np.arange(inst.T) * share < 1.0 - 1e-6


def _first_pass(inst: Instance, released: set[str], target: dict[str, float],
                held: dict[str, float]) -> list[int]:
    """Queued jobs (indices) the first pass starts at their minimum size, `held`: nodes of each
    tenant's guaranteed running jobs at their minimum (updated in place)."""
    running = [j for j in inst.jobs if j.current_nodes > 0 and j.remaining_work > 0]
    room = min(inst.capacity[0] - sum(j.current_nodes for j in running),
               min(inst.capacity) - sum(j.allowed[0] for j in running
                                        if j.job_id not in released))
    tenant_room = {}
    for k, q in inst.quotas.items():
        now = sum(j.current_nodes for j in running if j.tenant == k)
        tenant_room[k] = math.inf if q.max_nodes is None else q.max_nodes - now
    if room < 0 or min(tenant_room.values(), default=0) < 0:
        return []
    out = []
    for j, job in enumerate(inst.jobs):
        k = job.tenant
        if job.current_nodes > 0 or job.remaining_work <= 0 or not job.allowed \
                or k not in target or held[k] >= target[k]:
            continue
        need = job.allowed[0]
        if need <= room and need <= tenant_room[k]:
            out.append(j)
            room -= need
            tenant_room[k] -= need
            held[k] += need
    return out


def tenant_rows(inst: Instance) -> TenantRows:
    """The caps and effective guarantees of every tenant with a quota and jobs in the window."""
    tenants = [k for k in inst.quotas if any(job.tenant == k for job in inst.jobs)]
    J, T = len(inst.jobs), inst.T
    members = np.array([[job.tenant == k for job in inst.jobs] for k in tenants],
                       dtype=bool).reshape(len(tenants), J)
    cap = np.array([math.inf if inst.quotas[k].max_nodes is None else inst.quotas[k].max_nodes
                    for k in tenants], dtype=float)
    scaled, warnings = scaled_guarantees(inst, tenants)
    released, _ = preemptible_jobs(inst)
    kept = [j for j, job in enumerate(inst.jobs) if job.current_nodes > 0
            and job.remaining_work > 0 and job.job_id not in released and job.tenant in tenants]
    held = {k: float(sum(inst.jobs[j].allowed[0] for j in kept if inst.jobs[j].tenant == k))
            for k in tenants}
    target = {k: float(scaled[i].max()) for i, k in enumerate(tenants) if scaled[i].max() > 0}
    starts = _first_pass(inst, released, target, held)
    floor = np.zeros((len(tenants), T))
    index = {k: i for i, k in enumerate(tenants)}
    for j in kept + starts:
        job = inst.jobs[j]
        floor[index[job.tenant]] += job.allowed[0] * _sure_alive(inst, job)
    return TenantRows(tenants, members, cap, np.minimum(floor, scaled), starts, warnings)


def guaranteed_starts(inst: Instance) -> list[int]:
    """The queued jobs a baseline starts first, at their minimum size, in slot 0 (the first
    pass of `tenant_rows`); none without guarantees."""
    if not any(q.guaranteed_nodes > 0 for q in inst.quotas.values()):
        return []
    return tenant_rows(inst).starts

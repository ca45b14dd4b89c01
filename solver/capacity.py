"""When capacity falls below what running jobs need (nodes failed): the documented rule.

No-preemption (DESIGN §4, constraint 4) keeps every running job on. If the minimum sizes of the
running jobs exceed the smallest capacity of the horizon, no plan can keep them all, so the most
recently submitted running jobs (last in the instance's submit order) are released from the rule
— they may be stopped — one at a time until the others' minimums fit. Each released job is
named in the plan's warnings. Running jobs that stay may still be shrunk down to their minimum.
A tenant's `max_nodes` (DESIGN §4.2) is a capacity for its own jobs: the same rule applies to
each tenant's running jobs against it, where a job that may not change size in slot 0 (in its
cooldown, or under any churn budget, which may be spent elsewhere) counts its current size.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from solver.instance import Instance, Job


def _release(running: list[Job], cap: int, released: set[str], warnings: list[str],
             what: str, least: Callable[[Job], int] = lambda job: job.min_nodes) -> None:
    """Release the latest of `running` (not yet released) until what the others hold at least
    (`least`: their minimum) fits `cap`; in place."""
    kept = [j for j in running if j.job_id not in released]
    need = sum(least(j) for j in kept)
    for job in reversed(kept):
        if need <= cap:
            break
        released.add(job.job_id)
        need -= least(job)
        warnings.append(f"{what} {cap} < minimum sizes of running jobs: job {job.job_id} "
                        "may be preempted")


def preemptible_jobs(inst: Instance) -> tuple[set[str], list[str]]:
    """Jobs released from no-preemption, and the warnings that say so (with those of tenant
    guarantees scaled down to the capacity, solver.quotas)."""
    running = [j for j in inst.jobs if j.current_nodes > 0 and j.remaining_work > 0]
    released: set[str] = set()
    warnings: list[str] = []
    _release(running, min(inst.capacity), released, warnings, "capacity")

    def least(job: Job) -> int:
        fixed = inst.in_cooldown(job) or inst.max_rescales is not None
        return job.current_nodes if fixed else job.min_nodes

    for tenant, quota in inst.quotas.items():
        if quota.max_nodes is not None:
            mine = [j for j in running if j.tenant == tenant]
            _release(mine, quota.max_nodes, released, warnings, f"tenant {tenant} max_nodes",
                     least)
    tenants = [k for k in inst.quotas if any(job.tenant == k for job in inst.jobs)]
    return released, warnings + scaled_guarantees(inst, tenants)[1]


def scaled_guarantees(inst: Instance, tenants: list[str]) -> tuple[np.ndarray, list[str]]:
    """[K, T] g'_k(t): the guarantees, scaled down in proportion where together they exceed
    C_t, and the warnings that say so."""
    g = np.array([inst.quotas[k].guaranteed_nodes for k in tenants], dtype=float)
    out = np.repeat(g[:, None], inst.T, axis=1)
    warnings = []
    total = g.sum()
    for t, cap in enumerate(inst.capacity):
        if total > cap:
            out[:, t] = np.floor(g * cap / total)
            warnings.append(f"slot {t}: tenant guarantees {int(total)} exceed capacity {cap}; "
                            "scaled down in proportion")
    return out, warnings

"""When capacity falls below what running jobs need (nodes failed): the documented rule.

No-preemption (DESIGN §4, constraint 4) keeps every running job on. If the minimum sizes of the
running jobs exceed the smallest capacity of the horizon, no plan can keep them all, so the most
recently submitted running jobs (last in the instance's submit order) are released from the rule
— they may be stopped — one at a time until the others' minimums fit. Each released job is
named in the plan's warnings. Running jobs that stay may still be shrunk down to their minimum.
"""

from __future__ import annotations

from solver.instance import Instance


def preemptible_jobs(inst: Instance) -> tuple[set[str], list[str]]:
    """Jobs released from no-preemption, and the warnings that say so."""
    running = [j for j in inst.jobs if j.current_nodes > 0 and j.remaining_work > 0]
    need = sum(j.min_nodes for j in running)
    cap = min(inst.capacity)
    released: set[str] = set()
    warnings: list[str] = []
    for job in reversed(running):
        if need <= cap:
            break
        released.add(job.job_id)
        need -= job.min_nodes
        warnings.append(f"capacity {cap} < minimum sizes of running jobs: job {job.job_id} "
                        "may be preempted")
    return released, warnings

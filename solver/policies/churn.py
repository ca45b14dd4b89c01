"""The churn budget of DESIGN §4.1 for the baselines: in slot 0 a running job in its cooldown
keeps its current size, and at most `max_rescales` running jobs take another size (a start
from 0 and a stop are not rescales, as in `solver.objective.rescales`).

A shrink forced by falling capacity is a rescale too. When the usual fit (solver.horizon
`fit_capacity`) would break the rules, the jobs the capacity rule released stop instead
(latest submitted first, as in the MIP, where only they may stop), and then the running jobs
free to resize shrink, those that give back most first, up to the budget. Only when no plan
can obey the rules (the MIP has none either) does the usual fit stand.
"""

from __future__ import annotations

import math

from solver.instance import Instance
from solver.policies.fitting import fit_capacity, shrink, tenant_room


def has_rules(inst: Instance) -> bool:
    return inst.max_rescales is not None or inst.cooldown_seconds is not None


def _budget(inst: Instance) -> float:
    return math.inf if inst.max_rescales is None else inst.max_rescales


def rescaled(inst: Instance, size: list[int]) -> list[int]:
    """Indices of the running jobs that take another size than their current one in `size`."""
    return [j for j, (job, n) in enumerate(zip(inst.jobs, size, strict=True))
            if job.current_nodes > 0 and n > 0 and n != job.current_nodes]


def obeys(inst: Instance, size: list[int]) -> bool:
    """Whether slot-0 sizes `size` keep the cooldown and the budget."""
    changed = rescaled(inst, size)
    return len(changed) <= _budget(inst) and not any(inst.in_cooldown(inst.jobs[j])
                                                     for j in changed)


def _release_then_shrink(inst: Instance, size: list[int], jobs: list[int], cap: float,
                         released: set[str]) -> None:
    """Fit the `jobs` of `size` to `cap` in place: released jobs stop (latest first), then
    running jobs out of their cooldown shrink toward their minimum: those already resized
    first, then the others, largest saving first, up to the budget."""
    over = int(sum(size[j] for j in jobs) - cap)
    for j in reversed(jobs):
        if over > 0 and size[j] > 0 and inst.jobs[j].job_id in released:
            over -= size[j]
            size[j] = 0
    done = set(rescaled(inst, size))
    free = [j for j in jobs if size[j] > 0 and not inst.in_cooldown(inst.jobs[j])]
    free.sort(key=lambda j: (j not in done, -(size[j] - inst.jobs[j].allowed[0])))
    room = int(min(max(_budget(inst) - len(done), 0), len(free)))
    shrink(inst, size, [j for j in free if j in done] + [j for j in free if j not in done][:room],
           over)


def fit_first_slot(inst: Instance, size: list[int], released: set[str]) -> None:
    """Fit slot-0 sizes (the current ones) to the slot's capacity in place, obeying the churn
    rules whenever some plan can."""
    before = list(size)
    fit_capacity(inst, size, inst.capacity[0], released)
    if not has_rules(inst) or obeys(inst, size):
        return
    other = list(before)
    for tenant, q in inst.quotas.items():   # each tenant's max_nodes first (DESIGN §4.2)
        if q.max_nodes is not None:
            mine = [j for j, job in enumerate(inst.jobs) if job.tenant == tenant]
            _release_then_shrink(inst, other, mine, q.max_nodes, released)
    _release_then_shrink(inst, other, list(range(len(other))), inst.capacity[0], released)
    if sum(other) <= inst.capacity[0] and obeys(inst, other) \
            and min(tenant_room(inst, other), default=0) >= 0:
        size[:] = other


def limit_churn(inst: Instance, fitted: list[int], size: list[int]) -> None:
    """Undo, in place and in submit order, the slot-0 resizes a baseline's step made on top of
    the fitted sizes (`fitted`, whose forced rescales count first) that the churn rules forbid:
    those of jobs in their cooldown and those beyond `max_rescales`. The step only adds nodes,
    so undoing it always fits."""
    forced = set(rescaled(inst, fitted))
    count, budget = len(forced), _budget(inst)
    for j in rescaled(inst, size):
        if j in forced:
            continue
        if inst.in_cooldown(inst.jobs[j]) or count >= budget:
            size[j] = fitted[j]
        else:
            count += 1

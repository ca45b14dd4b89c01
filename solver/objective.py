"""The objective of DESIGN §4 for any plan, its constraints as a check, and the one slot-progress
rule every policy, the scoring and the ETCs use.

Every policy (MIP, greedy, FIFO, ...) is scored here, so plans compare on one scale.
A plan is a matrix `nodes[j, t]` (0 = not running). Progress is computed exactly as the model
reads it: in slot t job j does f(n)·(Δ − r) samples, plus f(n)·r when it kept the same size
from the slot before (for t = 0, from its current size), never more than it has left.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.instance import Instance, Job
from solver.quotas import tenant_rows

EPS_SHARE = 1e-6   # the idle-allocation tie-break, as a share of the smallest progress weight
DONE_TOL = 1e-6


@dataclass
class Coefficients:
    progress: np.ndarray   # [J, T] objective weight of one unit of p̃ = p / R_j
    eps: float             # penalty per node-slot
    rescale: float = 0.0   # penalty per rescale, or stop before done, of a job (κ node-slots)


def coefficients(inst: Instance) -> Coefficients:
    """The objective's weights (DESIGN §4): a unit of work p of job j in slot t is worth
    w_j (1 + q_j/τ) γ^t / (W_j^(1−α) R_j^α), so per p̃ = p/R_j the weight is
    w_j (1 + q_j/τ) γ^t (R_j/W_j)^(1−α) (α = 0: share of total work; α = 1: share of remaining
    work), times the critical-path factor 1 + T_j/θ (`critical_factor`). A rescale costs κ
    node-slots, a node-slot being worth the median over jobs of one
    node's slot-0 progress value at the job's smallest size."""
    J, T = len(inst.jobs), inst.T
    coef = np.zeros((J, T))
    disc = inst.discount ** np.arange(T)
    one_node = []
    for j, job in enumerate(inst.jobs):
        if job.remaining_work > 0:
            aging = 1.0 + job.waiting_seconds / inst.aging_seconds
            share = (job.remaining_work / job.total_work) ** (1.0 - inst.progress_exponent)
            coef[j] = job.weight * aging * disc * share * critical_factor(inst, job)
            if job.allowed:
                n = job.allowed[0]
                one_node.append(coef[j, 0] * job.rate(n) * inst.slot_seconds
                                / job.remaining_work / n)
    positive = coef[coef > 0]
    eps = EPS_SHARE * float(positive.min()) if positive.size else EPS_SHARE
    rescale = inst.rescale_penalty * float(np.median(one_node)) if one_node else 0.0
    return Coefficients(coef, eps, rescale)


def critical_factor(inst: Instance, job: Job) -> float:
    """1 + T_j/θ for a running job, θ = `critical_seconds` (0: the factor is 1), T_j = its
    remaining work at its fastest allowed size, in seconds; 1 for a queued job. Work done now
    shortens a job that can never run faster than T_j by up to a second per second, however idle
    the cluster is later; a job that can run far faster catches up then. So a long running job
    whose speed-up tops out early (yolov3 at 2.9x on 4 GPUs) is not held at 1 GPU while short,
    widely parallel jobs come and go. A queued job competes on its aging alone: raising long
    queued jobs too let them take the cluster ahead of short ones wherever jobs queue
    (docs/model.md, "Defaults by slot length")."""
    if not inst.critical_seconds or not job.allowed or job.current_nodes <= 0:
        return 1.0
    fastest = max(job.rate(n) for n in job.allowed)
    return 1.0 + job.remaining_work / fastest / inst.critical_seconds if fastest > 0 else 1.0


def starved_seconds(age: float, attained_gpu_seconds: float, requested: int) -> float:
    """The time a job has waited for its requested size, which the objective ages (`q_j`):
    its age less its attained service counted in seconds at its requested size, never below 0.
    A queued job's is its time in the queue; a job held at a quarter of its request ages at
    three quarters of a second per second; one run above its request earns that back."""
    return max(0.0, age - attained_gpu_seconds / max(requested, 1))


def _before(inst: Instance, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(nodes, prev) as int [J, T]: prev is each job's size in the slot before (for t = 0: its
    current size)."""
    nodes = np.asarray(nodes, dtype=int)
    cur = np.array([job.current_nodes for job in inst.jobs], dtype=int).reshape(-1, 1)
    return nodes, np.concatenate([cur, nodes[:, :-1]], axis=1)


def rescales(inst: Instance, nodes: np.ndarray) -> np.ndarray:
    """[J, T]: 1 where a job that ran in the slot before (for t = 0: its current size) runs on
    another size; a start from 0 and a stop are not rescales."""
    nodes, prev = _before(inst, nodes)
    return (prev > 0) & (nodes > 0) & (nodes != prev)


def unfinished(inst: Instance) -> np.ndarray:
    """[J, T]: whether job j still has work left at the start of slot t whatever it runs: t
    slots at its fastest size, with no restart, do less than it has left. A job that ran in slot
    t−1 and does not in slot t stopped there; elsewhere its work may have ended."""
    J, T = len(inst.jobs), inst.T
    share = np.zeros(J)
    alive = np.zeros(J, dtype=bool)
    for j, job in enumerate(inst.jobs):
        alive[j] = job.remaining_work > 0
        fastest = max((job.rate(n) for n in job.allowed), default=0.0)
        share[j] = fastest * inst.slot_seconds / job.remaining_work if alive[j] else 0.0
    return (np.arange(T)[None, :] * share[:, None] < 1.0 - 1e-9) & alive[:, None]


def changes(inst: Instance, nodes: np.ndarray) -> np.ndarray:
    """[J, T]: where the rescale penalty κ charges: every rescale (`rescales`) and every stop
    of a job that cannot be done yet (`unfinished`), such as a running job stopped in slot 0
    (only a job that may stop, with preemption or released by the capacity rule, can). A stop
    where the job's work may have ended is not charged."""
    nodes, prev = _before(inst, nodes)
    return rescales(inst, nodes) | ((prev > 0) & (nodes == 0) & unfinished(inst))


def slot_progress(rate: np.ndarray, nodes: np.ndarray, prev: np.ndarray, left: np.ndarray,
                  remaining: np.ndarray, rescale: np.ndarray, slot_seconds: float) -> np.ndarray:
    """p̃ done in one slot, elementwise: on `nodes` nodes (throughput `rate` there) after `prev`
    nodes in the slot before, with a share `left` of the remaining work `remaining` still to
    do. A slot that keeps the size runs its full length, one that starts or changes size loses
    the rescale seconds; never more than is left. The one place this rule is written.
    With `remaining` 1 and `left` in samples, the result is in samples (the baselines, ETCs)."""
    secs = np.where(nodes == prev, slot_seconds, slot_seconds - rescale)
    return np.where(nodes > 0, np.minimum(left, rate * secs / remaining), 0.0)


def progress_fractions(inst: Instance, nodes: np.ndarray) -> np.ndarray:
    """p̃[j, t]: the share of its remaining work job j does in slot t under `nodes`."""
    nodes = np.asarray(nodes, dtype=int)
    J, T = nodes.shape
    out = np.zeros((J, T))
    if J == 0:
        return out
    remaining = np.array([job.remaining_work for job in inst.jobs], dtype=float)
    alive = remaining > 0
    rescale = np.array([min(job.rescale_seconds, inst.slot_seconds) for job in inst.jobs])
    rate = np.array([[job.rate(int(n)) for n in row] for job, row in
                     zip(inst.jobs, nodes, strict=True)], dtype=float)
    left = np.where(alive, 1.0, 0.0)
    prev = np.array([job.current_nodes for job in inst.jobs])
    for t in range(T):
        out[:, t] = slot_progress(rate[:, t], nodes[:, t], prev, left,
                                  np.where(alive, remaining, 1.0), rescale, inst.slot_seconds)
        left = left - out[:, t]
        prev = nodes[:, t]
    return out


def score(inst: Instance, nodes: np.ndarray) -> float:
    c = coefficients(inst)
    p = progress_fractions(inst, nodes)
    return float((c.progress * p).sum() - c.eps * nodes.sum()
                 - c.rescale * changes(inst, nodes).sum())


def churn_violations(inst: Instance, nodes: np.ndarray) -> list[str]:
    """How `nodes` breaks the churn budget of DESIGN §4.1 (cooldown, `max_rescales`)."""
    out = []
    changed = rescales(inst, nodes)[:, 0] if len(inst.jobs) else np.zeros(0, dtype=bool)
    for j, job in enumerate(inst.jobs):
        if changed[j] and inst.in_cooldown(job):
            out.append(f"job {job.job_id}: resized in slot 0 during its cooldown")
    if inst.max_rescales is not None and changed.sum() > inst.max_rescales:
        out.append(f"slot 0: {int(changed.sum())} running jobs change size > max_rescales "
                   f"{inst.max_rescales}")
    return out


def quota_violations(inst: Instance, nodes: np.ndarray) -> list[str]:
    """How `nodes[j, t]` breaks a tenant's max_nodes or effective guarantee (DESIGN §4.2)."""
    if not inst.quotas or not inst.jobs:
        return []
    q = tenant_rows(inst)
    used = q.usage(nodes)
    out = []
    for i, k in enumerate(q.tenants):
        for t in range(inst.T):
            if used[i, t] > q.cap[i]:
                out.append(f"tenant {k} slot {t}: {int(used[i, t])} nodes > max_nodes "
                           f"{int(q.cap[i])}")
            if used[i, t] < q.floor[i, t]:
                out.append(f"tenant {k} slot {t}: {int(used[i, t])} nodes < guarantee "
                           f"{int(q.floor[i, t])}")
    return out


def violations(inst: Instance, nodes: np.ndarray, *, preemptible: set[str] | None = None
               ) -> list[str]:
    """Every way `nodes` breaks the model's constraints (empty list = feasible)."""
    out = churn_violations(inst, nodes) + quota_violations(inst, nodes)
    preemptible = preemptible or set()
    J, T = nodes.shape
    used = nodes.sum(axis=0)
    for t in range(T):
        if used[t] > inst.capacity[t]:
            out.append(f"slot {t}: {int(used[t])} nodes > capacity {inst.capacity[t]}")
    p = progress_fractions(inst, nodes)
    for j, job in enumerate(inst.jobs):
        allowed = set(job.allowed)
        for t in range(T):
            n = int(nodes[j, t])
            if n and n not in allowed:
                out.append(f"job {job.job_id} slot {t}: {n} nodes is not allowed")
        if job.job_id in preemptible or job.remaining_work <= 0:
            continue
        if job.current_nodes > 0 and nodes[j, 0] == 0:
            out.append(f"job {job.job_id}: running job stopped at slot 0")
        cum = np.cumsum(p[j])
        for t in range(T - 1):
            if nodes[j, t] > 0 and nodes[j, t + 1] == 0 and cum[t] < 1 - DONE_TOL:
                out.append(f"job {job.job_id}: stopped after slot {t} before it was done")
    return out

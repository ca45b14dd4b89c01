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

from solver.instance import Instance

EPS_SHARE = 1e-6   # the idle-allocation tie-break, as a share of the smallest progress weight
DONE_TOL = 1e-6


@dataclass
class Coefficients:
    progress: np.ndarray   # [J, T] objective weight of one unit of p̃ = p / R_j
    eps: float             # penalty per node-slot


def coefficients(inst: Instance) -> Coefficients:
    J, T = len(inst.jobs), inst.T
    coef = np.zeros((J, T))
    disc = inst.discount ** np.arange(T)
    for j, job in enumerate(inst.jobs):
        if job.remaining_work > 0:
            aging = 1.0 + job.waiting_seconds / inst.aging_seconds
            coef[j] = job.weight * aging * disc * job.remaining_work / job.total_work
    positive = coef[coef > 0]
    eps = EPS_SHARE * float(positive.min()) if positive.size else EPS_SHARE
    return Coefficients(coef, eps)


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
    return float((c.progress * p).sum() - c.eps * nodes.sum())


def violations(inst: Instance, nodes: np.ndarray, *, preemptible: set[str] | None = None
               ) -> list[str]:
    """Every way `nodes` breaks the model's constraints (empty list = feasible)."""
    out = []
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

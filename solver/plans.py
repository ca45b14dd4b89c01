"""The plan of DESIGN §3.4: dataclasses, JSON, its Parquet row shape, and building one from a
node matrix (actions, expected progress, ETCs, the objective of §4)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from solver.backends.status import Status
from solver.instance import Instance
from solver.objective import progress_fractions, score, slot_progress

ACTIONS = ("start", "scale_up", "scale_down", "keep", "stop", "wait")


@dataclass
class Allocation:
    job_id: str
    slot: int
    nodes: int
    action: str
    expected_throughput: float
    expected_progress: float
    why: str = ""        # the code of DESIGN §11 (solver/explain.py)
    why_text: str = ""   # one sentence with the numbers


@dataclass
class JobEtc:
    job_id: str
    etc_seconds: float
    static_etc_seconds: float


@dataclass
class Plan:
    policy: str
    solver: str
    status: Status
    objective: float
    allocations: list[Allocation]
    jobs: list[JobEtc]
    solve_seconds: float = 0.0
    reason: str = ""
    best_bound: float | None = None
    mip_gap: float | None = None
    build_seconds: float = 0.0
    solver_objective: float | None = None   # what the solver itself reported
    warnings: list[str] = field(default_factory=list)
    current_nodes: dict[str, int] = field(default_factory=dict)   # each job's size before
    slot_prices: list[float] | None = None   # capacity duals per slot (DESIGN §4.3)
    # the stage the deadline ended the decision in (heuristic | columns | mip), or complete
    # (DESIGN §10, solver/deadline.py)
    stopped_by: str = "complete"

    def nodes_by_job(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for a in sorted(self.allocations, key=lambda a: a.slot):
            out.setdefault(a.job_id, []).append(a.nodes)
        return out

    def first_slot(self) -> dict[str, int]:
        """Each job's nodes in slot 0: what a scheduler applies now."""
        return {a.job_id: a.nodes for a in self.allocations if a.slot == 0}

    def next_hint(self) -> dict[str, list[int]]:
        """The rest of the plan, one slot on: the next decision's warm start (`hint`)."""
        return {job_id: row[1:] for job_id, row in self.nodes_by_job().items()}

    def node_matrix(self, inst: Instance) -> np.ndarray:
        """The plan's node counts as int [J, T], in the order of `inst`'s jobs."""
        rows = self.nodes_by_job()
        return np.array([rows[job.job_id] for job in inst.jobs], dtype=int).reshape(-1, inst.T)

    def rows(self, window_start: datetime) -> list[dict]:
        """The plan's Parquet rows (DESIGN §8): one per job and slot, the allocation with its
        why (§11) and its slot's price, the job's size before the plan, its ETCs and the plan's
        header."""
        etc = {j.job_id: j for j in self.jobs}
        now = datetime.now(UTC)
        prices = self.slot_prices
        rows = []
        for a in self.allocations:
            e = etc[a.job_id]
            rows.append({
                "window_time": window_start, "job_id": a.job_id, "slot": a.slot,
                "current_nodes": self.current_nodes.get(a.job_id, 0), "nodes": a.nodes,
                "action": a.action, "expected_throughput": a.expected_throughput,
                "expected_progress": a.expected_progress, "why": a.why,
                "why_text": a.why_text,
                "slot_price": None if prices is None else float(prices[a.slot]),
                "etc_seconds": e.etc_seconds,
                "static_etc_seconds": e.static_etc_seconds, "policy": self.policy,
                "solver": self.solver, "status": str(self.status), "objective": self.objective,
                "mip_gap": self.mip_gap, "solve_seconds": self.solve_seconds,
                "reason": self.reason, "warnings": "; ".join(self.warnings), "created_at": now})
        return rows

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)


def action(prev: int, n: int) -> str:
    """What going from `prev` nodes to `n` means for a job (one of ACTIONS)."""
    if prev == 0:
        return "start" if n > 0 else "wait"
    if n == 0:
        return "stop"
    return "keep" if n == prev else ("scale_up" if n > prev else "scale_down")


def etc_seconds(inst: Instance, nodes: np.ndarray) -> np.ndarray:
    """Per job, seconds from the window start until it completes if it runs `nodes[j]` slot by
    slot, then on at its last size (its requested size if it ends the horizon idle)."""
    nodes = np.asarray(nodes, dtype=int)
    jobs = inst.jobs
    delta = inst.slot_seconds
    left = np.array([job.remaining_work for job in jobs], dtype=float)
    rescale = np.array([min(job.rescale_seconds, delta) for job in jobs])
    prev = np.array([job.current_nodes for job in jobs], dtype=int)
    finish = np.where(left <= 0, 0.0, np.nan)
    t_now = 0.0
    for t in range(nodes.shape[1]):
        n = nodes[:, t]
        rate = np.array([job.rate(int(k)) for job, k in zip(jobs, n, strict=True)])
        done = slot_progress(rate, n, prev, left, 1.0, rescale, delta)
        ends = np.isnan(finish) & (n > 0) & (done >= left)
        lost = np.where(n == prev, 0.0, rescale)
        finish[ends] = t_now + lost[ends] + left[ends] / rate[ends]
        left = left - done
        t_now += delta
        prev = n
    for j in np.nonzero(np.isnan(finish))[0]:
        job = jobs[j]
        tail = prev[j] if prev[j] > 0 else job.requested_nodes
        lost_tail = 0.0 if tail == prev[j] else job.rescale_seconds
        finish[j] = t_now + lost_tail + left[j] / job.rate(int(tail))
    return finish


def make_plan(inst: Instance, nodes: np.ndarray, *, policy: str, solver: str, status: Status,
              solve_seconds: float = 0.0, build_seconds: float = 0.0, reason: str = "",
              best_bound: float | None = None, mip_gap: float | None = None,
              solver_objective: float | None = None, warnings: list[str] | None = None) -> Plan:
    nodes = np.asarray(nodes, dtype=int)
    p = progress_fractions(inst, nodes)
    etc = etc_seconds(inst, nodes)
    static_etc = etc_seconds(inst, np.array([[job.requested_nodes] * inst.T
                                             for job in inst.jobs], dtype=int).reshape(nodes.shape))
    allocations = []
    etcs = []
    for j, job in enumerate(inst.jobs):
        prev = job.current_nodes
        for t in range(inst.T):
            n = int(nodes[j, t])
            allocations.append(Allocation(
                job_id=job.job_id, slot=t, nodes=n, action=action(prev, n),
                expected_throughput=job.rate(n),
                expected_progress=float(p[j, t] * job.remaining_work)))
            prev = n
        etcs.append(JobEtc(job.job_id, float(etc[j]), float(static_etc[j])))
    return Plan(policy=policy, solver=solver, status=status, objective=score(inst, nodes),
                allocations=allocations, jobs=etcs, solve_seconds=solve_seconds,
                build_seconds=build_seconds, reason=reason, best_bound=best_bound,
                mip_gap=mip_gap, solver_objective=solver_objective,
                warnings=list(warnings or []),
                current_nodes={job.job_id: job.current_nodes for job in inst.jobs})

"""`mip`: the window MIP of DESIGN §4. The best heuristic plan warm-starts it and is the
fallback; column generation goes first (with solver auto or columns) and answers when it
proves the gap; otherwise the full MIP on the chosen backend finishes."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from solver import backends, columns
from solver.backends.status import BackendResult, Status
from solver.columns import ColumnResult
from solver.instance import Instance
from solver.model import SparseModel, build
from solver.objective import DONE_TOL, progress_fractions, score, violations
from solver.plans import Plan, make_plan
from solver.policies.greedy import greedy
from solver.policies.horizon import hold
from solver.policies.optimus import optimus
from solver.policies.settings import Hint, Settings

log = logging.getLogger(__name__)


def _gap(bound: float, value: float) -> float:
    """Relative gap of a plan worth `value` under a proven upper `bound`."""
    return max(bound - value, 0.0) / max(abs(bound), 1e-12)


def hinted_nodes(inst: Instance, hint: Hint) -> np.ndarray:
    """The node matrix a hint asks for: each job's counts, its last one repeated to the end of
    the horizon; jobs absent from the hint get nothing. A job the hint stops before it is done
    (its work was under-estimated then) keeps its last size instead."""
    nodes = np.zeros((len(inst.jobs), inst.T), dtype=int)
    for j, job in enumerate(inst.jobs):
        row = list(hint.get(job.job_id, ()))[: inst.T]
        if row:
            nodes[j, : len(row)] = row
            nodes[j, len(row):] = row[-1]
    done = np.cumsum(progress_fractions(inst, nodes), axis=1) >= 1 - DONE_TOL
    for j in range(len(inst.jobs)):
        for t in range(1, inst.T):
            if nodes[j, t] == 0 and nodes[j, t - 1] > 0 and not done[j, t - 1]:
                nodes[j, t] = nodes[j, t - 1]
    return nodes


@dataclass
class _Start:
    """The best plan known before the backend runs: its maker, nodes and objective, and the
    heuristic that was best before column generation."""
    name: str
    nodes: np.ndarray
    score: float
    first: str

    @property
    def feasible(self) -> bool:
        return self.score > -float("inf")


def _heuristic_start(inst: Instance, released: set[str], hint: Hint | None) -> _Start:
    """The best of the greedy, Optimus-style and hinted plans (and, under a churn budget, the
    plan that resizes nobody): the warm start and the fallback (each is feasible for the model
    unless it breaks a rule, when it is skipped, so the MIP is never worse than any of them)."""
    name, best, best_score = "greedy", None, -float("inf")
    candidates = {"greedy": greedy(inst, released), "optimus": optimus(inst, released)}
    if hint:
        candidates["previous_plan"] = hinted_nodes(inst, hint)
    if inst.max_rescales is not None or inst.cooldown_seconds is not None:
        # no rescale at all: the plan that obeys any churn budget (DESIGN §4.1)
        candidates["keep"] = hold(inst, [0 if job.job_id in released else job.current_nodes
                                         for job in inst.jobs])
    for cand, nodes in candidates.items():
        if violations(inst, nodes, preemptible=released):
            continue  # capacity fell below what this heuristic kept running
        value = score(inst, nodes)
        if value > best_score:
            name, best, best_score = cand, nodes, value
    if best is None:
        best = candidates["greedy"]
    return _Start(name, best, best_score, name)


def _columns(inst: Instance, model: SparseModel, s: Settings, start: _Start,
             released: set[str], warnings: list[str]) -> tuple[ColumnResult | None, Plan | None]:
    """Column generation from the start (which it may improve, in place); with it the plan when
    it proves the gap."""
    if not (s.columns and s.solver in ("auto", "columns") and start.feasible):
        return None, None
    free = {j for j, job in enumerate(inst.jobs) if s.preemption or job.job_id in released}
    # half the limit at most, so that the full MIP has time left if the gap is not proven
    cg = columns.solve(inst, model, start.nodes, free=free, time_limit=s.time_limit / 2,
                       gap=s.gap, threads=s.threads)
    if cg is None:
        return None, None
    if cg.objective > start.score:
        start.name, start.nodes, start.score = "columns", cg.nodes, cg.objective
    proven = None if cg.bound is None else _gap(cg.bound, start.score)
    if proven is None or proven > s.gap:
        return cg, None
    return cg, make_plan(
        inst, start.nodes, policy="mip", solver="columns", status=Status.OPTIMAL,
        solve_seconds=cg.seconds, build_seconds=model.build_seconds,
        reason=f"column generation proved a gap of {proven:.4%} ({cg.columns} "
               f"schedules, {cg.rounds} rounds); warm start: {start.first}",
        best_bound=cg.bound, mip_gap=proven, solver_objective=start.score, warnings=warnings)


def _tighten(result: BackendResult, cg: ColumnResult | None, gap: float) -> None:
    """The column bound is valid for the same model: keep the tighter of the two (in place)."""
    if cg is not None and cg.bound is not None and result.x is not None and (
            result.best_bound is None or cg.bound < result.best_bound):
        result.best_bound = cg.bound
        result.gap = _gap(cg.bound, result.objective or 0.0)
        if result.gap <= gap:
            result.status = Status.OPTIMAL   # proven within the gap, though the backend timed out


def _result_plan(inst: Instance, model: SparseModel, result: BackendResult, reason: str,
                 start: _Start, warnings: list[str]) -> Plan:
    """The backend's plan, or the start's marked fallback when the backend found none or only
    a worse one (on a time limit with a poor incumbent)."""
    def fallback(why: str) -> Plan:
        return make_plan(inst, start.nodes, policy="mip", solver=start.name,
                         status=Status.FALLBACK, solve_seconds=result.seconds,
                         build_seconds=model.build_seconds, reason=why, warnings=warnings)

    if result.status == Status.FAILED or result.x is None:
        return fallback("; ".join(r for r in (reason, result.detail,
                                              f"no incumbent: {start.name} plan") if r))
    solver = result.backend
    p = make_plan(inst, model.nodes_from_solution(result.x), policy="mip", solver=solver,
                  status=result.status, solve_seconds=result.seconds,
                  build_seconds=model.build_seconds,
                  reason=f"{reason or solver + ' chosen'}; warm start: {start.name}",
                  best_bound=result.best_bound, mip_gap=result.gap,
                  solver_objective=result.objective, warnings=warnings)
    if start.feasible and p.objective < start.score - 1e-9 * max(1.0, abs(start.score)):
        log.info("solver incumbent below %s (%s < %s); returning it", start.name, p.objective,
                 start.score)
        return fallback(f"{solver} incumbent worse than {start.name}")
    return p


def plan_mip(inst: Instance, s: Settings, released: set[str], warnings: list[str],
             hint: Hint | None = None) -> Plan:
    """The MIP policy: warm start, column generation, then the full MIP on a backend."""
    start = _heuristic_start(inst, released, hint)
    model = build(inst, released=released, preemption=s.preemption)
    cg, proven = _columns(inst, model, s, start, released, warnings)
    if proven is not None:
        return proven
    spent = cg.seconds if cg is not None else 0.0
    time_limit = max(s.time_limit - spent, 0.01) if cg is not None else s.time_limit
    warm = model.solution_from_nodes(inst, start.nodes) if s.warm_start and start.feasible \
        else None
    result, reason = backends.solve(model, solver=s.solver, time_limit=time_limit, gap=s.gap,
                                    threads=s.threads, warm_start=warm)
    result.seconds += spent
    _tighten(result, cg, s.gap)
    return _result_plan(inst, model, result, reason, start, warnings)

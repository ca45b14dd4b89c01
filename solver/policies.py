"""One interface for every policy: `plan(instance, policy, settings) -> Plan`."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from solver import POLICIES, backends, columns
from solver.baselines import simulate_policy
from solver.capacity import preemptible_jobs
from solver.evaluate import DONE_TOL, make_plan, progress_fractions, score, violations
from solver.instance import Instance, Plan
from solver.model import build

log = logging.getLogger(__name__)



@dataclass
class Settings:
    solver: str = "auto"
    time_limit: float = 10.0
    gap: float = 1e-4
    threads: int = 1
    preemption: bool = False
    warm_start: bool = True
    columns: bool = True    # with solver auto or columns: column generation first


@cache
def _gurobi_ok() -> bool:
    return backends.gurobi_available()


def plan(inst: Instance, policy: str = "mip", settings: Settings | None = None,
         hint: Mapping[str, Sequence[int]] | None = None) -> Plan:
    """`hint`: node counts per slot by job id from an earlier plan (e.g. the previous window's
    plan shifted by one slot); the MIP tries it as a warm start beside the heuristics."""
    settings = settings or Settings()
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; use one of {', '.join(POLICIES)}")
    released, warnings = preemptible_jobs(inst)
    if not inst.jobs:
        return make_plan(inst, np.zeros((0, inst.T), dtype=int), policy=policy, solver=policy,
                         status="optimal", reason="no jobs in the window")
    if policy != "mip":
        start = time.perf_counter()
        nodes = simulate_policy(inst, policy, released)
        return make_plan(inst, nodes, policy=policy, solver=policy, status="optimal",
                         solve_seconds=time.perf_counter() - start, warnings=warnings,
                         reason="baseline")
    return _plan_mip(inst, settings, released, warnings, hint)


def _gap(bound: float, value: float) -> float:
    """Relative gap of a plan worth `value` under a proven upper `bound`."""
    return max(bound - value, 0.0) / max(abs(bound), 1e-12)


def hinted_nodes(inst: Instance, hint: Mapping[str, Sequence[int]]) -> np.ndarray:
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


def _plan_mip(inst: Instance, s: Settings, released: set[str], warnings: list[str],
              hint: Mapping[str, Sequence[int]] | None = None) -> Plan:
    # the best of the greedy, Optimus-style and hinted plans is the warm start and the
    # fallback (each is feasible for the model, so the MIP is never worse than any of them)
    start_name, start_nodes, start_score = "greedy", None, -float("inf")
    candidates = {name: simulate_policy(inst, name, released) for name in ("greedy", "optimus")}
    if hint:
        candidates["previous_plan"] = hinted_nodes(inst, hint)
    for name, nodes in candidates.items():
        if violations(inst, nodes, preemptible=released):
            continue  # capacity fell below what this heuristic kept running
        value = score(inst, nodes)
        if value > start_score:
            start_name, start_nodes, start_score = name, nodes, value
    if start_nodes is None:
        start_nodes = candidates["greedy"]
    first_name = start_name
    model = build(inst, released=released, preemption=s.preemption)
    feasible_start = start_score > -float("inf")
    time_limit = s.time_limit
    spent = 0.0
    cg = None
    if s.columns and s.solver in ("auto", "columns") and feasible_start:
        free = {j for j, job in enumerate(inst.jobs) if s.preemption or job.job_id in released}
        # half the limit at most, so that the full MIP has time left if the gap is not proven
        cg = columns.solve(inst, model, start_nodes, free=free, time_limit=s.time_limit / 2,
                           gap=s.gap, threads=s.threads)
        if cg is not None:
            spent = cg.seconds
            time_limit = max(s.time_limit - spent, 0.01)
            if cg.objective > start_score:
                start_name, start_nodes, start_score = "columns", cg.nodes, cg.objective
            proven = None if cg.bound is None else _gap(cg.bound, start_score)
            if proven is not None and proven <= s.gap:
                return make_plan(
                    inst, start_nodes, policy="mip", solver="columns", status="optimal",
                    solve_seconds=spent, build_seconds=model.build_seconds,
                    reason=f"column generation proved a gap of {proven:.4%} ({cg.columns} "
                           f"schedules, {cg.rounds} rounds); warm start: {first_name}",
                    best_bound=cg.bound, mip_gap=proven, solver_objective=start_score,
                    warnings=warnings)
    warm = model.solution_from_nodes(inst, start_nodes) if s.warm_start and feasible_start \
        else None
    reason = ""
    result = None
    use_gurobi = s.solver == "gurobi" or (s.solver == "auto" and _gurobi_ok())
    if use_gurobi:
        try:
            result = backends.solve_gurobi(model, time_limit=time_limit, gap=s.gap,
                                           threads=s.threads, warm_start=warm)
            solver = "gurobi"
        except backends.LicenceTooSmall as err:
            reason = str(err)
            if s.solver == "gurobi":
                log.warning("%s; using HiGHS", reason)
    elif s.solver == "auto":
        reason = "gurobipy not importable"
    if result is None:
        result = backends.solve_highs(model, time_limit=time_limit, gap=s.gap,
                                      threads=s.threads, warm_start=warm)
        solver = "highs"
    result.seconds += spent
    # the column bound is valid for the same model: keep the tighter of the two
    if cg is not None and cg.bound is not None and result.x is not None and (
            result.best_bound is None or cg.bound < result.best_bound):
        result.best_bound = cg.bound
        result.gap = _gap(cg.bound, result.objective or 0.0)
        if result.gap <= s.gap:
            result.status = "optimal"     # proven within the gap, though the backend timed out
    if result.status == "failed" or result.x is None:
        why = "; ".join(r for r in (reason, result.detail, f"no incumbent: {start_name} plan")
                        if r)
        return make_plan(inst, start_nodes, policy="mip", solver=start_name, status="fallback",
                         solve_seconds=result.seconds, build_seconds=model.build_seconds,
                         reason=why, warnings=warnings)
    nodes = model.nodes_from_solution(result.x)
    p = make_plan(inst, nodes, policy="mip", solver=solver, status=result.status,
                  solve_seconds=result.seconds, build_seconds=model.build_seconds,
                  reason=f"{reason or solver + ' chosen'}; warm start: {start_name}",
                  best_bound=result.best_bound,
                  mip_gap=result.gap, solver_objective=result.objective, warnings=warnings)
    if feasible_start and p.objective < start_score - 1e-9 * max(1.0, abs(start_score)):
        # only on a time limit with a poor incumbent: the heuristic's plan is better
        log.info("solver incumbent below %s (%s < %s); returning it", start_name, p.objective,
                 start_score)
        return make_plan(inst, start_nodes, policy="mip", solver=start_name,
                         status="fallback", solve_seconds=result.seconds,
                         build_seconds=model.build_seconds,
                         reason=f"{solver} incumbent worse than {start_name}",
                         warnings=warnings)
    return p

"""One interface for every policy: `plan(instance, policy, settings) -> Plan`."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from functools import cache

from solver import backends
from solver.baselines import simulate_policy
from solver.capacity import preemptible_jobs
from solver.evaluate import make_plan, score, violations
from solver.instance import Instance, Plan
from solver.model import build

log = logging.getLogger(__name__)

POLICIES = ("mip", "greedy", "fifo", "optimus")
SOLVERS = ("auto", "gurobi", "highs")


@dataclass
class Settings:
    solver: str = "auto"
    time_limit: float = 10.0
    gap: float = 1e-4
    threads: int = 1
    preemption: bool = False
    warm_start: bool = True


@cache
def _gurobi_ok() -> bool:
    return backends.gurobi_available()


def plan(inst: Instance, policy: str = "mip", settings: Settings | None = None) -> Plan:
    settings = settings or Settings()
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; use one of {', '.join(POLICIES)}")
    released, warnings = preemptible_jobs(inst)
    if policy != "mip":
        start = time.perf_counter()
        nodes = simulate_policy(inst, policy, released)
        return make_plan(inst, nodes, policy=policy, solver=policy, status="optimal",
                         solve_seconds=time.perf_counter() - start, warnings=warnings,
                         reason="baseline")
    return _plan_mip(inst, settings, released, warnings)


def _plan_mip(inst: Instance, s: Settings, released: set[str], warnings: list[str]) -> Plan:
    # the better of the greedy and Optimus-style plans is the warm start and the fallback
    # (both are feasible for the model, so the MIP is never worse than either)
    start_name, start_nodes, start_score = "greedy", None, -float("inf")
    for name in ("greedy", "optimus"):
        nodes = simulate_policy(inst, name, released)
        if violations(inst, nodes, preemptible=released):
            continue  # capacity fell below what this heuristic kept running
        value = score(inst, nodes)
        if value > start_score:
            start_name, start_nodes, start_score = name, nodes, value
    if start_nodes is None:
        start_nodes = simulate_policy(inst, "greedy", released)
    model = build(inst, released=released, preemption=s.preemption)
    feasible_start = start_score > -float("inf")
    warm = model.solution_from_nodes(inst, start_nodes) if s.warm_start and feasible_start \
        else None
    reason = ""
    result = None
    use_gurobi = s.solver == "gurobi" or (s.solver == "auto" and _gurobi_ok())
    if use_gurobi:
        try:
            result = backends.solve_gurobi(model, time_limit=s.time_limit, gap=s.gap,
                                           threads=s.threads, warm_start=warm)
            solver = "gurobi"
        except backends.LicenceTooSmall as err:
            reason = str(err)
            if s.solver == "gurobi":
                log.warning("%s; using HiGHS", reason)
    elif s.solver == "auto":
        reason = "gurobipy not importable"
    if result is None:
        result = backends.solve_highs(model, time_limit=s.time_limit, gap=s.gap,
                                      threads=s.threads, warm_start=warm)
        solver = "highs"
    if result.status == "failed" or result.x is None:
        why = "; ".join(r for r in (reason, result.detail, f"no incumbent: {start_name} plan")
                        if r)
        return make_plan(inst, start_nodes, policy="mip", solver=start_name, status="fallback",
                         solve_seconds=result.seconds, build_seconds=model.build_seconds,
                         reason=why, warnings=warnings)
    nodes = model.nodes_from_solution(result.x)
    p = make_plan(inst, nodes, policy="mip", solver=solver, status=result.status,
                  solve_seconds=result.seconds, build_seconds=model.build_seconds,
                  reason=reason or f"{solver} chosen", best_bound=result.best_bound,
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

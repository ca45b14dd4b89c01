"""`mip`: the window MIP of DESIGN §4. The best heuristic plan warm-starts it and is the
fallback; column generation goes first (with solver auto or columns) and answers when it
proves the gap; otherwise the full MIP on the chosen backend finishes. With solver auto, a
small window that Gurobi takes (MIP_FIRST_VARS) goes to the full MIP on Gurobi first, for a
share of the limit (MIP_FIRST_SHARE); when that proves nothing, column generation goes on
from its incumbent with the rest of the time, and the full MIP has what column generation
leaves."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from solver import backends, columns
from solver.backends.gurobi import licence_admits
from solver.backends.status import BackendResult, Status
from solver.columns import ColumnResult
from solver.deadline import (
    COLUMN_SECONDS_PER_JOB,
    COLUMNS,
    COMPLETE,
    HEURISTIC,
    MIP,
    MIP_SECONDS_PER_VAR,
    Deadline,
)
from solver.instance import Instance
from solver.model import SparseModel, build
from solver.objective import DONE_TOL, progress_fractions, score, violations
from solver.plans import Plan, make_plan
from solver.policies.greedy import greedy
from solver.policies.horizon import hold
from solver.policies.optimus import optimus
from solver.policies.settings import Hint, Settings

log = logging.getLogger(__name__)

# with solver auto, a full MIP of at most this many variables that Gurobi takes goes before
# column generation (and answers alone when it has a plan): on the replays' windows of 2–15
# jobs Gurobi proved the gap as often in a quarter to a half of the time that column
# generation took, which there mostly ends short of a proof and hands over to the same MIP
# (docs/benchmarks.md, "Replay speed"); 2,000 is also the pip package's licence limit
MIP_FIRST_VARS = 2_000
# ... and searches for this share of the limit: on workload 6's windows Gurobi proved 190 of
# 237 within a fifth of the replays' 0.5 s and few more by the end, where column generation
# from its incumbent, with the rest of the time, finds better plans sooner (docs/benchmarks.md,
# "Gurobi first, for a fifth of the limit")
MIP_FIRST_SHARE = 0.2
# the stages whose plan is a solver's (not a heuristic's fallback), as the plan's reason names them
SOLVER_NAMES = {"columns": "column generation", "gurobi": "Gurobi", "highs": "HiGHS"}


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
    """The best plan known before the backend runs: its maker, nodes and objective, the plan
    column generation starts from (the best heuristic's, or a first full MIP's), and the stages
    the deadline left out."""
    name: str
    nodes: np.ndarray
    score: float
    first: str
    skipped: list[str] = field(default_factory=list)

    @property
    def feasible(self) -> bool:
        return self.score > -float("inf")


def _candidates(inst: Instance, released: set[str], hint: Hint | None
                ) -> dict[str, Callable[[], np.ndarray]]:
    """The heuristic plans tried beside greedy's, each made only when the deadline leaves time:
    the Optimus-style plan, the hinted one, and (under a churn budget) the plan that resizes
    nobody (DESIGN §4.1)."""
    out: dict[str, Callable[[], np.ndarray]] = {"optimus": lambda: optimus(inst, released)}
    if hint:
        out["previous_plan"] = lambda: hinted_nodes(inst, hint)
    if inst.max_rescales is not None or inst.cooldown_seconds is not None:
        out["keep"] = lambda: hold(inst, [0 if job.job_id in released else job.current_nodes
                                          for job in inst.jobs])
    return out


def _checked(inst: Instance, nodes: np.ndarray, released: set[str]) -> float:
    """The plan's objective, or −inf when it breaks a rule (capacity fell below what this
    heuristic kept running)."""
    return -float("inf") if violations(inst, nodes, preemptible=released) else score(inst, nodes)


def _heuristic_start(inst: Instance, released: set[str], hint: Hint | None,
                     deadline: Deadline) -> _Start:
    """The best of the greedy, Optimus-style and hinted plans (and, under a churn budget, the
    plan that resizes nobody): the warm start and the fallback (each is feasible for the model
    unless it breaks a rule, when it is skipped, so the MIP is never worse than any of them).
    Greedy's plan is the first plan, made whatever the limit (build time); each other costs
    about as much and is made only while that much time is left."""
    t0 = time.monotonic()
    with deadline.building():
        first = greedy(inst, released)
        start = _Start("greedy", first, _checked(inst, first, released), "greedy")
    cost = time.monotonic() - t0
    for cand, make in _candidates(inst, released, hint).items():
        if deadline.remaining() < cost:
            start.skipped.append(cand)
            continue
        nodes = make()
        value = _checked(inst, nodes, released)
        if value > start.score:
            start.name, start.nodes, start.score = cand, nodes, value
    start.first = start.name
    return start


def _column_time(model: SparseModel, s: Settings, deadline: Deadline, after_mip: bool
                 ) -> float:
    """Seconds column generation may take: half the limit when the full MIP could search for
    at least its set-up time in the other half (and has not had its turn first, `after_mip`),
    else all that is left; 0 when its set-up and first pricing round would not fit in that
    time."""
    if deadline.expired():
        return 0.0
    if not after_mip and model.num_vars * MIP_SECONDS_PER_VAR < s.time_limit / 4:
        share = deadline.share(0.5)
    else:
        share = deadline.remaining()
    share -= min(0.1 * share, 0.01)   # its last steps' overshoot, within the deadline's 10 %
    return share if share > model.J * COLUMN_SECONDS_PER_JOB else 0.0


def _columns(inst: Instance, model: SparseModel, s: Settings, start: _Start,
             released: set[str], deadline: Deadline, after_mip: bool = False
             ) -> tuple[ColumnResult | None, bool]:
    """Column generation from the start (which it may improve, in place); and whether it
    proved the gap."""
    if not (s.columns and s.solver in ("auto", "columns") and start.feasible):
        return None, False
    limit = _column_time(model, s, deadline, after_mip)
    if limit <= 0:
        start.skipped.append("columns")
        return None, False
    free = {j for j, job in enumerate(inst.jobs) if s.preemption or job.job_id in released}
    cg = columns.solve(inst, model, start.nodes, free=free, time_limit=limit, gap=s.gap,
                       threads=s.threads, solver=s.solver)
    if cg is None:
        return None, False
    if cg.objective > start.score:
        start.name, start.nodes, start.score = "columns", cg.nodes, cg.objective
    proven = None if cg.bound is None else _gap(cg.bound, start.score)
    return cg, proven is not None and proven <= s.gap


def _start_plan(inst: Instance, model: SparseModel, start: _Start, cg: ColumnResult | None,
                proven: bool, warnings: list[str]) -> Plan:
    """The best plan found before the full MIP: column generation's (optimal when it proved
    the gap, else time_limit) or a heuristic's (fallback), with the column bound when known."""
    bound = None if cg is None else cg.bound
    gap = None if bound is None else _gap(bound, start.score)
    if start.name in SOLVER_NAMES or proven:
        status = Status.OPTIMAL if proven else Status.TIME_LIMIT
        solver = "columns" if proven else start.name
        who = SOLVER_NAMES[solver]
        what = (f"{who} improved the plan, no bound yet" if gap is None else
                f"{who} {'proved' if proven else 'reached'} a gap of {gap:.4%}")
    else:
        status, solver = Status.FALLBACK, start.name
        what = f"the deadline came before a solver found a better plan: {start.name} plan"
    if cg is not None:
        what += f" ({cg.columns} schedules, {cg.rounds} rounds)"
    skipped = f"; left out for time: {', '.join(start.skipped)}" if start.skipped else ""
    return make_plan(inst, start.nodes, policy="mip", solver=solver, status=status,
                     reason=f"{what}; warm start: {start.first}{skipped}", best_bound=bound,
                     mip_gap=gap, solver_objective=start.score if cg else None,
                     warnings=warnings, build_seconds=model.build_seconds)


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
                         build_seconds=model.build_seconds, reason=why, warnings=warnings,
                         best_bound=result.best_bound)

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


def _full_mip(inst: Instance, model: SparseModel, s: Settings, start: _Start,
              cg: ColumnResult | None, warnings: list[str], deadline: Deadline,
              share: float = 1.0) -> Plan | None:
    """The full MIP on a backend with the time left less its predicted set-up (it cannot be
    stopped before its search starts), searching for at most `share` of the limit; None when
    that leaves no time."""
    setup = model.num_vars * MIP_SECONDS_PER_VAR
    time_limit = min(deadline.remaining() - setup, share * deadline.limit)
    if time_limit <= 0:
        if share >= 1:   # a first try on a share of the limit is not the last chance
            start.skipped.append(f"full MIP (set-up about {setup:.2f} s)")
        return None
    warm = model.solution_from_nodes(inst, start.nodes) if s.warm_start and start.feasible \
        else None
    result, reason = backends.solve(model, solver=s.solver, time_limit=time_limit, gap=s.gap,
                                    threads=s.threads, warm_start=warm)
    _tighten(result, cg, s.gap)
    with deadline.building():   # the plan's assembly
        p = _result_plan(inst, model, result, reason, start, warnings)
    p.stopped_by = COMPLETE if result.status == Status.OPTIMAL else MIP
    return p


def _first_mip(inst: Instance, model: SparseModel, s: Settings, start: _Start,
               warnings: list[str], deadline: Deadline) -> Plan | None:
    """The full MIP going first (`_mip_first`), for MIP_FIRST_SHARE of the limit: its plan when
    it proved the gap or the deadline has passed; else None, and its incumbent, when better,
    becomes the start of the stages after it (in place)."""
    p = _full_mip(inst, model, s, start, None, warnings, deadline, share=MIP_FIRST_SHARE)
    if p is None:
        return None
    if p.status == Status.OPTIMAL or deadline.expired():
        return p
    if p.objective > start.score:
        start.name, start.nodes, start.score = p.solver, p.node_matrix(inst), p.objective
        start.first = p.solver
    return None


def _mip_first(model: SparseModel, s: Settings) -> bool:
    """Whether the full MIP goes before column generation (MIP_FIRST_VARS)."""
    return (s.solver == "auto" and s.columns and model.num_vars <= MIP_FIRST_VARS
            and licence_admits(model))


def _build(inst: Instance, released: set[str], s: Settings) -> SparseModel:
    """The model, with the solver libraries loaded (build time rather than search time: the
    first import and Gurobi's licence check take up to half a second)."""
    backends.load(s.solver)
    return build(inst, released=released, preemption=s.preemption)


def plan_mip(inst: Instance, s: Settings, released: set[str], warnings: list[str],
             hint: Hint | None = None, deadline: Deadline | None = None) -> Plan:
    """The MIP policy: warm start, column generation, then the full MIP on a backend, all
    within one deadline (DESIGN §10); the plan names the stage that ended it (`stopped_by`)."""
    deadline = deadline or Deadline(s.time_limit)
    start = _heuristic_start(inst, released, hint, deadline)
    stage = HEURISTIC
    model = deadline.build(lambda: _build(inst, released, s))
    first = _mip_first(model, s)
    if first and (p := _first_mip(inst, model, s, start, warnings, deadline)) is not None:
        return p
    cg, proven = _columns(inst, model, s, start, released, deadline, after_mip=first)
    stage = COLUMNS if cg is not None else stage
    p = None if proven else _full_mip(inst, model, s, start, cg, warnings, deadline)
    if p is None:
        with deadline.building():   # the plan's assembly
            p = _start_plan(inst, model, start, cg, proven, warnings)
        p.stopped_by = COMPLETE if proven else stage
    p.slot_prices = None if cg is None else cg.slot_prices   # the run's capacity duals (§4.3)
    return p

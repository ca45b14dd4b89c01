"""The window MIP against exhaustive enumeration, across backends, and its invariants."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import model as model_module
from solver.backends.gurobi import gurobi_available
from solver.backends.highs import solve_highs
from solver.generate import random_instance
from solver.instance import (
    DEFAULT_RESCALE_SECONDS,
    Instance,
    InvalidInstance,
    Job,
    candidate_sizes,
    job_from_state,
)
from solver.model import build
from solver.objective import changes, coefficients, rescales, score, violations
from solver.policies import POLICIES, SOLVERS, Settings, plan
from solver.policies.mip import MIP_FIRST_VARS, hinted_nodes

needs_gurobi = pytest.mark.skipif(not gurobi_available(), reason="gurobipy not installed")


@pytest.fixture(params=["per-size", "compact"])
def layout(request, monkeypatch) -> str:
    """Both layouts of the model's "kept" columns (solver/model.py): one per size (what small
    windows get) and one per job (what larger ones get), on the same instances."""
    monkeypatch.setattr(model_module, "PER_SIZE_MAX_VARS",
                        10**9 if request.param == "per-size" else 0)
    return request.param


def tiny_instance(seed: int, n_jobs: int, slots: int) -> Instance:
    rng = np.random.default_rng(seed)
    jobs = []
    for i in range(n_jobs):
        allowed = sorted(rng.choice([1, 2, 3, 4], size=2, replace=False).tolist())
        f1 = float(rng.uniform(100, 1000))
        s = float(rng.uniform(0.0, 0.4))
        tp = {n: f1 * n / (1 + s * (n - 1)) for n in allowed}
        total = float(rng.uniform(0.3, 3.0)) * tp[allowed[-1]] * 600
        running = rng.random() < 0.4
        jobs.append(Job(job_id=f"j{i}", min_nodes=allowed[0], max_nodes=allowed[-1],
                        remaining_work=total * (float(rng.uniform(0.2, 1)) if running else 1),
                        total_work=total, throughput=tp, allowed_nodes=allowed,
                        current_nodes=allowed[int(rng.integers(2))] if running else 0,
                        waiting_seconds=float(rng.uniform(0, 3600)),
                        rescale_seconds=float(rng.choice([0.0, 30.0, 120.0])),
                        weight=float(rng.choice([1.0, 2.0]))))
    cap = max(sum(j.current_nodes for j in jobs), int(rng.integers(2, 7)))
    return Instance(jobs=jobs, capacity=[cap] * slots, num_slots=slots, slot_seconds=600)


def enumerate_best(inst: Instance, preemptible: set[str] | None = None) -> float:
    options = [[0, *job.allowed] for job in inst.jobs]
    best = -np.inf
    J, T = len(inst.jobs), inst.T
    for combo in itertools.product(*(options[j] for j in range(J) for _ in range(T))):
        nodes = np.array(combo, dtype=int).reshape(J, T)
        if (nodes.sum(axis=0) > np.array(inst.capacity)).any():
            continue
        if violations(inst, nodes, preemptible=preemptible):
            continue
        best = max(best, score(inst, nodes))
    return best


# auto: the default path (column generation, its integer steps and the full MIP on Gurobi when
# it is installed and its licence admits them, else HiGHS)
@pytest.mark.parametrize("solver", ["highs", "columns", "auto",
                                    pytest.param("gurobi", marks=needs_gurobi)])
@pytest.mark.parametrize("seed", range(14))
def test_mip_equals_enumeration_on_tiny_instances(seed, solver, layout):
    n_jobs, slots = [(1, 3), (2, 2), (2, 3), (3, 2), (3, 3)][seed % 5]
    inst = tiny_instance(seed, n_jobs, slots)
    best = enumerate_best(inst)
    p = plan(inst, "mip", Settings(solver=solver, gap=1e-9, columns=solver != "highs"))
    assert p.status == "optimal"
    # the full MIP on the backend asked for; columns may hand what they do not prove to HiGHS
    assert p.solver in {"highs": ("highs",), "gurobi": ("gurobi",),
                        "columns": ("columns", "highs"),
                        "auto": ("columns", "gurobi", "highs")}[solver]
    assert p.objective == pytest.approx(best, rel=1e-6, abs=1e-9)
    assert not violations(inst, np.array(list(p.nodes_by_job().values())))


def with_rules(inst: Instance, seed: int) -> Instance:
    """The instance with the objective's knobs and the churn budget set, varied by seed: α in
    {0, 1, 1.5}, θ (critical_seconds) in {off, 600, 3600}, κ in {0, 0.5, 2, 5}, max_rescales
    in {none, 0, 1}, a cooldown that holds every other running job."""
    inst.progress_exponent = (0.0, 1.0, 1.5)[seed % 3]
    inst.rescale_penalty = (0.0, 0.5, 2.0, 5.0)[seed % 4]
    inst.max_rescales = (None, 0, 1)[(seed // 2) % 3]
    inst.cooldown_seconds = 900.0 if seed % 5 in (1, 3) else None
    inst.critical_seconds = (0.0, 600.0, 3600.0)[(seed // 3) % 3]
    for k, job in enumerate(inst.jobs):
        job.seconds_since_resize = (300.0, None, 3600.0)[(seed + k) % 3]
    return inst


@pytest.mark.parametrize("solver", ["highs", "columns", "auto",
                                    pytest.param("gurobi", marks=needs_gurobi)])
@pytest.mark.parametrize("seed", range(18))
def test_mip_equals_enumeration_with_objective_knobs_and_churn_budget(seed, solver, layout):
    n_jobs, slots = [(2, 2), (2, 3), (3, 2), (3, 3)][seed % 4]
    inst = with_rules(tiny_instance(1000 + seed, n_jobs, slots), seed)
    best = enumerate_best(inst)   # over the plans `violations` admits: budget and cooldown too
    p = plan(inst, "mip", Settings(solver=solver, gap=1e-9, columns=solver != "highs"))
    assert p.status == "optimal"
    assert p.objective == pytest.approx(best, rel=1e-6, abs=1e-9)
    assert p.solver_objective == pytest.approx(p.objective, rel=1e-6, abs=1e-9)
    assert not violations(inst, np.array(list(p.nodes_by_job().values())))


@pytest.mark.parametrize("solver", ["highs", "columns", "auto",
                                    pytest.param("gurobi", marks=needs_gurobi)])
@pytest.mark.parametrize("seed", range(12))
def test_mip_equals_enumeration_with_preemption_and_stops_charged(seed, solver, layout):
    # with preemption a running job may stop; a stop before it is done costs κ like a rescale
    n_jobs, slots = [(2, 2), (2, 3), (3, 2)][seed % 3]
    inst = with_rules(tiny_instance(2000 + seed, n_jobs, slots), seed)
    best = enumerate_best(inst, preemptible={job.job_id for job in inst.jobs})
    p = plan(inst, "mip", Settings(solver=solver, gap=1e-9, columns=solver != "highs",
                                   preemption=True))
    assert p.status == "optimal"
    assert p.objective == pytest.approx(best, rel=1e-6, abs=1e-9)
    assert p.solver_objective == pytest.approx(p.objective, rel=1e-6, abs=1e-9)


def two_running_jobs(**rules) -> Instance:
    """Two running jobs on 1 node each, 8 nodes free: both gain from growing to 4."""
    job = {"min_nodes": 1, "max_nodes": 4, "current_nodes": 1, "remaining_work": 1e6,
           "total_work": 1e6, "throughput": {"1": 100.0, "2": 190.0, "4": 360.0},
           "allowed_nodes": [1, 2, 4]}
    return Instance.from_dict({"capacity": 8, "num_slots": 3, "slot_seconds": 600,
                               "jobs": [job | {"job_id": "a", "seconds_since_resize": 60},
                                        job | {"job_id": "b"}], **rules})


@pytest.mark.parametrize("solver", ["highs", "columns", pytest.param("gurobi",
                                                                    marks=needs_gurobi)])
def test_churn_budget_and_cooldown_bind(solver, layout):
    s = Settings(solver=solver, gap=1e-9, columns=solver == "columns")
    free = plan(two_running_jobs(), "mip", s).nodes_by_job()
    assert free["a"][0] == free["b"][0] == 4          # both grow at once without rules
    one = plan(two_running_jobs(max_rescales=1), "mip", s).nodes_by_job()
    assert sorted((one["a"][0], one["b"][0])) == [1, 4]
    assert plan(two_running_jobs(max_rescales=0), "mip", s).nodes_by_job() == {
        "a": [1, 4, 4], "b": [1, 4, 4]}               # slot 0 only: later slots are free
    cool = plan(two_running_jobs(cooldown_seconds=120), "mip", s).nodes_by_job()
    assert (cool["a"][0], cool["b"][0]) == (1, 4)     # a resized 60 s ago; b never
    # a rescale penalty high enough keeps both where they are
    assert plan(two_running_jobs(rescale_penalty=1000), "mip", s).nodes_by_job() == {
        "a": [1, 1, 1], "b": [1, 1, 1]}


def test_churn_violations_name_the_rule():
    inst = two_running_jobs(max_rescales=1, cooldown_seconds=120)
    assert violations(inst, np.array([[2, 2, 2], [1, 1, 1]])) == [
        "job a: resized in slot 0 during its cooldown"]
    assert violations(inst, np.array([[1, 2, 2], [2, 4, 4]])) == []
    inst.cooldown_seconds = None
    assert violations(inst, np.array([[2, 2, 2], [4, 4, 4]])) == [
        "slot 0: 2 running jobs change size > max_rescales 1"]
    # a start and a stop are not rescales; a change in a later slot is not budgeted
    assert rescales(inst, np.array([[1, 2, 0], [1, 1, 4]])).tolist() == [
        [False, True, False], [False, False, True]]
    # the rescale penalty also charges a stop of a job that cannot be done yet (both jobs here
    # have 1e6 samples left, at most 360 a second: no stop within 3 slots can be the end)
    assert changes(inst, np.array([[0, 0, 2], [1, 1, 0]])).tolist() == [
        [True, False, False], [False, False, True]]
    inst.jobs[1].remaining_work = 4e5   # two slots at 4 nodes could finish it
    assert changes(inst, np.array([[0, 0, 2], [1, 1, 0]])).tolist() == [
        [True, False, False], [False, False, False]]


def test_objective_knobs_weigh_progress_per_unit_of_work():
    inst = two_running_jobs(rescale_penalty=0, aging_seconds=900, critical_seconds=0)
    inst.jobs[0].remaining_work = 2.5e5            # a quarter of its total work left
    inst.jobs[1].waiting_seconds = 900.0
    for alpha, share in ((0.0, 0.25), (1.0, 1.0), (1.5, 2.0)):
        inst.progress_exponent = alpha
        c = coefficients(inst)
        # per p̃ = p / R: w (1 + q/τ) γ^t (R/W)^(1−α); α = 0 is the share of total work
        assert c.progress[0].tolist() == pytest.approx([share, 0.9 * share, 0.81 * share])
        assert c.progress[1].tolist() == pytest.approx([2.0, 1.8, 1.62])
        assert c.rescale == 0.0
    inst.rescale_penalty = 2.0
    c = coefficients(inst)
    # a node-slot: the median over jobs of one node's slot-0 value at its smallest size
    one_node = [c.progress[j, 0] * 100.0 * 600 / inst.jobs[j].remaining_work for j in (0, 1)]
    assert c.rescale == pytest.approx(2.0 * float(np.median(one_node)))
    nodes = np.array([[2, 2, 4], [1, 1, 1]])
    unpenalised = Instance.from_dict(inst.to_dict() | {"rescale_penalty": 0})
    # job a changes size twice (1 → 2 in slot 0, 2 → 4 in slot 2)
    assert score(inst, nodes) == pytest.approx(score(unpenalised, nodes) - 2 * c.rescale)


def test_objective_knobs_and_churn_rules_round_trip_through_json():
    inst = two_running_jobs(progress_exponent=0.5, rescale_penalty=2, max_rescales=3,
                            cooldown_seconds=600, aging_seconds=1200)
    back = Instance.from_json(inst.to_json())
    assert back == inst
    assert (back.progress_exponent, back.rescale_penalty, back.max_rescales,
            back.cooldown_seconds, back.aging_seconds) == (0.5, 2.0, 3, 600.0, 1200.0)
    assert [j.seconds_since_resize for j in back.jobs] == [60.0, None]
    default = Instance.from_dict({"capacity": 4, "jobs": []})
    assert (default.progress_exponent, default.rescale_penalty, default.aging_seconds,
            default.max_rescales, default.cooldown_seconds) == (1.5, 1.0, 900.0, None, None)
    assert "max_rescales" not in default.to_dict()   # absent rules stay absent


@pytest.mark.parametrize("bad, message", [
    ({"progress_exponent": -1}, "instance: progress_exponent must be ≥ 0, got -1"),
    ({"progress_exponent": 5}, "instance: progress_exponent must be in [0, 4], got 5.0"),
    ({"rescale_penalty": "high"}, "instance: rescale_penalty must be a number, got 'high'"),
    ({"max_rescales": 1.5}, "instance: max_rescales must be a whole number, got 1.5"),
    ({"max_rescales": -1}, "instance: max_rescales must be at least 0, got -1"),
    ({"cooldown_seconds": -5}, "instance: cooldown_seconds must be ≥ 0, got -5"),
])
def test_invalid_objective_knobs_and_churn_rules(bad, message):
    with pytest.raises(InvalidInstance) as err:
        Instance.from_dict({"capacity": 4, "jobs": []} | bad)
    assert str(err.value) == message


def test_mip_obeys_the_churn_rules_on_random_windows():
    for seed in range(6):
        inst = random_instance(12, num_slots=4, seed=seed, max_allowed=4)
        inst.max_rescales, inst.cooldown_seconds = seed % 2, 1800.0
        for k, job in enumerate(inst.jobs):
            job.seconds_since_resize = 600.0 if k % 3 == 0 else None
        p = plan(inst, "mip", Settings(solver="highs", gap=1e-6))
        nodes = np.array([p.nodes_by_job()[j.job_id] for j in inst.jobs])
        assert not violations(inst, nodes), violations(inst, nodes)
        assert p.status == "optimal" and p.solver_objective == pytest.approx(p.objective)


@needs_gurobi
@pytest.mark.parametrize("seed", range(30))
def test_gurobi_and_highs_agree(seed, layout):
    inst = random_instance(6 + seed % 5, num_slots=3 + seed % 4, seed=seed, max_allowed=4)
    m = build(inst)
    assert m.compact == (layout == "compact")
    assert m.num_vars <= 2000 and m.num_rows <= 2000, "instance must fit the restricted licence"
    g = plan(inst, "mip", Settings(solver="gurobi", gap=1e-9))
    h = plan(inst, "mip", Settings(solver="highs", gap=1e-9))
    assert (g.solver, h.solver) == ("gurobi", "highs")
    assert g.objective == pytest.approx(h.objective, rel=1e-6)
    for p in (g, h):
        # the solver's own objective and the scoring function agree
        assert p.solver_objective == pytest.approx(p.objective, rel=1e-6, abs=1e-9)


def test_solver_objective_matches_score_on_larger_instance():
    inst = random_instance(60, seed=5)
    p = plan(inst, "mip", Settings(solver="highs", gap=1e-3))
    assert p.status in ("optimal", "time_limit")   # the incumbent's value either way
    assert p.solver_objective == pytest.approx(p.objective, rel=1e-5)


def test_auto_falls_back_to_highs_when_licence_too_small():
    inst = random_instance(120, seed=1)
    assert build(inst).num_vars > 2000
    # with column generation off, auto goes straight to the full MIP
    p = plan(inst, "mip", Settings(solver="auto", columns=False, time_limit=1))
    assert p.solver == "highs"
    if gurobi_available():
        assert "restricted licence" in p.reason


def test_capacity_below_running_minimums_preempts_latest():
    inst = Instance.from_dict({"capacity": 4, "num_slots": 2, "jobs": [
        {"job_id": "old", "min_nodes": 2, "max_nodes": 4, "current_nodes": 4,
         "remaining_work": 1e7, "total_work": 1e7, "throughput": {"2": 10, "3": 14, "4": 18}},
        {"job_id": "new", "min_nodes": 3, "max_nodes": 3, "current_nodes": 3,
         "remaining_work": 1e7, "total_work": 1e7, "throughput": {"3": 10}},
    ]})
    for policy in ("mip", "greedy", "fifo", "optimus"):
        p = plan(inst, policy)
        nodes = p.nodes_by_job()
        assert nodes["new"] == [0, 0] and nodes["old"][0] >= 2, policy
        assert any("job new may be preempted" in w for w in p.warnings)
        assert all(sum(n[t] for n in nodes.values()) <= 4 for t in range(2))


@pytest.mark.parametrize("bad, message", [
    ({"min_nodes": 4, "max_nodes": 2}, "job a: min_nodes 4 > max_nodes 2"),
    ({"remaining_work": -1}, "job a: remaining_work must be ≥ 0, got -1"),
    ({"throughput": {"1": 5}}, "job a: no throughput for allowed node count 2"),
    ({"colour": "red"}, "job a: unknown key 'colour'"),
    ({"current_nodes": 7}, "job a: current_nodes 7 is not an allowed node count"),
])
def test_invalid_instances_name_job_and_field(bad, message):
    job = {"job_id": "a", "min_nodes": 1, "max_nodes": 2, "remaining_work": 5,
           "total_work": 10, "throughput": {"1": 1, "2": 2}} | bad
    with pytest.raises(InvalidInstance) as err:
        Instance.from_dict({"capacity": 4, "jobs": [job]})
    assert str(err.value) == message


def test_capacity_list_must_match_slots():
    with pytest.raises(InvalidInstance, match="capacity has 2 entries, num_slots is 3"):
        Instance.from_dict({"capacity": [1, 2], "num_slots": 3, "jobs": []})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n_jobs=st.integers(1, 8), slots=st.integers(1, 4))
def test_every_policy_respects_the_rules_and_mip_beats_greedy(seed, n_jobs, slots):
    inst = random_instance(n_jobs, num_slots=slots, seed=seed, max_allowed=3)
    plans = {pol: plan(inst, pol, Settings(solver="highs", gap=1e-7))
             for pol in ("mip", "greedy", "fifo", "optimus")}
    for pol, p in plans.items():
        nodes = np.array([p.nodes_by_job()[j.job_id] for j in inst.jobs])
        assert not violations(inst, nodes), (pol, violations(inst, nodes))
        for a in p.allocations:
            assert a.expected_progress <= next(
                j.remaining_work for j in inst.jobs if j.job_id == a.job_id) + 1e-6
    assert plans["mip"].objective >= plans["greedy"].objective - 1e-7 * abs(
        plans["greedy"].objective)
    for other in ("fifo", "optimus"):
        assert plans["mip"].objective >= plans[other].objective - 1e-7 * abs(
            plans[other].objective)


def test_previous_plan_hint_is_a_warm_start_the_mip_never_falls_below():
    inst = random_instance(40, 4, seed=11)
    first = plan(inst, "mip", Settings(solver="highs", time_limit=20, gap=1e-6))
    # the optimum itself as the hint, and a 0.01 s limit: the MIP cannot do worse than it
    quick = plan(inst, "mip", Settings(solver="highs", time_limit=0.01),
                 hint=first.nodes_by_job())
    assert quick.objective >= first.objective - 1e-9 * abs(first.objective)
    # the hint was the start (or, had HiGHS found nothing in time, the fallback)
    assert quick.reason.endswith("warm start: previous_plan") or quick.solver == "previous_plan"
    assert not violations(inst, np.array([quick.nodes_by_job()[j.job_id] for j in inst.jobs]))


def test_hint_that_stops_an_unfinished_job_is_repaired():
    job = Job(job_id="a", min_nodes=1, max_nodes=2, requested_nodes=1, current_nodes=1,
              remaining_work=1e6, total_work=1e6, throughput={1: 1.0, 2: 1.8})
    inst = Instance(jobs=[job], capacity=[2, 2, 2], slot_seconds=60.0, num_slots=3)
    nodes = hinted_nodes(inst, {"a": [2, 0], "gone": [4, 4]})
    assert nodes.tolist() == [[2, 2, 2]]   # the stop is undone, the unknown job ignored
    assert not violations(inst, nodes)


def test_preemption_setting_lets_the_mip_stop_a_running_job():
    inst = Instance.from_dict({"capacity": 4, "num_slots": 3, "slot_seconds": 600, "jobs": [
        {"job_id": "long", "min_nodes": 4, "max_nodes": 4, "current_nodes": 4,
         "remaining_work": 1e9, "total_work": 1e9, "throughput": {"4": 10.0}},
        {"job_id": "short", "min_nodes": 4, "max_nodes": 4, "waiting_seconds": 7200,
         "remaining_work": 5000, "total_work": 5000, "throughput": {"4": 10.0}}]})
    kept = plan(inst, "mip", Settings(solver="highs"))
    assert [a.nodes for a in kept.allocations if a.job_id == "long"] == [4, 4, 4]
    stopped = plan(inst, "mip", Settings(solver="highs", preemption=True))
    assert [a.nodes for a in stopped.allocations if a.job_id == "short"][0] == 4
    assert [a.action for a in stopped.allocations if a.job_id == "long"][0] == "stop"


def test_highs_runs_after_a_run_with_another_thread_count():
    # HiGHS sizes its scheduler on the first run; without a reset, a later run with another
    # thread count fails at once (status "Not Set")
    model = build(random_instance(8, seed=2))
    for threads in (2, 1, 2):
        assert solve_highs(model, time_limit=10, gap=1e-6, threads=threads).status == "optimal"


def test_a_window_without_jobs_plans_nothing_under_every_policy():
    inst = Instance.from_dict({"capacity": 4, "num_slots": 3, "jobs": []})
    for policy in ("mip", "greedy", "fifo", "optimus"):
        p = plan(inst, policy)
        assert (p.status, p.allocations, p.objective) == ("optimal", [], 0.0), policy


def test_job_from_state_offers_the_candidate_sizes_the_curve_covers():
    state = {"job_id": "a", "min_nodes": 2, "max_nodes": 20, "requested_nodes": 5,
             "current_nodes": 7, "remaining_work": 50.0, "total_work": 80.0, "weight": 2.0,
             "waiting_seconds": 12}
    curve = {n: 10.0 * n for n in range(1, 21) if n not in (16, 20)} | {20: 0.0}
    job = job_from_state(state, curve)
    # the range's ends, powers of two and their 1.5x, requested and current size, minus the
    # sizes the curve has no (positive) rate for
    expected = [n for n in candidate_sizes(2, 20, 5, 7) if n not in (16, 20)]
    assert job.allowed_nodes == expected == [2, 3, 4, 5, 6, 7, 8, 12]
    assert job.throughput == {n: 10.0 * n for n in expected}
    assert (job.job_id, job.min_nodes, job.max_nodes, job.requested_nodes, job.current_nodes,
            job.remaining_work, job.total_work, job.weight) == ("a", 2, 20, 5, 7, 50.0, 80.0, 2.0)
    assert job.waiting_seconds == 12.0 and isinstance(job.waiting_seconds, float)
    assert job.rescale_seconds == DEFAULT_RESCALE_SECONDS
    assert job_from_state(state, curve, rescale_seconds=5.0).rescale_seconds == 5.0


def test_policy_registry_names_every_policy_and_the_solver_choices():
    assert list(POLICIES) == ["mip", "greedy", "fifo", "optimus", "greedy-elastic"]
    assert set(SOLVERS) == {"auto", "columns", "gurobi", "highs"}
    inst = random_instance(6, num_slots=3, seed=4)
    for name in POLICIES:
        p = plan(inst, name, Settings(solver="highs"))
        assert p.policy == name and p.status == "optimal"
        assert json.loads(p.to_json())["status"] == "optimal"   # the enum is its string
    # greedy and FIFO are different rules: on this instance their plans differ
    assert plan(inst, "greedy").nodes_by_job() != plan(inst, "fifo").nodes_by_job()
    with pytest.raises(ValueError, match="unknown policy 'lifo'; use one of mip, greedy"):
        plan(inst, "lifo")


def test_plan_rows_carry_each_jobs_size_before_the_plan():
    inst = random_instance(5, num_slots=2, seed=3)
    p = plan(inst, "greedy")
    assert p.current_nodes == {j.job_id: j.current_nodes for j in inst.jobs}
    at = datetime(2026, 12, 2, 10, tzinfo=UTC)
    rows = p.rows(at)
    assert len(rows) == 5 * 2
    by_job = {j.job_id: j for j in inst.jobs}
    for r, a in zip(rows, p.allocations, strict=True):
        assert (r["window_time"], r["job_id"], r["slot"], r["nodes"], r["action"]) == \
            (at, a.job_id, a.slot, a.nodes, a.action)
        assert r["current_nodes"] == by_job[a.job_id].current_nodes
        assert type(r["status"]) is str and r["status"] == "optimal"
        assert r["policy"] == r["solver"] == "greedy"


@needs_gurobi
def test_auto_gives_a_small_window_to_gurobi_before_column_generation():
    inst = random_instance(4, num_slots=6, seed=7)
    assert build(inst).num_vars <= MIP_FIRST_VARS
    p = plan(inst, "mip", Settings(solver="auto", gap=1e-3))
    assert p.solver == "gurobi" and p.status == "optimal" and p.mip_gap <= 1e-3
    optimum = plan(inst, "mip", Settings(solver="highs", gap=1e-9, time_limit=60)).objective
    assert p.objective >= optimum - 1e-3 * abs(optimum)


def test_a_small_window_gurobi_leaves_unproven_goes_on_from_its_incumbent(monkeypatch):
    """With solver auto a small window's full MIP goes first for MIP_FIRST_SHARE of the limit;
    stopped there without a proof, column generation starts from its incumbent and has the
    rest of the time (here a stand-in backend stops at once, unproven, on the optimal plan)."""
    import solver.policies.mip as mip
    from solver.backends.status import BackendResult, Status
    from solver.policies.greedy import greedy

    inst = random_instance(6, num_slots=4, seed=3)
    best = plan(inst, "mip", Settings(solver="highs", gap=1e-9, time_limit=60))
    incumbent = best.node_matrix(inst)
    assert score(inst, greedy(inst, set())) < best.objective - 1e-6
    calls = []

    def stopped(m, *, time_limit, **kw):
        if calls:   # column generation's own integer step, and the rest: the real backend
            return solve(m, time_limit=time_limit, **kw)
        calls.append(time_limit)
        x = m.solution_from_nodes(inst, incumbent)
        return BackendResult(Status.TIME_LIMIT, x, float(m.c @ x), None, None, time_limit,
                             backend="gurobi"), ""

    solve = mip.backends.solve
    monkeypatch.setattr(mip, "licence_admits", lambda model: True)
    monkeypatch.setattr(mip.backends, "solve", stopped)
    limit = 5.0
    p = plan(inst, "mip", Settings(solver="auto", gap=1e-6, time_limit=limit))
    assert calls and calls[0] <= mip.MIP_FIRST_SHARE * limit + 1e-9
    assert p.objective == pytest.approx(best.objective, rel=1e-6) and p.status == "optimal"
    assert "warm start: gurobi" in p.reason


def test_a_plan_left_by_gurobi_at_the_deadline_is_marked_as_its():
    import solver.policies.mip as mip
    from solver.policies.greedy import greedy

    inst = random_instance(5, num_slots=3, seed=2)
    nodes = greedy(inst, set())
    start = mip._Start("gurobi", nodes, score(inst, nodes), "greedy")
    p = mip._start_plan(inst, build(inst), start, None, False, [])
    assert p.solver == "gurobi" and p.status == "time_limit"
    assert p.reason.startswith("Gurobi improved the plan, no bound yet")


def test_without_a_gurobi_licence_auto_starts_with_column_generation(monkeypatch):
    import solver.backends.gurobi as grb

    monkeypatch.setattr(grb, "gurobi_available", lambda: False)
    p = plan(random_instance(4, num_slots=6, seed=7), "mip", Settings(solver="auto", gap=1e-3))
    assert p.solver in ("columns", "highs") and p.status == "optimal"


@pytest.mark.parametrize("seed", range(6))
def test_a_plans_solution_vector_is_feasible_and_worth_its_score(seed, layout):
    """`solution_from_nodes` (the warm start) gives every feasible plan a vector that meets
    every row and bound of the model and is worth the plan's score, in both layouts."""
    from solver.policies.greedy import greedy

    inst = with_rules(random_instance(8, num_slots=4, seed=seed, max_allowed=4), seed)
    inst.max_rescales = None   # greedy's plan need not keep the budget
    m = build(inst)
    nodes = greedy(inst, set())
    assert not violations(inst, nodes)
    v = m.solution_from_nodes(inst, nodes)
    ax = m.A @ v
    assert (ax <= m.row_hi + 1e-9).all() and (ax >= m.row_lo - 1e-9).all()
    assert (v <= m.col_hi + 1e-12).all() and (v >= m.col_lo - 1e-12).all()
    assert float(m.c @ v) == pytest.approx(score(inst, nodes), rel=1e-9, abs=1e-12)

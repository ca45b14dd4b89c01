"""Column generation: its exact pricing against brute force, its bound against the MIP's
optimum, and its plans against the model's rules."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import columns
from solver.generate import random_instance
from solver.instance import Instance
from solver.model import build
from solver.objective import score, violations
from solver.policies import Settings, plan
from solver.policies.greedy import greedy
from solver.policies.horizon import hold
from solver.policies.optimus import optimus


def brute_force_best(d: columns._Jobs, lam: np.ndarray) -> np.ndarray:
    """max over every node sequence the model admits of value − (λ + ε)·nodes − β·[rescaled
    in slot 0], per job (λ: one price per slot, then β when there is a churn budget)."""
    out = np.zeros(d.J)
    for j in range(d.J):
        sizes = [0, *d.pair_nodes[d.pair_job == j].tolist()]
        seqs = np.array(list(itertools.product(sizes, repeat=d.T)), dtype=np.int64)
        value, ok = d.value(seqs, np.full(len(seqs), j))
        reduced = value - d.usage(seqs, np.full(len(seqs), j)) @ lam
        out[j] = reduced[ok].max() if ok.any() else -np.inf
    return out


def with_churn_rules(inst: Instance, seed: int) -> Instance:
    """κ in {0, 1, 3}, α in {0, 1.5}, a churn budget on odd seeds, every third job in a
    cooldown."""
    inst.rescale_penalty = (0.0, 1.0, 3.0)[seed % 3]
    inst.progress_exponent = (0.0, 1.5)[seed % 2]
    inst.max_rescales = 1 if seed % 2 else None
    inst.cooldown_seconds = 600.0
    for k, job in enumerate(inst.jobs):
        job.seconds_since_resize = 60.0 if k % 3 == seed % 3 else None
    return inst


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("free", [False, True])
@pytest.mark.parametrize("rules", [False, True])
def test_exact_pricing_finds_the_best_schedule_of_every_job(seed, free, rules):
    inst = random_instance(8, num_slots=3 + seed % 3, seed=seed, max_allowed=4)
    if rules:
        inst = with_churn_rules(inst, seed)
    model = build(inst, preemption=free)
    d = columns._Jobs(inst, model, np.full(len(inst.jobs), free))
    rng = np.random.default_rng(seed)
    lam = rng.uniform(0, 0.02, size=inst.T) * (seed % 4)      # λ = 0 included
    if inst.max_rescales is not None:
        lam = np.r_[lam, rng.uniform(0, 0.05)]                 # the churn budget's price β
    expected = brute_force_best(d, lam)
    # prune against a poor known value (the all-off schedule where that is admitted)
    lower = np.full(d.J, -np.inf)
    best, sched = columns._price_exact(d, lam, lower)
    assert best == pytest.approx(expected, rel=1e-9, abs=1e-12)
    value, ok = d.value(sched, np.arange(d.J))
    assert ok[d.alive].all()
    assert (value - d.usage(sched, np.arange(d.J)) @ lam)[d.alive] == pytest.approx(
        best[d.alive], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed, rules", [(seed, False) for seed in range(8)]
                         + [(seed, True) for seed in (0, 2, 3, 6)])
def test_column_bound_is_above_the_optimum_and_its_plan_below(seed, rules):
    inst = random_instance(10 + 2 * seed, num_slots=4 + seed % 3, seed=100 + seed)
    if rules:
        inst = with_churn_rules(inst, seed)
    model = build(inst)
    optimum = plan(inst, "mip", Settings(solver="highs", gap=1e-7, time_limit=60)).objective
    start = greedy(inst)
    if violations(inst, start):   # greedy knows no churn rules: start from resizing nobody
        start = hold(inst, [job.current_nodes for job in inst.jobs])
    result = columns.solve(inst, model, start, free=set(), time_limit=10, gap=1e-9)
    assert result is not None and result.bound is not None
    assert result.bound >= optimum - 1e-9 * abs(optimum)
    assert result.objective <= optimum * (1 + 1e-6)
    assert result.objective == pytest.approx(score(inst, result.nodes), rel=1e-9)
    assert not violations(inst, result.nodes)
    # and through the policy, the columns path ends at the optimum too (the full MIP on
    # HiGHS finishes what the columns do not prove)
    p = plan(inst, "mip", Settings(solver="columns", gap=1e-7, time_limit=60))
    assert p.objective == pytest.approx(optimum, rel=1e-6)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n_jobs=st.integers(1, 10), slots=st.integers(1, 5),
       preemption=st.booleans())
def test_columns_plans_respect_the_rules_and_beat_the_heuristics(seed, n_jobs, slots,
                                                                 preemption):
    inst = random_instance(n_jobs, num_slots=slots, seed=seed, max_allowed=4)
    p = plan(inst, "mip", Settings(solver="columns", gap=1e-4, preemption=preemption))
    nodes = np.array([p.nodes_by_job()[j.job_id] for j in inst.jobs])
    preemptible = {j.job_id for j in inst.jobs} if preemption else set()
    assert not violations(inst, nodes, preemptible=preemptible)
    for heuristic in (greedy, optimus):
        assert p.objective >= score(inst, heuristic(inst)) - 1e-9
    if p.best_bound is not None:
        assert p.best_bound >= p.objective - 1e-9 * max(1.0, abs(p.objective))
    # the objective the solving path reports and the scoring function agree (a fallback plan
    # is a heuristic's and reports none)
    if p.status != "fallback":
        assert p.solver_objective == pytest.approx(p.objective, rel=1e-6, abs=1e-9)


def test_large_window_is_proven_by_columns_within_the_gap():
    inst = random_instance(300, seed=3)
    p = plan(inst, "mip", Settings(solver="auto", gap=1e-3))
    assert p.solver == "columns" and p.status == "optimal"
    assert p.mip_gap <= 1e-3
    assert p.best_bound >= p.objective
    assert "column generation proved a gap" in p.reason


def test_start_with_a_left_out_size_and_idle_nodes_is_taken_as_it_is_worth():
    # "wide" runs no faster on 2 nodes than on 1 (the model leaves size 2 out); "short" is
    # done within slot 0 but the hint keeps its nodes for slot 1 (allowed, only wasteful)
    inst = Instance.from_dict({"capacity": 4, "num_slots": 3, "slot_seconds": 600, "jobs": [
        {"job_id": "wide", "min_nodes": 1, "max_nodes": 2, "current_nodes": 1,
         "remaining_work": 1e7, "total_work": 1e7, "throughput": {"1": 10.0, "2": 10.0}},
        {"job_id": "short", "min_nodes": 2, "max_nodes": 2, "current_nodes": 2,
         "remaining_work": 600, "total_work": 6000, "throughput": {"2": 10.0}}]})
    hint = {"wide": [2, 2, 2], "short": [2, 2, 0]}
    p = plan(inst, "mip", Settings(solver="columns", gap=1e-6), hint=hint)
    nodes = p.nodes_by_job()
    assert nodes["short"] == [2, 0, 0] and nodes["wide"] == [1, 1, 1]
    assert p.solver == "columns" and p.status == "optimal"


@pytest.mark.parametrize("seed", range(4))
def test_the_first_round_already_gives_a_valid_bound(seed):
    # the Lagrangian bound holds for any duals λ ≥ 0: one round of exact pricing proves one
    inst = random_instance(12, num_slots=4, seed=200 + seed)
    optimum = plan(inst, "mip", Settings(solver="highs", gap=1e-7, time_limit=60)).objective
    result = columns.solve(inst, build(inst), greedy(inst), free=set(), time_limit=10,
                           gap=1e-9, max_rounds=1)
    assert result is not None and result.rounds == 1 and result.bound is not None
    assert result.bound >= optimum - 1e-9 * abs(optimum)
    assert result.objective <= optimum * (1 + 1e-6)
    assert not violations(inst, result.nodes)


def test_the_master_adds_a_round_at_once_and_only_new_columns():
    inst = random_instance(6, num_slots=3, seed=4)
    model = build(inst)
    d = columns._Jobs(inst, model, np.zeros(len(inst.jobs), dtype=bool))
    master = columns._Master(d.J, d.T, d.rhs(inst.capacity), threads=1)
    start = greedy(inst).astype(np.int64)
    every = np.arange(d.J)
    value, _ = d.value(start, every, idle_ok=True)
    assert master.add(every, start, d.usage(start, every), value) == d.J
    assert master.add(every, start, d.usage(start, every), value) == 0   # all known
    assert master.h.getNumCol() == d.J == master.job.size
    lp = master.solve_lp(10.0)
    assert lp is not None and lp[0] == pytest.approx(value.sum())


def test_without_exact_pricing_the_pool_prices_and_the_plan_stands(monkeypatch):
    # exact pricing gives up at once (no partial schedule allowed): the pool of simple
    # schedules prices instead; no bound is proven, the plan still obeys every rule
    monkeypatch.setattr(columns, "MAX_STATES", 0)
    inst = random_instance(15, num_slots=4, seed=9)
    start = greedy(inst)
    result = columns.solve(inst, build(inst), start, free=set(), time_limit=10, gap=1e-4)
    assert result is not None and result.bound is None
    assert result.columns > len(inst.jobs)          # the pool's schedules priced in
    assert not violations(inst, result.nodes)
    assert result.objective >= score(inst, start) - 1e-9


def test_a_large_window_is_proven_without_the_pool(monkeypatch):
    # the default path at 2,000 jobs: exact pricing from the first round, no pool valued
    def no_pool(*args, **kwargs):
        raise AssertionError("the pool was made")

    monkeypatch.setattr(columns._Pool, "of", no_pool)
    inst = random_instance(2000, num_slots=6, seed=1)
    result = columns.solve(inst, build(inst), optimus(inst), free=set(), time_limit=60,
                           gap=1e-3)
    assert result is not None and result.bound is not None
    assert result.bound - result.objective <= 1e-3 * result.bound


@pytest.mark.parametrize("seed", range(301, 304))
def test_pricing_stops_once_the_start_is_proven_within_the_gap(seed):
    # from an optimal start nothing is left to find: pricing ends as soon as its bound proves
    # the start within the gap (2 % here), before the LP has converged to gap / 100; the plan
    # is never worse than its start
    inst = random_instance(8, num_slots=6, seed=seed)
    model = build(inst)
    optimum = plan(inst, "mip", Settings(solver="highs", gap=1e-9, time_limit=60))
    start = np.array([optimum.nodes_by_job()[job.job_id] for job in inst.jobs])
    loose = columns.solve(inst, model, start, free=set(), time_limit=10, gap=0.02)
    tight = columns.solve(inst, model, start, free=set(), time_limit=10, gap=1e-9)
    assert loose is not None and tight is not None and loose.bound is not None
    assert loose.bound - optimum.objective <= 0.02 * abs(loose.bound)
    assert loose.objective >= optimum.objective - 1e-9 * abs(optimum.objective)
    assert loose.rounds < tight.rounds

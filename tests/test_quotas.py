"""Issue 14 item 2, solver side: tenant quotas (DESIGN §4.2) — JSON and validation, the
effective-guarantee rule, the full MIP and column generation against enumeration, exact pricing
with quota duals, and every policy's plan checked from outside by `quota_violations` on random
windows with quotas, churn rules and falling capacity."""

from __future__ import annotations

import dataclasses
import functools
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import columns
from solver.backends.gurobi import gurobi_available
from solver.capacity import preemptible_jobs
from solver.generate import random_instance, with_tenants
from solver.instance import Instance, InvalidInstance, TenantQuota
from solver.model import build
from solver.objective import churn_violations, quota_violations, score, violations
from solver.policies import POLICIES as REGISTRY
from solver.policies import Settings, plan
from solver.quotas import tenant_rows
from tests.test_columns import brute_force_best
from tests.test_solver import tiny_instance

needs_gurobi = pytest.mark.skipif(not gurobi_available(), reason="gurobipy not installed")
POLICIES = tuple(REGISTRY)   # every registered policy


def nodes_of(p, inst: Instance) -> np.ndarray:
    by_job = p.nodes_by_job()
    return np.array([by_job[j.job_id] for j in inst.jobs], dtype=int).reshape(-1, inst.T)


def enumerate_best(inst: Instance) -> float:
    """The best score over every node matrix the model admits (quotas included)."""
    released, _ = preemptible_jobs(inst)
    options = [[0, *job.allowed] for job in inst.jobs]
    J, T = len(inst.jobs), inst.T
    best = -np.inf
    for combo in itertools.product(*(options[j] for j in range(J) for _ in range(T))):
        nodes = np.array(combo, dtype=int).reshape(J, T)
        if (nodes.sum(axis=0) > np.array(inst.capacity)).any():
            continue
        if violations(inst, nodes, preemptible=released):
            continue
        best = max(best, score(inst, nodes))
    return best


def quota_instance(seed: int, n_jobs: int, slots: int) -> Instance:
    """A tiny instance whose jobs belong to tenants a and b (and the default tenant), with a
    cap and a guarantee that bind on some seeds."""
    inst = tiny_instance(2000 + seed, n_jobs, slots)
    for k, job in enumerate(inst.jobs):
        job.tenant = ("a", "b", None)[(seed + k) % 3]
    cap = inst.capacity[0]
    inst.quotas = {"a": TenantQuota(max_nodes=(None, 2, 3, 4)[seed % 4],
                                    guaranteed_nodes=(0, 1, 2, 3)[(seed // 2) % 4] if seed % 4
                                    != 1 else 1),
                   "b": TenantQuota(max_nodes=max(cap - 2, 0) if seed % 3 else None,
                                    guaranteed_nodes=(2, 0, 3)[seed % 3])}
    if seed % 5 == 4:   # and a churn budget
        inst.max_rescales, inst.cooldown_seconds = 0, 600.0
        for job in inst.jobs:
            job.seconds_since_resize = 60.0
    return inst


SHAPES = [(2, 2), (3, 2), (2, 3), (3, 3)]


@functools.cache
def enumerated(seed: int) -> float:
    """`enumerate_best` of `quota_instance(seed, ...)`, once per seed for all solvers."""
    return enumerate_best(quota_instance(seed, *SHAPES[seed % 4]))


# ---- JSON and validation -------------------------------------------------------------------

def test_tenants_and_quotas_round_trip_through_json():
    inst = with_tenants(random_instance(6, seed=1), 2, seed=1)
    again = Instance.from_json(inst.to_json())
    assert again.quotas == inst.quotas
    assert [j.tenant for j in again.jobs] == [j.tenant for j in inst.jobs]
    assert again.to_dict() == inst.to_dict()
    plain = random_instance(3, seed=2)
    assert "tenant_quotas" not in plain.to_dict()
    assert all("tenant" not in j for j in plain.to_dict()["jobs"])


@pytest.mark.parametrize("quotas, message", [
    ({"a": {"max_nodes": -1}}, "tenant_quotas['a']: max_nodes must be at least 0"),
    ({"a": {"guaranteed_nodes": -2}}, "guaranteed_nodes must be at least 0"),
    ({"a": {"max_nodes": 2, "guaranteed_nodes": 3}}, "guaranteed_nodes 3 > max_nodes 2"),
    ({"a": {"max_nodes": 1.5}}, "max_nodes must be a whole number"),
    ({"a": {"max": 1}}, "unknown key 'max'"),
    ({"a": 3}, "expected an object"),
    ([1], "tenant_quotas must map tenants"),
])
def test_invalid_quotas_are_named_in_one_line(quotas, message):
    data = random_instance(2, seed=0).to_dict()
    data["tenant_quotas"] = quotas
    with pytest.raises(InvalidInstance, match=message.replace("[", r"\[").replace("]", r"\]")
                       .replace("(", r"\(")) as err:
        Instance.from_dict(data)
    assert "\n" not in str(err.value)


def test_invalid_tenant_is_named():
    data = random_instance(2, seed=0).to_dict()
    data["jobs"][1]["tenant"] = 7
    with pytest.raises(InvalidInstance, match="job j2: tenant must be a non-empty string"):
        Instance.from_dict(data)


def test_null_max_nodes_means_no_cap():
    data = random_instance(2, seed=0).to_dict()
    data["tenant_quotas"] = {"a": {"max_nodes": None, "guaranteed_nodes": 2}}
    assert Instance.from_dict(data).quotas == {"a": TenantQuota(None, 2)}


# ---- the guarantee rule ---------------------------------------------------------------------

def test_guarantees_beyond_capacity_are_scaled_down_and_the_plan_warns():
    inst = with_tenants(random_instance(8, seed=5), 2, seed=5)
    inst.quotas = {"t1": TenantQuota(None, 30), "t2": TenantQuota(None, 10)}
    inst.capacity = [20] * inst.T
    q = tenant_rows(inst)
    assert (q.floor[q.tenants.index("t1")] <= 15).all()
    assert (q.floor[q.tenants.index("t2")] <= 5).all()
    p = plan(inst, "mip", Settings(time_limit=20))
    assert any("tenant guarantees 40 exceed capacity 20" in w for w in p.warnings)
    assert not quota_violations(inst, nodes_of(p, inst))


def test_a_guarantee_no_job_can_use_never_makes_the_model_infeasible():
    inst = with_tenants(random_instance(6, seed=8), 2, seed=8)
    inst.quotas = {"t1": TenantQuota(None, 10_000), "t2": TenantQuota(3, 3)}
    for policy in POLICIES:
        p = plan(inst, policy, Settings(time_limit=20))
        assert p.status == "optimal", (policy, p.reason)
        assert not quota_violations(inst, nodes_of(p, inst))


def test_a_cap_below_the_running_jobs_preempts_the_tenants_latest():
    inst = random_instance(6, seed=3, running_share=1.0)
    for job in inst.jobs:
        job.tenant = "a"
    inst.quotas = {"a": TenantQuota(max_nodes=inst.jobs[0].min_nodes)}
    released, warnings = preemptible_jobs(inst)
    assert inst.jobs[0].job_id not in released and len(released) == len(inst.jobs) - 1
    assert any("tenant a max_nodes" in w for w in warnings)
    for policy in POLICIES:
        nodes = nodes_of(plan(inst, policy, Settings(time_limit=20)), inst)
        assert not violations(inst, nodes, preemptible=released), policy


def test_without_quotas_nothing_changes():
    inst = random_instance(10, num_slots=4, seed=11)
    free = {p: plan(inst, p, Settings(time_limit=20)).objective for p in POLICIES}
    inst.quotas = {"nobody": TenantQuota(0, 0)}   # a tenant with no jobs adds no row
    assert build(inst).num_rows == build(dataclasses.replace(inst, quotas={})).num_rows
    for p in POLICIES:
        assert plan(inst, p, Settings(time_limit=20)).objective == pytest.approx(free[p])


# ---- the MIP and column generation against enumeration ---------------------------------------

@pytest.mark.parametrize("solver", ["highs", "columns", pytest.param("gurobi",
                                                                    marks=needs_gurobi)])
@pytest.mark.parametrize("seed", range(16))
def test_mip_with_quotas_equals_enumeration(seed, solver):
    inst = quota_instance(seed, *SHAPES[seed % 4])
    best = enumerated(seed)
    p = plan(inst, "mip", Settings(solver=solver, gap=1e-9, columns=solver == "columns"))
    assert p.status == "optimal"
    assert p.objective == pytest.approx(best, rel=1e-6, abs=1e-9)
    released, _ = preemptible_jobs(inst)
    assert not violations(inst, nodes_of(p, inst), preemptible=released)


@pytest.mark.parametrize("seed", range(10))
def test_exact_pricing_with_quota_duals_finds_the_best_schedule(seed):
    inst = with_tenants(random_instance(7, num_slots=3 + seed % 2, seed=seed, max_allowed=4),
                        2, seed=seed)
    model = build(inst)
    d = columns._Jobs(inst, model, np.zeros(len(inst.jobs), dtype=bool))
    rng = np.random.default_rng(seed)
    n_rows = d.rhs(inst.capacity).size
    lam = rng.uniform(0, 0.02, size=n_rows) * (seed % 3)
    lam[inst.T:] *= rng.choice([0.0, 1.0, 5.0], size=n_rows - inst.T)   # guarantee duals
    expected = brute_force_best(d, lam)
    best, sched = columns._price_exact(d, lam, np.full(d.J, -np.inf))
    assert best == pytest.approx(expected, rel=1e-9, abs=1e-12)
    value, ok = d.value(sched, np.arange(d.J))
    assert ok[d.alive].all()
    assert (value - d.usage(sched, np.arange(d.J)) @ lam)[d.alive] == pytest.approx(
        best[d.alive], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_column_bound_with_quotas_is_above_the_optimum(seed):
    inst = with_tenants(random_instance(10, num_slots=4, seed=300 + seed), 3, seed=seed)
    released, _ = preemptible_jobs(inst)
    optimum = plan(inst, "mip", Settings(solver="highs", gap=1e-7, time_limit=50)).objective
    start = nodes_of(plan(inst, "greedy"), inst)
    free = {j for j, job in enumerate(inst.jobs) if job.job_id in released}
    result = columns.solve(inst, build(inst, released=released), start, free=free,
                           time_limit=10, gap=1e-9)
    assert result is not None and result.bound is not None
    assert result.bound >= optimum - 1e-9 * abs(optimum)
    assert result.objective <= optimum * (1 + 1e-6)
    assert not violations(inst, result.nodes, preemptible=released)


# ---- every policy, from outside -------------------------------------------------------------

@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policy=st.sampled_from(POLICIES), seed=st.integers(0, 10_000), n_jobs=st.integers(1, 9),
       n_tenants=st.integers(1, 3), running_share=st.sampled_from([0.4, 1.0]),
       max_rescales=st.one_of(st.none(), st.integers(0, 2)),
       cooldown=st.one_of(st.none(), st.sampled_from([600.0, 1800.0])),
       capacity=st.one_of(st.none(), st.lists(st.integers(0, 30), min_size=2, max_size=4)))
def test_every_policy_obeys_quotas_capacity_and_churn_rules(policy, seed, n_jobs, n_tenants,
                                                           running_share, max_rescales,
                                                           cooldown, capacity):
    inst = random_instance(n_jobs, num_slots=3, seed=seed, running_share=running_share)
    if capacity is not None:
        inst = dataclasses.replace(inst, capacity=capacity, num_slots=len(capacity))
    inst = with_tenants(inst, n_tenants, seed=seed)
    inst.max_rescales, inst.cooldown_seconds = max_rescales, cooldown
    for k, job in enumerate(inst.jobs):
        job.seconds_since_resize = (60.0, None, 7200.0)[k % 3]
    released, _ = preemptible_jobs(inst)
    p = plan(inst, policy, Settings(time_limit=5))
    nodes = nodes_of(p, inst)
    assert quota_violations(inst, nodes) == []
    assert (nodes.sum(axis=0) <= np.array(inst.capacity)).all()
    found = violations(inst, nodes, preemptible=released)
    # only the churn rules may break, and only when the MIP has no plan either (the baselines'
    # documented fallback; tests/test_churn_baselines.py checks when they must hold)
    assert set(found) <= set(churn_violations(inst, nodes)), found
    if found:
        mip = plan(inst, "mip", Settings(time_limit=5))
        assert mip.status == "fallback", found


def two_tenants(**quotas: TenantQuota) -> Instance:
    """A fast job of tenant a submitted first and a slow one of tenant b, on 4 nodes. Without
    the critical-path factor (θ = 0): with it, sharing 2 + 2 is exactly as good for the mean JCT
    as the fast job first (the slow one runs at its one size either way), and the quota rules
    are checked against one clear unconstrained plan."""
    return Instance.from_dict({
        "capacity": 4, "num_slots": 3, "slot_seconds": 600, "critical_seconds": 0,
        "tenant_quotas": {k: dataclasses.asdict(q) for k, q in quotas.items()},
        "jobs": [
            {"job_id": "fast", "tenant": "a", "min_nodes": 1, "max_nodes": 4,
             "requested_nodes": 4, "remaining_work": 1e8, "total_work": 1e8,
             "throughput": {"1": 100.0, "2": 200.0, "3": 300.0, "4": 400.0}},
            {"job_id": "slow", "tenant": "b", "min_nodes": 2, "max_nodes": 2,
             "remaining_work": 1e8, "total_work": 1e8, "throughput": {"2": 20.0}}]})


@pytest.mark.parametrize("policy", POLICIES)
def test_a_guarantee_and_a_cap_bind_under_every_policy(policy):
    free = plan(two_tenants(), policy, Settings(time_limit=20)).nodes_by_job()
    if policy in ("greedy", "fifo", "mip"):   # the others start queued jobs at their minimum
        assert free["fast"] == [4, 4, 4] and free["slow"] == [0, 0, 0]
    inst = two_tenants(b=TenantQuota(max_nodes=None, guaranteed_nodes=2))
    kept = plan(inst, policy, Settings(time_limit=20)).nodes_by_job()
    assert kept["slow"] == [2, 2, 2]
    # FIFO's head waits for its requested 4 nodes; the others take the 2 left
    assert kept["fast"] == ([0, 0, 0] if policy == "fifo" else [2, 2, 2])
    inst = two_tenants(a=TenantQuota(max_nodes=3, guaranteed_nodes=0))
    capped = plan(inst, policy, Settings(time_limit=20)).nodes_by_job()
    assert max(capped["fast"]) <= 3

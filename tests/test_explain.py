"""Explanations (DESIGN §11) and slot prices (§4.3): each `why` code on a hand-made instance,
a non-empty why on every row of every policy's plan, prices in JSON and Parquet, and
`etplan plan explain` on a small warehouse."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.explain import CODES, explain, size_values
from solver.generate import random_instance
from solver.instance import Instance, Job, TenantQuota
from solver.policies import POLICIES, Settings, plan
from solver.prices import lp_prices
from tests.conftest import run_cli


def job(jid: str, lo: int, hi: int, *, cur: int = 0, work: float = 1e6, rate: float = 100.0,
        **kw) -> Job:
    sizes = list(range(lo, hi + 1))
    return Job(job_id=jid, min_nodes=lo, max_nodes=hi, remaining_work=work, total_work=work,
               throughput={n: rate * n ** 0.9 for n in sizes}, current_nodes=cur, **kw)


def codes_of(inst: Instance, nodes, prices=None, free=None):
    codes, texts = explain(inst, np.array(nodes), prices, free)
    assert all(t for row in texts for t in row)
    return codes, texts


def test_finishing_then_done():
    inst = Instance(jobs=[job("a", 1, 1, cur=1, work=1000.0)], capacity=[4] * 3, num_slots=3)
    codes, texts = codes_of(inst, [[1, 0, 0]])
    assert list(codes[0]) == ["finishing"] * 3
    assert "finishes in slot 0" in texts[0][0] and "done in slot 0" in texts[0][2]


def test_no_preemption_when_its_nodes_cost_more_than_they_earn():
    inst = Instance(jobs=[job("a", 2, 2, cur=2, rate=1.0)], capacity=[2] * 2, num_slots=2)
    codes, texts = codes_of(inst, [[2, 2]], prices=[10.0, 10.0])
    assert list(codes[0]) == ["no_preemption"] * 2
    assert "may not stop" in texts[0][0]
    # a job the capacity rule released may stop: no longer no_preemption
    codes, _ = codes_of(inst, [[2, 2]], prices=[10.0, 10.0], free={"a"})
    assert codes[0, 0] == "at_max"


def test_cooldown_keeps_the_size_in_slot_0():
    inst = Instance(jobs=[job("a", 1, 4, cur=2, seconds_since_resize=100.0)], capacity=[8] * 2,
                    num_slots=2, cooldown_seconds=600.0)
    codes, texts = codes_of(inst, [[2, 4]])
    assert codes[0, 0] == "cooldown" and codes[0, 1] != "cooldown"
    assert "100 s ago" in texts[0][0] and "600 s cooldown" in texts[0][0]


def test_churn_budget_used_up():
    inst = Instance(jobs=[job("a", 1, 4, cur=2), job("b", 1, 4, cur=1)], capacity=[8] * 2,
                    num_slots=2, max_rescales=1)
    codes, texts = codes_of(inst, [[2, 2], [2, 2]])   # b rescaled: the one allowed
    assert codes[0, 0] == "churn_budget" and codes[1, 0] != "churn_budget"
    assert "1 allowed rescales are used" in texts[0][0]


def test_quota_stops_a_tenant_job_growing_or_starting():
    inst = Instance(jobs=[job("a", 2, 4, cur=4, tenant="t"), job("b", 2, 4, tenant="t"),
                          job("c", 2, 4)], capacity=[16] * 2, num_slots=2,
                    quotas={"t": TenantQuota(max_nodes=4)})
    codes, texts = codes_of(inst, [[4, 4], [0, 0], [2, 2]])
    assert list(codes[1]) == ["quota", "quota"]
    assert "tenant t holds 4 of its 4 nodes" in texts[1][0]
    assert codes[0, 0] == "at_max" and codes[2, 0] == "price"   # c has no tenant: no quota


def test_at_max_and_min_does_not_fit():
    inst = Instance(jobs=[job("a", 2, 4, cur=4), job("b", 8, 8)], capacity=[6] * 2,
                    num_slots=2)
    codes, texts = codes_of(inst, [[4, 4], [0, 0]], prices=[0.0, 0.0])
    assert list(codes[0]) == ["at_max"] * 2 and list(codes[1]) == ["min_does_not_fit"] * 2
    assert "smallest size, 8 nodes, exceeds the 2 nodes free" in texts[1][0]


def test_price_below_and_above():
    inst = Instance(jobs=[job("a", 2, 4, cur=2), job("b", 1, 2)], capacity=[4] * 2,
                    num_slots=2)
    nodes = [[2, 2], [0, 0]]
    sv = size_values(inst, np.array(nodes))      # a's sizes 2, 3, 4
    per_node = sv.values[0, 0, 0] / 2
    gain = sv.values[0, 1, 0] - sv.values[0, 0, 0]   # one more node (3)
    assert gain < per_node
    price = (gain + per_node) / 2                 # worth its 2 nodes, not a third
    codes, texts = codes_of(inst, nodes, prices=[price, 1e9])
    assert codes[0, 0] == "price" and codes[1, 0] == "price"
    assert "below the slot price" in texts[0][0] and texts[1][0].startswith("waits: 1 node")
    assert codes[0, 1] == "no_preemption"         # at 1e9 a node it is only kept on by rule
    codes, texts = codes_of(inst, [[2, 2], [0, 0]], prices=None)
    assert "(no slot prices)" in texts[0][0]


def test_value_of_a_size_is_coefficient_times_its_slot_progress():
    inst = random_instance(6, 4, None, 3)
    p = plan(inst, "greedy", prices=False)
    nodes = np.array([p.nodes_by_job()[j.job_id] for j in inst.jobs])
    sv = size_values(inst, nodes)
    for j in range(len(inst.jobs)):
        for t in range(inst.T):
            n = nodes[j, t]
            if n:
                k = list(sv.sizes[j]).index(n)
                assert sv.values[j, k, t] == pytest.approx(sv.planned[j, t])


def test_prices_are_the_master_lp_duals_for_every_policy():
    inst = random_instance(8, 4, None, 1)
    mip = plan(inst, "mip", Settings(solver="columns", time_limit=5))
    greedy = plan(inst, "greedy", Settings(time_limit=5))
    assert mip.slot_prices is not None and len(mip.slot_prices) == inst.T
    assert greedy.slot_prices == pytest.approx(mip.slot_prices, abs=1e-6)
    assert all(p >= 0 for p in greedy.slot_prices)
    assert plan(inst, "greedy", prices=False).slot_prices is None
    nodes = np.array([greedy.nodes_by_job()[j.job_id] for j in inst.jobs])
    assert lp_prices(inst, nodes, released=set(), preemption=False, time_limit=0.0) is None


@settings(max_examples=12, deadline=None)
@given(jobs=st.integers(1, 7), slots=st.integers(1, 4), seed=st.integers(0, 10_000),
       policy=st.sampled_from(sorted(POLICIES)), tight=st.booleans())
def test_every_row_of_every_plan_says_why(jobs, slots, seed, policy, tight):
    inst = random_instance(jobs, slots, 2 if tight else None, seed)
    p = plan(inst, policy, Settings(time_limit=1.0))
    assert len(p.allocations) == jobs * slots
    assert {a.job_id for a in p.allocations} == {j.job_id for j in inst.jobs}
    for a in p.allocations:
        assert a.why in CODES and a.why_text, a
    data = json.loads(p.to_json())
    assert "slot_prices" in data and all(a["why"] for a in data["allocations"])
    rows = p.rows(datetime(2026, 12, 2, tzinfo=UTC))
    assert all(r["why"] and r["why_text"] for r in rows)
    assert {"slot_price"} <= set(rows[0])


def _warehouse(tmp_path):
    """A small warehouse made in-process (the CLI's own use cases), estimated."""
    from flows.usecases.data import estimate, generate_logs, ingest

    wh, outputs, logs = str(tmp_path / "w.duckdb"), tmp_path / "out", tmp_path / "logs"
    generate_logs(logs, 40, 3)
    ingest([logs], wh)
    estimate(wh)
    return wh, outputs


def test_plan_explain_on_a_small_warehouse(tmp_path):
    from flows.usecases.plans import explain_job, latest_plan, plan_window_in

    wh, outputs = _warehouse(tmp_path)
    none = run_cli("plan", "explain", "j1", "--outputs", str(outputs), "--warehouse", wh)
    assert none.returncode == 1
    assert none.stderr.strip() == (f"error: {outputs}: no plans yet; run `etplan plan window` "
                                   "first")
    plan_window_in(wh, outputs, "t1", policy="greedy", settings=Settings(time_limit=2))
    jobs = [row[0] for row in latest_plan(outputs)]
    for jid in jobs:   # any job of the latest plan
        x = explain_job(jid, outputs, wh)
        assert all(row["why"] and row["why_text"] for row in x.rows)
        assert x.curve is not None and x.curve.curve and x.values is not None
        assert all(row["slot_price"] is not None for row in x.rows)
    shown = run_cli("plan", "explain", jobs[0], "--outputs", str(outputs), "--warehouse", wh,
                    env={"COLUMNS": "80"})
    assert shown.returncode == 0, shown.stderr
    assert max(len(line) for line in shown.stdout.splitlines()) <= 80
    for part in ("sizes per slot", "curve: source", "value − price × nodes", "binding rules"):
        assert part in shown.stdout
    bad = run_cli("plan", "explain", "nope", "--outputs", str(outputs), "--warehouse", wh)
    assert bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1
    assert bad.stderr.startswith("error: job nope: not in the latest plan")


def test_plans_written_before_explanations_still_explain(tmp_path):
    from flows.usecases.plans import explain_job

    folder = tmp_path / "out" / "plans" / "run_id=old" / "window_start=20261202T100000Z"
    folder.mkdir(parents=True)
    row = {"window_time": datetime(2026, 12, 2, 10, tzinfo=UTC), "job_id": "a", "slot": 0,
           "current_nodes": 0, "nodes": 2, "action": "start", "expected_throughput": 1.0,
           "expected_progress": 1.0, "etc_seconds": 60.0, "static_etc_seconds": 60.0,
           "policy": "mip", "solver": "highs", "status": "optimal", "objective": 1.0,
           "mip_gap": 0.0, "solve_seconds": 0.1, "reason": "", "warnings": "",
           "created_at": datetime(2026, 12, 2, 10, tzinfo=UTC)}
    pq.write_table(pa.Table.from_pylist([row]), folder / "part-0.parquet")
    x = explain_job("a", tmp_path / "out", tmp_path / "none.duckdb")
    assert x.rows[0]["why"] is None and x.rows[0]["slot_price"] is None and x.curve is None

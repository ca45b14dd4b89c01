"""Per-tenant KPIs and Jain's index (DESIGN §7) on a 3-job trace computed by hand, and their
place in a backtest's summary.json and KPI Parquet."""

from __future__ import annotations

import json

import duckdb
import pytest

from flows.usecases.runs import backtest, replay_config
from replay.engine import JobState, ReplayResult
from replay.kpis import (
    DEFAULT_TENANT,
    JAIN_OF,
    jain,
    quota_node_seconds,
    run_kpis,
    tenant_kpis,
    tenant_summary,
)
from replay.trace import TraceJob
from sources.synthetic import write_logs


def job(job_id: str, tenant: str | None, submit: float, requested: int, work: float
        ) -> TraceJob:
    return TraceJob(job_id=job_id, submit=submit, min_nodes=1, max_nodes=2,
                    requested_nodes=requested, total_work=work,
                    true_throughput={1: 1.0, 2: 2.0}, tenant=tenant)


def three_jobs(tenants: tuple[str | None, str | None, str | None] = ("a", "a", "b")
               ) -> ReplayResult:
    """j1 (a): 0 → runs 0–100 on 1 node, work 50 (alone: 50 s at its request 1);
    j2 (a): 0 → waits, runs 100–200 on 2 nodes, work 100 (alone: 50 s at its request 2);
    j3 (b): 50 → runs 50–150 on 1 node, work 100 (alone: 100 s)."""
    j1, j2, j3 = (job("j1", tenants[0], 0, 1, 50), job("j2", tenants[1], 0, 2, 100),
                  job("j3", tenants[2], 50, 1, 100))
    states = [JobState(j1, 0.0, first_start=0, finish=100, node_seconds=100),
              JobState(j2, 0.0, first_start=100, finish=200, node_seconds=200),
              JobState(j3, 0.0, first_start=50, finish=150, node_seconds=100)]
    return ReplayResult(policy="greedy", states=states, end_time=200,
                        capacity_segments=[(0, 200, 4)])


def test_per_tenant_kpis_by_hand():
    # a: 4 nodes from before the run, 2 from t = 150 on (4·150 + 2·50 = 700 node-seconds)
    rows = tenant_kpis(three_jobs(), quotas={"a": [(-10, 4, 0), (150, 2, 1)]})
    a, b = rows
    assert (a["tenant"], b["tenant"]) == ("a", "b")
    assert (a["jobs"], a["completed"], b["jobs"], b["completed"]) == (2, 2, 1, 1)
    assert a["node_seconds"] == 300 and b["node_seconds"] == 100
    assert a["share"] == pytest.approx(0.75) and b["share"] == pytest.approx(0.25)
    assert a["mean_queue_s"] == pytest.approx(50) and b["mean_queue_s"] == pytest.approx(0)
    assert a["mean_jct_s"] == pytest.approx(150) and b["mean_jct_s"] == pytest.approx(100)
    # slowdowns: j1 100/50 = 2, j2 200/50 = 4, j3 100/100 = 1
    assert a["mean_slowdown"] == pytest.approx(3) and b["mean_slowdown"] == pytest.approx(1)
    # a holds 300 of its quota's 700 node-seconds over the run's span 0–200; b has no quota
    assert a["quota_node_seconds"] == pytest.approx(700)
    assert a["quota_use"] == pytest.approx(300 / 700)
    assert b["quota_node_seconds"] is None and b["quota_use"] is None
    # Jain of the mean slowdowns (3, 1): 16 / (2 · 10)
    doc = tenant_summary(rows)
    assert JAIN_OF == "mean_slowdown" and doc["jain_of"] == JAIN_OF
    assert doc["jain_index"] == pytest.approx(0.8)
    assert doc["by_tenant"]["a"]["share"] == pytest.approx(0.75)
    assert set(doc["by_tenant"]["b"]) == {
        "jobs", "completed", "node_seconds", "share", "quota_node_seconds", "quota_use",
        "mean_queue_s", "mean_jct_s", "mean_slowdown"}
    # the run KPIs are unchanged by tenants
    assert run_kpis(three_jobs())["mean_jct_s"] == pytest.approx(400 / 3)


def test_one_tenant_gives_no_rows_and_no_tenant_is_the_default():
    assert tenant_kpis(three_jobs(("a", "a", "a"))) == []
    assert tenant_summary([]) is None
    rows = tenant_kpis(three_jobs((None, None, "b")))
    assert [r["tenant"] for r in rows] == [DEFAULT_TENANT, "b"]
    # a job → tenant map given by the caller wins over the trace jobs' own
    rows = tenant_kpis(three_jobs(), tenants={"j1": "x", "j2": "y", "j3": "y"})
    assert [(r["tenant"], r["node_seconds"]) for r in rows] == [("x", 100), ("y", 300)]


def test_quota_node_seconds_counts_only_time_in_force():
    steps = [(100.0, 4, 0), (300.0, 0, 0), (400.0, 8, 2)]
    assert quota_node_seconds(steps, 0, 500) == pytest.approx(4 * 200 + 0 + 8 * 100)
    assert quota_node_seconds(steps, 150, 250) == pytest.approx(400)
    assert quota_node_seconds(steps, 0, 50) is None
    assert quota_node_seconds([], 0, 50) is None


def test_jain_index():
    assert jain([2.0, 2.0, 2.0]) == pytest.approx(1.0)
    assert jain([5.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert jain([]) is None and jain([0.0, 0.0]) is None


def test_backtest_writes_tenants_to_summary_and_parquet(tmp_path):
    logs, out = tmp_path / "logs", tmp_path / "bt"
    write_logs(logs, 8, 4)   # the synthetic jobs carry tenants
    (logs / "quotas.csv").write_text("tenant,effective_from,max_nodes,guaranteed_nodes\n"
                                     "vision,2000-01-01,32,0\nnlp,2000-01-01,32,0\n")
    config = replay_config(window=3600, slots=2, time_limit=2)
    doc = backtest(logs, ["greedy", "fifo"], out, config=config)
    saved = json.loads((out / "summary.json").read_text())
    assert set(saved["tenants"]) == {"greedy", "fifo"} == set(doc["tenants"])
    entry = saved["tenants"]["greedy"]
    assert entry["jain_of"] == "mean_slowdown" and 0 < entry["jain_index"] <= 1
    assert len(entry["by_tenant"]) >= 2
    assert sum(t["jobs"] for t in entry["by_tenant"].values()) == 8
    assert sum(t["share"] for t in entry["by_tenant"].values()) == pytest.approx(1)
    # tenants with a quota in the logs have their use of it, the others none
    for name, t in entry["by_tenant"].items():
        assert (t["quota_use"] is not None) == (name in ("vision", "nlp") and t["node_seconds"] > 0)
    assert entry["by_tenant"]["nlp"]["quota_use"] > 0
    table = duckdb.sql(f"SELECT policy, tenant, jobs FROM read_parquet("
                       f"'{out}/kpis/tenants/**/*.parquet', hive_partitioning = true)").fetchall()
    assert {p for p, _, _ in table} == {"greedy", "fifo"}
    assert sum(n for p, _, n in table if p == "fifo") == 8

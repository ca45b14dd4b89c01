"""`etplan plan whatif`: the latest window re-solved with one change, per-job size and ETC
before → after, KPI deltas, the official plan untouched, one-line errors."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from flows.usecases.whatif import Change, apply_change, parse_change, what_if
from solver.instance import Instance, Job, TenantQuota
from solver.policies import Settings
from tests.conftest import run_cli
from warehouse.errors import EtplanError


def small_warehouse(root: Path) -> Path:
    """A warehouse of 40 generated jobs (seed 3), ingested and estimated, in `root`."""
    from flows.usecases import data

    wh, logs = root / "w.duckdb", root / "logs"
    data.generate_logs(logs, 40, 3)
    assert all(r.status != "failed" for r in data.ingest([logs], wh))
    data.estimate(wh)
    return wh


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    """A small warehouse with one plan of its latest window (greedy)."""
    from flows.usecases.plans import plan_window_in

    root = tmp_path_factory.mktemp("whatif")
    wh, outputs = small_warehouse(root), root / "out"
    wp = plan_window_in(wh, outputs, "official", policy="greedy")
    return wh, outputs, wp


def digest(folder) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*.parquet"))}


def test_capacity_on_the_command_line_prints_changes_and_kpis(planned):
    wh, outputs, wp = planned
    official = digest(outputs / "plans")
    r = run_cli("plan", "whatif", "--capacity", "+8", "--run-id", "w1", "--outputs",
                str(outputs), "--warehouse", str(wh))
    assert r.returncode == 0, r.stderr
    assert "what-if --capacity +8 on the window at" in r.stdout
    assert f"of {len(wp.instance.jobs)} jobs change" in r.stdout
    for kpi in ("objective", "nodes used (slot 0)", "jobs waiting (slot 0)"):
        assert kpi in r.stdout
    assert digest(outputs / "plans") == official          # the official plan is untouched
    assert list((outputs / "whatif" / "run_id=w1").rglob("*.parquet"))
    minus = run_cli("plan", "whatif", "--capacity", "-1", "--outputs", str(outputs),
                    "--warehouse", str(wh))
    assert minus.returncode == 0, minus.stderr


def test_errors_are_one_line(planned, tmp_path):
    wh, outputs, _ = planned
    r = run_cli("plan", "whatif", "--drop", "nope", "--outputs", str(outputs),
                "--warehouse", str(wh))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        f"error: --drop nope: no job nope in the window at {planned[2].at:%Y-%m-%dT%H:%M:%SZ}; "
        "`etplan plan show` lists its jobs"]
    with pytest.raises(EtplanError, match="no plans yet; run `etplan plan window` first"):
        what_if(wh, tmp_path / "empty", Change("--capacity", None, 4.0), "x")
    with pytest.raises(EtplanError, match="no job nope"):
        what_if(wh, outputs, Change("--weight", "nope", 2.0), "x")
    with pytest.raises(EtplanError, match="no tenant"):
        what_if(wh, outputs, Change("--quota", "team-x", 4.0), "x")
    with pytest.raises(EtplanError, match="remove at most"):
        what_if(wh, outputs, Change("--capacity", None, -10_000.0), "x")


@pytest.mark.parametrize(("args", "message"), [
    ({}, "give exactly one change"),
    ({"capacity": "+1", "drop": "a"}, "give exactly one change"),
    ({"capacity": "lots"}, r"e\.g\. \+16 or -8"),
    ({"capacity": "1.5"}, r"e\.g\. \+16 or -8"),
    ({"weight": "a"}, "JOB=W with W > 0"),
    ({"weight": "a=0"}, "JOB=W with W > 0"),
    ({"weight": "=2"}, "JOB=W with W > 0"),
    ({"weight": "a=nan"}, "JOB=W with W > 0"),
    ({"quota": "t=-1"}, "TENANT=N with N ≥ 0"),
    ({"quota": "t=2.5"}, "TENANT=N with N ≥ 0"),
    ({"drop": " "}, "give a job id"),
])
def test_bad_values_are_refused(args, message):
    with pytest.raises(EtplanError, match=message):
        parse_change(**args)


def test_good_values_parse():
    assert parse_change(capacity="+16") == Change("--capacity", None, 16.0)
    assert parse_change(capacity="-8").text() == "--capacity -8"
    assert parse_change(drop="j1") == Change("--drop", "j1", 0.0)
    assert parse_change(weight="j1=2.5") == Change("--weight", "j1", 2.5)
    assert parse_change(quota="team-a=16").text() == "--quota team-a=16"


def small() -> Instance:
    jobs = [Job(f"j{i}", 1, 2, 10.0, 10.0, {1: 1.0, 2: 2.0}, tenant="team-a" if i else None)
            for i in range(3)]
    return Instance(jobs=jobs, capacity=[4, 4], num_slots=2,
                    quotas={"team-a": TenantQuota(3, 2)})


def test_each_change_makes_exactly_its_change():
    inst = small()
    assert apply_change(inst, Change("--capacity", None, 2.0), "w").capacity == [6, 6]
    assert [j.job_id for j in apply_change(inst, Change("--drop", "j1", 0.0), "w").jobs] == [
        "j0", "j2"]
    heavier = apply_change(inst, Change("--weight", "j2", 3.0), "w")
    assert [j.weight for j in heavier.jobs] == [1.0, 1.0, 3.0]
    assert apply_change(inst, Change("--quota", "team-a", 1.0), "w").quotas == {
        "team-a": TenantQuota(1, 1)}
    assert apply_change(inst, Change("--quota", "team-a", 8.0), "w").quotas == {
        "team-a": TenantQuota(8, 2)}
    # the instance the change was made on is left as it was
    assert inst.capacity == [4, 4] and [j.weight for j in inst.jobs] == [1.0] * 3
    assert inst.quotas == {"team-a": TenantQuota(3, 2)}


def test_drop_and_weight_in_the_window(planned):
    wh, outputs, wp = planned
    official = {r["job_id"]: r for r in wp.rows if r["slot"] == 0}
    job = next(j for j, r in official.items() if r["nodes"] > 0)
    w = what_if(wh, outputs, Change("--drop", job, 0.0), "w2", settings=Settings(time_limit=2))
    dropped = [d for d in w.changed if d.job_id == job]
    assert dropped and dropped[0].nodes_after is None and dropped[0].nodes_before > 0
    kpis = {name: (before, after) for name, before, after in w.kpis}
    # "before" is the official plan scored on the same window
    assert kpis["objective"][0] == pytest.approx(wp.plan.objective)
    assert kpis["nodes used (slot 0)"][0] == sum(r["nodes"] for r in official.values())
    assert kpis["jobs waiting (slot 0)"][0] == sum(r["nodes"] == 0 for r in official.values())
    assert kpis["nodes used (slot 0)"][1] <= wp.instance.capacity[0]
    # every row listed changes; every row not listed keeps its size
    sizes = {a.job_id: a.nodes for a in w.plan.allocations if a.slot == 0}
    listed = {d.job_id for d in w.changed}
    assert all(sizes[j] == official[j]["nodes"] for j in sizes if j not in listed)
    heavier = what_if(wh, outputs, Change("--weight", job, 5.0), "w3",
                      settings=Settings(time_limit=2))
    assert heavier.jobs == len(wp.instance.jobs) and heavier.path.exists()

"""`etplan sweep` (issue 16 item 4): backtest cells as Prefect tasks on a real Dask scheduler
with 2 worker processes started here; finished cells are reused by a rerun, changed inputs
replay only their cells, and the cells' KPIs equal a sequential run's."""

from __future__ import annotations

import json
import os
import time

import pytest

from sources.synthetic import write_logs
from tests.conftest import run_cli

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c


def _workloads(root, n=2):
    paths = []
    for seed in range(n):
        d = root / f"philly-slice-{seed}-elastic-0.5-2"   # names as long as real ones
        write_logs(d, 20, seed, capacity=16)
        paths.append(d)
    return paths


def test_sweep_on_a_dask_cluster_reuses_finished_cells(cluster, tmp_path):
    paths = _workloads(tmp_path)
    args = ("sweep", *map(str, paths), "--policies", "greedy,fifo", "--capacity", "16",
            "--window", "900", "--slots", "4", "--out", str(tmp_path / "res"),
            "--dask-address", cluster.scheduler_address)
    env = {"PREFECT_HOME": str(tmp_path / ".prefect")}
    first = run_cli(*args, env=env)
    assert first.returncode == 0, first.stderr[-3000:]
    assert "4 cells replayed, 0 reused" in first.stdout
    cells = sorted((tmp_path / "res").glob("*/cap=16/policy=*/cell.json"))
    assert len(cells) == 4
    assert all(json.loads(c.read_text())["kpis"]["mean_jct_s"] > 0 for c in cells)

    t0 = time.monotonic()
    again = run_cli(*args, env={**env, "COLUMNS": "80"})   # a narrow pipe: cells stay whole
    assert again.returncode == 0, again.stderr[-3000:]
    assert "0 cells replayed, 4 reused" in again.stdout
    assert time.monotonic() - t0 < 30       # no cluster, no server: seconds
    assert all(p.name in again.stdout for p in paths)    # cut to "philly-sl…" before
    for c in cells:
        kpis = json.loads(c.read_text())["kpis"]
        assert f"{kpis['mean_jct_s']:,.0f}" in again.stdout
        assert f"{kpis['gpu_efficiency']:,.3f}" in again.stdout

    events = paths[1] / "job_events.csv"
    os.utime(events, ns=(time.time_ns(), time.time_ns()))   # a changed input
    third = run_cli(*args, env=env)
    assert third.returncode == 0, third.stderr[-3000:]
    assert "2 cells replayed, 2 reused" in third.stdout


def test_sweep_on_dask_equals_sequential(prefect_harness, cluster, tmp_path):
    from flows.pipeline import dask_runner, sweep_flow

    args = dict(workloads=[str(p) for p in _workloads(tmp_path)], policies=["mip", "greedy"],
                capacities=[16], window=900.0, slots=4, time_limit=30.0)
    seq = sweep_flow(out=str(tmp_path / "seq"), **args)
    dask = sweep_flow.with_options(task_runner=dask_runner(cluster.scheduler_address, 2))(
        out=str(tmp_path / "dask"), **args)
    assert seq["replayed"] == dask["replayed"] == 4

    def outcome(results):  # decision times are wall-clock measurements; the rest is the replay
        return {k: {m: v for m, v in kpis.items() if not m.startswith("decision")}
                for k, kpis in results.items()}

    assert outcome(seq["results"]) == outcome(dask["results"])


def test_sweep_refuses_folders_that_are_not_workloads(tmp_path):
    (tmp_path / "empty").mkdir()
    r = run_cli("sweep", str(tmp_path / "empty"), "--out", str(tmp_path / "res"))
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "no truth.json" in r.stderr

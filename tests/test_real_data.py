"""Importers and estimation accuracy on the real Pollux data (skipped when it is absent)."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from tests.conftest import POLLUX, needs_pollux, run_cli
from warehouse.connection import connect
from warehouse.ingest import ingest_paths

pytestmark = needs_pollux


def step_time(model: str, placement: str, local_bsz: int) -> float:
    with (POLLUX / "traces" / model / "placements.csv").open() as fh:
        for row in csv.DictReader(fh):
            if row["placement"] == placement and int(row["local_bsz"]) == local_bsz:
                return float(row["step_time"])
    raise AssertionError("not measured")


def epochs_iterations(model: str, batch: int, epochs: int) -> int:
    with (POLLUX / "traces" / model / f"validation-{batch}.csv").open() as fh:
        return int(list(csv.DictReader(fh))[epochs - 1]["iteration"])


def test_pollux_workload_6_by_hand(tmp_path):
    out = tmp_path / "w6"
    r = run_cli("import", "pollux", str(POLLUX / "workloads" / "workload-6.csv"),
                "--profiles", str(POLLUX / "traces"), "--out", str(out), "--seed", "1")
    assert r.returncode == 0, r.stderr
    con = connect(tmp_path / "w.duckdb")
    results = ingest_paths(con, [out])
    assert [r.rows_rejected for r in results] == [0, 0, 0]
    assert con.execute("SELECT count(*) FROM jobs").fetchone()[0] == 160
    jobs = {j: (w, lo, hi, req) for j, w, lo, hi, req in con.execute(
        "SELECT job_id, total_work, min_nodes, max_nodes, requested_nodes FROM jobs").fetchall()}
    truth = json.loads((out / "truth.json").read_text())["jobs"]
    # cifar10-3: batch 4096 on 16 GPUs; at 4 GPUs each takes 1024, measured on one node ("4")
    assert jobs["cifar10-3"] == (epochs_iterations("cifar10", 4096, 100) * 4096, 1, 64, 16)
    assert truth["cifar10-3"]["throughput"]["4"] == pytest.approx(
        4096 / step_time("cifar10", "4", 1024), rel=1e-6)
    # ncf-6: batch 32768 on 1 GPU, measured at local_bsz 32768
    assert jobs["ncf-6"] == (epochs_iterations("ncf", 32768, 10) * 32768, 1, 64, 1)
    assert truth["ncf-6"]["throughput"]["1"] == pytest.approx(
        32768 / step_time("ncf", "1", 32768), rel=1e-6)
    # yolov3-41: batch 64 on 4 GPUs (16 each, measured); max 64 / 4 (smallest batch) = 16 GPUs
    assert jobs["yolov3-41"] == (epochs_iterations("yolov3", 64, 50) * 64, 1, 16, 4)
    assert truth["yolov3-41"]["throughput"]["4"] == pytest.approx(
        64 / step_time("yolov3", "4", 16), rel=1e-6)
    assert len(truth["yolov3-41"]["throughput"]) == 16
    # observed samples: at the requested size, within measurement noise of the truth
    samples = con.execute("SELECT nodes, throughput, machines FROM throughput_samples "
                          "WHERE job_id = 'yolov3-41'").fetchall()
    assert {(n, m) for n, _, m in samples} == {(4, 1)}
    for _, tp, _ in samples:
        assert tp == pytest.approx(truth["yolov3-41"]["throughput"]["4"], rel=0.15)
    # 16 GPUs packed 4 to a machine span 4 machines
    assert con.execute("SELECT DISTINCT machines FROM throughput_samples "
                       "WHERE job_id = 'cifar10-3'").fetchall() == [(4,)]
    assert json.loads((out / "truth.json").read_text())["nodes_per_machine"] == 4


def test_philly_slice_imports_cleanly(tmp_path):
    out = tmp_path / "ph"
    r = run_cli("import", "philly", str(POLLUX / "traces" / "philly.csv"),
                "--start", "2017-10-09T00:00:00Z", "--hours", "12", "--jobs", "300",
                "--seed", "3", "--out", str(out))
    assert r.returncode == 0, r.stderr
    con = connect(tmp_path / "w.duckdb")
    results = ingest_paths(con, [out])
    assert [r.rows_rejected for r in results] == [0, 0, 0]
    assert con.execute("SELECT count(*) FROM jobs").fetchone()[0] == 300
    assert con.execute("SELECT count(DISTINCT model) FROM jobs").fetchone()[0] >= 3
    r = run_cli("import", "philly", str(POLLUX / "traces" / "philly.csv"),
                "--start", "2030-01-01T00:00:00Z", "--hours", "1", "--out", str(out))
    assert r.returncode == 1 and "no jobs between" in r.stderr


def test_estimation_accuracy_on_measured_profiles():
    """Fit from the measurements at 1, 2 and 4 GPUs (each with the machines it spanned),
    predict every other measured count: the issue's target on medians, overall ≤ 10% and no
    model above 25%, and the estimator beats the power law. Per-model MEANS stay above 25% for
    bert and ncf; bert's cannot go below 25% for any non-decreasing curve through its own
    4-GPU measurement (`floor`), since it runs three times slower on 5 GPUs over two machines."""
    from sources.accuracy import measure
    from warehouse.estimate import estimate_rows

    acc = measure(POLLUX / "traces", estimate_rows)
    table = {r["model"]: r for r in acc.table()}
    overall = table.pop("overall")
    assert overall["points"] > 700
    assert overall["amdahl_median_ape"] <= 0.10
    assert overall["amdahl_median_ape"] < overall["power_median_ape"] / 3
    assert all(r["amdahl_median_ape"] <= 0.25 for r in table.values()), table
    assert table["bert"]["floor_mean_ape"] > 0.25
    assert all(r["amdahl_mean_ape"] >= r["floor_mean_ape"] for r in table.values())

    # without the machines a sample spanned, all three points lie on one machine and say
    # nothing of crossing machines; what the class measured across machines at other batches
    # then tells the estimator where bert slows down
    blind = measure(POLLUX / "traces", estimate_rows, machines=False)
    assert np.median(blind.ape()) > 0.2
    seen = measure(POLLUX / "traces", estimate_rows, machines=False,
                   history=True)
    assert np.median(seen.ape("bert")) < 0.4 < np.median(blind.ape("bert"))
    assert np.median(seen.ape()) < np.median(blind.ape())


def test_backtest_every_policy_completes_a_real_workload(tmp_path):
    logs = tmp_path / "logs"
    assert run_cli("import", "pollux",
                   str(POLLUX / "workloads-0.5" / "workload-3.csv"), "--profiles",
                   str(POLLUX / "traces"), "--out", str(logs)).returncode == 0
    out = tmp_path / "bt"
    r = run_cli("backtest", str(logs), "--policies", "mip,optimus,greedy,fifo",
                "--capacity", "64", "--window", "600", "--time-limit", "0.5", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "mean_jct_s" in r.stdout
    doc = json.loads((out / "summary.json").read_text())
    assert doc["engine"] == "windowed" and "backtest, windowed replay" in r.stdout
    n = len(list(csv.DictReader((POLLUX / "workloads-0.5" / "workload-3.csv").open())))
    for policy in ("mip", "optimus", "greedy", "fifo"):
        s = doc["policies"][policy]
        assert (s["jobs"], s["completed"]) == (n, n), policy  # no job starves
        assert 0 < s["utilization"] <= 1 and s["speedup_vs_static"] > 0
    assert doc["ratios_vs_greedy"]["greedy"]["mean_jct_s"] == 1.0
    # per-job KPIs read back with plain DuckDB
    import duckdb

    rows = duckdb.sql(f"SELECT policy, count(*) FROM read_parquet('{out}/kpis/jobs/**/*.parquet',"
                      " hive_partitioning = true) GROUP BY 1").fetchall()
    assert sorted(rows) == sorted((p, n) for p in ("mip", "optimus", "greedy", "fifo"))

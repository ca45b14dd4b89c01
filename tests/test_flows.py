"""The Prefect flows, the Parquet outputs, the report, and the Dask sweep."""

from __future__ import annotations

import base64
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import duckdb
import pytest

from sources.synthetic import write_logs


@pytest.fixture(scope="session")
def prefect_harness():
    # conftest.py has set a temporary PREFECT_HOME
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


def parquet_rows(glob: str) -> int:
    return duckdb.sql(f"SELECT count(*) FROM read_parquet('{glob}', hive_partitioning = true)"
                      ).fetchall()[0][0]


def test_pipeline_flow_twice_same_run_id_same_rows(prefect_harness, tmp_path):
    from flows.pipeline import pipeline_flow

    logs = tmp_path / "logs"
    write_logs(logs, 60, 5)
    wh, outputs = str(tmp_path / "w.duckdb"), tmp_path / "out"
    first = pipeline_flow([str(logs)], warehouse=wh, outputs=str(outputs), run_id="r1",
                          time_limit=5.0)
    assert first["plan"]["jobs"] > 0
    plans = str(outputs / "plans" / "*" / "*" / "*.parquet")
    n1 = parquet_rows(plans)
    assert n1 == first["plan"]["jobs"] * 6
    # a stale temp file from a killed writer is cleared by the rerun
    folder = next((outputs / "plans" / "run_id=r1").iterdir())
    (folder / ".part-dead.tmp").write_bytes(b"half a file")
    second = pipeline_flow([str(logs)], warehouse=wh, outputs=str(outputs), run_id="r1",
                           time_limit=5.0)
    assert second["plan"]["path"] == first["plan"]["path"]
    assert parquet_rows(plans) == n1
    assert sorted(p.name for p in folder.iterdir()) == ["part-0.parquet"]
    cols = duckdb.sql(f"SELECT * FROM read_parquet('{plans}', hive_partitioning = true) "
                      "LIMIT 1").columns
    assert {"run_id", "window_start", "job_id", "slot", "nodes", "action",
            "etc_seconds"} <= set(cols)
    # artifacts a person reads: the plan as a table, a link to its Parquet file
    import json

    from prefect.artifacts import Artifact

    plan = Artifact.get("etplan-plan")
    assert plan.type == "table"
    table = json.loads(plan.data)
    assert len(table) == first["plan"]["jobs"]
    assert set(table[0]) == {"job", "action", "nodes now → next", "ETC", "saved vs static"}
    assert re.fullmatch(r"\d+ → \d+", table[0]["nodes now → next"])
    link = Artifact.get("etplan-plan-parquet")
    assert link.data.endswith(f"({(folder / 'part-0.parquet').resolve().as_uri()})")


def test_killed_writer_leaves_no_partial_file(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from warehouse.outputs import write_partition

    write_partition(tmp_path, [{"a": 1}, {"a": 2}], run_id="x")

    def dies(table, where, **kw):
        with open(where, "wb") as fh:
            fh.write(b"PAR1 partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(pq, "write_table", dies)
    with pytest.raises(KeyboardInterrupt):
        write_partition(tmp_path, [{"a": 3}], run_id="x")
    monkeypatch.undo()
    files = sorted(p.name for p in (tmp_path / "run_id=x").iterdir())
    assert files == ["part-0.parquet"]
    assert parquet_rows(str(tmp_path / "*" / "*.parquet")) == 2


def test_report_renders_with_every_chart(prefect_harness, tmp_path):
    from flows.pipeline import backtest_flow

    logs = tmp_path / "logs"
    write_logs(logs, 40, 9)
    out = tmp_path / "bt"
    summary = backtest_flow(str(logs), ["mip", "greedy", "fifo"], str(out), window=600,
                            time_limit=5)
    assert (out / "report.html").stat().st_size > 0
    import json

    from prefect.artifacts import Artifact

    kpis = json.loads(Artifact.get("etplan-kpis").data)
    assert set(kpis[0]) == {"KPI", "mip", "greedy", "fifo"}
    assert "vs greedy" in next(r for r in kpis if r["KPI"] == "mean_jct_s")["mip"]
    assert Artifact.get("etplan-report").data.endswith(f"({(out / 'report.html').as_uri()})")
    # the run's report: the backtest's KPIs and charts plus the Gantt of a window's plan
    from datetime import UTC, datetime

    from report.html import write_report
    from solver.generate import random_instance
    from solver.policies import plan

    rows = plan(random_instance(12, 4, seed=1), "mip").rows(datetime(2026, 12, 2, tzinfo=UTC))
    report = write_report(out / "run-report.html", summary, out / "kpis", rows)
    html = report.read_text()
    images = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,([^"]+)"', html)
    assert [t for t, _ in images] == ["Queue length and utilisation over time",
                                      "JCT and queueing CDF per policy",
                                      "Allocation Gantt of the plan"]
    import matplotlib.image as mpimg

    for _, b64 in images:
        pixels = mpimg.imread(io.BytesIO(base64.b64decode(b64)), format="png")
        assert pixels.shape[0] > 100 and pixels.std() > 0.01  # a real picture, not blank
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("chromium is not installed (make test installs it)")
    shot = tmp_path / "shot.png"
    r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--disable-quic", "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={tmp_path / 'chrome'}", "--window-size=1100,2400",
                        "--enable-logging=stderr", f"--screenshot={shot}",
                        report.as_uri()], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Uncaught" not in r.stderr
    page = mpimg.imread(str(shot))
    assert page.shape[0] > 1000 and page.std() > 0.05
    dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                          "--no-first-run", "--disable-background-networking",
                          f"--user-data-dir={tmp_path / 'chrome2'}", "--dump-dom",
                          report.as_uri()], capture_output=True, text=True,
                         timeout=120).stdout
    assert dom.count("<img") == 3 and "<table>" in dom


def test_sweep_through_dask_equals_sequential(prefect_harness, tmp_path):
    from prefect_dask import DaskTaskRunner

    from flows.pipeline import sweep_flow

    workloads = []
    for seed in range(4):
        d = tmp_path / f"w{seed}"
        write_logs(d, 25, seed, capacity=16)
        workloads.append(str(d))
    args = dict(workloads=workloads, policies=["mip", "greedy", "fifo"], capacities=[16],
                window=900.0, slots=4, time_limit=30.0)
    seq = sweep_flow(out=str(tmp_path / "seq"), **args)
    dask = sweep_flow.with_options(task_runner=DaskTaskRunner(
        cluster_kwargs={"n_workers": 2, "threads_per_worker": 1, "processes": True}))(
        out=str(tmp_path / "dask"), **args)
    assert len(seq) == 4 and all(len(v) == 3 for v in seq.values())

    def outcome(results):  # decision times are wall-clock measurements; the rest is the replay
        return {k: {p: {m: v for m, v in s.items() if not m.startswith("decision")}
                    for p, s in pols.items()} for k, pols in results.items()}

    assert outcome(seq) == outcome(dask)


def test_serve_without_a_server_starts_one_plans_on_schedule_and_stops_on_sigterm(tmp_path):
    """A fresh machine: no PREFECT_API_URL. serve starts a local Prefect server, a run fires
    within a minute and writes a plan; SIGTERM stops serve and its server."""
    write_logs(tmp_path / "logs", 30, 4)
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env |= {"PREFECT_HOME": str(tmp_path / ".prefect"), "COLUMNS": "200"}
    env.pop("ETPLAN_WAREHOUSE", None)
    env.pop("ETPLAN_OUTPUTS", None)
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen([str(Path(sys.executable).with_name("etplan")), "serve", "logs",
                             "--cron", "* * * * *", "--time-limit", "2"], cwd=tmp_path,
                            env=env, stdout=log, stderr=subprocess.STDOUT)
    plans = tmp_path / "data" / "out" / "plans"
    try:
        deadline = time.monotonic() + 150
        while not list(plans.glob("*/*/part-0.parquet")) and time.monotonic() < deadline:
            assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
            time.sleep(2)
        text = (tmp_path / "serve.log").read_text()
        assert list(plans.glob("*/*/part-0.parquet")), text[-3000:]
        api = re.search(r"Prefect API: (http://127\.0\.0\.1:\d+/api)", text).group(1)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(90)
        log.close()
    assert (tmp_path / ".prefect" / "server.log").is_file()
    with pytest.raises(OSError):   # the local server went with it
        urllib.request.urlopen(f"{api}/health", timeout=2)

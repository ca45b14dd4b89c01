"""The Prefect flows, the Parquet outputs, the report, serve and deploy (the Dask sweep is in
test_sweep.py)."""

from __future__ import annotations

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
    # the run's report: the backtest's KPIs and charts, the plan of a window, the curves and
    # the rejected rows of a warehouse (logs with bad rows), per-tenant KPIs
    from flows.usecases import data, plans, runs
    from solver.policies import Settings

    wlogs, wh = tmp_path / "wlogs", str(tmp_path / "w.duckdb")
    write_logs(wlogs, 40, 9, bad_rows=0.05)
    data.ingest([str(wlogs)], wh)
    data.estimate(wh)
    wp = plans.plan_window_in(wh, out, "r1", settings=Settings(time_limit=2))
    report = runs.run_report(out, "r1", summary, out / "kpis", wp.brief() | {"rows": wp.rows},
                             wh)
    html = report.read_text()
    headings = re.findall(r"<h2>([^<]+)</h2>", html)
    assert headings == ["KPIs"] + (["Per-tenant KPIs"] if summary.get("tenants") else []) + [
        "The plan of the latest window", "Queue length and utilisation over time",
        "Nodes in use per policy", "JCT and queueing delay per policy",
        "Solver time and gap per window", "Throughput curves behind the plan",
        "Rejected input rows by rule", "Definitions"]
    assert html.count('<div id="chart-') == 6 and not re.search(r"<script[^>]*\bsrc=", html)
    assert "0.00×" not in html and re.search(r"makespan.*?<td[^>]*>\d+ h", html, re.S)
    assert "<code>" in html.split("id='rejected'")[1]
    gantt = html.split('<div id="chart-plan"')[1].split("</script>")[0]
    assert all(f'"{r["job_id"]}"' in gantt for r in wp.rows)    # every job, waiting ones too
    if any(r.get("why") for r in wp.rows):
        assert "why (slot 0)" in html
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("chromium is not installed (make test installs it)")
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--enable-logging=stderr"]
    shot = tmp_path / "shot.png"
    r = subprocess.run(flags + [f"--user-data-dir={tmp_path / 'chrome'}",
                                "--window-size=1280,3000", f"--screenshot={shot}",
                                report.as_uri()], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Uncaught" not in r.stderr and "CONSOLE" not in r.stderr, r.stderr[-2000:]
    import matplotlib.image as mpimg

    page = mpimg.imread(str(shot))
    assert page.shape[0] > 1000 and page.std() > 0.05
    dom = subprocess.run(flags + [f"--user-data-dir={tmp_path / 'chrome2'}",
                                  "--virtual-time-budget=10000", "--dump-dom",
                                  report.as_uri()], capture_output=True, text=True,
                         timeout=120)
    assert "Uncaught" not in dom.stderr and "CONSOLE" not in dom.stderr, dom.stderr[-2000:]
    # every chart was drawn by plotly: its <div> holds an <svg> with the plot
    charts = re.split(r'<div id="(chart-[a-z]+)"', dom.stdout)[1:]
    drawn = {charts[i]: 'class="main-svg"' in charts[i + 1] for i in range(0, len(charts), 2)}
    assert drawn == dict.fromkeys(["chart-plan", "chart-queue", "chart-allocation", "chart-cdf",
                                   "chart-solver", "chart-curves"], True)


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

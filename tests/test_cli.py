"""The `etplan` command as a user runs it: exit codes, one-line errors, outputs."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap

from tests.conftest import run_cli


def sha(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_generate_same_arguments_same_bytes(tmp_path):
    for d in ("A", "B"):
        r = run_cli("generate", "--jobs", "2000", "--seed", "7", "--out", str(tmp_path / d))
        assert r.returncode == 0, r.stderr
    assert sha(tmp_path / "A") == sha(tmp_path / "B")
    assert len(sha(tmp_path / "A")) == 4


def test_ingest_exit_codes_and_messages(tmp_path):
    wh = str(tmp_path / "w.duckdb")
    logs = tmp_path / "logs"
    assert run_cli("generate", "--jobs", "50", "--out", str(logs), "--format", "mixed",
                   "--bad-rows", "0.05").returncode == 0
    ok = run_cli("ingest", str(logs), "--warehouse", wh)
    assert ok.returncode == 0, ok.stderr
    assert "job_events" in ok.stdout and "rejected_rows" in ok.stdout
    (logs / "broken.parquet").write_bytes(b"PAR1 not really")
    bad = run_cli("ingest", str(logs), "--warehouse", wh)
    assert bad.returncode == 1
    errors = bad.stderr.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith("error: ") and "broken.parquet" in errors[0]
    assert "Traceback" not in bad.stderr + bad.stdout
    usage = run_cli("ingest", str(logs), "--feed", "nonsense", "--warehouse", wh)
    assert usage.returncode == 2
    missing = run_cli("ingest", str(tmp_path / "nowhere"), "--warehouse", wh)
    assert missing.returncode == 1
    assert missing.stderr.strip() == f"error: {tmp_path / 'nowhere'}: no such file or folder"


def test_sql_read_only_and_formats(tmp_path):
    wh = str(tmp_path / "w.duckdb")
    logs = tmp_path / "logs"
    run_cli("generate", "--jobs", "30", "--out", str(logs))
    run_cli("ingest", str(logs), "--warehouse", wh)
    r = run_cli("sql", "SELECT count(*) AS n FROM jobs", "--format", "json", "--warehouse", wh)
    assert r.returncode == 0 and json.loads(r.stdout) == [{"n": 30}]
    r = run_cli("sql", "SELECT status, count(*) AS n FROM jobs GROUP BY 1 ORDER BY 1",
                "--format", "csv", "--warehouse", wh)
    assert r.stdout.splitlines()[0] == "status,n"
    out = tmp_path / "jobs.parquet"
    r = run_cli("sql", "SELECT * FROM jobs", "--format", "parquet", "--out", str(out),
                "--warehouse", wh)
    assert r.returncode == 0 and out.stat().st_size > 0
    r = run_cli("sql", "DELETE FROM job_events", "--warehouse", wh)
    assert r.returncode == 1 and "read-only" in r.stderr.lower()
    assert len(r.stderr.strip().splitlines()) == 1
    r = run_cli("sql", "SELEC nonsense", "--warehouse", wh)
    assert r.returncode == 1 and r.stderr.startswith("error: sql: ")
    r = run_cli("sql", "SELECT 1", "--warehouse", str(tmp_path / "none.duckdb"))
    assert r.returncode == 1 and "no warehouse here yet" in r.stderr


def test_second_writer_is_told_the_warehouse_is_busy(tmp_path):
    wh = tmp_path / "w.duckdb"
    logs = tmp_path / "logs"
    run_cli("generate", "--jobs", "10", "--out", str(logs))
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from warehouse.connection import connect
        con = connect({str(wh)!r})
        print("holding", flush=True)
        sys.stdin.read()
    """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        r = run_cli("ingest", str(logs), "--warehouse", str(wh))
        assert r.returncode == 1
        assert r.stderr.strip() == (f"error: {wh}: warehouse is busy (another etplan process is "
                                    "writing it); wait for it to finish and retry")
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert run_cli("ingest", str(logs), "--warehouse", str(wh)).returncode == 0


def test_out_files_go_into_new_folders_and_unwritable_ones_fail_in_one_line(tmp_path):
    inst = tmp_path / "new" / "instance.json"
    r = run_cli("generate-instance", "--jobs", "12", "--seed", "3", "--out", str(inst))
    assert r.returncode == 0, r.stderr
    plan_file = tmp_path / "plans" / "deeper" / "plan.json"
    r = run_cli("solve", str(inst), "--solver", "columns", "--gap", "0.01",
                "--out", str(plan_file))
    assert r.returncode == 0, r.stderr
    plan = json.loads(plan_file.read_text())
    assert plan["policy"] == "mip" and len(plan["allocations"]) == 12 * 6
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = run_cli("solve", str(inst), "--out", str(blocker / "plan.json"))
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        f"error: {blocker / 'plan.json'}: cannot create its folder (File exists)"]


def test_plan_window_then_show_and_query_the_plan(tmp_path):
    wh, outputs, logs = str(tmp_path / "w.duckdb"), str(tmp_path / "out"), tmp_path / "logs"
    assert run_cli("generate", "--jobs", "40", "--seed", "3", "--out", str(logs)).returncode == 0
    assert run_cli("ingest", str(logs), "--warehouse", wh).returncode == 0
    assert run_cli("estimate", "--warehouse", wh).returncode == 0
    none = run_cli("plan", "show", "--outputs", outputs)
    assert none.returncode == 1
    assert none.stderr.strip() == f"error: {outputs}: no plans yet; run `etplan plan window` first"
    r = run_cli("plan", "window", "--run-id", "t1", "--time-limit", "2", "--outputs", outputs,
                "--warehouse", wh)
    assert r.returncode == 0, r.stderr
    assert "plan written to" in r.stdout and "run_id=t1" in r.stdout
    shown = run_cli("plan", "show", "--outputs", outputs)
    assert shown.returncode == 0 and "nodes now → next" in shown.stdout
    n = run_cli("sql", "SELECT count(DISTINCT slot) AS n FROM latest_plan", "--format", "json",
                "--outputs", outputs, "--warehouse", wh)
    assert n.returncode == 0, n.stderr
    assert json.loads(n.stdout) == [{"n": 6}]


def test_backtest_refuses_unknown_policies_in_one_line(tmp_path):
    r = run_cli("backtest", "--logs", str(tmp_path), "--out", str(tmp_path / "bt"),
                "--policies", "mip,nope")
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        "error: --policies mip,nope: unknown policy 'nope'; use mip, greedy, fifo, optimus"]

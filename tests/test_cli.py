"""The `etplan` command as a user runs it: exit codes, one-line errors, outputs."""

from __future__ import annotations

import hashlib
import json
import re
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


def test_ingest_table_keeps_counts_and_paths_whole_in_a_narrow_pipe(tmp_path):
    """Before: at 80 columns (a pipe) rich cut the status and the rows read to 'load…' and
    '2,0…' when the file names were long."""
    logs = [tmp_path / f"platform-logs-of-the-{region}-cluster" for region in ("east", "west")]
    for seed, folder in enumerate(logs):
        assert run_cli("generate", "--jobs", "400", "--seed", str(seed),
                       "--out", str(folder)).returncode == 0
    r = run_cli("ingest", *map(str, logs), "--warehouse", str(tmp_path / "w.duckdb"),
                env={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    assert "…" not in r.stdout
    rows = [line for line in r.stdout.splitlines() if line.startswith("│") and ".csv" in line]
    whole = r"│ (loaded|skipped) +│ +[\d,]+ │ +[\d,]+ │ +[\d,]+ │$"
    assert len(rows) == 6 and all(re.search(whole, line) for line in rows), rows
    assert sum(str(folder.name) in r.stdout for folder in logs) == 2


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
        r = run_cli("ingest", str(logs), "--warehouse", str(wh), env={"ETPLAN_LOCK_WAIT": "1"})
        assert r.returncode == 1
        last = r.stderr.strip().splitlines()[-1]   # after the "waiting" line
        assert last.startswith(f"error: {wh}: warehouse is busy: PID {holder.pid} ("), last
        assert last.endswith("has it open; waited 1 s; retry when it is done, or set "
                             "ETPLAN_LOCK_WAIT=SECONDS to wait longer"), last
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert run_cli("ingest", str(logs), "--warehouse", str(wh)).returncode == 0


def test_out_files_go_into_new_folders_and_unwritable_ones_fail_in_one_line(tmp_path):
    inst = tmp_path / "new" / "instance.json"
    r = run_cli("generate-instance", "--jobs", "12", "--seed", "3", "--out", str(inst))
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == f"window instance (12 jobs, 6 slots) written to {inst}"
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


def test_backtest_refuses_unknown_policies_as_a_usage_error(tmp_path):
    for args in (["--policies", "mip,nope"], ["--policies", "mip", "--policies", "nope"]):
        r = run_cli("backtest", str(tmp_path), "--out", str(tmp_path / "bt"), *args)
        assert r.returncode == 2
        assert ("unknown policy 'nope'; use mip, greedy, fifo, optimus, greedy-elastic, "
                "tiresias, optimus-oracle") in " ".join(r.stderr.split())
        assert "Traceback" not in r.stderr


def test_at_80_columns_and_in_a_pipe_no_path_is_broken(tmp_path):
    import re
    from pathlib import Path

    deep = tmp_path / "a-rather-long-folder-name-for-the-logs" / "and-one-more-level-of-it"
    wh, outputs, logs = str(deep / "w.duckdb"), str(deep / "out"), deep / "logs"
    narrow = {"COLUMNS": "80"}
    runs = [run_cli("generate", "--jobs", "40", "--seed", "3", "--out", str(logs),
                    "--format", "mixed", "--bad-rows", "0.05", env=narrow),
            run_cli("ingest", str(logs), "--warehouse", wh, env=narrow),
            run_cli("ingest", str(logs), "--warehouse", wh, env=narrow),
            run_cli("estimate", "--warehouse", wh, env=narrow),
            run_cli("plan", "window", "--time-limit", "1", "--outputs", outputs,
                    "--warehouse", wh, env=narrow),
            run_cli("plan", "show", "--outputs", outputs, env=narrow),
            run_cli("sql", "SELECT * FROM rejected_rows", "--warehouse", wh, env=narrow),
            run_cli("sql", "SELECT * FROM jobs LIMIT 3", "--warehouse", wh, env=narrow)]
    import duckdb

    job = duckdb.sql(f"SELECT min(job_id) FROM read_parquet('{outputs}/plans/**/*.parquet')"
                     ).fetchall()[0][0]
    instance = str(deep / "instance.json")
    runs[-1:-1] = [
        run_cli("plan", "explain", job, "--outputs", outputs, "--warehouse", wh, env=narrow),
        run_cli("plan", "whatif", "--capacity", "+4", "--time-limit", "1", "--outputs",
                outputs, "--warehouse", wh, env=narrow),
        run_cli("summary", "--warehouse", wh, env=narrow),
        run_cli("generate-instance", "--jobs", "12", "--seed", "3", "--out", instance,
                env=narrow),
        run_cli("solve", instance, "--out", str(deep / "plan.json"), env=narrow)]
    head = str(tmp_path)[:12]
    for r in runs:
        assert r.returncode == 0, r.args[1:3] + [r.stderr]
        for line in (r.stdout + r.stderr).splitlines():
            if head in line:   # a path starts here: it is whole and names what exists
                assert str(tmp_path) in line, line
                for p in re.findall(re.escape(str(tmp_path)) + r"[^\s;,)'\"]*", line):
                    assert Path(p).exists() or Path(p).parent.exists(), line
    sql = runs[-1].stdout.splitlines()
    assert sql[0].startswith("-[ row 1 ]")   # 14 columns do not fit: one block per row
    assert any(re.fullmatch(r"total_work\s+\| [\d,]+", line) for line in sql)


def test_commands_that_read_state_never_create_an_empty_warehouse(tmp_path):
    missing = tmp_path / "none.duckdb"
    for cmd in (["plan", "window"], ["estimate"]):
        r = run_cli(*cmd, "--warehouse", str(missing))
        assert r.returncode == 1
        assert r.stderr.strip().splitlines() == [
            f"error: {missing}: no warehouse here yet; run `etplan ingest` first "
            "or pass --warehouse PATH"]
        assert not missing.exists()
    empty = tmp_path / "empty.duckdb"
    from warehouse.connection import connect

    connect(empty).close()
    r = run_cli("estimate", "--warehouse", str(empty))
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        f"error: {empty}: no jobs to estimate; run `etplan ingest` first"]


def test_every_option_has_help():
    import click
    import typer.main

    from flows.cli import app

    def commands(group, prefix=""):
        for name, cmd in group.commands.items():
            if isinstance(cmd, click.Group):
                yield from commands(cmd, f"{prefix}{name} ")
            else:
                yield prefix + name, cmd

    missing = [f"{name} {p.opts[0]}" for name, cmd in commands(typer.main.get_command(app))
               for p in cmd.params if isinstance(p, click.Option) and not p.help]
    assert missing == []


def test_command_lists_show_each_summary_on_one_line():
    """A group's command list gives each command the first paragraph of its docstring without
    the docstring's own line breaks: at 200 columns a short one takes one line."""
    def summary(args: tuple[str, ...], command: str) -> str:
        lines = run_cli(*args, "--help").stdout.splitlines()
        return next(line for line in lines if line.startswith(f"│ {command} ")).strip(" │")

    assert summary((), "solve").endswith(
        "as plan JSON. The churn options replace the instance's own fields when given.")
    assert summary(("plan",), "show").endswith("nodes now → next, ETC, saved vs static.")


def test_serve_uses_the_configured_prefect_api(monkeypatch, tmp_path):
    from flows.cli import server

    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")
    monkeypatch.setattr(server, "local_server", None)   # would fail if called
    said = []
    with server.prefect_api(tmp_path, said.append) as api:
        assert api == "http://127.0.0.1:9/api"
    assert said == ["Prefect API: http://127.0.0.1:9/api (PREFECT_API_URL)"]


def test_serve_names_the_prefect_beside_its_python(monkeypatch):
    """serve's hint for a run from another shell names a `prefect` that exists (the venv's,
    not whatever is on PATH), relative to the working folder when inside it."""
    from pathlib import Path

    from flows.cli.runs import prefect_command

    assert Path(prefect_command()).resolve() == Path(sys.executable).with_name("prefect").resolve()
    monkeypatch.chdir(Path(sys.executable).parents[2])
    assert prefect_command() == str(Path(sys.executable).with_name("prefect").relative_to(
        Path(sys.executable).parents[2]))


def test_the_demo_says_once_what_happened_to_each_file():
    from flows.cli.runs import ingest_line

    loaded = {"status": "loaded", "rows_loaded": 1200, "rows_rejected": 3, "message": ""}
    assert ingest_line(loaded) == "1,200 rows loaded, 3 rejected"
    skipped = {"status": "skipped", "rows_loaded": 0, "rows_rejected": 0,
               "message": "already loaded (file 1, logs/a.csv)"}
    assert ingest_line(skipped) == "skipped: already loaded (file 1, logs/a.csv)"


def test_the_backtest_table_keeps_kpi_names_whole_at_80_columns(monkeypatch, capsys):
    """Before: with four policies `make run` printed 'speedup_vs_sta…' and 'rescales_per_j…'
    in a pipe."""
    from flows.cli.common import COMPARED, print_comparison

    monkeypatch.setenv("COLUMNS", "80")
    kpis = {key: 123456.789 for key in COMPARED}
    pols = {p: kpis for p in ("mip", "optimus", "greedy", "fifo")}
    ratios = {p: {key: 0.5 for key in COMPARED} for p in pols}
    print_comparison({"engine": "faithful", "policies": pols, "ratios_vs_greedy": ratios})
    text = capsys.readouterr().out
    assert "backtest, faithful replay" in text
    assert "…" not in text
    assert all(f"│ {key} " in text for key in COMPARED)


def test_plan_show_and_whatif_keep_long_job_ids_whole_at_80_columns(tmp_path):
    """Ops act on the job ids `plan show` and `plan whatif` print: a platform's ids (here 45
    characters) are never cut to fit a narrow terminal or pipe; the table runs wider."""
    wh, outputs, logs = str(tmp_path / "w.duckdb"), str(tmp_path / "out"), tmp_path / "logs"
    assert run_cli("generate", "--jobs", "30", "--seed", "3", "--out", str(logs)).returncode == 0
    prefix = "team-vision/resnet50-finetune-2026-11-30-"
    for name in ("job_events.csv", "throughput_samples.csv"):
        f = logs / name
        f.write_text(f.read_text().replace("job-", prefix))
    assert run_cli("ingest", str(logs), "--warehouse", wh).returncode == 0
    assert run_cli("estimate", "--warehouse", wh).returncode == 0
    assert run_cli("plan", "window", "--time-limit", "1", "--outputs", outputs,
                   "--warehouse", wh).returncode == 0
    import duckdb

    jobs = {r[0] for r in duckdb.sql(
        f"SELECT DISTINCT job_id FROM read_parquet('{outputs}/plans/**/*.parquet')").fetchall()}
    assert jobs and all(j.startswith(prefix) for j in jobs)
    narrow = {"COLUMNS": "80"}
    shown = run_cli("plan", "show", "--outputs", outputs, env=narrow)
    assert shown.returncode == 0, shown.stderr
    assert all(j in shown.stdout for j in jobs)
    whatif = run_cli("plan", "whatif", "--capacity", "-8", "--time-limit", "1", "--outputs",
                     outputs, "--warehouse", wh, env=narrow)
    assert whatif.returncode == 0, whatif.stderr
    changed = [j for j in jobs if j[len(prefix):] in whatif.stdout]
    assert changed and all(j in whatif.stdout for j in changed)

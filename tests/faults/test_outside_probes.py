"""Faults found by probing the installed `etplan` from outside, as a hostile user would (issue
15, "faults you have not seen, in the same families"): each gave a traceback, a poisoned output
folder or a silent loss before its fix; now a one-line error or the right result."""

from __future__ import annotations

import json
import logging
import re
import time

import duckdb
import pytest
from typer.testing import CliRunner

import flows.cli as cli
from flows.usecases.data import query
from flows.usecases.plans import random_instance_json
from flows.usecases.runs import load_trace
from solver.instance import Instance, InvalidInstance
from tests.conftest import run_cli
from warehouse.errors import EtplanError
from warehouse.outputs import write_partition
from warehouse.plans import attach_output_views
from warehouse.queries import run_sql

RUNNER = CliRunner()


def test_data_and_paths_are_printed_as_they_are(tmp_path, loaded):
    """Before: "[/x]" in a row raised rich's MarkupError (traceback); ":x:" became ❌ and
    "[bold]" vanished from file names in messages."""
    r = run_cli("sql", "SELECT '[/x]' AS a, ':x: [red]r[/red]' AS b", "--warehouse", str(loaded))
    assert r.returncode == 0, r.stderr
    assert "[/x]" in r.stdout and ":x: [red]r[/red]" in r.stdout
    odd = tmp_path / "[bold]:x:.csv"
    odd.write_text("")
    r = run_cli("ingest", str(odd), "--warehouse", str(loaded))
    assert r.returncode == 1 and r.stderr.startswith(f"error: {odd}: "), r.stderr


@pytest.mark.parametrize(("text", "said"), [
    ("[" * 100_000 + "]" * 100_000, "not usable JSON"),
    ('{"capacity": 1' + "0" * 5000 + "}", "not usable JSON"),
])
def test_hostile_instance_json_is_one_line(text, said):
    """Before: RecursionError and ValueError (int digits limit) tracebacks from `solve`."""
    with pytest.raises(InvalidInstance, match=said):
        Instance.from_json(text)


@pytest.mark.parametrize(("field", "value", "said"), [
    ("weight", 1e308, "weight must be at most 1e+06"),
    ("total_work", 1e308, "total_work must be at most 1e+18"),
])
def test_instance_numbers_have_the_data_contract_bounds(field, value, said):
    """Before: weight 1e308 made the objective Infinity and `solve` printed invalid JSON."""
    doc = json.loads(random_instance_json(4, 3, None, 1))
    doc["jobs"][0][field] = value
    if field == "total_work":
        doc["jobs"][0]["remaining_work"] = value
    with pytest.raises(InvalidInstance, match=re.escape(said)):
        Instance.from_json(json.dumps(doc))


@pytest.mark.parametrize("args", [
    ["generate", "--out", "x", "--seed", "-5"],          # before: ValueError traceback
    ["generate-instance", "--seed", "-1"],               # before: ValueError traceback
    ["generate", "--out", "x", "--jobs", "1000000000"],  # before: ran out of time and memory
    ["generate-instance", "--jobs", "100000000"],
    ["solve", "i.json", "--threads", "100000"],          # before: 100,000 HiGHS threads
    ["solve", "i.json", "--rescale-penalty", "inf"],     # before: "objective": -Infinity
    ["plan", "window", "--run-id", "../../escape"],      # before: wrote outside run_id=
    ["plan", "window", "--run-id", ""],
    ["demo", "--run-id", "a/b"],
])
def test_bad_options_are_usage_errors(args):
    r = RUNNER.invoke(cli.app, args)
    assert r.exit_code == 2, r.output


def test_a_partition_value_cannot_leave_its_folder_and_outputs_must_be_a_folder(tmp_path):
    for bad in ("../x", "a/b", "", ".hidden", "x" * 101):
        with pytest.raises(EtplanError, match="use 1 to 100 letters"):
            write_partition(tmp_path / "plans", [{"a": 1}], run_id=bad)
    a_file = tmp_path / "file"
    a_file.write_text("")
    with pytest.raises(EtplanError, match="cannot create the output folder"):
        write_partition(a_file / "plans", [{"a": 1}], run_id="r1")


def test_an_empty_plan_file_does_not_poison_the_outputs(tmp_path):
    """Before: `plan window --at 1900-01-01` wrote a plan of 0 jobs as a Parquet file with no
    columns; every later `plan window`, `plan show` and `sql` then died with a traceback."""
    outputs = tmp_path / "out"
    write_partition(outputs / "plans", [], run_id="r0", window_start="19000101T000000Z")
    write_partition(outputs / "plans", [{"job_id": "a", "slot": 0, "nodes": 2,
                                         "window_time": "2026-12-01T00:00:00Z",
                                         "created_at": "2026-12-01T00:00:01Z"}],
                    run_id="r1", window_start="20261201T000000Z")
    con = duckdb.connect()
    try:
        assert "plans" in attach_output_views(con, outputs)
        assert con.execute("SELECT job_id, run_id FROM plans").fetchall() == [("a", "r1")]
        broken = outputs / "plans" / "run_id=r2" / "window_start=20261202T000000Z"
        broken.mkdir(parents=True)
        (broken / "part-0.parquet").write_bytes(b"not parquet")
        with pytest.raises(EtplanError, match="not a readable Parquet file"):
            attach_output_views(con, outputs)
    finally:
        con.close()


def test_backtest_says_when_rows_of_its_logs_are_rejected(tmp_path, small_logs, caplog):
    """Before: a job with min_nodes > max_nodes vanished from the backtest without a word."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for f in small_logs.iterdir():
        (logs / f.name).write_bytes(f.read_bytes())
    with (logs / "job_events.csv").open("a") as fh:
        fh.write("bad,2026-11-30T00:01:00Z,submitted,,4,1,2,1000,1,m,\n")
    with caplog.at_level(logging.WARNING):
        load_trace(logs, None, None)
    assert "1 rows rejected as `etplan ingest` would" in caplog.text
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "job_events.csv").write_text(
        "job_id,event_time,event,nodes,min_nodes,max_nodes,requested_nodes,total_work,weight,"
        "model,tenant\na,2026-11-30T00:01:00Z,submitted,,1,2,1,0,1,m,\n")
    with pytest.raises(EtplanError, match=r"no jobs in these logs \(1 rows rejected"):
        load_trace(empty, None, 8)


def test_ctrl_c_during_sql_is_an_interrupt_not_a_traceback():
    """Before: DuckDB's "RuntimeError: Query interrupted" traceback (what its Python client
    raises when SIGINT arrives mid-query); now Ctrl-C ends `etplan sql` like any command."""
    class Interrupted:
        def execute(self, statement):
            if statement.startswith("SET"):
                return self
            raise RuntimeError("Query interrupted")

    with pytest.raises(KeyboardInterrupt):
        run_sql(Interrupted(), "SELECT 1")


def test_an_unforeseen_error_is_one_line(monkeypatch, capsys):
    def boom():
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(cli, "app", boom)
    monkeypatch.delenv("ETPLAN_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: unexpected ZeroDivisionError: "), lines
    monkeypatch.setenv("ETPLAN_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        cli.main()


def test_sql_still_answers_while_a_query_runs_elsewhere(tmp_path, loaded):
    """Two readers at once: each on its own snapshot."""
    started = time.monotonic()
    cols, rows = query("SELECT count(*) AS n FROM job_events", outputs=tmp_path / "o",
                       warehouse=loaded)
    assert cols == ["n"] and rows[0][0] > 0 and time.monotonic() - started < 60


WORKLOAD = "name,time,application,num_replicas,batch_size\n"


@pytest.mark.parametrize(("body", "said"), [
    (b"x,abc,cifar10,2,64\n", "job x: time must be seconds"),          # before: ValueError
    (b"x,5,cifar10,0,0\n", "job x: time must be seconds"),             # before: math domain
    (b"x,5,cifar\xe9,2,64\n", "not a Pollux workload CSV"),            # before: UnicodeDecode
])
def test_a_bad_pollux_workload_is_one_line(tmp_path, body, said):
    from sources.errors import SourceError
    from sources.importers import import_pollux

    workload = tmp_path / "workload.csv"
    workload.write_bytes(WORKLOAD.encode() + body)
    with pytest.raises(SourceError, match=said):
        import_pollux(workload, tmp_path, tmp_path / "out")


def test_import_philly_hours_are_bounded():
    """Before: --hours inf gave an OverflowError traceback."""
    r = RUNNER.invoke(cli.app, ["import", "philly", "t.csv", "--start",
                                "2017-10-09T00:00:00Z", "--hours", "inf", "--out", "x"])
    assert r.exit_code == 2, r.output

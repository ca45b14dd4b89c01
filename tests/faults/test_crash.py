"""Crash trials (issue 15): `kill -9` of an ingest at random points never commits part of a
file, and finishing the ingest afterwards gives exactly what a clean run gives."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flows.usecases.data import generate_logs
from warehouse.connection import connect

ETPLAN = str(Path(sys.executable).with_name("etplan"))
CONTENT = """SELECT (SELECT count(*) FROM job_events), (SELECT count(*) FROM throughput_samples),
                    (SELECT count(*) FROM capacity), (SELECT count(*) FROM rejected_rows),
                    (SELECT sum(hash(job_id, event, event_time, nodes)) FROM job_events),
                    (SELECT sum(hash(job_id, sample_time, nodes, throughput))
                     FROM throughput_samples),
                    (SELECT list(DISTINCT path ORDER BY path) FROM ingested_files
                     WHERE status = 'loaded')"""


def _content(wh: Path) -> tuple:
    con = connect(wh, read_only=True)
    try:
        return con.execute(CONTENT).fetchone()
    finally:
        con.close()


def _check_files_whole(wh: Path) -> None:
    """Every file the manifest calls loaded has all its rows: read = loaded + rejected, and
    the tables hold exactly its loaded rows."""
    con = connect(wh, read_only=True)
    try:
        bad = con.execute("""
            SELECT f.path FROM ingested_files f
            WHERE f.status = 'loaded' AND (f.rows_read <> f.rows_loaded + f.rows_rejected
               OR f.rows_loaded <> (SELECT count(*) FROM job_events e WHERE e.file_id = f.file_id)
                  + (SELECT count(*) FROM throughput_samples s WHERE s.file_id = f.file_id)
                  + (SELECT count(*) FROM capacity c WHERE c.file_id = f.file_id))""").fetchall()
    finally:
        con.close()
    assert bad == []


def _ingest(logs: Path, wh: Path) -> subprocess.Popen:
    return subprocess.Popen([ETPLAN, "ingest", str(logs), "--warehouse", str(wh)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "COLUMNS": "200"})


@pytest.mark.slow
def test_kill_during_ingest_then_rerun_matches_a_clean_run(tmp_path):
    logs = tmp_path / "logs"
    generate_logs(logs, jobs=1500, seed=7, bad_rows=0.01)
    clean = tmp_path / "clean.duckdb"
    assert _ingest(logs, clean).wait(timeout=120) == 0
    expected = _content(clean)
    rng = random.Random(15)
    for trial in range(3):
        wh = tmp_path / f"killed{trial}.duckdb"
        proc = _ingest(logs, wh)
        time.sleep(rng.uniform(1.0, 4.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        if wh.exists():
            _check_files_whole(wh)
        assert _ingest(logs, wh).wait(timeout=120) == 0
        _check_files_whole(wh)
        assert _content(wh) == expected

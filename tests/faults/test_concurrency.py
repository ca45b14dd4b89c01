"""Issue 15 item 8: a long `etplan sql` reader does not keep ingest out (it queries a snapshot
taken under DuckDB's shared lock); a writer waits for a short holder instead of failing, and
when it gives up it names the holder (warehouse/locking.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from flows.usecases.data import generate_logs, ingest, query
from warehouse.errors import EtplanError
from warehouse.locking import SNAPSHOT_PREFIX, holder, lock_wait

ETPLAN = str(Path(sys.executable).with_name("etplan"))
FOREVER = "SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b"


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "COLUMNS": "200", "TMPDIR": str(tmp), **extra}


def _wait_for(cond, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.2)
    return False


@pytest.mark.slow
def test_a_long_sql_reader_does_not_block_ingest(tmp_path, loaded):
    """Before: ingest failed at once with "another etplan process is writing it"."""
    more = tmp_path / "more"
    generate_logs(more, jobs=15, seed=21)
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    files = "SELECT count(*) AS n FROM ingested_files"
    before = query(files, outputs=tmp_path / "outputs", warehouse=loaded)[1][0][0]
    reader = subprocess.Popen([ETPLAN, "sql", FOREVER, "--warehouse", str(loaded)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env=_env(snaps))
    try:
        # the reader is querying its snapshot once the copy is in its folder
        assert _wait_for(lambda: any(snaps.glob(f"{SNAPSHOT_PREFIX}*/*.duckdb")), 60)
        time.sleep(1.0)
        w = subprocess.run([ETPLAN, "ingest", str(more), "--warehouse", str(loaded)],
                           capture_output=True, text=True, env=_env(tmp_path),
                           timeout=120)
        assert w.returncode == 0, w.stderr
        assert "waiting" not in w.stderr
        assert reader.poll() is None, reader.stderr.read()   # still querying
    finally:
        reader.kill()
        reader.wait(timeout=30)
    # the killed reader's snapshot is swept by the next reader
    assert any(snaps.glob(f"{SNAPSHOT_PREFIX}*"))
    r = subprocess.run([ETPLAN, "sql", files,
                        "--warehouse", str(loaded), "--format", "csv"],
                       capture_output=True, text=True, env=_env(snaps), timeout=120)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout.split()[-1]) > before     # the ingest's files are there
    assert not any(snaps.glob(f"{SNAPSHOT_PREFIX}*"))


HOLD = """
import sys, time
from warehouse.connection import connect
con = connect({wh!r})
print("holding", flush=True)
time.sleep({seconds})
con.close()
"""


def _holder(wh: Path, seconds: float) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(HOLD.format(
        wh=str(wh), seconds=seconds))], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "holding"
    return proc


def test_a_writer_waits_for_a_short_holder_and_says_who(tmp_path, loaded, small_logs, caplog):
    """Before: "warehouse is busy" at once, even when the holder let go a second later."""
    proc = _holder(loaded, 2.0)
    try:
        with caplog.at_level("WARNING", logger="warehouse.locking"):
            ingest([small_logs], warehouse=loaded)   # all already loaded: a quick writer
    finally:
        proc.wait(timeout=30)
    said = " ".join(r.getMessage() for r in caplog.records)
    assert f"PID {proc.pid} (" in said and "has the warehouse open; waiting" in said


def test_a_reader_that_gives_up_names_the_holder(tmp_path, loaded, monkeypatch):
    proc = _holder(loaded, 30.0)
    monkeypatch.setenv("ETPLAN_LOCK_WAIT", "0.5")
    try:
        with pytest.raises(EtplanError, match=rf"warehouse is busy: PID {proc.pid} \(.*"
                                              r"running for \d+ s\) has it open; waited"):
            query("SELECT 1", outputs=tmp_path / "outputs", warehouse=loaded)
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_lock_wait_setting_and_holder_without_proc(monkeypatch):
    monkeypatch.setenv("ETPLAN_LOCK_WAIT", "-3")
    with pytest.raises(EtplanError, match="ETPLAN_LOCK_WAIT='-3': must be seconds"):
        lock_wait()
    monkeypatch.setenv("ETPLAN_LOCK_WAIT", "")
    assert lock_wait() == 60.0
    assert holder("Conflicting lock is held in /x (PID 999999999)") == "PID 999999999"
    assert holder("no pid here") == "another process"
    assert holder(f"(PID {os.getpid()})").startswith(f"PID {os.getpid()} (")

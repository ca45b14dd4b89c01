"""Sharing the warehouse file between processes (DESIGN §9).

DuckDB lets one process open a database file read-write, or any number of processes open it
read-only, never both at once (https://duckdb.org/docs/current/connect/concurrency). So:

- every open waits for a conflicting process up to `ETPLAN_LOCK_WAIT` seconds (default 60),
  logging who holds the file (its PID, command and age) when it starts waiting and every 10 s;
  after that the error names the holder;
- `etplan sql` (a user's query may run for minutes) reads a snapshot: the file is copied while
  a read-only connection holds DuckDB's shared lock, and the query runs on the copy, so a long
  query holds the lock only for the copy.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from warehouse.errors import EtplanError, WarehouseBusy

log = logging.getLogger(__name__)

LOCK_WAIT_ENV = "ETPLAN_LOCK_WAIT"
DEFAULT_LOCK_WAIT = 60.0       # seconds an open waits for another process to let go
NOTE_EVERY = 10.0              # seconds between "still waiting" log lines
RETRY_EVERY = 0.2
SNAPSHOT_PREFIX = "etplan-snapshot-"


def lock_wait() -> float:
    """How long an open waits for the file ($ETPLAN_LOCK_WAIT seconds, default 60)."""
    raw = os.environ.get(LOCK_WAIT_ENV)
    if raw is None or raw == "":
        return DEFAULT_LOCK_WAIT
    try:
        wait = float(raw)
    except ValueError:
        wait = -1.0
    if not 0 <= wait <= 86400:
        raise EtplanError(f"{LOCK_WAIT_ENV}={raw!r}: must be seconds between 0 and 86400")
    return wait


def holder(message: str) -> str:
    """Who holds the lock, from DuckDB's message ("… held in /path/python (PID 123)"): its PID,
    its command line and how long it has run, as far as /proc tells."""
    found = re.search(r"PID (\d+)", message)
    if not found:
        return "another process"
    pid = int(found.group(1))
    text = f"PID {pid}"
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
        argv = [a for a in argv if a]
        start = next((i for i, a in enumerate(argv) if Path(a).name == "etplan"), None)
        shown = ["etplan", *argv[start + 1:]] if start is not None else argv
        command = " ".join(" ".join(shown).split())     # one line
        text += f" ({command[:60]}{'…' if len(command) > 60 else ''}"
        ticks = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        text += f", running for {uptime - ticks / os.sysconf('SC_CLK_TCK'):.0f} s)"
    except (OSError, ValueError, IndexError):
        text += ")" if "(" in text else ""
    return text


def open_waiting(target: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    """duckdb.connect, waiting while another process holds a conflicting lock."""
    wait = lock_wait()
    began = time.monotonic()
    next_note = began
    while True:
        try:
            return duckdb.connect(str(target), read_only=read_only)
        except duckdb.IOException as err:
            text = str(err)
            if "lock" not in text.lower():
                raise EtplanError(f"{target}: cannot open warehouse: {text.splitlines()[0]}"
                                  ) from None
            waited = time.monotonic() - began
            who = holder(text)
            if waited >= wait:
                raise WarehouseBusy(
                    f"{target}: warehouse is busy: {who} has it open; waited {waited:.0f} s; "
                    f"retry when it is done, or set {LOCK_WAIT_ENV}=SECONDS to wait longer"
                ) from None
            if time.monotonic() >= next_note:
                log.warning("%s: %s has the warehouse open; waiting (%.0f s of %.0f s)",
                            target, who, waited, wait)
                next_note += NOTE_EVERY
            time.sleep(RETRY_EVERY)
        except duckdb.Error as err:
            raise EtplanError(f"{target}: cannot open warehouse: {str(err).splitlines()[0]}"
                              ) from None


def _sweep_snapshots(root: Path) -> None:
    """Remove snapshots left by readers that were killed (their PID is gone)."""
    for old in root.glob(f"{SNAPSHOT_PREFIX}*"):
        pid = old.name[len(SNAPSHOT_PREFIX):].split("-", 1)[0]
        if pid.isdigit() and Path("/proc").is_dir() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(old, ignore_errors=True)


@contextmanager
def snapshot(target: Path) -> Iterator[Path]:
    """A private copy of the warehouse file (and its WAL), taken while a read-only connection
    holds DuckDB's shared lock (so no writer is midway); removed afterwards."""
    root = Path(tempfile.gettempdir())
    _sweep_snapshots(root)
    folder = Path(tempfile.mkdtemp(prefix=f"{SNAPSHOT_PREFIX}{os.getpid()}-"))
    try:
        copy = folder / target.name
        con = open_waiting(target, read_only=True)
        try:
            shutil.copyfile(target, copy)
            wal = target.with_name(target.name + ".wal")
            if wal.exists():
                shutil.copyfile(wal, copy.with_name(copy.name + ".wal"))
        except OSError as err:
            raise EtplanError(f"{target}: cannot copy the warehouse to {folder} to read it "
                              f"({err.strerror}); set TMPDIR to a folder with room") from None
        finally:
            con.close()
        yield copy
    finally:
        shutil.rmtree(folder, ignore_errors=True)

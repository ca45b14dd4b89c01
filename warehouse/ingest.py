"""Validated, idempotent ingest of platform job logs into the warehouse (DESIGN §3.1, §3.2).

Each file is read with DuckDB's own reader into a scratch table, typed and checked by the
feed's SQL in `sql/ingest/`, and then, in one transaction, its good rows are appended to the
feed's table, its bad rows to `rejected_rows`, and a row to the `ingested_files` manifest. A
file whose bytes were loaded before is skipped. A file that cannot be read at all is recorded
as failed and the next file is taken.
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from warehouse.connection import transaction
from warehouse.contracts import (
    FEED_ORDER,
    FEEDS,
    Feed,
    file_format,
    recognise_feed,
)
from warehouse.errors import EtplanError
from warehouse.sqlfiles import run

log = logging.getLogger(__name__)


@dataclass
class FileResult:
    path: str
    status: str                 # loaded | skipped | failed
    feed: str | None = None
    format: str | None = None
    rows_read: int = 0
    rows_loaded: int = 0
    rows_rejected: int = 0
    file_id: int | None = None
    message: str = ""


class FileFailed(Exception):
    """The file as a whole cannot be ingested; the message is one line for the user."""


def collect_files(paths: Iterable[str | Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Files named, and the log files inside folders named (recursively, sorted by name); and
    what could not be searched (an unreadable folder, a dangling symlink, a symlink loop) with
    why, so that nothing is skipped silently."""
    found: list[Path] = []
    problems: list[tuple[Path, str]] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found.extend(_walk(p, problems))
        elif p.is_file() or p.is_symlink():
            found.append(p)         # a dangling link fails, and is recorded, when ingested
        else:
            raise EtplanError(f"{p}: no such file or folder")
    return found, problems


def _walk(top: Path, problems: list[tuple[Path, str]]) -> list[Path]:
    """The log files under `top`, following symlinked folders once each."""
    files: list[Path] = []
    seen: set[str] = set()

    def unreadable(err: OSError) -> None:
        problems.append((Path(err.filename or top), f"cannot read folder: {err.strerror}"))

    for folder, dirs, names in os.walk(top, onerror=unreadable, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            problems.append((Path(folder), "symlink loop: this folder was already searched "
                                           f"as {real}; not searched again"))
            dirs.clear()
            continue
        seen.add(real)
        dirs.sort()
        for name in names:
            q = Path(folder) / name
            if file_format(q) and (q.is_file() or q.is_symlink()):
                files.append(q)
            elif q.is_symlink() and not q.exists():
                problems.append((q, "dangling or looping symlink; nothing to read"))
    return sorted(files)


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def ingest_paths(con: duckdb.DuckDBPyConnection, paths: Iterable[str | Path], *,
                 feed: str | None = None,
                 on_file: Callable[[FileResult], None] | None = None) -> list[FileResult]:
    """Ingest every file under `paths`; feeds that others depend on go first."""
    if feed is not None and feed not in FEEDS:
        raise EtplanError(f"--feed {feed}: unknown feed; use one of {', '.join(FEEDS)}")
    files, problems = collect_files(paths)
    planned = [(_sniff_feed(con, f, feed), f) for f in files]
    rank = {name: i for i, name in enumerate(FEED_ORDER)}
    planned.sort(key=lambda item: rank.get(item[0], len(rank)))
    results = [FileResult(path=str(p), status="failed", message=why) for p, why in problems]
    for result in results:
        log.warning("%s: %s", result.path, result.message)
        if on_file:
            on_file(result)
    for feed_name, path in planned:
        result = ingest_file(con, path, feed=feed_name)
        results.append(result)
        if on_file:
            on_file(result)
    return results


def _sniff_feed(con: duckdb.DuckDBPyConnection, path: Path, feed: str | None) -> str | None:
    if feed:
        return feed
    try:
        found = recognise_feed(_columns_of(con, path))
    except Exception:  # an unreadable file is reported when it is ingested
        return None
    return found.name if found else None


def _columns_of(con: duckdb.DuckDBPyConnection, path: Path) -> list[str]:
    fmt = file_format(path)
    if fmt == "csv":
        return _csv_header(path)
    if fmt == "parquet":
        return [r[0] for r in run(con, "ingest/parquet_columns", {"path": str(path)}).fetchall()]
    if fmt == "jsonl":
        return _jsonl_keys(path)
    return []


def _csv_header(path: Path) -> list[str]:
    """The header line's names (a UTF-8 byte order mark is not part of the first name); only
    the header must be UTF-8 here: a bad byte in a later line rejects that line alone."""
    with path.open("rb") as fh:
        first = fh.readline()
    header = next(csv.reader([first.decode("utf-8-sig").rstrip("\r\n")]), [])
    if len(set(header)) != len(header) or any(not c.strip() for c in header):
        raise ValueError(f"header {','.join(header)[:80]!r} has blank or repeated names")
    return header


def _jsonl_keys(path: Path) -> list[str]:
    """The keys of the first line that is a JSON object; broken lines before it are rejected
    one by one when the file is read."""
    with path.open("rb") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                return list(obj)
    raise ValueError("no line is a JSON object")


def ingest_file(con: duckdb.DuckDBPyConnection, path: Path, *, feed: str | None = None
                ) -> FileResult:
    """Ingest one file; never raises for a problem with the file itself."""
    result = FileResult(path=str(path), status="failed", format=file_format(path))
    try:
        digest = sha256_of(path)
    except OSError as err:
        result.message = f"cannot read file: {err.strerror}"
        result.file_id = run(con, "ingest/next_file_id").fetchone()[0]
        _record(con, result, f"unreadable:{path}", status="failed")
        return result
    seen = run(con, "ingest/find_loaded", {"hash": digest}).fetchone()
    if seen:
        result.status, result.file_id = "skipped", seen[0]
        result.message = f"already loaded (file {seen[0]}, {seen[1]})"
        return result

    file_id = run(con, "ingest/next_file_id").fetchone()[0]
    result.file_id = file_id
    try:
        # Scratch work runs outside the transaction: row numbers come from the scratch tables'
        # row ids, which are only contiguous for committed rows.
        feed_obj = _stage(con, path, feed, result)
        with transaction(con):
            _commit_file(con, path, digest, file_id, feed_obj, result)
        result.status = "loaded"
    except (FileFailed, duckdb.Error) as err:
        result.message = str(err) if isinstance(err, FileFailed) else _one_line(err)
        result.status = "failed"
        result.rows_read = result.rows_loaded = result.rows_rejected = 0
        _record(con, result, digest, status="failed")
    log.info("%s: %s (%d read, %d loaded, %d rejected) %s", path, result.status,
             result.rows_read, result.rows_loaded, result.rows_rejected, result.message)
    return result


def _stage(con: duckdb.DuckDBPyConnection, path: Path, feed_name: str | None,
           result: FileResult) -> Feed:
    """Read the file into scratch tables and mark every row good or bad (stage.reason)."""
    fmt = result.format
    if fmt is None:
        raise FileFailed(f"unsupported file type {path.suffix or '(none)'!r}; "
                         "use .csv, .jsonl or .parquet")
    run(con, "ingest/reset")
    params = {"path": str(path)}
    try:
        columns = _columns_of(con, path)
    except (duckdb.Error, ValueError, UnicodeDecodeError) as err:
        raise FileFailed(f"not a readable {fmt} file: {_one_line(err)}") from None
    feed = FEEDS[feed_name] if feed_name else recognise_feed(columns)
    if feed is None:
        raise FileFailed("cannot tell which feed this is from its columns "
                         f"({', '.join(columns[:8]) or 'none'}); pass --feed "
                         f"{'|'.join(FEEDS)}")
    result.feed = feed.name
    missing = [c for c in feed.required if c not in columns]
    if missing:
        raise FileFailed(f"{feed.name} file lacks column(s) {', '.join(missing)}; "
                         f"expected {', '.join(feed.columns)}")

    if fmt == "csv":
        run(con, "ingest/read_csv", {**params, "columns": feed.csv_columns(columns)})
        run(con, "ingest/csv_parse_rejects")
        _add_missing_columns(con, feed, "csv_in")
        (n_bad,) = run(con, "ingest/parse_reject_count").fetchone()
        run(con, "ingest/csv_number_rows" if n_bad else "ingest/csv_number_rows_clean")
    elif fmt == "jsonl":
        schema = json.dumps({c: "VARCHAR" for c in feed.columns})
        run(con, "ingest/read_jsonl", {**params, "schema": schema})
    else:
        run(con, "ingest/read_parquet", params)
    if fmt != "csv":
        _add_missing_columns(con, feed, "file_rows")
        run(con, "ingest/file_rows_view")
    # file names chosen from the feed contract, never from the file
    run(con, f"ingest/stage_{feed.name}")
    run(con, "ingest/check_duplicates")
    run(con, f"ingest/check_{feed.name}")
    if feed.recheck:
        _until_nothing_rejected(con, f"ingest/{feed.recheck}")
    return feed


def _until_nothing_rejected(con: duckdb.DuckDBPyConnection, check: str) -> None:
    """Run a check (an UPDATE of stage.reason) again while it rejects rows; each round rejects
    at least one row, so this ends."""
    rounds = 1
    while run(con, check).fetchone()[0]:
        rounds += 1
    if rounds > 2:
        log.info("%s: %d rounds", check, rounds)


def _commit_file(con: duckdb.DuckDBPyConnection, path: Path, digest: str, file_id: int,
                 feed: Feed, result: FileResult) -> None:
    """Append good rows, rejects and the manifest row (the caller holds the transaction)."""
    run(con, f"ingest/load_{feed.name}", {"file_id": file_id})
    run(con, "ingest/load_rejects", {"file_id": file_id, "path": str(path), "feed": feed.name})
    loaded, rejected_stage = run(con, "ingest/stage_counts").fetchone()
    (parse_rejected,) = run(con, "ingest/parse_reject_count").fetchone()
    result.rows_loaded = loaded
    result.rows_rejected = rejected_stage + parse_rejected
    result.rows_read = result.rows_loaded + result.rows_rejected
    _record(con, result, digest, status="loaded")


def _add_missing_columns(con: duckdb.DuckDBPyConnection, feed: Feed, table: str) -> None:
    """Give the scratch table every contract column, NULL where the file has none.

    Table and column names come from this module and the feed contract, never from the file.
    """
    assert table in ("csv_in", "file_rows")
    rows = run(con, "ingest/table_columns", {"table": table}).fetchall()
    present = {r[0] for r in rows}
    for column in feed.columns:
        if column not in present:
            con.execute(f'ALTER TABLE {table} ADD COLUMN "{column}" VARCHAR')


def _record(con: duckdb.DuckDBPyConnection, result: FileResult, digest: str, *,
            status: str) -> None:
    run(con, "ingest/record_file", {
        "file_id": result.file_id, "hash": digest, "path": result.path, "feed": result.feed,
        "format": result.format, "rows_read": result.rows_read,
        "rows_loaded": result.rows_loaded, "rows_rejected": result.rows_rejected,
        "status": status, "error": result.message or None,
    })


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__

"""Parquet outputs (DESIGN §8): hive-partitioned, written atomically (temp file + rename), a
rerun of the same partition replaces it."""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from warehouse.errors import EtplanError


def _publish(tmp: str, target: Path) -> None:
    """Give the temp file the permissions a plain open() would (mkstemp makes it 0600) and
    move it into place in one step."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, target)


@contextmanager
def _atomic(target: Path, *, prefix: str, suffix: str) -> Iterator[str]:
    """A temp file beside `target` for the caller to fill; published over `target` when the
    block ends, removed if it raises."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=prefix, suffix=suffix)
    os.close(fd)
    try:
        yield tmp
        _publish(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# a partition value is one plain folder-name part (run ids, times, policy names)
PARTITION_VALUE = re.compile(r"[A-Za-z0-9_+\-][A-Za-z0-9._+\-]{0,99}")
STALE_SECONDS = 3600   # a temp file this old was left by a writer that was killed


def _sweep_stale(root: Path) -> None:
    """Remove temp files a killed writer left anywhere under `root` (another run's folder too);
    young ones may belong to a writer still at work and stay."""
    cutoff = time.time() - STALE_SECONDS
    for stale in root.rglob(".part-*.tmp"):
        try:
            if stale.stat().st_mtime < cutoff:
                stale.unlink(missing_ok=True)
        except OSError:
            continue


def write_partition(root: Path, rows: list[dict], **partition: str) -> Path:
    """Write `rows` as root/k1=v1/k2=v2/part-0.parquet, replacing what was there."""
    folder = root
    for key, value in partition.items():
        if not PARTITION_VALUE.fullmatch(value):   # "../x" or "a/b" would leave the partition
            raise EtplanError(f"{key} {value!r}: use 1 to 100 letters, digits, '.', '_', '-' "
                              "or '+', not starting with '.'")
        folder = folder / f"{key}={value}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise EtplanError(f"{folder}: cannot create the output folder ({err.strerror}); "
                          "pass an outputs folder you can write") from None
    for stale in folder.glob(".part-*.tmp"):   # left by a writer that was killed
        stale.unlink(missing_ok=True)
    _sweep_stale(root)
    target = folder / "part-0.parquet"
    table = pa.Table.from_pylist([_flat(r) for r in rows]) if rows else pa.table({})
    with _atomic(target, prefix=".part-", suffix=".tmp") as tmp:
        pq.write_table(table, tmp)
    return target


def write_text(path: Path, text: str) -> Path:
    """Write a text file atomically (temp file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _atomic(path, prefix=".tmp-", suffix=path.suffix) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")
    return path


def write_json(path: Path, doc: dict) -> Path:
    """Write JSON atomically."""
    return write_text(path, json.dumps(doc, indent=1, default=str) + "\n")


def _flat(row: dict) -> dict:
    """Nested dicts (solver counts) become JSON text so every row has the same columns."""
    return {k: json.dumps(v, sort_keys=True) if isinstance(v, dict) else v
            for k, v in row.items()}

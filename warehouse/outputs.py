"""Parquet outputs (DESIGN §8): hive-partitioned, written atomically (temp file + rename), a
rerun of the same partition replaces it."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def write_partition(root: Path, rows: list[dict], **partition: str) -> Path:
    """Write `rows` as root/k1=v1/k2=v2/part-0.parquet, replacing what was there."""
    folder = root
    for key, value in partition.items():
        folder = folder / f"{key}={value}"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "part-0.parquet"
    table = pa.Table.from_pylist([_flat(r) for r in rows]) if rows else pa.table({})
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".part-", suffix=".tmp")
    os.close(fd)
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def write_json(path: Path, doc: dict) -> Path:
    """Write JSON atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w") as fh:
        json.dump(doc, fh, indent=1, default=str)
        fh.write("\n")
    os.replace(tmp, path)
    return path


def _flat(row: dict) -> dict:
    """Nested dicts (solver counts) become JSON text so every row has the same columns."""
    return {k: json.dumps(v, sort_keys=True) if isinstance(v, dict) else v
            for k, v in row.items()}

"""Plain-data inputs for the replay engine: validated logs and an estimator that runs the
production estimation SQL on an in-memory warehouse."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from warehouse.connection import connect
from warehouse.errors import EtplanError
from warehouse.estimate import estimate
from warehouse.ingest import FileResult, ingest_paths
from warehouse.sqlfiles import load_query, run_script


def load_logs(paths: list[Path]) -> tuple[dict, list[FileResult]]:
    """Ingest logs into an in-memory warehouse (same validation as `etplan ingest`) and return
    {"jobs": [...], "samples": [...], "capacity": [...]} as plain rows."""
    con = connect(":memory:")
    results = ingest_paths(con, paths)
    failed = [r for r in results if r.status == "failed"]
    if failed:
        raise EtplanError(f"{failed[0].path}: {failed[0].message}")
    cur = con.execute(load_query("replay_inputs", "jobs"))
    cols = [d[0] for d in cur.description]
    data = {
        "jobs": [dict(zip(cols, r, strict=True)) for r in cur.fetchall()],
        "samples": con.execute(load_query("replay_inputs", "samples")).fetchall(),
        "capacity": con.execute(load_query("replay_inputs", "capacity")).fetchall(),
    }
    con.close()
    if not data["jobs"]:
        raise EtplanError(f"{', '.join(map(str, paths))}: no jobs in these logs")
    return data, results


def load_truth(path: Path) -> tuple[dict[str, dict[int, float]], float, int | None]:
    """True curves {job_id: {nodes: samples/s}}, the rescale seconds and the nodes per machine
    (None: not given) of a truth.json."""
    try:
        doc = json.loads(path.read_text())
        jobs = {jid: {int(n): float(v) for n, v in j["throughput"].items()}
                for jid, j in doc["jobs"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise EtplanError(f"{path}: not a truth file with jobs.<id>.throughput ({err})") from None
    per_machine = doc.get("nodes_per_machine")
    if per_machine is not None and (not isinstance(per_machine, int) or per_machine < 1):
        raise EtplanError(f"{path}: nodes_per_machine must be a whole number ≥ 1, "
                          f"got {per_machine!r}")
    return jobs, float(doc.get("rescale_seconds", 30.0)), per_machine


class SqlEstimator:
    """The estimator of `etplan estimate`, on an in-memory warehouse, for replay windows."""

    def __init__(self) -> None:
        self.con = connect(":memory:")
        self.calls = 0

    def __call__(self, jobs, samples) -> dict[str, dict[int, float]]:
        self.calls += 1
        self.con.register("est_in_jobs", pa.Table.from_pylist(
            [{"job_id": j.job_id, "min_nodes": j.min_nodes, "max_nodes": j.max_nodes,
              "model": j.model} for j in jobs],
            schema=pa.schema([("job_id", pa.string()), ("min_nodes", pa.int32()),
                              ("max_nodes", pa.int32()), ("model", pa.string())])))
        self.con.register("est_in_samples", pa.Table.from_pylist(
            [{"job_id": s[0], "nodes": s[2], "throughput": s[3],
              "machines": s[4] if len(s) > 4 else None} for s in samples],
            schema=pa.schema([("job_id", pa.string()), ("nodes", pa.int32()),
                              ("throughput", pa.float64()), ("machines", pa.int32())])))
        run_script(self.con, load_query("estimate/load_state", "load"))
        estimate(self.con)
        out: dict[str, dict[int, float]] = {}
        for jid, n, tp in self.con.execute(load_query("estimate/load_state", "curves")).fetchall():
            out.setdefault(jid, {})[n] = tp
        return out

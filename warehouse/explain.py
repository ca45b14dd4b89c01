"""The DuckDB side of `etplan plan explain`: the latest plan's rows, and a job's throughput
curve with the samples behind it."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from warehouse.sqlfiles import run


def _dicts(cur: duckdb.DuckDBPyConnection) -> list[dict]:
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def latest_plan_rows(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Every row of the latest plan (after attach_output_views), by job and slot."""
    return _dicts(run(con, "outputs/latest_plan_rows"))


@dataclass
class CurveBehind:
    """A job's estimated curve {nodes: samples/s}, its source (job | model | global), fit r²
    and fitted sizes, its model class; its own samples per size (count, median samples/s) and
    its class's samples and jobs."""
    curve: dict[int, float]
    source: str | None
    r2: float | None
    n_points: int | None
    model: str | None
    own: list[tuple[int, int, float]]
    class_samples: int
    class_jobs: int


def curve_behind(con: duckdb.DuckDBPyConnection, job_id: str) -> CurveBehind:
    """The curve the estimator gave `job_id` and the samples behind it (empty when none)."""
    curve = run(con, "estimate/job_curve", {"job": job_id}).fetchall()
    samples = run(con, "estimate/job_samples", {"job": job_id}).fetchall()
    own = [(int(n), int(k), float(tp)) for scope, n, k, tp, _ in samples if scope == "job"]
    cls = [(int(k), int(jobs)) for scope, _, k, _, jobs in samples if scope == "model"]
    first = curve[0] if curve else (None,) * 6
    return CurveBehind(curve={int(r[0]): float(r[1]) for r in curve}, source=first[2],
                       r2=first[3], n_points=first[4], model=first[5], own=own,
                       class_samples=cls[0][0] if cls else 0,
                       class_jobs=cls[0][1] if cls else 0)

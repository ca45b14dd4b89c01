"""Allocation plans as Parquet (DESIGN §8) and the outputs as tables a connection can query.

The rows come from `solver.plans.Plan.rows(window_start)`; this module only writes and reads
them."""

from __future__ import annotations

import glob
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from warehouse.errors import EtplanError
from warehouse.outputs import write_partition
from warehouse.sqlfiles import run

# what attach_output_views reads: name -> files under the outputs folder
OUTPUT_FILES = {"plans": ("plans", "*", "*", "*.parquet"),
                "kpis": ("kpis", "*", "runs", "*", "*.parquet"),
                "kpi_jobs": ("kpis", "*", "jobs", "*", "*.parquet")}


def partition_time(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def write_plan_rows(outputs: Path, rows: list[dict], run_id: str, window_start: datetime
                    ) -> Path:
    """plans/run_id=…/window_start=…/part-0.parquet, replaced on a rerun."""
    return write_partition(outputs / "plans", rows, run_id=run_id,
                           window_start=partition_time(window_start))


def attach_output_views(con: duckdb.DuckDBPyConnection, outputs: Path) -> list[str]:
    """Temp tables `plans`, `kpis`, `kpi_jobs` of the Parquet outputs that exist, and the temp
    view `latest_plan`; return their names."""
    made = []
    for name, parts in OUTPUT_FILES.items():
        files = [f for f in sorted(glob.glob(str(outputs.joinpath(*parts))))
                 if _has_columns(con, f)]
        if files:
            try:
                run(con, f"outputs/attach_{name}", {"glob": files})
            except duckdb.Error as err:
                raise EtplanError(f"{outputs}: cannot read its {name} Parquet files "
                                  f"({str(err).splitlines()[0]}); move the broken file away "
                                  "or rerun the command that wrote it") from None
            made.append(name)
    if "plans" in made:
        run(con, "outputs/latest_plan")
        made.append("latest_plan")
    return made


def _has_columns(con: duckdb.DuckDBPyConnection, path: str) -> bool:
    """False for a Parquet file written from no rows (no columns: read_parquet refuses it,
    and one such file would make every plan unreadable); such files are tiny."""
    if Path(path).stat().st_size > 4096:
        return True
    try:
        return run(con, "outputs/parquet_columns", {"file": path}).fetchone()[0] > 0
    except duckdb.Error as err:
        if "at least one non-root column" in str(err):   # DuckDB cannot even read its schema
            return False
        raise EtplanError(f"{path}: not a readable Parquet file ({str(err).splitlines()[0]}); "
                          "move it away or rerun the command that wrote it") from None


def latest_plan_actions(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """Slot 0 of the latest plan as ops act on it (after attach_output_views): job_id, action,
    nodes now, nodes next, etc_seconds, saved_seconds, window_time, run_id, solver, status."""
    return run(con, "outputs/latest_plan_actions").fetchall()


def previous_plan_hint(con: duckdb.DuckDBPyConnection, outputs: Path, at: datetime,
                       slot_seconds: float, num_slots: int) -> dict[str, list[int]]:
    """The newest plan written for a window before `at`, shifted by the slots that have passed
    since: {job_id: nodes per slot from `at` on}; empty when there is none or it is too old."""
    if "plans" not in attach_output_views(con, outputs):
        return {}
    rows = run(con, "outputs/previous_plan", {"at": at}).fetchall()
    if not rows:
        return {}
    shift = max(0, round(rows[0][3] / slot_seconds))
    if shift >= num_slots:
        return {}
    hint: dict[str, list[int]] = {}
    for job_id, slot, nodes, _ in rows:
        if slot >= shift:
            hint.setdefault(job_id, []).append(int(nodes))
    return hint

"""The sweep use case: backtest cells (workload × capacity × policy), each an independent
replay that writes only Parquet and JSON under its own folder, so they can run anywhere a
Dask worker runs. A finished cell records a fingerprint of its inputs (the workload's files,
the policy, the capacity, the replay settings); a rerun skips every cell whose fingerprint
still matches and replays only the new or changed ones."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

from flows.usecases import runs
from replay import FAITHFUL_ONLY
from replay.engine import ReplayConfig
from warehouse.errors import EtplanError
from warehouse.outputs import write_json

log = logging.getLogger(__name__)

CELL_FILE = "cell.json"   # written last, atomically: its presence marks a finished cell


@dataclass(frozen=True)
class Cell:
    workload: str           # a folder of platform logs with truth.json (etplan import)
    policy: str
    capacity: int | None    # None: the workload's capacity feed
    faithful: bool          # the Pollux artifact's engine rules (replay/faithful.py)

    @property
    def key(self) -> str:
        cap = "feed" if self.capacity is None else str(self.capacity)
        return f"{Path(self.workload).name}/cap={cap}/policy={self.policy}"


def plan_cells(workloads: list[str], policies: list[str], capacities: list[int | None]
               ) -> list[Cell]:
    """Every (workload, capacity, policy). When one policy needs the faithful engine, every
    cell runs there, so that the policies of a workload are compared on the same engine."""
    names = [Path(w).name for w in workloads]
    if len(set(names)) < len(names):
        raise EtplanError("sweep: two workloads share a folder name "
                          f"({', '.join(sorted({n for n in names if names.count(n) > 1}))}); "
                          "their results would share a folder — rename one")
    for w in workloads:
        if not (Path(w) / "truth.json").is_file():
            raise EtplanError(f"{w}: not a workload folder (no truth.json); "
                              "create one with etplan import or etplan generate")
    faithful = any(p in FAITHFUL_ONLY for p in policies)
    return [Cell(str(w), p, c, faithful) for w in workloads for c in capacities
            for p in policies]


def fingerprint(cell: Cell, config: ReplayConfig) -> str:
    """A digest of what the cell's result depends on: its files (name, size, modification
    time), its policy, capacity and engine, and the replay settings."""
    h = hashlib.sha256()
    root = Path(cell.workload)
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        st = f.stat()
        h.update(f"{f.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    h.update(json.dumps([asdict(cell) | {"workload": root.name}, asdict(config)],
                        sort_keys=True, default=str).encode())
    return h.hexdigest()[:16]


def cell_dir(out: Path, cell: Cell) -> Path:
    return out / cell.key


def finished(out: Path, cell: Cell, config: ReplayConfig) -> dict | None:
    """The recorded KPIs of a cell finished with the same inputs, else None."""
    path = cell_dir(out, cell) / CELL_FILE
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return doc.get("kpis") if doc.get("fingerprint") == fingerprint(cell, config) else None


def reusable(out: Path, cells: list[Cell], config: ReplayConfig) -> dict[str, dict]:
    """{cell key: recorded KPIs} of the cells finished before with the same inputs."""
    return {c.key: k for c in cells if (k := finished(out, c, config)) is not None}


def prior(workloads: list[str], policies: list[str], capacities: list[int | None], out: Path,
          config: ReplayConfig, force: bool) -> tuple[list[Cell], dict[str, dict]]:
    """The sweep's cells and the KPIs of those a rerun reuses (none when `force`)."""
    cells = plan_cells(workloads, policies, capacities)
    return cells, {} if force else reusable(out, cells, config)


def run_cell(cell: Cell, out: Path, config: ReplayConfig) -> dict:
    """Replay one cell into its folder (KPI Parquet, summary.json), then record it as done."""
    dest = cell_dir(out, cell)
    fp = fingerprint(cell, config)
    log.info("sweep cell %s: replaying", cell.key)
    doc = runs.backtest(Path(cell.workload), [cell.policy], dest, capacity=cell.capacity,
                        config=config, faithful=cell.faithful)
    kpis = doc["policies"][cell.policy]
    write_json(dest / CELL_FILE, {"fingerprint": fp, "cell": asdict(cell), "kpis": kpis})
    return kpis


def results_table(results: dict[str, dict]) -> list[dict]:
    """One row per cell (workload, capacity, policy and its summary KPIs), in cell order."""
    rows = []
    for key, kpis in results.items():
        workload, cap, policy = key.split("/")
        rows.append({"workload": workload, "capacity": cap.removeprefix("cap="),
                     "policy": policy.removeprefix("policy="), **kpis})
    return rows

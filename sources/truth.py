"""`truth.json`: each job's true throughput curve, written by the generator and the importers
and read by the replay, which executes jobs at their true speed. One schema:

    {"curve": "<how the curves were made>", "start": "<ISO time of second 0>",
     "rescale_seconds": 30.0,                 (optional on read; default the model's)
     "nodes_per_machine": 4,                  (optional: nodes one machine holds)
     "log_end": "<ISO time the log stops>",   (optional)
     "jobs": {"<job_id>": {"throughput": {"<nodes>": samples/s, ...}, ...anything else}}}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

from solver.instance import DEFAULT_RESCALE_SECONDS
from sources.errors import SourceError


class Truth(NamedTuple):
    curves: dict[str, dict[int, float]]      # job_id -> {nodes: samples/s}
    rescale_seconds: float
    nodes_per_machine: int | None             # None: not given


def write_truth(path: Path, jobs: dict[str, dict], *, curve: str, start: str,
                rescale_seconds: float = DEFAULT_RESCALE_SECONDS,
                nodes_per_machine: int | None = None, log_end: str | None = None) -> Path:
    """Write truth.json; each job's dict holds "throughput" ({str(nodes): samples/s}) and may
    hold more (the generator's f1 and serial, an importer's model and batch size)."""
    doc = {"curve": curve, "start": start, "rescale_seconds": float(rescale_seconds), "jobs": jobs}
    if nodes_per_machine is not None:
        doc["nodes_per_machine"] = nodes_per_machine
    if log_end is not None:
        doc["log_end"] = log_end
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return path


def read_truth(path: Path) -> Truth:
    """The true curves, rescale seconds and nodes per machine of a truth.json."""
    try:
        doc = json.loads(path.read_text())
        jobs = {jid: {int(n): float(v) for n, v in j["throughput"].items()}
                for jid, j in doc["jobs"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise SourceError(f"{path}: not a truth file with jobs.<id>.throughput ({err})") from None
    per_machine = doc.get("nodes_per_machine")
    if per_machine is not None and (not isinstance(per_machine, int) or per_machine < 1):
        raise SourceError(f"{path}: nodes_per_machine must be a whole number ≥ 1, "
                          f"got {per_machine!r}")
    return Truth(jobs, float(doc.get("rescale_seconds", DEFAULT_RESCALE_SECONDS)), per_machine)

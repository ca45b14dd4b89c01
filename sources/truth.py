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
import math
from pathlib import Path
from typing import NamedTuple

from solver.instance import DEFAULT_RESCALE_SECONDS
from sources.errors import SourceError

# a true throughput must be one a platform can measure: the bounds of a throughput sample
# (docs/data-contracts.md "Bounds", sql/ingest/stage_throughput_samples.sql)
THROUGHPUT_BOUNDS = (1e-9, 1e12)
MAX_NODES = 1_000_000


class Truth(NamedTuple):
    curves: dict[str, dict[int, float]]      # job_id -> {nodes: samples/s}
    rescale_seconds: float
    nodes_per_machine: int | None             # None: not given


def write_truth(path: Path, jobs: dict[str, dict], *, curve: str, start: str,
                rescale_seconds: float = DEFAULT_RESCALE_SECONDS,
                nodes_per_machine: int | None = None, log_end: str | None = None) -> Path:
    """Write truth.json; each job's dict holds "throughput" ({str(nodes): samples/s}) and may
    hold more (the generator's f1 and serial, an importer's model and batch size)."""
    for job_id, j in jobs.items():
        check_curve(path, job_id, {int(n): v for n, v in j["throughput"].items()})
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
        raw = {jid: {int(n): v for n, v in j["throughput"].items()}
               for jid, j in doc["jobs"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise SourceError(f"{path}: not a truth file with jobs.<id>.throughput ({err})") from None
    for job_id, curve in raw.items():
        check_curve(path, job_id, curve)
    jobs = {jid: {n: float(v) for n, v in curve.items()} for jid, curve in raw.items()}
    rescale = doc.get("rescale_seconds", DEFAULT_RESCALE_SECONDS)
    if isinstance(rescale, bool) or not isinstance(rescale, int | float) \
            or not 0 <= rescale < math.inf:
        raise SourceError(f"{path}: rescale_seconds must be a finite number ≥ 0, "
                          f"got {rescale!r}; fix it or leave it out (default "
                          f"{DEFAULT_RESCALE_SECONDS:g})")
    per_machine = doc.get("nodes_per_machine")
    if per_machine is not None and (not isinstance(per_machine, int) or per_machine < 1):
        raise SourceError(f"{path}: nodes_per_machine must be a whole number ≥ 1, "
                          f"got {per_machine!r}")
    return Truth(jobs, float(rescale), per_machine)


def check_curve(path: Path, job_id: str, curve: dict[int, float]) -> None:
    """A true curve the replay can run: node counts in [1, 1,000,000], each throughput finite
    and within THROUGHPUT_BOUNDS (a zero, negative, NaN or infinite speed would stall the
    replay or poison its KPIs); the error names the file, the job and the size."""
    low, high = THROUGHPUT_BOUNDS
    if not curve:
        raise SourceError(f"{path}: job {job_id} has an empty throughput curve; give "
                          "samples/s for each of its node counts")
    for n, raw in curve.items():
        try:
            v = float(raw)
        except (TypeError, ValueError):
            v = math.nan
        if not 1 <= n <= MAX_NODES:
            raise SourceError(f"{path}: job {job_id}: node count {n} outside [1, {MAX_NODES:,}]"
                              "; fix or remove that curve point")
        if isinstance(raw, bool) or not low <= v <= high:
            raise SourceError(f"{path}: job {job_id} at {n} nodes: throughput {raw!r} is not a "
                              f"finite number within [{low:g}, {high:g}] samples/s; fix that "
                              "curve point (or regenerate the file with etplan generate/import)")

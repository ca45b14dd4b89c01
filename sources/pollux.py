"""The measured throughput profiles of the Pollux artifact (../shared/data/pollux/traces/<model>).

A configuration is (GPUs, per-GPU batch); GPUs are packed 4 per node, as on the measured
cluster. `placements.csv` covers up to 4 nodes (16 GPUs) with a placement string of per-node
GPU counts; `scalability.csv` covers larger ones by (num_nodes, num_replicas). Throughput in
samples/s = GPUs × local_bsz / step_time.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

MODELS = ("bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3")
EPOCHS = {"bert": 2, "cifar10": 100, "ncf": 10, "imagenet": 90, "deepspeech2": 80, "yolov3": 50}
GPUS_PER_NODE = 4
MAX_GPUS = 64


def packed_nodes(gpus: int) -> int:
    return math.ceil(gpus / GPUS_PER_NODE)


def packed_placement(gpus: int) -> str:
    """Placement string of `gpus` GPUs packed 4 per node, digits ascending ('1444' for 13)."""
    full, rest = divmod(gpus, GPUS_PER_NODE)
    return (str(rest) if rest else "") + str(GPUS_PER_NODE) * full


@dataclass(frozen=True)
class Profile:
    model: str
    # (gpus, local_bsz) -> step seconds, packed configurations only
    step: dict[tuple[int, int], float]
    # (placement, local_bsz) -> step seconds, every configuration of placements.csv
    placements: dict[tuple[str, int], float] = field(default_factory=dict)

    @property
    def batch_sizes(self) -> list[int]:
        return sorted({b for _, b in self.step})

    def gpu_counts(self, local_bsz: int) -> list[int]:
        return sorted(g for g, b in self.step if b == local_bsz)

    def throughput(self, gpus: int, local_bsz: int) -> float | None:
        """Measured samples/s, or None where this configuration was not measured."""
        s = self.step.get((gpus, local_bsz))
        return gpus * local_bsz / s if s else None

    def placed(self, local_bsz: int, max_gpus: int) -> list[tuple[int, int, float]]:
        """(GPUs, machines, samples/s) of every measured placement of at most `max_gpus` GPUs at
        this per-GPU batch, packed and spread ('11' is 2 GPUs on 2 machines)."""
        out = []
        for (placement, b), s in sorted(self.placements.items()):
            gpus = sum(int(d) for d in placement)
            if b == local_bsz and gpus <= max_gpus:
                out.append((gpus, len(placement), gpus * local_bsz / s))
        return out

    def step_time(self, gpus: int, local_bsz: float) -> float:
        """Seconds per step at `gpus` and any per-GPU batch: log-log interpolation in the batch
        between measured ones, then linear interpolation in GPUs between measured counts."""
        counts = sorted({g for g, _ in self.step})
        if gpus in counts:
            return self._step_at(gpus, local_bsz)
        lo = max((g for g in counts if g < gpus), default=counts[0])
        hi = min((g for g in counts if g > gpus), default=counts[-1])
        if lo == hi:
            return self._step_at(lo, local_bsz)
        w = (gpus - lo) / (hi - lo)
        return (1 - w) * self._step_at(lo, local_bsz) + w * self._step_at(hi, local_bsz)

    def _step_at(self, gpus: int, local_bsz: float) -> float:
        """Log-log interpolation in the per-GPU batch; outside the measured batches, the line
        through the two nearest measured ones is extended."""
        pts = sorted((b, s) for (g, b), s in self.step.items() if g == gpus)
        bs = np.log([b for b, _ in pts])
        ss = np.log([s for _, s in pts])
        x = math.log(local_bsz)
        if len(pts) >= 2 and (x < bs[0] or x > bs[-1]):
            i = 0 if x < bs[0] else len(pts) - 2
            slope = (ss[i + 1] - ss[i]) / (bs[i + 1] - bs[i])
            return float(np.exp(ss[i] + slope * (x - bs[i])))
        return float(np.exp(np.interp(x, bs, ss)))

    def job_curve(self, batch_size: int, max_gpus: int) -> dict[int, float]:
        """samples/s of a job training at total batch `batch_size` on 1..max_gpus GPUs. Where
        the per-GPU batch is above the largest measured one, the job accumulates gradients over
        k steps of batch_size / (n·k) each (as Pollux's simulator does), so nothing is
        extrapolated past the measurements."""
        largest = max(self.batch_sizes)
        curve = {}
        for n in range(1, max_gpus + 1):
            per_gpu = batch_size / n
            k = max(1, math.ceil(per_gpu / largest - 1e-9))
            curve[n] = batch_size / (k * self.step_time(n, per_gpu / k))
        return curve

    def max_gpus(self, batch_size: int) -> int:
        """Largest GPU count whose per-GPU batch stays inside the measured range, ≤ 64."""
        smallest = min(self.batch_sizes)
        return max(1, min(MAX_GPUS, int(batch_size // smallest)))


@cache
def load_profile(traces: Path, model: str) -> Profile:
    step: dict[tuple[int, int], float] = {}
    placements: dict[tuple[str, int], float] = {}
    with (traces / model / "placements.csv").open() as fh:
        for row in csv.DictReader(fh):
            placement = row["placement"]
            gpus = sum(int(d) for d in placement)
            placements[(placement, int(row["local_bsz"]))] = float(row["step_time"])
            if placement == packed_placement(gpus):
                step[(gpus, int(row["local_bsz"]))] = float(row["step_time"])
    with (traces / model / "scalability.csv").open() as fh:
        for row in csv.DictReader(fh):
            gpus, nodes = int(row["num_replicas"]), int(row["num_nodes"])
            if nodes == packed_nodes(gpus) and gpus > 16:
                step[(gpus, int(row["local_bsz"]))] = float(row["step_time"])
    return Profile(model, step, placements)


@cache
def samples_per_epoch_table(traces: Path, model: str) -> tuple[tuple[int, float], ...]:
    """(batch size, samples to train the model's epochs) for each validation file."""
    out = []
    for f in (traces / model).glob("validation-*.csv"):
        batch = int(f.stem.split("-")[1])
        with f.open() as fh:
            rows = list(csv.DictReader(fh))
        epochs = EPOCHS[model]
        if len(rows) < epochs:
            continue
        out.append((batch, float(rows[epochs - 1]["iteration"]) * batch))
    return tuple(sorted(out))


def total_work(traces: Path, model: str, batch_size: int) -> float:
    """Samples needed to train `model` for its epochs at `batch_size` (log-linear interpolation
    between measured batch sizes; clamped at the ends)."""
    table = samples_per_epoch_table(traces, model)
    bs = np.log([b for b, _ in table])
    ws = np.array([w for _, w in table])
    return float(np.interp(math.log(batch_size), bs, ws))


@dataclass(frozen=True)
class RawProfile:
    """One model's measured files as plain rows (numbers as floats), for the faithful replay:
    placements.csv and scalability.csv rows, and the validation-<B>.csv columns per batch B."""
    model: str
    placements: tuple[dict, ...]
    scalability: tuple[dict, ...]
    validation: dict[int, dict[str, tuple[float, ...]]]


def _rows(path: Path) -> tuple[dict, ...]:
    with path.open() as fh:
        return tuple({k: (v if k == "placement" else float(v)) for k, v in row.items()}
                     for row in csv.DictReader(fh))


@cache
def load_raw_profile(traces: Path, model: str) -> RawProfile:
    validation = {}
    for f in sorted((traces / model).glob("validation-*.csv")):
        rows = _rows(f)
        validation[int(f.stem.split("-")[1])] = {k: tuple(r[k] for r in rows) for k in rows[0]}
    return RawProfile(model, _rows(traces / model / "placements.csv"),
                      _rows(traces / model / "scalability.csv"), dict(sorted(validation.items())))


def read_pollux_jobs(truth: Path) -> tuple[list[dict], Path | None]:
    """The jobs of an imported Pollux (or Philly) truth.json as plain rows (job_id, submit in
    seconds from the start, model, requested_gpus, batch_size) and the profiles folder they
    name; ([], None) when the file does not come from these importers."""
    import json
    from datetime import datetime

    doc = json.loads(truth.read_text())
    start = datetime.fromisoformat(doc["start"].replace("Z", "+00:00")).timestamp()
    rows, folders = [], set()
    for job_id, j in doc["jobs"].items():
        if not {"model", "batch_size", "requested_gpus", "profiles", "submit"} <= set(j):
            return [], None
        folders.add(j["profiles"])
        rows.append({"job_id": job_id, "model": j["model"], "batch_size": int(j["batch_size"]),
                     "requested_gpus": int(j["requested_gpus"]),
                     "submit": datetime.fromisoformat(j["submit"].replace("Z", "+00:00"))
                     .timestamp() - start,
                     # the range of `--elastic-range`, when the import set one
                     "min_gpus": int(j.get("min_gpus", 1)), "max_gpus": j.get("max_gpus")})
    return rows, Path(folders.pop()) if len(folders) == 1 else None


def read_checked_pollux_jobs(truth: Path) -> tuple[list[dict], Path]:
    """read_pollux_jobs for the faithful replay, with every fault a user can make in the file
    said in one line (SourceError): not an import's truth.json, a time that is not ISO 8601,
    a batch size or GPU count below 1, a model without measured profiles."""
    from sources.errors import SourceError

    try:
        rows, profiles = read_pollux_jobs(truth)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise SourceError(f"{truth}: not a truth.json of `etplan import pollux|philly` "
                          f"({type(err).__name__}: {err}); re-run the import") from None
    if not rows or profiles is None:
        raise SourceError(f"{truth}: not from `etplan import pollux|philly`; the faithful "
                          "replay needs each job's model, batch size and one profiles folder")
    for r in rows:
        low, high = r.get("min_gpus", 1), r.get("max_gpus")
        if r["batch_size"] < 1 or r["requested_gpus"] < 1 or low < 1 \
                or (high is not None and (not isinstance(high, int) or high < low)):
            raise SourceError(f"{truth}: job {r['job_id']}: batch_size, requested_gpus and "
                              "min_gpus must be ≥ 1 and max_gpus ≥ min_gpus; re-run the import")
        if not (profiles / r["model"] / "placements.csv").is_file():
            raise SourceError(f"{truth}: job {r['job_id']}: no measured profile for model "
                              f"{r['model']!r} in {profiles}; pass the Pollux traces folder "
                              "to `etplan import` again")
    return rows, profiles

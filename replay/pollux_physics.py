"""What a job's training costs in the Pollux artifact's engine (the faithful replay's physics).

Rules re-derived from the artifact's simulator (petuum/adaptdl, osdi21-artifact, `simulator/`;
no code copied), read from the measured files through `sources.pollux.load_raw_profile`:
- batch config: a fixed total batch B on n GPUs trains ⌈B/n⌉ per GPU, capped at the model's
  largest measured per-GPU batch (yolov3: 8); the rest is gradient accumulation (`batch_config`);
- step time at a placement (GPUs per machine): the measured row of `placements.csv` for the
  placement's smallest rotation, linear in the per-GPU batch; otherwise a linear interpolation
  over (machines, GPUs, per-GPU batch) of the averaged placement rows and `scalability.csv`;
- an iteration is one step plus `accum` micro-steps that cost the step minus its sync time;
- progress is statistical-efficiency-adjusted: an iteration at trained batch b adds
  gain(b) = (var + sqr) / (var / s + sqr), s = b / smallest measured B, with the epoch's
  `grad_sqr`/`grad_var` interpolated between the measured batches; epoch e ends at the smallest
  `progress` any measured batch shows at row e−1, and a job completes after its model's epochs.

One what-if beyond the artifact's fixed-batch rule: a `Model` loaded with `adaptive_batch`
trains at the total batch Pollux's own scheduler would pick (`config_at`), for the experiment
that separates the planner's share of the gap to Pollux from the batch sizes' share
(docs/results.md, "Batch sizes chosen as Pollux chooses them").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from scipy.interpolate import LinearNDInterpolator

from replay.cluster import GPUS_PER_MACHINE, MACHINES, Placement, packed
from sources.pollux import EPOCHS, RawProfile, load_raw_profile

EPS = 1e-8
MAX_LOCAL_BSZ_OVERRIDE = {"yolov3": 8}
MAX_ADAPTIVE_ACCUM = 7   # extra micro-steps an adaptive batch may take (`adaptive_config`)


class Model:
    """One model's step times and statistical efficiency, from its measured rows."""

    def __init__(self, raw: RawProfile, max_epochs: int | None = None,
                 adaptive_batch: bool = False):
        self.name = raw.model
        self.adaptive_batch = adaptive_batch
        self.validation = raw.validation
        self.init_batch_size = min(raw.validation)
        self.max_batch_size = max(raw.validation)
        local = [int(r["local_bsz"]) for r in raw.placements]
        self.min_local_bsz = min(local)
        self.local_sizes = tuple(sorted(set(local)))
        self.max_local_bsz = MAX_LOCAL_BSZ_OVERRIDE.get(self.name, max(local))
        self.max_epochs = max_epochs or EPOCHS[self.name]
        by_placement: dict[str, list[tuple[float, float, float]]] = {}
        for r in raw.placements:
            by_placement.setdefault(r["placement"], []).append(
                (r["local_bsz"], r["step_time"], r["sync_time"]))
        self._table = {p: np.array(sorted(v)).T for p, v in by_placement.items()}
        self._nd = _interpolator(raw)

    def step_time(self, placement: Placement, local_bsz: float) -> tuple[float, float]:
        """(step seconds, sync seconds) of one iteration at this placement."""
        return self._step_time(tuple(p for p in placement if p), float(local_bsz))

    @cache  # noqa: B019 - one Model per model, alive for the process
    def _step_time(self, placement: Placement, local_bsz: float) -> tuple[float, float]:
        rot = min(placement[i:] + placement[:i] for i in range(len(placement)))
        key = "".join(map(str, rot))
        if key in self._table:
            bs, step, sync = self._table[key]
            return float(np.interp(local_bsz, bs, step)), float(np.interp(local_bsz, bs, sync))
        out = self._nd([[min(len(rot), MACHINES), sum(rot), local_bsz]])[0]
        if not np.all(np.isfinite(out)):
            raise ValueError(f"{self.name}: no step time for {rot} at per-GPU batch {local_bsz}")
        return float(out[0]), float(out[1])

    def step_times_with(self, gpus: int, local_bsz: float) -> list[tuple[float, float]]:
        """(step, sync) of every way the engine can look up `gpus` GPUs: each measured
        placement of that many GPUs that fits the cluster, and the interpolation at every
        machine count they can span (a superset of what placements reach: for bounds)."""
        out = [(float(np.interp(local_bsz, bs, step)), float(np.interp(local_bsz, bs, sync)))
               for key, (bs, step, sync) in self._table.items()
               if sum(map(int, key)) == gpus and len(key) <= MACHINES
               and max(map(int, key)) <= GPUS_PER_MACHINE]
        for k in range(math.ceil(gpus / GPUS_PER_MACHINE), min(gpus, MACHINES) + 1):
            step, sync = self._nd([[k, gpus, float(local_bsz)]])[0]
            if math.isfinite(step) and math.isfinite(sync):
                out.append((float(step), float(sync)))
        return out

    def _column(self, batch: float, column: str, epoch: int) -> float:
        lo = max((b for b in self.validation if b <= batch), default=None)
        hi = min((b for b in self.validation if b >= batch), default=None)
        if lo is None or hi is None:
            raise ValueError(f"{self.name}: batch {batch} outside {list(self.validation)}")
        a = self.validation[lo][column][epoch]
        if lo == hi:
            return a
        return ((batch - lo) * self.validation[hi][column][epoch] + (hi - batch) * a) / (hi - lo)

    @cache  # noqa: B019
    def progress_at(self, epoch: int) -> float:
        """Progress at the end of `epoch` epochs (0 at the start)."""
        if epoch == 0:
            return 0.0
        return min(v["progress"][epoch - 1] for v in self.validation.values())

    @cache  # noqa: B019
    def gain(self, batch: float, epoch: int) -> float:
        """Statistical efficiency of one iteration at `batch` against the smallest batch."""
        sqr = self._column(batch, "grad_sqr", epoch)
        var = self._column(batch, "grad_var", epoch)
        return (var + sqr) / (var / (batch / self.init_batch_size) + sqr)

    def iterations(self, batch: float, epoch: int) -> float:
        """Cumulative iterations at validation row `epoch` (after epoch + 1 epochs)."""
        return self._column(batch, "iteration", epoch)


def _interpolator(raw: RawProfile) -> LinearNDInterpolator:
    """(machines, GPUs, per-GPU batch) -> (step, sync): placement rows averaged per key, plus
    the scalability rows."""
    groups: dict[tuple[float, float, float], list[tuple[float, float]]] = {}
    for r in raw.placements:
        p = r["placement"]
        key = (float(len(p)), float(sum(map(int, p))), r["local_bsz"])
        groups.setdefault(key, []).append((r["step_time"], r["sync_time"]))
    xs = [list(k) for k in groups]
    ys = [list(np.mean(v, axis=0)) for v in groups.values()]
    for r in raw.scalability:
        xs.append([r["num_nodes"], r["num_replicas"], r["local_bsz"]])
        ys.append([r["step_time"], r["sync_time"]])
    return LinearNDInterpolator(np.array(xs), np.array(ys))


@cache
def load_model(traces: Path, model: str, adaptive_batch: bool = False) -> Model:
    return Model(load_raw_profile(traces, model), adaptive_batch=adaptive_batch)


def batch_config(m: Model, batch_size: int, gpus: int, one_gpu_accum: bool = False
                 ) -> tuple[int, int]:
    """(per-GPU micro-batch, extra accumulation steps) of a fixed total batch on `gpus` GPUs.
    On one GPU a batch above the smallest measured one always accumulates at least once
    (`one_gpu_accum`: always, as Optimus's step-time prediction assumes)."""
    local = math.ceil(batch_size / gpus - EPS)
    accum = math.ceil(local / m.max_local_bsz - EPS) - 1
    if gpus == 1 and (one_gpu_accum or batch_size > m.init_batch_size):
        accum = max(1, accum)
    atomic = math.ceil(local / (accum + 1) - EPS)
    return min(atomic, int(m.max_batch_size / (gpus * (accum + 1)))), accum


def config_at(m: Model, batch_size: int, placement: Placement, epoch: int) -> tuple[int, int]:
    """(per-GPU micro-batch, extra micro-steps) a job trains with at `placement` in `epoch`:
    its fixed batch's (`batch_config`), or the adaptive one when the model is loaded so."""
    placement = tuple(p for p in placement if p)
    if m.adaptive_batch:
        return adaptive_config(m, placement, min(epoch, m.max_epochs - 1))
    return batch_config(m, batch_size, sum(placement))


@cache
def adaptive_config(m: Model, placement: Placement, epoch: int) -> tuple[int, int]:
    """The batch Pollux's scheduler would train at (its goodput rule with the true step times
    and gains): of the measured per-GPU batches up to the model's largest, with 0 to
    `MAX_ADAPTIVE_ACCUM` extra micro-steps, the pair whose total batch lies between the
    smallest and largest measured ones and makes the most progress per second in `epoch`."""
    n = sum(placement)
    best: tuple[float, int, int] | None = None
    for accum in range(MAX_ADAPTIVE_ACCUM + 1):
        for atomic in (b for b in m.local_sizes if b <= m.max_local_bsz):
            total = trained_batch(n, atomic, accum)
            if not m.init_batch_size <= total <= m.max_batch_size:
                continue
            try:
                rate = m.gain(total, epoch) / iteration_seconds(m, placement, atomic, accum)
            except ValueError:    # no step time for this per-GPU batch at this placement
                continue
            if math.isfinite(rate) and (best is None or rate > best[0]):
                best = (rate, atomic, accum)
    if best is None:
        return batch_config(m, m.init_batch_size, n)
    return best[1], best[2]


def trained_batch(gpus: int, atomic: int, accum: int) -> int:
    """Samples one iteration trains: each GPU's micro-batch, once plus `accum` more times."""
    return gpus * atomic * (accum + 1)


def iteration_seconds(m: Model, placement: Placement, atomic: int, accum: int) -> float:
    return _iteration(*m.step_time(placement, atomic), accum)


def _iteration(step: float, sync: float, accum: int) -> float:
    """One step plus `accum` micro-steps, each costing the step less its sync."""
    return step + (step - sync) * accum


@dataclass(frozen=True)
class Rate:
    progress_per_s: float
    iteration_s: float
    trained_batch: int


def job_rate(m: Model, batch_size: int, placement: Placement, epoch: int = 0) -> Rate:
    """What the engine charges a job at a placement during `epoch`, at the batch it trains
    with there (`config_at`: its fixed batch, or the adaptive one)."""
    placement = tuple(p for p in placement if p)
    atomic, accum = config_at(m, batch_size, placement, epoch)
    it_s = iteration_seconds(m, placement, atomic, accum)
    trained = trained_batch(sum(placement), atomic, accum)
    return Rate(m.gain(trained, min(epoch, m.max_epochs - 1)) / it_s, it_s, trained)


def placement_slowdown(m: Model, batch_size: int, placement: Placement, epoch: int = 0
                       ) -> float:
    """How many times longer a job takes at `placement` than packed on as few machines as its
    GPUs need (1.0 when packed): the ratio of its progress rates in `epoch`. At a fixed batch
    the trained batch, and so an iteration's progress, is the same at both, so that is the
    ratio of iteration times; an adaptive batch may differ between the two."""
    placement = tuple(p for p in placement if p)
    return (job_rate(m, batch_size, packed(sum(placement)), epoch).progress_per_s
            / job_rate(m, batch_size, placement, epoch).progress_per_s)


@cache
def epoch_seconds(m: Model, batch_size: int, gpus: int) -> tuple[float, ...] | None:
    """Seconds each epoch takes on `gpus` GPUs packed (None: no step time there)."""
    try:
        out = tuple((m.progress_at(e + 1) - m.progress_at(e))
                    / job_rate(m, batch_size, packed(gpus), e).progress_per_s
                    for e in range(m.max_epochs))
    except ValueError:
        return None
    return out if all(math.isfinite(x) and x > 0 for x in out) else None


@cache
def fastest_epoch_seconds(m: Model, batch_size: int, gpus: int) -> tuple[float, ...] | None:
    """Seconds each epoch takes on `gpus` GPUs at the fastest step time the engine can look up
    for that many (`Model.step_times_with`, packed included): at most `epoch_seconds`, for
    bounds that hold whatever the placement (spread shapes can beat packed ones)."""
    secs = epoch_seconds(m, batch_size, gpus)
    if secs is None:
        return None
    atomic, accum = batch_config(m, batch_size, gpus)
    packed_s = iteration_seconds(m, packed(gpus), atomic, accum)
    fastest = min([packed_s, *(_iteration(step, sync, accum)
                               for step, sync in m.step_times_with(gpus, atomic))])
    return tuple(x * fastest / packed_s for x in secs)


def remaining_seconds(m: Model, batch_size: int, gpus: int, epoch: int, progress: float
                      ) -> float | None:
    """Seconds a job at (epoch, progress) still needs on `gpus` GPUs packed, no restarts."""
    secs = epoch_seconds(m, batch_size, gpus)
    if secs is None:
        return None
    if epoch >= m.max_epochs:
        return 0.0
    lo, hi = m.progress_at(epoch), m.progress_at(epoch + 1)
    left = (hi - min(max(progress, lo), hi)) / (hi - lo)
    return left * secs[epoch] + sum(secs[epoch + 1:])


def max_useful_gpus(m: Model, batch_size: int) -> int:
    """Most GPUs a job can use: one per smallest measured per-GPU batch of its batch (of the
    model's largest batch when the batch adapts), at most the cluster."""
    batch = m.max_batch_size if m.adaptive_batch else batch_size
    return max(1, min(MACHINES * GPUS_PER_MACHINE, int(batch // m.min_local_bsz)))

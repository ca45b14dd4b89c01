"""How well `etplan estimate` predicts real scaling: the measured Pollux profiles.

For every model and measured per-GPU batch, one job whose samples are its measurements at 1, 2
and 4 GPUs; the estimator the caller passes (the production one: `warehouse.estimate.
estimate_rows`, the SQL of `sql/estimate/`, which this package does not import) fits its curve,
which is
compared with the measurement at every other GPU count (packed 4 GPUs per machine, as the
profiles measure them). The 1, 2 and 4 GPU measurements include the placements across machines
('11', '22', '1111', ...), each sample with the machines it spanned; `machines=False` keeps only
the single-machine ones and reports no machines, as a platform that does not log them. A
power-law fit (log-log least squares on the single-machine 1, 2 and 4 GPU points) is scored
alongside.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sources.pollux import MODELS, load_profile, packed_nodes

FIT_GPUS = (1, 2, 4)
# what measure() is given: curves {job_id: {nodes: samples/s}} for est_jobs-like and
# est_samples-like rows
Estimator = Callable[[list[dict], list[dict]], dict[str, dict[int, float]]]


@dataclass
class Accuracy:
    # model, local_bsz, gpus, measured, amdahl (the estimator), power, floor: the nearest to the
    # measurement that a never-decreasing curve through the job's single-machine points can be
    rows: list[dict]

    def ape(self, model: str | None = None, form: str = "amdahl") -> np.ndarray:
        return np.array([abs(r[form] - r["measured"]) / r["measured"] for r in self.rows
                         if model is None or r["model"] == model])

    def table(self) -> list[dict]:
        out = []
        for m in [*MODELS, None]:
            a, p = self.ape(m), self.ape(m, "power")
            out.append({"model": m or "overall", "points": int(a.size),
                        "amdahl_median_ape": float(np.median(a)),
                        "amdahl_mean_ape": float(a.mean()),
                        "power_median_ape": float(np.median(p)),
                        "power_mean_ape": float(p.mean()),
                        "floor_mean_ape": float(self.ape(m, "floor").mean())})
        return out


@dataclass
class _Setup:
    targets: list[dict]                 # est_jobs rows of the jobs to predict
    truth: list[dict]                   # the measurements to predict
    fit: dict[str, list[dict]]          # job_id -> the samples its curve is fitted on
    full: dict[str, list[dict]]         # job_id -> every measurement, as samples


def _setup(traces: Path, machines: bool) -> _Setup:
    out = _Setup([], [], {}, {})
    for model in MODELS:
        prof = load_profile(traces, model)
        for bsz in prof.batch_sizes:
            job_id = f"{model}-{bsz}"
            counts = prof.gpu_counts(bsz)
            out.full[job_id] = [_sample(job_id, g, packed_nodes(g), prof.throughput(g, bsz),
                                        machines) for g in counts]
            if not all(g in counts for g in FIT_GPUS):
                continue
            out.targets.append(_job(job_id, model))
            out.fit[job_id] = [_sample(job_id, g, m, tp, machines)
                               for g, m, tp in prof.placed(bsz, max(FIT_GPUS))
                               if g in FIT_GPUS and (machines or m == 1)]
            out.truth.extend({"model": model, "local_bsz": bsz, "job_id": job_id, "gpus": g,
                              "measured": prof.throughput(g, bsz)} for g in counts
                             if g not in FIT_GPUS)
    return out


def measure(traces: Path, estimator: Estimator, *, machines: bool = True,
            history: bool = False) -> Accuracy:
    """`history`: the estimator also sees the job's model class at its OTHER measured per-GPU
    batches, at every GPU count (jobs of the same model that already ran across machines, as a
    platform has in operation); the target job itself still has only its 1, 2 and 4 GPU points.
    Each target is estimated on its own, so its own measurements never leak into the class."""
    st = _setup(traces, machines)
    if history:
        curves = {}
        for t in st.targets:
            others = [o for o in st.full if o.startswith(t["model"] + "-") and o != t["job_id"]]
            fitted = estimator([t] + [_job(o, t["model"]) for o in others],
                               st.fit[t["job_id"]] + [s for o in others for s in st.full[o]])
            curves[t["job_id"]] = fitted[t["job_id"]]
    else:
        curves = estimator(st.targets, [s for t in st.targets for s in st.fit[t["job_id"]]])
    rows = []
    for t in st.truth:
        xs, ys = zip(*((s["nodes"], s["throughput"]) for s in st.fit[t["job_id"]]
                       if s["machines"] in (1, None)), strict=True)
        k, c = np.polyfit(np.log(xs), np.log(ys), 1)
        # a curve never decreasing in n: at least what the job measured on fewer GPUs
        reach = max(y for x, y in zip(xs, ys, strict=True) if x < t["gpus"])
        rows.append(t | {"amdahl": curves[t["job_id"]][t["gpus"]],
                         "power": float(np.exp(c) * t["gpus"] ** k),
                         "floor": max(reach, t["measured"])})
    return Accuracy(rows)


def _job(job_id: str, model: str) -> dict:
    """An estimator job: any size from 1 to 64 GPUs, as the profiles measure."""
    return {"job_id": job_id, "model": model, "min_nodes": 1, "max_nodes": 64}


def _sample(job_id: str, gpus: int, machines: int, throughput: float | None, report: bool
            ) -> dict:
    return {"job_id": job_id, "nodes": gpus, "throughput": throughput,
            "machines": machines if report else None}

"""How well `etplan estimate` predicts real scaling: the measured Pollux profiles.

For every model and measured per-GPU batch, one job whose samples are its measurements at 1, 2
and 4 GPUs; the production estimator (the SQL of `sql/estimate/`) fits its curve, which is
compared with the measurement at every other GPU count (packed 4 GPUs per machine, as the
profiles measure them). The 1, 2 and 4 GPU measurements include the placements across machines
('11', '22', '1111', ...), each sample with the machines it spanned; `machines=False` keeps only
the single-machine ones and reports no machines, as a platform that does not log them. A
power-law fit (log-log least squares on the single-machine 1, 2 and 4 GPU points) is scored
alongside.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from warehouse.connection import connect
from warehouse.estimate import estimate
from warehouse.pollux import MODELS, load_profile, packed_nodes
from warehouse.sqlfiles import load_query, run_script

FIT_GPUS = (1, 2, 4)


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


def measure(traces: Path, db_path: str = ":memory:", *, machines: bool = True,
            history: bool = False) -> Accuracy:
    """`history`: the estimator also sees the job's model class at its OTHER measured per-GPU
    batches, at every GPU count (jobs of the same model that already ran across machines, as a
    platform has in operation); the target job itself still has only its 1, 2 and 4 GPU points.
    Each target is estimated on its own, so its own measurements never leak into the class."""
    con = connect(db_path)
    targets, truth = [], []
    fit: dict[str, list[dict]] = {}
    full: dict[str, list[dict]] = {}
    for model in MODELS:
        prof = load_profile(traces, model)
        for bsz in prof.batch_sizes:
            job_id = f"{model}-{bsz}"
            counts = prof.gpu_counts(bsz)
            full[job_id] = [_sample(job_id, g, packed_nodes(g), prof.throughput(g, bsz),
                                    machines) for g in counts]
            if not all(g in counts for g in FIT_GPUS):
                continue
            targets.append({"job_id": job_id, "model": model})
            fit[job_id] = [_sample(job_id, g, m, tp, machines)
                           for g, m, tp in prof.placed(bsz, max(FIT_GPUS))
                           if g in FIT_GPUS and (machines or m == 1)]
            truth.extend({"model": model, "local_bsz": bsz, "job_id": job_id, "gpus": g,
                          "measured": prof.throughput(g, bsz)} for g in counts
                         if g not in FIT_GPUS)
    if history:
        curves = {}
        for t in targets:
            others = [o for o in full if o.startswith(t["model"] + "-") and o != t["job_id"]]
            curves |= _estimate(con, [t] + [{"job_id": o, "model": t["model"]} for o in others],
                                fit[t["job_id"]] + [s for o in others for s in full[o]],
                                keep=t["job_id"])
    else:
        curves = _estimate(con, targets, [s for t in targets for s in fit[t["job_id"]]])
    con.close()
    rows = []
    for t in truth:
        xs, ys = zip(*((s["nodes"], s["throughput"]) for s in fit[t["job_id"]]
                       if s["machines"] in (1, None)), strict=True)
        k, c = np.polyfit(np.log(xs), np.log(ys), 1)
        # a curve never decreasing in n: at least what the job measured on fewer GPUs
        reach = max(y for x, y in zip(xs, ys, strict=True) if x < t["gpus"])
        rows.append(t | {"amdahl": curves[(t["job_id"], t["gpus"])],
                         "power": float(np.exp(c) * t["gpus"] ** k),
                         "floor": max(reach, t["measured"])})
    return Accuracy(rows)


def _sample(job_id: str, gpus: int, machines: int, throughput: float | None, report: bool
            ) -> dict:
    return {"job_id": job_id, "nodes": gpus, "throughput": throughput,
            "machines": machines if report else None}


def _estimate(con, jobs: list[dict], samples: list[dict], keep: str | None = None
              ) -> dict[tuple[str, int], float]:
    run_script(con, load_query("estimate/accuracy", "reset"))
    con.register("acc_jobs", pa.Table.from_pylist(jobs))
    con.register("acc_samples", pa.Table.from_pylist(samples))
    run_script(con, load_query("estimate/accuracy", "load"))
    estimate(con)
    return {(j, n): tp for j, n, tp in con.execute(
        load_query("estimate/accuracy", "curves")).fetchall() if keep is None or j == keep}

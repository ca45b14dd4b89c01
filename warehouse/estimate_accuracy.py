"""How well `etplan estimate` predicts real scaling: the measured Pollux profiles.

For every model and measured per-GPU batch, one job whose samples are the measured throughput at
1, 2 and 4 GPUs; the production estimator (the SQL of `sql/estimate/`) fits its curve, which is
compared with the measurement at every other GPU count. A power-law fit (log-log least squares
on the same three points) is scored alongside.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from warehouse.connection import connect
from warehouse.estimate import estimate
from warehouse.pollux import MODELS, load_profile
from warehouse.sqlfiles import load_query, run_script

FIT_GPUS = (1, 2, 4)


@dataclass
class Accuracy:
    rows: list[dict]            # model, local_bsz, gpus, measured, amdahl, power

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
                        "power_mean_ape": float(p.mean())})
        return out


def measure(traces: Path, db_path: str = ":memory:", *, history: bool = False) -> Accuracy:
    """`history`: the estimator also sees the job's model class at its OTHER measured per-GPU
    batches, at every GPU count (jobs of the same model that already ran across machines, as a
    platform has in operation); the target job itself still has only its 1, 2 and 4 GPU points.
    Each target is estimated on its own, so its own measurements never leak into the class."""
    con = connect(db_path)
    targets, truth = [], []
    full: dict[str, list[dict]] = {}
    for model in MODELS:
        prof = load_profile(traces, model)
        for bsz in prof.batch_sizes:
            job_id = f"{model}-{bsz}"
            counts = prof.gpu_counts(bsz)
            full[job_id] = [{"job_id": job_id, "nodes": g, "throughput": prof.throughput(g, bsz)}
                            for g in counts]
            if not all(g in counts for g in FIT_GPUS):
                continue
            targets.append({"job_id": job_id, "model": model})
            truth.extend({"model": model, "local_bsz": bsz, "job_id": job_id, "gpus": g,
                          "measured": prof.throughput(g, bsz)} for g in counts
                         if g not in FIT_GPUS)
    fit = {t["job_id"]: [s for s in full[t["job_id"]] if s["nodes"] in FIT_GPUS]
           for t in targets}
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
        xs, ys = zip(*((s["nodes"], s["throughput"]) for s in fit[t["job_id"]]), strict=True)
        k, c = np.polyfit(np.log(xs), np.log(ys), 1)
        rows.append(t | {"amdahl": curves[(t["job_id"], t["gpus"])],
                         "power": float(np.exp(c) * t["gpus"] ** k)})
    return Accuracy(rows)


def _estimate(con, jobs: list[dict], samples: list[dict], keep: str | None = None
              ) -> dict[tuple[str, int], float]:
    run_script(con, load_query("estimate/accuracy", "reset"))
    con.register("acc_jobs", pa.Table.from_pylist(jobs))
    con.register("acc_samples", pa.Table.from_pylist(samples))
    run_script(con, load_query("estimate/accuracy", "load"))
    estimate(con)
    return {(j, n): tp for j, n, tp in con.execute(
        load_query("estimate/accuracy", "curves")).fetchall() if keep is None or j == keep}

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


def measure(traces: Path, db_path: str = ":memory:") -> Accuracy:
    con = connect(db_path)
    jobs, samples, truth = [], [], []
    for model in MODELS:
        prof = load_profile(traces, model)
        for bsz in prof.batch_sizes:
            job_id = f"{model}-{bsz}"
            counts = prof.gpu_counts(bsz)
            if not all(g in counts for g in FIT_GPUS):
                continue
            jobs.append({"job_id": job_id, "model": model})
            for g in FIT_GPUS:
                samples.append({"job_id": job_id, "nodes": g,
                                "throughput": prof.throughput(g, bsz)})
            truth.extend({"model": model, "local_bsz": bsz, "job_id": job_id, "gpus": g,
                          "measured": prof.throughput(g, bsz)} for g in counts
                         if g not in FIT_GPUS)
    con.register("acc_jobs", pa.Table.from_pylist(jobs))
    con.register("acc_samples", pa.Table.from_pylist(samples))
    run_script(con, load_query("estimate/accuracy", "load"))
    estimate(con)
    curves = {(j, n): tp for j, n, tp in con.execute(
        load_query("estimate/accuracy", "curves")).fetchall()}
    con.close()
    fit = {}
    for s in samples:
        fit.setdefault(s["job_id"], []).append((s["nodes"], s["throughput"]))
    rows = []
    for t in truth:
        xs, ys = zip(*fit[t["job_id"]], strict=True)
        k, c = np.polyfit(np.log(xs), np.log(ys), 1)
        rows.append(t | {"amdahl": curves[(t["job_id"], t["gpus"])],
                         "power": float(np.exp(c) * t["gpus"] ** k)})
    return Accuracy(rows)

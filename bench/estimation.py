"""Throughput estimation: accuracy on the measured Pollux profiles and speed at scale.

1. Accuracy: for each of the six models and each measured per-GPU batch, fit from the
   measurements at 1, 2 and 4 GPUs only (through `etplan estimate`'s SQL), each sample with the
   machines it spanned, and predict every other measured GPU count; median / mean absolute
   percentage error per model and overall, beside a power-law fit (log-log least squares) of the
   single-machine points, and a lower bound on the mean error of any never-decreasing curve
   through the job's own single-machine points. Again without the machine counts, alone and with the
   model's other per-GPU batches measured at every count as class history (leave one out).
2. Speed: the curve fit of `estimate` over 100k jobs and 5M samples, given as the estimator's
   narrow inputs (tables est_jobs and est_samples) in a fresh in-memory DuckDB.
Figures go to bench/results/estimation.json.
Run: `make bench` or `.venv/bin/python bench/estimation.py`.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import duckdb

from sources.accuracy import measure
from warehouse.estimate import estimate_rows, fit
from warehouse.sqlfiles import run

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
TRACES = ROOT.parent.parent / "shared" / "data" / "pollux" / "traces"


def speed(jobs: int, samples: int) -> dict:
    con = duckdb.connect()
    run(con, "estimate/bench_inputs", {"jobs": jobs, "samples": samples})
    start = time.perf_counter()
    counts = fit(con)
    seconds = time.perf_counter() - start
    con.close()
    return {"jobs": jobs, "samples": samples, "seconds": round(seconds, 3)} | counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=100_000)
    ap.add_argument("--samples", type=int, default=5_000_000)
    args = ap.parse_args()
    report: dict = {}
    if (TRACES / "cifar10").is_dir():
        for key, machines, history, title in (
                ("accuracy", True, False,
                 "the issue's protocol: the job's own 1, 2 and 4 GPU measurements, with the "
                 "machines each spanned"),
                ("accuracy_without_machines", False, False,
                 "the same without machine counts: only the single-machine 1, 2 and 4 GPU points"),
                ("accuracy_without_machines_with_class_history", False, True,
                 "without machine counts, plus the same model at its other per-GPU batches, "
                 "every GPU count")):
            table = measure(TRACES, estimate_rows, machines=machines,
                            history=history).table()
            report[key] = table
            print(f"\n{title}\n{'model':<12}{'points':>7}{'estimator median':>18}{'mean':>8}"
                  f"{'power median':>14}{'mean':>8}{'floor mean':>12}")
            for r in table:
                print(f"{r['model']:<12}{r['points']:>7}{r['amdahl_median_ape']:>18.1%}"
                      f"{r['amdahl_mean_ape']:>8.1%}{r['power_median_ape']:>14.1%}"
                      f"{r['power_mean_ape']:>8.1%}{r['floor_mean_ape']:>12.1%}")
    else:
        print(f"accuracy skipped: {TRACES} is absent")
    report["speed"] = speed(args.jobs, args.samples)
    s = report["speed"]
    print(f"\nestimate over {s['jobs']:,} jobs / {s['samples']:,} samples: {s['seconds']} s "
          f"({s.get('curve rows', 0):,} curve rows)")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "estimation.json").write_text(json.dumps(report, indent=1) + "\n")
    print(f"written to {RESULTS / 'estimation.json'}")


if __name__ == "__main__":
    main()

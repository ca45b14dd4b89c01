"""`etplan sweep` on a local Dask cluster: the 8 Pollux workloads × {mip, greedy} (64 GPUs, our
windowed engine), on 1 worker process and on 2, then a rerun with nothing changed. Wall times
of the whole command (Prefect server, cluster, replays) go to bench/results/sweep.json.
Run: `.venv/bin/python bench/sweep.py [--workloads 1,2,…] [--policies mip,greedy]
[--time-limit 0.3]` (the default takes about 35 min on 2 cores; the workloads are imported into
a temporary folder first).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
POLLUX = ROOT.parent.parent / "shared" / "data" / "pollux"
RESULTS = ROOT / "results" / "sweep.json"
ETPLAN = str(Path(sys.executable).with_name("etplan"))


def _etplan(*args: str) -> float:
    """Run etplan; its wall seconds (a failure stops the bench with its stderr)."""
    t0 = time.perf_counter()
    r = subprocess.run([ETPLAN, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"etplan {' '.join(args)} failed:\n{r.stderr[-3000:]}")
    return time.perf_counter() - t0


def _import(tmp: Path, ks: list[int]) -> list[str]:
    paths = []
    for k in ks:
        dest = tmp / f"workload-{k}"
        _etplan("import", "pollux", str(POLLUX / "workloads" / f"workload-{k}.csv"),
                "--profiles", str(POLLUX / "traces"), "--out", str(dest))
        paths.append(str(dest))
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default="1,2,3,4,5,6,7,8")
    ap.add_argument("--time-limit", type=float, default=0.3)
    ap.add_argument("--policies", default="mip,greedy")
    args = ap.parse_args()
    if not (POLLUX / "workloads").is_dir():
        sys.exit(f"{POLLUX} is absent: nothing to measure")
    ks = [int(k) for k in args.workloads.split(",")]
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        workloads = _import(tmp, ks)
        sweep = ["sweep", *workloads, "--policies", args.policies, "--capacity", "64",
                 "--time-limit", str(args.time_limit)]
        figures = {"workloads": ks, "policies": args.policies.split(","),
                   "time_limit": args.time_limit}
        for workers in (1, 2):
            out = str(tmp / f"out{workers}")
            figures[f"workers_{workers}_s"] = _etplan(*sweep, "--workers", str(workers),
                                                      "--out", out)
            print(f"{workers} worker(s): {figures[f'workers_{workers}_s']:.0f} s", flush=True)
        figures["rerun_s"] = _etplan(*sweep, "--out", str(tmp / "out2"))
        print(f"rerun, nothing changed: {figures['rerun_s']:.1f} s")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()

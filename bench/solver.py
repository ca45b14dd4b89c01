"""Window MIP speed and quality: 10 … 1000 jobs, 6 slots, capacity so that about a third of the
jobs queue, 5 seeds each. For column generation (`--solver columns`: the full MIP on HiGHS
finishes what it does not prove) and for each backend on the full MIP (Gurobi only where its
restricted licence admits the model): build time, solve time p50 / p95, proven gap, and
objective relative to greedy's plan on the same instance. For `columns` the time is the whole
decision (heuristic plans, model build, columns, any MIP). Figures go to
bench/results/solver.json.
Run: `make bench` or `.venv/bin/python bench/solver.py [--sizes 10,25] [--seeds 5]`.

With `--deadline`: the deadline table (DESIGN §10) instead: the default path (`plan`, solver
auto) on `random_instance(N, 6, seed=5)` (what `etplan generate-instance --jobs N --seed 5`
writes) for each size and `--limits`: wall time of the decision, its build and search seconds,
the stage that ended it, status and proven gap, and whether wall ≤ L + build + 10 %. Figures go
to bench/results/deadline.json. Run: `nice -n 10 .venv/bin/python bench/solver.py --deadline`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

# run as `python bench/solver.py`, this file's folder comes first on sys.path and its name
# would hide the `solver` package
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import numpy as np  # noqa: E402

from solver.backends.gurobi import solve_gurobi  # noqa: E402
from solver.backends.highs import solve_highs  # noqa: E402
from solver.backends.status import LicenceTooSmall, Status  # noqa: E402
from solver.generate import random_instance  # noqa: E402
from solver.model import build  # noqa: E402
from solver.objective import score  # noqa: E402
from solver.policies import Settings, plan  # noqa: E402
from solver.policies.greedy import greedy  # noqa: E402
from solver.policies.optimus import optimus  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def _run_seed(n: int, seed: int, gap: float, time_limit: float, per: dict[str, list]
              ) -> tuple[float, object]:
    """One instance: the columns policy and each backend on the full MIP, appended to `per`;
    returns the build time and the model."""
    inst = random_instance(n, 6, seed=seed)
    t0 = time.perf_counter()
    model = build(inst)
    built = time.perf_counter() - t0
    heuristics = [greedy(inst), optimus(inst)]
    base = score(inst, heuristics[0])
    # as in operation: the better of the greedy and Optimus-style plans warm-starts
    start = max(heuristics, key=lambda nodes: score(inst, nodes))
    warm = model.solution_from_nodes(inst, start)
    t0 = time.perf_counter()
    p = plan(inst, "mip", Settings(solver="columns", time_limit=time_limit, gap=gap, threads=1))
    per["columns"].append({"seconds": time.perf_counter() - t0, "status": p.status,
                           "gap": p.mip_gap, "proven_by_columns": p.solver == "columns",
                           "vs_greedy": p.objective / base})
    for name, fn in (("highs", solve_highs), ("gurobi", solve_gurobi)):
        try:
            r = fn(model, time_limit=time_limit, gap=gap, threads=1, warm_start=warm)
        except LicenceTooSmall:
            continue
        obj = score(inst, model.nodes_from_solution(r.x)) if r.x is not None else None
        per[name].append({"seconds": r.seconds, "status": r.status,
                          "gap": r.gap, "vs_greedy": obj / base if obj else None})
    return built, model


def _row(n: int, name: str, runs: list[dict], model, builds: list[float], gap: float) -> dict:
    """The summary row of one size and method."""
    secs = np.array([r["seconds"] for r in runs])
    return {
        "jobs": n, "backend": name, "runs": len(runs), "vars": model.num_vars,
        "rows": model.num_rows, "target_gap": gap,
        "build_s_p50": round(float(np.median(builds)), 4),
        "solve_s_p50": round(float(np.percentile(secs, 50)), 3),
        "solve_s_p95": round(float(np.percentile(secs, 95)), 3),
        "solve_s_mean": round(float(secs.mean()), 3),
        "gap_max": max((r["gap"] or 0.0) for r in runs),
        "time_limits": sum(r["status"] == Status.TIME_LIMIT for r in runs),
        "proven_by_columns": sum(bool(r.get("proven_by_columns")) for r in runs),
        "obj_vs_greedy_mean": round(float(np.mean([r["vs_greedy"] for r in runs
                                                   if r["vs_greedy"]])), 4),
    }


def _print_table(rows: list[dict]) -> None:
    print(f"\n{'jobs':>5} {'method':<7} {'vars':>6} {'build s':>8} {'p50 s':>7} {'p95 s':>7} "
          f"{'mean s':>7} {'gap':>8} {'TL':>3} {'obj/greedy':>10}")
    for r in rows:
        print(f"{r['jobs']:>5} {r['backend']:<7} {r['vars']:>6} {r['build_s_p50']:>8} "
              f"{r['solve_s_p50']:>7} {r['solve_s_p95']:>7} {r['solve_s_mean']:>7} "
              f"{r['gap_max']:>8.1e} {r['time_limits']:>3} {r['obj_vs_greedy_mean']:>10}")


def _deadline_row(n: int, limit: float) -> dict:
    """One decision of the default path at `limit` seconds on the seed-5 instance of n jobs."""
    inst = random_instance(n, 6, seed=5)
    t0 = time.monotonic()
    p = plan(inst, "mip", Settings(time_limit=limit))
    wall = time.monotonic() - t0
    return {"jobs": n, "limit_s": limit, "wall_s": round(wall, 3),
            "build_s": round(p.build_seconds, 3), "solve_s": round(p.solve_seconds, 3),
            "stopped_by": p.stopped_by, "status": str(p.status), "solver": p.solver,
            "gap": p.mip_gap, "within": wall <= 1.1 * limit + p.build_seconds}


def deadline_table(sizes: list[int], limits: list[float]) -> None:
    rows = []
    print("| jobs | L s | wall s | build s | solve s | stopped by | status | gap | within |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        for limit in limits:
            r = _deadline_row(n, limit)
            rows.append(r)
            gap = "none" if r["gap"] is None or not np.isfinite(r["gap"]) else f"{r['gap']:.2%}"
            print(f"| {n:,} | {limit} | {r['wall_s']} | {r['build_s']} | {r['solve_s']} | "
                  f"{r['stopped_by']} | {r['status']} ({r['solver']}) | {gap} | "
                  f"{'yes' if r['within'] else 'NO'} |", flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "deadline.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(f"written to {RESULTS / 'deadline.json'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,25,50,100,200,500,1000")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--deadline", action="store_true", help="the deadline table instead")
    ap.add_argument("--limits", default="0.05,0.5,2,10")
    args = ap.parse_args()
    if args.deadline:
        sizes = args.sizes if args.sizes != ap.get_default("sizes") else "100,1000,2000,10000"
        deadline_table([int(x) for x in sizes.split(",")],
                       [float(x) for x in args.limits.split(",")])
        return
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        gap = 1e-3 if n <= 200 else 1e-2
        per: dict[str, list] = {"columns": [], "highs": [], "gurobi": []}
        builds = []
        for seed in range(args.seeds):
            built, model = _run_seed(n, seed, gap, args.time_limit, per)
            builds.append(built)
        for name, runs in per.items():
            if runs:
                rows.append(_row(n, name, runs, model, builds, gap))
                print(json.dumps(rows[-1]), flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "solver.json").write_text(json.dumps(rows, indent=1) + "\n")
    _print_table(rows)
    print(f"written to {RESULTS / 'solver.json'}")


if __name__ == "__main__":
    main()

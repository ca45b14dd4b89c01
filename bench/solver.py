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

With `--scale`: the default path (`plan`, solver auto, its default gap, `--time-limit`) at
100 / 1,000 / 10,000 jobs over several seeds (`--scale-sizes`, `--scale-seeds`), one decision
per child process: p50 / p95 wall, proven gap, peak memory; with `--base PATH` (a worktree of
the code before) the same instances decided by it too, interleaved, and each plan's objective
against the first tree's. Figures go to bench/results/scale.json and to a section of
docs/benchmarks.md: `solver-scale` with `--base` (the before/now comparison), `solver-scale-now`
without (the `now` rows alone, as `make bench` runs it), so neither run erases the other. Run:
`nice -n 10 .venv/bin/python bench/solver.py --scale [--base /tmp/solver-base]`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

# first: it takes this file's folder off sys.path, where this file would hide `solver`
from benchlib import BENCH, RESULTS, write_section

from solver.backends.gurobi import solve_gurobi
from solver.backends.highs import solve_highs
from solver.backends.status import LicenceTooSmall, Status
from solver.generate import random_instance
from solver.model import build
from solver.objective import score
from solver.policies import Settings, plan
from solver.policies.greedy import greedy
from solver.policies.optimus import optimus

BENCH_DOC = BENCH.parent / "docs" / "benchmarks.md"


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


# ---- scale: the default path at 100 / 1,000 / 10,000 jobs, p95 wall, proven gap, peak memory

# one decision of the default path in a fresh process (its peak memory is the decision's):
# argv = repo, jobs, seed, time limit, gap ("default": the tree's own default)
_CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from solver.generate import random_instance
from solver.policies import Settings, plan
n, seed, limit, gap = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
plan(random_instance(5, 6, seed=1), "mip", Settings(time_limit=1))   # imports, HiGHS loaded
inst = random_instance(n, 6, seed=seed)
s = Settings(time_limit=limit) if gap == "default" else Settings(time_limit=limit, gap=float(gap))
t0 = time.monotonic()
p = plan(inst, "mip", s)
wall = time.monotonic() - t0
print(json.dumps({"wall_s": wall, "build_s": p.build_seconds, "status": str(p.status),
                  "solver": p.solver, "gap": p.mip_gap, "target_gap": s.gap,
                  "objective": p.objective,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _decide(repo: Path, n: int, seed: int, limit: float, gap: str) -> dict:
    """One decision of `repo`'s default path in a child process (nice 10, one thread)."""
    out = subprocess.run(["nice", "-n", "10", sys.executable, "-c", _CHILD, str(repo), str(n),
                          str(seed), str(limit), gap], capture_output=True, text=True,
                         check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def _scale_row(n: int, tree: str, runs: list[dict], ref: list[dict] | None) -> dict:
    """The summary of one size and tree; `ref`: the same instances' runs of the first tree."""
    wall = np.array([r["wall_s"] for r in runs])
    gaps = [r["gap"] for r in runs]
    row = {"jobs": n, "tree": tree, "runs": len(runs), "target_gap": runs[0]["target_gap"],
           "wall_p50_s": round(float(np.percentile(wall, 50)), 3),
           "wall_p95_s": round(float(np.percentile(wall, 95)), 3),
           "wall_max_s": round(float(wall.max()), 3),
           "build_p50_s": round(float(np.median([r["build_s"] for r in runs])), 3),
           "gap_max": None if None in gaps else max(gaps),
           "proven_within_target": sum(g is not None and g <= r["target_gap"] + 1e-12
                                       for g, r in zip(gaps, runs, strict=True)),
           "peak_mb_max": round(max(r["peak_mb"] for r in runs)),
           "solvers": sorted({r["solver"] for r in runs})}
    if ref is not None:
        ratio = np.array([r["objective"] / b["objective"] for r, b in zip(runs, ref,
                                                                           strict=True)])
        row["objective_vs_first_min"] = round(float(ratio.min()), 6)
        row["objective_vs_first_mean"] = round(float(ratio.mean()), 6)
    return row


def _scale_markdown(rows: list[dict]) -> list[str]:
    lines = ["| jobs | tree (gap) | runs | p50 s | p95 s | max s | build p50 s | max proven gap "
             "| proven ≤ gap | peak MB | objective / first (min, mean) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        gap = "none" if r["gap_max"] is None else f"{r['gap_max']:.4%}"
        obj = (f"{r['objective_vs_first_min']:.6f}, {r['objective_vs_first_mean']:.6f}"
               if "objective_vs_first_min" in r else "—")
        lines.append(f"| {r['jobs']:,} | {r['tree']} ({r['target_gap']:g}) | {r['runs']} | "
                     f"{r['wall_p50_s']} | {r['wall_p95_s']} | {r['wall_max_s']} | "
                     f"{r['build_p50_s']} | {gap} | {r['proven_within_target']}/{r['runs']} | "
                     f"{r['peak_mb_max']} | {obj} |")
    return lines


def scale_table(sizes: list[int], seeds: list[int], limit: float,
                trees: list[tuple[str, Path, str]]) -> None:
    """For each size, `seeds` instances, each decided by every tree in turn (interleaved, so
    a change in the machine's load falls on all alike); the rows, to bench/results/scale.json
    and docs/benchmarks.md: section `solver-scale` when there is a tree to compare with,
    `solver-scale-now` when this tree is alone."""
    rows = []
    for n, k in zip(sizes, seeds, strict=True):
        per: dict[str, list[dict]] = {name: [] for name, _, _ in trees}
        for seed in range(k):
            for name, repo, gap in trees:
                per[name].append(_decide(repo, n, seed, limit, gap))
                print(n, seed, name, json.dumps(per[name][-1]), flush=True)
        first = per[trees[0][0]]
        for name, _, _ in trees:
            rows.append(_scale_row(n, name, per[name], None if name == trees[0][0] else first))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "scale.json").write_text(json.dumps(rows, indent=1) + "\n")
    lines = _scale_markdown(rows)
    print("\n".join(lines))
    write_section("solver-scale" if len(trees) > 1 else "solver-scale-now", lines, BENCH_DOC)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,25,50,100,200,500,1000")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--deadline", action="store_true", help="the deadline table instead")
    ap.add_argument("--limits", default="0.05,0.5,2,10")
    ap.add_argument("--scale", action="store_true", help="the default path's scale table")
    ap.add_argument("--scale-sizes", default="100,1000,10000")
    ap.add_argument("--scale-seeds", default="10,10,5")
    ap.add_argument("--base", type=Path, help="with --scale: a worktree of the code before, "
                    "run on the same instances at this tree's default gap and at its own")
    args = ap.parse_args()
    if args.scale:
        here = BENCH.parent
        trees = [("now", here, "default")]
        if args.base:
            gap = str(Settings().gap)
            trees = [("before", args.base, gap), ("before, own default", args.base, "default"),
                     *trees]
        scale_table([int(x) for x in args.scale_sizes.split(",")],
                    [int(x) for x in args.scale_seeds.split(",")], args.time_limit, trees)
        return
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

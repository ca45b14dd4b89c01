"""Lower bounds on the mean JCT any policy of GPU counts can reach on the 8 normal-load Pollux
workloads in the faithful replay's physics (fixed batch sizes), beside Pollux's published means
(issue 13's JCT target is their average, 2,751 s).

- `alone`: each job alone, from the first decision at or after its submission plus its 30 s
  start, every epoch at its fastest GPU count with the fastest step time the engine can look up
  for that count (`fastest_epoch_seconds`: spread shapes beat packed ones for some models).
- `lp`: the same jobs sharing the 64 GPUs, a time-indexed linear relaxation: in each slot (the
  engine's 60 s decision interval, then 10 minutes from 2 hours after the last submission) a
  job may mix any of its sizes (the upper concave hull of its rates) within the slot's time
  after its earliest start, the slot's GPU-seconds are at most 64 × its length,
  and its completion is at least its mean busy time (each slot's work counted at the slot's
  start) plus half its fastest time alone (Hall, Schulz, Shmoys, Wein 1997). Work that does
  not fit by the horizon counts at the horizon. A job's progress per second at a size is the
  largest over its epochs of (the epoch's share of the job's time alone) ÷ (the epoch's
  seconds at that size), so no schedule does more. Restarts after the first,
  placement on whole machines and the GPUs a finished job holds to the next decision are left
  out: every one of them only adds time. The engine rounds each epoch's end to whole seconds,
  which can take up to 0.5 s an epoch off a job: the bounds hold up to that (at most 50 s).
Both are deterministic (no solver time limit), so this is not part of `make bench`; figures go to
bench/results/bound.json and, when all 8 workloads ran with the LP, the `bound` section of
docs/results.md.
Run: `.venv/bin/python bench/bound.py [--workloads 3,6] [--processes 2] [--no-lp]` (5 minutes
for the 8 on the 2-core machine, 40–100 s an LP; `--no-lp`: seconds); `--render-only`
rewrites the section from the JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from benchlib import POLLUX, REFERENCE, RESULTS, write_section
from scipy.optimize import linprog

from replay.cluster import GPUS_PER_MACHINE, MACHINES, RESTART_SECONDS
from replay.faithful import INTERVAL, PolluxJob
from replay.pollux_physics import fastest_epoch_seconds, load_model
from replay.pollux_runs import load_workload

GPUS = MACHINES * GPUS_PER_MACHINE
# slots: the engine's 60 s until 2 hours after the last submission, then 10 minutes until
# 60,000 s after it (a coarser slot counts its work at its start: still a bound), then the tail
FINE_AFTER_LAST, HORIZON_AFTER_LAST, COARSE = 7_200.0, 60_000.0, 600.0


@dataclass(frozen=True)
class Curve:
    """A job's sizes that matter to the relaxation: (GPUs, share of the job per second) on
    the upper concave hull, and its fastest time alone: each epoch at its fastest size."""
    sizes: tuple[tuple[int, float], ...]
    fastest_s: float


def curve(job: PolluxJob) -> Curve:
    """Shares weighted by each epoch's fastest seconds, so no size does more than 1/fastest_s
    of the job a second and every epoch at its fastest size takes exactly fastest_s."""
    m = load_model(POLLUX / "traces", job.model)
    secs = {n: np.array(s) for n in range(1, GPUS + 1)
            if (s := fastest_epoch_seconds(m, job.batch_size, n)) is not None}
    best = np.min(np.stack(list(secs.values())), axis=0)
    share = best / best.sum()
    rate = {n: float(np.max(share / s)) for n, s in secs.items()}
    return Curve(_upper_hull(rate), float(best.sum()))


def _upper_hull(rate: dict[int, float]) -> tuple[tuple[int, float], ...]:
    """The vertices of the upper concave hull of (0, 0) and (n, rate), where the rate rises."""
    hull: list[tuple[int, float]] = [(0, 0.0)]
    for p in sorted(rate.items()):
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (y2 - y1) * (p[0] - x1) > (p[1] - y1) * (x2 - x1):
                break
            hull.pop()
        hull.append(p)
    rising = [hull[0]]
    for p in hull[1:]:
        if p[1] > rising[-1][1]:
            rising.append(p)
    return tuple(rising[1:])


def first_work(job: PolluxJob) -> float:
    """The earliest second a job can make progress: the first decision at or after its
    submission, plus its start's restart."""
    return INTERVAL * math.ceil(job.submit / INTERVAL - 1e-9) + RESTART_SECONDS


def alone_bound(jobs: list[PolluxJob], curves: list[Curve]) -> float:
    return statistics.mean(first_work(j) + c.fastest_s - j.submit
                           for j, c in zip(jobs, curves, strict=True))


def slot_edges(jobs: list[PolluxJob]) -> np.ndarray:
    last = max(j.submit for j in jobs)
    fine = INTERVAL * math.ceil((last + FINE_AFTER_LAST) / INTERVAL)
    return np.concatenate([np.arange(0.0, fine, INTERVAL),
                           np.arange(fine, last + HORIZON_AFTER_LAST + COARSE, COARSE)])


def lp_bound(jobs: list[PolluxJob], curves: list[Curve]) -> tuple[float, int, float]:
    """(the LP's mean JCT bound, its variables, seconds to solve) for the module's relaxation.
    Columns: the seconds of each slot a job runs at each hull size, and its tail share."""
    edges = slot_edges(jobs)
    rows = Rows()
    cost: list[float] = []
    for j, (job, c) in enumerate(zip(jobs, curves, strict=True)):
        start = first_work(job)
        for s in range(int(np.searchsorted(edges, start, side="right")) - 1, len(edges) - 1):
            at = max(edges[s], start)
            slot = rows.add(edges[s + 1] - at)                     # the seconds it can run
            gpus = rows.named(("gpus", s), GPUS * (edges[s + 1] - edges[s]))
            for n, r in c.sizes:
                rows.share(j, len(cost), r)
                rows.put(slot, len(cost), 1.0)
                rows.put(gpus, len(cost), float(n))
                cost.append(at * r)                         # its work's time, at the slot's start
        rows.share(j, len(cost), 1.0)
        cost.append(edges[-1])                              # what is left, at the horizon
    constant = sum(c.fastest_s / 2 - j.submit for j, c in zip(jobs, curves, strict=True))
    started = time.perf_counter()
    res = linprog(np.array(cost), A_ub=rows.upper(len(cost)), b_ub=rows.rhs,
                  A_eq=rows.equal(len(jobs), len(cost)), b_eq=np.ones(len(jobs)),
                  bounds=(0, None), method="highs")
    if res.status != 0:
        raise RuntimeError(f"the LP bound did not solve: {res.message}")
    return (res.fun + constant) / len(jobs), len(cost), time.perf_counter() - started


class Rows:
    """The LP's rows as sparse triplets: the ≤ rows (`add`, `named`, `put`) and the equality
    rows (`share`: job j's shares done sum to 1)."""

    def __init__(self) -> None:
        self.rhs: list[float] = []
        self.names: dict[tuple, int] = {}
        self.ub: tuple[list[int], list[int], list[float]] = ([], [], [])
        self.eq: tuple[list[int], list[int], list[float]] = ([], [], [])

    def add(self, rhs: float) -> int:
        self.rhs.append(rhs)
        return len(self.rhs) - 1

    def named(self, name: tuple, rhs: float) -> int:
        if name not in self.names:
            self.names[name] = self.add(rhs)
        return self.names[name]

    def put(self, row: int, col: int, value: float) -> None:
        for part, x in zip(self.ub, (row, col, value), strict=True):
            part.append(x)

    def share(self, job: int, col: int, value: float) -> None:
        for part, x in zip(self.eq, (job, col, value), strict=True):
            part.append(x)

    def upper(self, cols: int) -> sp.csr_matrix:
        r, c, v = self.ub
        return sp.csr_matrix((v, (r, c)), shape=(len(self.rhs), cols))

    def equal(self, jobs: int, cols: int) -> sp.csr_matrix:
        r, c, v = self.eq
        return sp.csr_matrix((v, (r, c)), shape=(jobs, cols))


def one(k: int, lp: bool) -> dict:
    jobs = load_workload(POLLUX / "workloads" / f"workload-{k}.csv")
    curves = [curve(j) for j in jobs]
    row = {"workload": k, "jobs": len(jobs), "alone_s": round(alone_bound(jobs, curves), 1),
           "pollux_s": REFERENCE[k][0]}
    if lp:
        bound, variables, seconds = lp_bound(jobs, curves)
        row |= {"lp_s": round(bound, 1), "lp_variables": variables,
                "lp_solve_s": round(seconds, 1)}
    return row


def render(rows: list[dict]) -> list[str]:
    lp = all("lp_s" in r for r in rows)
    head = "| workload | jobs | alone | " + ("LP | " if lp else "") + "Pollux (published) |"
    lines = [*_prose(), "", head, "|" + "---|" * (head.count(" | ") + 1)]
    for r in rows:
        lines.append(f"| {r['workload']} | {r['jobs']} | {r['alone_s']:,.0f} s | "
                     + (f"{r['lp_s']:,.0f} s | " if lp else "") + f"{r['pollux_s']:,} s |")
    mean = {key: statistics.mean(r[key] for r in rows) for key in ("alone_s", "pollux_s")}
    lp_mean = f"**{statistics.mean(r['lp_s'] for r in rows):,.0f} s** | " if lp else ""
    lines.append(f"| mean | | {mean['alone_s']:,.0f} s | {lp_mean}{mean['pollux_s']:,.0f} s |")
    return lines


def _prose() -> list[str]:
    return [
        "## Lower bounds on the mean JCT at fixed batch sizes",
        "",
        "Generated by `.venv/bin/python bench/bound.py` (deterministic, so not part of `make "
        "bench`). What no policy of GPU counts can beat in the faithful replay's physics, "
        "mean JCT in seconds: `alone`, each job by itself from the first decision at or after "
        "its submission plus its 30 s start, every epoch at its fastest GPU count and "
        "placement; `LP`, the same jobs sharing the 64 GPUs, a time-indexed linear relaxation "
        "(the engine's 60 s slots, 10-minute ones from 2 hours after the last submission; a "
        "job may mix sizes within a slot; completion at least the mean time of "
        "its work plus half its time alone; restarts after the first, whole-machine placement "
        "and idle GPUs left out, all of which only add time). Exact up to the engine rounding "
        "each epoch's end to whole seconds, which can take up to half a second an epoch off a "
        "job (at most 50 s, cifar10's 100 epochs). Pollux reaches its published "
        "means by also raising batch sizes, which this physics does not allow a planner of "
        "GPU counts. Both bounds lie below the 2,751 s target, so they do not show it "
        "unreachable."]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default="1,2,3,4,5,6,7,8")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--no-lp", action="store_true", help="the alone bound only (seconds)")
    ap.add_argument("--render-only", action="store_true",
                    help="rewrite the section from bench/results/bound.json")
    args = ap.parse_args()
    if args.render_only:
        write_section("bound", render(json.loads((RESULTS / "bound.json").read_text())))
        return
    ks = [int(k) for k in args.workloads.split(",")]
    rows = []
    with ProcessPoolExecutor(args.processes) as pool:
        for done in as_completed([pool.submit(one, k, not args.no_lp) for k in ks]):
            rows.append(done.result())
            print(json.dumps(rows[-1]), flush=True)
    rows.sort(key=lambda r: r["workload"])
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "bound.json").write_text(json.dumps(rows, indent=1) + "\n")
    lines = render(rows)
    print("\n".join(lines))
    if len(rows) == 8 and not args.no_lp:   # a partial run leaves the section as it is
        write_section("bound", lines)


if __name__ == "__main__":
    main()

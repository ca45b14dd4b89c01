"""The seed paper's own experiment (issue 13 item 4): jobs give an elastic range around their
requested size and the MIP is compared with greedy allocators on mean queueing and training
efficiency (`gpu_efficiency`, DESIGN §7), in the faithful replay.

Each of the 8 normal-load Pollux workloads is imported with `--elastic-range 0.5,2` (each job's
range [⌈0.5·req⌉, min(⌊2·req⌋, largest measured size)]) and replayed under `mip`,
`mip-preemptive` (the same planner allowed to stop running jobs: Settings.preemption, `etplan
backtest --preemption`), `greedy` (the paper's benchmark), `greedy-elastic` (DESIGN §6) and
`tiresias` (the strongest outside baseline, at requested sizes). Results are kept per
(workload, policy) in bench/results/elastic.json as they finish; the section of
docs/results.md between its markers is rewritten from that file.
Run: `.venv/bin/python bench/elastic.py [--workloads 1,6] [--processes 2]
[--time-limit 0.3]`; `--render-only` rewrites the section from the JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import benchlib

import replay.planner  # noqa: F401 - loaded before the workers fork: one code version
from flows import defaults
from replay.cluster import RESTART_SECONDS
from replay.kpis import run_kpis
from replay.pollux_physics import epoch_seconds, fastest_epoch_seconds, load_model
from replay.pollux_runs import replay_imported
from sources.importers import import_pollux, parse_elastic_range
from sources.pollux import read_pollux_jobs

POLLUX = benchlib.POLLUX
RESULTS = benchlib.RESULTS / "elastic.json"
POLICIES = ("mip", "mip-preemptive", "greedy", "greedy-elastic", "tiresias")
OURS = tuple(benchlib.OURS)   # the MIP without and with preemption (--preemption)
BOUND = "bound"    # the rows of efficiency_bound, beside the policies' in the JSON
RANGE = "0.5,2"
KEYS = ("mean_queue_s", "gpu_efficiency", "mean_jct_s", "rescales_per_job", "unschedulable")
# the paper's figures: up to 32 % less queueing, up to 24 % better training efficiency
TARGET_QUEUE, TARGET_EFFICIENCY = -0.32, 0.24


def _imported(k: int, tmp: str) -> Path:
    """truth.json of workload k imported with the elastic range into `tmp`."""
    return import_pollux(POLLUX / "workloads" / f"workload-{k}.csv", POLLUX / "traces",
                         Path(tmp), elastic=parse_elastic_range(RANGE))["truth"]


def efficiency_bound(k: int) -> dict:
    """The most `gpu_efficiency` any policy can reach on workload k with the ranges: each job
    runs every epoch at the size of its range that spends the fewest GPU-seconds on it, at the
    fastest step time the engine can look up for that size (spread shapes beat packed ones for
    some models), and pays only its first start (30 s on at least its smallest size), which
    the engine always charges; useful work is counted at the one-GPU rate, as in DESIGN §7."""
    with tempfile.TemporaryDirectory() as tmp:
        rows, profiles = read_pollux_jobs(_imported(k, tmp))
    work = spent = 0.0
    for r in rows:
        m = load_model(profiles, r["model"])
        one = epoch_seconds(m, r["batch_size"], 1)
        sizes = [(n, fastest_epoch_seconds(m, r["batch_size"], n))
                 for n in range(r["min_gpus"], (r["max_gpus"] or r["min_gpus"]) + 1)]
        sizes = [(n, secs) for n, secs in sizes if secs]
        if one and sizes:
            work += sum(one)
            spent += sum(min(n * secs[e] for n, secs in sizes) for e in range(len(one)))
            spent += RESTART_SECONDS * sizes[0][0]
    return {"workload": k, "policy": BOUND, "gpu_efficiency": work / spent}


def one(k: int, policy: str, time_limit: float) -> dict:
    """Workload k imported with the elastic range, replayed faithfully under `policy`."""
    name, options = benchlib.replay_policy(policy, time_limit)
    with tempfile.TemporaryDirectory() as tmp:
        truth = _imported(k, tmp)
        start = time.perf_counter()
        result = replay_imported(truth, name, **options)
        wall = time.perf_counter() - start
    kpis = run_kpis(result)
    return {"workload": k, "policy": policy, "wall_s": wall, "time_limit": time_limit,
            **{key: kpis[key] for key in KEYS}}


def run(ks: list[int], policies: list[str], processes: int, time_limit: float) -> list[dict]:
    """Every (workload, policy) and each workload's efficiency bound, workload by workload;
    each result saved as it finishes."""
    runs = json.loads(RESULTS.read_text()) if RESULTS.exists() else []
    todo = [(k, p) for k in ks for p in (*policies, BOUND)]
    with ProcessPoolExecutor(processes) as pool:
        futures = [pool.submit(efficiency_bound, k) if p == BOUND else
                   pool.submit(one, k, p, time_limit) for k, p in todo]
        for fut in as_completed(futures):
            r = fut.result()
            runs = [x for x in runs if (x["workload"], x["policy"]) != (r["workload"],
                                                                         r["policy"])] + [r]
            RESULTS.parent.mkdir(exist_ok=True)
            RESULTS.write_text(json.dumps(sorted(runs, key=lambda x: (x["workload"],
                                                                      x["policy"])),
                                          indent=1) + "\n")
            print(f"workload {r['workload']} {r['policy']}: queue {r.get('mean_queue_s', 0):,.0f}"
                  f" s, gpu_efficiency {r['gpu_efficiency']:.3f}", flush=True)
    return runs


def change(new: float, old: float) -> float:
    return new / old - 1 if old else float("nan")


def _table(by: dict, ks: list[int]) -> list[str]:
    lines = ["| workload | policy | mean queue (s) | GPU efficiency | mean JCT (s) | "
             "rescales / job | wall s |", "|---|---|---|---|---|---|---|"]
    for k in ks:
        for p in POLICIES:
            if r := by.get((k, p)):
                lines.append(f"| {k} | {p} | {r['mean_queue_s']:,.0f} | "
                             f"{r['gpu_efficiency']:.3f} | {r['mean_jct_s']:,.0f} | "
                             f"{r['rescales_per_job']:.2f} | {r['wall_s']:.0f} |")
    return lines


def _averages(by: dict, ks: list[int]) -> list[str]:
    """Each policy's KPIs averaged over the workloads `ks` (those every policy finished)."""
    lines = ["| policy | mean queue (s) | GPU efficiency | mean JCT (s) | rescales / job |",
             "|---|---|---|---|---|"]
    for p in POLICIES if ks else ():
        avg = {key: statistics.mean(by[(k, p)][key] for k in ks) for key in KEYS[:4]}
        lines.append(f"| {p} | {avg['mean_queue_s']:,.0f} | {avg['gpu_efficiency']:.3f} | "
                     f"{avg['mean_jct_s']:,.0f} | {avg['rescales_per_job']:.2f} |")
    return lines


def _changes(by: dict, ks: list[int], ours: str = "mip"
             ) -> tuple[list[str], dict[str, tuple[float, float]], list[float]]:
    """Per workload `ours`' relative change against each greedy; the mean of each column."""
    lines = ["| workload | queueing vs greedy | efficiency vs greedy | queueing vs "
             "greedy-elastic | efficiency vs greedy-elastic | efficiency bound | the most any "
             "policy gains vs greedy-elastic |", "|---|---|---|---|---|---|---|"]
    cols: dict[str, list[tuple[float, float]]] = {"greedy": [], "greedy-elastic": []}
    for k in ks:
        mip = by.get((k, ours))
        if not mip or any((k, b) not in by for b in ("greedy", "greedy-elastic")):
            continue
        cells = []
        for base in ("greedy", "greedy-elastic"):
            b = by[(k, base)]
            pair = (change(mip["mean_queue_s"], b["mean_queue_s"]),
                    change(mip["gpu_efficiency"], b["gpu_efficiency"]))
            cols[base].append(pair)
            cells += [f"{pair[0]:+.1%}", f"{pair[1]:+.1%}"]
        bound = by.get((k, BOUND), {}).get("gpu_efficiency")
        most = change(bound, by[(k, "greedy-elastic")]["gpu_efficiency"]) if bound else None
        if bound:
            cols.setdefault(BOUND, []).append((0.0, most))
        cells += [f"{bound:.3f}", f"{most:+.1%}"] if bound else ["–", "–"]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    means = {b: (statistics.mean(q for q, _ in v), statistics.mean(e for _, e in v))
             for b, v in cols.items() if v}
    if "greedy-elastic" in means:
        lines.append("| **mean** | " + " | ".join(
            f"**{means[b][0]:+.1%}** | **{means[b][1]:+.1%}**" for b in ("greedy",
                                                                       "greedy-elastic"))
                     + (f" | | **{means[BOUND][1]:+.1%}** |" if BOUND in means else " | | |"))
    return lines, means, [m for _, m in cols.get(BOUND, [])]


def render(runs: list[dict]) -> list[str]:
    by = {(r["workload"], r["policy"]): r for r in runs}
    ks = sorted({r["workload"] for r in runs})
    limit = max((r["time_limit"] for r in runs if r["policy"] == "mip"), default=0.3)
    done = sorted({k for k in ks if all((k, p) in by for p in POLICIES)})
    lines = [
        "# The seed's own experiment: elastic ranges, MIP vs greedy and greedy-elastic",
        "", "Generated by `.venv/bin/python bench/elastic.py --processes 2 "
        f"--time-limit {limit}`. Each normal-load workload is imported with `etplan import "
        f"pollux --elastic-range {RANGE}` (each job may run on [⌈0.5·req⌉, min(⌊2·req⌋, "
        "largest measured size)] GPUs) and replayed in the faithful replay (64 GPUs, a "
        f"decision every 60 s, MIP time limit {limit} s a decision, gap "
        f"{defaults.REPLAY_GAP:.1%}). `greedy` is the "
        "paper's benchmark (never scales down); `greedy-elastic` the greedy an elastic "
        "platform runs (DESIGN §6); `tiresias` runs at requested sizes and preempts; "
        "`mip-preemptive` is our planner allowed to stop running jobs (`etplan backtest "
        "--preemption`), `mip` keeps a started job running. GPU efficiency is "
        "DESIGN §7's `gpu_efficiency` (the paper's training efficiency). Wall s: one "
        "replay's wall time, two at a time on the 2-core machine.",
        f"Workloads with every policy finished: {', '.join(map(str, done)) or 'none'}.", "",
        *_table(by, ks), "", *_averages(by, done), ""]
    for ours in OURS:
        changes, means, rooms = _changes(by, ks, ours)
        lines += [f"`{ours}`'s relative change (negative queueing and positive efficiency are "
                  "better):", "", *changes, "", *_verdict(means, rooms, ours)]
    return lines


def _verdict(means: dict[str, tuple[float, float]], rooms: list[float], ours: str
             ) -> list[str]:
    """The target's verdict for `ours`; `rooms`: per workload, the most any policy gains in
    efficiency against greedy-elastic."""
    if "greedy-elastic" not in means:
        return ["Not enough finished runs for the comparison.", ""]
    q, e = means["greedy-elastic"]
    lines = [f"Issue 13 target for `{ours}` (against `greedy-elastic`, averaged over the "
             "workloads above): "
             f"queueing **{q:+.1%}** (target ≤ {TARGET_QUEUE:+.0%}: "
             f"**{'met' if q <= TARGET_QUEUE else 'not met'}**), efficiency **{e:+.1%}** "
             f"(target ≥ {TARGET_EFFICIENCY:+.0%}: "
             f"**{'met' if e >= TARGET_EFFICIENCY else 'not met'}**).", ""]
    if BOUND in means and ours == OURS[0]:
        lines += ["The efficiency bound is the most `gpu_efficiency` any policy can reach "
                  "with these ranges: every job, every epoch, at the size of its range that "
                  "spends the fewest GPU-seconds on it, at the fastest step time the engine "
                  "can look up for that size (spread shapes beat packed ones for some models), "
                  "paying only its first 30 s start (`efficiency_bound` in bench/elastic.py). "
                  "`greedy-elastic` already runs jobs near their minimum when the cluster is "
                  f"busy, so the room above it is **{means[BOUND][1]:+.1%}** on average, below "
                  f"{TARGET_EFFICIENCY:+.0%} on {sum(m < TARGET_EFFICIENCY for m in rooms)} of "
                  f"{len(rooms)} workloads: meeting the efficiency target on average would take "
                  "nearly every job at its most GPU-efficient size and placement all the time "
                  "with no restart, at the cost of queueing and JCT. The paper's +24 % was "
                  "against a greedy that does not scale down; against `greedy` the MIP gains "
                  f"{means['greedy'][1]:+.1%}.", ""]
    return lines


def write_doc(runs: list[dict]) -> None:
    benchlib.write_section("elastic", render(runs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default="1,2,3,4,5,6,7,8")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--time-limit", type=float, default=0.3)
    ap.add_argument("--render-only", action="store_true",
                    help="rewrite the docs/results.md section from bench/results/elastic.json")
    args = ap.parse_args()
    if args.render_only:
        write_doc(json.loads(RESULTS.read_text()))
        return
    if not (POLLUX / "workloads").is_dir():
        print(f"skipped: {POLLUX} is absent")
        return
    runs = run([int(k) for k in args.workloads.split(",")],
               [p for p in args.policies.split(",") if p],
               args.processes, args.time_limit)
    write_doc(runs)
    print("\n".join(render(runs)))


if __name__ == "__main__":
    main()

"""The churn table: the MIP in the faithful replay (`replay/faithful.py`) on the 8 normal-load
Pollux workloads under a few churn settings (DESIGN §4.1: rescale penalty κ, `max_rescales`,
`cooldown_seconds`) and the objective trials of issue 13 (the planner's default aging of the
time queued; `starved` aging; packing sizes), rescales per job and mean JCT. Writes
bench/results/churn.json (after each run, so a partial run keeps what finished) and its section
of docs/results.md.
Run: `.venv/bin/python bench/churn.py --processes 2 --time-limit 0.2
[--settings kappa1,cooldown600] [--workloads 3,1]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace

import benchlib

from replay.kpis import run_kpis
from replay.planner import PlannerPolicy
from replay.pollux_runs import run_workload
from solver.churn_rules import ChurnRules
from solver.instance import default_critical_seconds, default_rescale_penalty

# the defaults before session 10 (κ = 1, θ off), the reference every ratio is taken against
OLD = ChurnRules(rescale_penalty=1.0)


@dataclass(frozen=True)
class Trial:
    """A churn setting and the planner's aging rule (`replay.planner.PlannerPolicy.aging`);
    κ and θ None: the instance's defaults for the planner's slots (`SLOT`)."""
    churn: ChurnRules = OLD
    aging: str = "queued"
    pack: bool = False      # only sizes that pack onto 4-GPU machines
    critical: float | None = 0.0   # θ of the critical-path factor (0: off)

    def label(self) -> str:
        if self == DEFAULTS:
            return (f"the defaults: κ={default_rescale_penalty(SLOT):g}, "
                    f"θ = {default_critical_seconds(SLOT):.0f} s")
        return (self.churn.label() + (", starved aging" if self.aging == "starved" else "")
                + (", packing sizes" if self.pack else "")
                + (f", θ = {self.critical:.0f} s" if self.critical else ""))

    def options(self) -> dict:
        return {"churn": self.churn, "aging": self.aging, "pack": self.pack,
                "critical_seconds": self.critical}


POLLUX = benchlib.POLLUX
RESULTS = benchlib.RESULTS / "churn.json"
SLOT = PlannerPolicy.slot_seconds
DEFAULTS = Trial(ChurnRules(), critical=None)   # κ and θ of the instance for the planner's slots
SETTINGS = {
    "kappa1": Trial(),
    "starved": Trial(aging="starved"),
    "starved-budget2": Trial(replace(OLD, max_rescales=2), aging="starved"),
    "starved-pack-budget2": Trial(replace(OLD, max_rescales=2), aging="starved", pack=True),
    "budget2": Trial(replace(OLD, max_rescales=2)),
    "pack": Trial(pack=True),
    "cooldown600": Trial(replace(OLD, cooldown_seconds=600.0)),
    "kappa0": Trial(ChurnRules(rescale_penalty=0.0)),
    "critical1200": Trial(critical=1200.0),
    "critical1200-starved": Trial(aging="starved", critical=1200.0),
    "critical3600": Trial(critical=3600.0),
    "critical1200-kappa2": Trial(ChurnRules(rescale_penalty=2.0), critical=1200.0),
    "critical1200-cooldown300": Trial(replace(OLD, cooldown_seconds=300.0), critical=1200.0),
    "defaults": DEFAULTS,
    "kappa3": Trial(ChurnRules(rescale_penalty=3.0)),
    "critical1200-kappa4": Trial(ChurnRules(rescale_penalty=4.0), critical=1200.0),
}


def one(k: int, setting: str, time_limit: float, command: str) -> dict:
    start = time.perf_counter()
    r = run_workload(POLLUX / "workloads" / f"workload-{k}.csv", POLLUX / "traces", "mip",
                     settings=benchlib.planner_settings(time_limit), **SETTINGS[setting].options())
    kpis = run_kpis(r)
    return {"workload": k, "setting": setting, "label": SETTINGS[setting].label(),
            "load_1min": os.getloadavg()[0],
            "command": command, "time_limit": time_limit,
            "mean_jct_s": r.mean_jct, "wall_s": time.perf_counter() - start,
            **{key: kpis[key] for key in ("mean_queue_s", "p95_jct_s", "rescales_per_job")}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--settings", default=",".join(SETTINGS),
                    help=f"comma list of {', '.join(SETTINGS)} (run in this order)")
    ap.add_argument("--workloads", default="1,2,3,4,5,6,7,8")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--time-limit", type=float, default=0.2)
    ap.add_argument("--render-only", action="store_true")
    args = ap.parse_args()
    runs = json.loads(RESULTS.read_text()) if RESULTS.exists() else []
    if not args.render_only:
        if not (POLLUX / "workloads").is_dir():
            print(f"skipped: {POLLUX} is absent")
            return
        # workload by workload, every setting of one before the next (a partial run then
        # compares the settings on the same workloads)
        todo = [(int(k), s) for k in args.workloads.split(",") for s in args.settings.split(",")]
        with ProcessPoolExecutor(args.processes) as pool:
            command = ".venv/bin/python bench/churn.py " + " ".join(sys.argv[1:])
            futures = [pool.submit(one, k, s, args.time_limit, command) for k, s in todo]
            for fut in as_completed(futures):
                r = fut.result()
                runs = [x for x in runs if (x["workload"], x["setting"])
                        != (r["workload"], r["setting"])] + [r]
                RESULTS.parent.mkdir(exist_ok=True)
                RESULTS.write_text(json.dumps(runs, indent=1) + "\n")
                write_doc(runs)
                print(f"workload {r['workload']} {r['label']}: JCT {r['mean_jct_s']:,.0f} s, "
                      f"{r['rescales_per_job']:.2f} rescales/job, {r['wall_s']:.0f} s",
                      flush=True)
    write_doc(runs)


def write_doc(runs: list[dict]) -> None:
    benchlib.write_section("churn", render(runs))


def render(runs: list[dict]) -> list[str]:
    runs = [r for r in runs if r["setting"] in SETTINGS]   # settings since dropped: not shown
    by = {(r["workload"], r["setting"]): r for r in runs}
    names = [s for s in SETTINGS if any(r["setting"] == s for r in runs)]
    ks = sorted({r["workload"] for r in runs})
    commands = sorted({r.get("command", "") for r in runs} - {""})
    lines = ["# Churn budgets in the faithful replay", "",
             "Generated by " + "; then ".join(f"`{c}`" for c in commands) + ".",
             "The MIP in the faithful replay (a decision every 60 s over "
             f"{PlannerPolicy.num_slots} slots of {SLOT:.0f} s, time limit per decision as given)",
             "on Pollux normal-load workloads under the churn rules of DESIGN §4.1 (κ: rescale "
             "penalty in node-slots;",
             "`max_rescales`: running jobs that may change size per decision; cooldown: seconds "
             "a job keeps its size",
             "after a change). Rescales per job count every restart after the first start, as "
             "the other faithful tables.",
             f"Workloads run so far: {', '.join(map(str, ks))} of the 8"
             + (" (partial: the rest did not fit the session's time)." if len(ks) < 8 else "."),
             "Averages over the workloads each setting ran; the last two columns average the "
             "per-workload ratios to",
             "κ=1 (the defaults before session 10: κ=1, queue aging, θ off) on the workloads "
             "both ran. "
             "Compare these rows with "
             "each other, not with the",
             "faithful table above: that one plans with a 0.3 s limit a decision, these with "
             "the limit given.", "",
             "| setting | workloads | mean JCT (s) | rescales / job | mean queue (s) | "
             "p95 JCT (s) | JCT / κ=1 | rescales / κ=1 |", "|---|---|---|---|---|---|---|---|"]
    for s in names:
        rs = [by[(k, s)] for k in ks if (k, s) in by]
        lines.append(f"| {SETTINGS[s].label()} | {len(rs)} | "
                     + " | ".join(f"{statistics.mean(r[key] for r in rs):,.{d}f}"
                                  for key, d in (("mean_jct_s", 0), ("rescales_per_job", 2),
                                                 ("mean_queue_s", 0), ("p95_jct_s", 0)))
                     + f" | {_vs_default(by, ks, s, 'mean_jct_s')} | "
                     f"{_vs_default(by, ks, s, 'rescales_per_job')} |")
    lines += ["", *_targets(by, ks, names)]
    lines += ["", "Per workload: mean JCT (s) / rescales per job (wall s of the run, the machine's "
              "1-minute load average at its end).",
              "The time limit is wall-clock: on the shared 2-core machine a run under a high "
              "load stops more solves at",
              "the limit with a worse plan, so compare settings run at similar loads.", "",
              "| workload | " + " | ".join(SETTINGS[s].label() for s in names) + " |",
              "|---|" + "---|" * len(names)]
    for k in ks:
        cells = [_cell(by[(k, s)]) if (k, s) in by else "–" for s in names]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _targets(by: dict, ks: list[int], names: list[str]) -> list[str]:
    """Issue 13's targets for each setting run on all 8 workloads."""
    faithful = benchlib.RESULTS / "faithful.json"
    tir = [r["mean_jct_s"] for r in json.loads(faithful.read_text())
           if r["policy"] == "tiresias"] if faithful.exists() else []
    tiresias = statistics.mean(tir) if len(tir) == 8 else None
    out = ["Issue 13 targets, settings run on all 8 workloads: mean JCT ≤ 2,751 s (Pollux's "
           "published average) and ≤ 0.8 × Tiresias"
           + (f" ({0.8 * tiresias:,.0f} s)" if tiresias else "")
           + ", ≤ 1.0 rescales per job at ≤ 2 % JCT cost (against κ=1):", ""]
    for s in names:
        rs = [by[(k, s)] for k in ks if (k, s) in by]
        if len(rs) < 8:
            continue
        jct = statistics.mean(r["mean_jct_s"] for r in rs)
        per_job = statistics.mean(r["rescales_per_job"] for r in rs)
        ratio = f"{jct / tiresias:.2f} × Tiresias, " if tiresias else ""
        out.append(f"- {SETTINGS[s].label()}: {jct:,.0f} s ({ratio}"
                   f"{'meets' if jct <= 2751 else 'misses'} 2,751 s), {per_job:.2f} rescales "
                   f"per job ({'meets' if per_job <= 1.0 else 'misses'} 1.0), JCT "
                   f"{_vs_default(by, ks, s, 'mean_jct_s')} × κ=1's.")
    return out if len(out) > 2 else [*out, "- none: no setting has run on all 8 workloads yet."]


def _vs_default(by: dict, ks: list[int], setting: str, key: str) -> str:
    """The mean over workloads of this setting's `key` ÷ κ=1's (θ off) on the same one."""
    both = [k for k in ks if (k, setting) in by and (k, "kappa1") in by]
    if not both:
        return "–"
    return f"{statistics.mean(by[(k, setting)][key] / by[(k, 'kappa1')][key] for k in both):.2f}"


def _cell(r: dict) -> str:
    load = f", load {r['load_1min']:.0f}" if "load_1min" in r else ""
    return (f"{r['mean_jct_s']:,.0f} / {r['rescales_per_job']:.2f} ({r['wall_s']:.0f} s"
            f"{load})")


if __name__ == "__main__":
    main()

"""The KPIs the report shows (DESIGN §7): how each reads (unit), which way is better, its
definition, and the comparison of our policies against the strongest baseline present."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from report import units


@dataclass(frozen=True)
class Kpi:
    label: str
    fmt: Callable[[float | None], str]
    better: str | None        # "lower", "higher" or None (not a quality)
    definition: str


KPIS: dict[str, Kpi] = {
    "jobs": Kpi("jobs", units.count, None, "Jobs in the trace."),
    "completed": Kpi("completed jobs", units.count, "higher",
                     "Jobs that finished before the replay ended."),
    "unschedulable": Kpi("unschedulable jobs", units.count, "lower",
                         "Jobs whose smallest allowed size never fit the capacity; they never "
                         "start."),
    "mean_queue_s": Kpi("mean queueing delay", units.duration, "lower",
                        "Queueing delay = first start − submit, mean over the jobs that "
                        "started."),
    "p95_queue_s": Kpi("p95 queueing delay", units.duration, "lower",
                       "95th percentile of the queueing delay."),
    "mean_jct_s": Kpi("mean JCT", units.duration, "lower",
                      "Job completion time = finish − submit, mean over completed jobs."),
    "p95_jct_s": Kpi("p95 JCT", units.duration, "lower",
                     "95th percentile of the job completion time."),
    "mean_run_s": Kpi("mean run time", units.duration, "lower",
                      "Run time = finish − first start (time spent waiting between runs "
                      "included), mean over completed jobs."),
    "makespan_s": Kpi("makespan", units.duration, "lower",
                      "Last completion − first submission."),
    "utilization": Kpi("utilisation", units.percent, "higher",
                       "Allocated node-seconds ÷ capacity node-seconds, from the first "
                       "submission to the last completion."),
    "gpu_efficiency": Kpi("GPU efficiency", units.sig, "higher",
                          "Useful work done ÷ the work the allocated node-seconds would do at "
                          "each job's one-node rate (Σ W_j ÷ Σ ∫ f_j(1)·n_j(t) dt): 1 = "
                          "perfect linear scaling, lower = nodes spent where they scale "
                          "poorly (the paper's training efficiency)."),
    "speedup_vs_static": Kpi("speed-up vs static", units.ratio, "higher",
                             "Mean over completed jobs of (run time at the requested size with "
                             "no contention ÷ actual run time); above 1× a job ran faster "
                             "than on its requested nodes alone."),
    "rescales": Kpi("rescales", units.count, "lower",
                    "Size changes of running jobs, summed over jobs (a start is not a "
                    "rescale); each is a checkpoint-restart."),
    "rescales_per_job": Kpi("rescales per job", units.sig, "lower",
                            "Rescales ÷ jobs."),
    "decision_p50_s": Kpi("decision time p50", units.duration, "lower",
                          "Median wall-clock time to plan one window (solver included)."),
    "decision_p95_s": Kpi("decision time p95", units.duration, "lower",
                          "95th percentile of the time to plan one window."),
}

# ours: the policies the comparison is about; every other policy is a baseline
OURS = ("mip",)
# a ratio this close to 1 is neither better nor worse
TOLERANCE = 0.01


def kpi(key: str) -> Kpi:
    """The KPI named `key`; an unknown one reads by its name's suffix (_s: a duration)."""
    if key in KPIS:
        return KPIS[key]
    fmt = units.duration if key.endswith("_s") else units.sig
    return Kpi(key.replace("_", " "), fmt, None, "")


def _number(v) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return float(v) if math.isfinite(v) else None


def strongest_baseline(key: str, policies: dict[str, dict]) -> tuple[str, float] | None:
    """(policy, value) of the best baseline on `key`, None when it has no direction or no
    baseline has a value."""
    better = kpi(key).better
    vals = [(p, _number(s.get(key))) for p, s in policies.items() if p not in OURS]
    vals = [(p, v) for p, v in vals if v is not None]
    if better is None or not vals:
        return None
    pick = min if better == "lower" else max
    return pick(vals, key=lambda pv: pv[1])


def verdict(key: str, ours: float | None, base: float) -> tuple[str, float | None]:
    """("better" | "worse" | "same", ours ÷ base or None when base is 0)."""
    if ours is None:
        return "same", None
    r = ours / base if base else None
    close = abs(r - 1) <= TOLERANCE if r is not None else ours == base
    if close:
        return "same", r
    lower_wins = kpi(key).better == "lower"
    return ("better" if (ours < base) == lower_wins else "worse"), r

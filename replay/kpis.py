"""KPIs of DESIGN §7, per job and per run, and the ratios between policies replayed on the
same trace."""

from __future__ import annotations

import numpy as np

from replay.engine import ReplayResult

# the run KPIs a backtest summary keeps, and those compared as ratios against RATIO_BASE
SUMMARY_KEYS = ("jobs", "completed", "unschedulable", "mean_queue_s", "p95_queue_s",
                "mean_jct_s", "p95_jct_s", "mean_run_s", "makespan_s", "utilization",
                "gpu_efficiency", "speedup_vs_static", "rescales", "rescales_per_job",
                "decision_p50_s", "decision_p95_s")
RATIO_KEYS = ("mean_queue_s", "p95_queue_s", "mean_jct_s", "p95_jct_s", "mean_run_s",
              "makespan_s", "utilization", "gpu_efficiency", "speedup_vs_static")
RATIO_BASE = "greedy"


def one_gpu_rate(job) -> float:
    """The job's work per second on one node: measured, or (a range starting above one node)
    its smallest size's rate shared linearly."""
    if 1 in job.true_throughput:
        return job.true_throughput[1]
    n = min(job.true_throughput)
    return job.true_throughput[n] / n


def job_kpis(result: ReplayResult) -> list[dict]:
    """Per job; `speedup_vs_static`: its run time at its requested size ÷ its run time here;
    `one_gpu_seconds`: the work it did, in seconds at its one-node rate (`gpu_efficiency` is
    that ÷ `node_seconds`)."""
    rows = []
    stuck = set(result.unschedulable)
    for s in result.states:
        j = s.job
        static_run = j.total_work / j.true_throughput[j.requested_nodes]
        done_work = (j.total_work - s.remaining) / one_gpu_rate(j)
        row = {"policy": result.policy, "job_id": j.job_id, "model": j.model,
               "submit_s": j.submit, "first_start_s": s.first_start, "finish_s": s.finish,
               "queue_s": None, "run_s": None, "jct_s": None, "rescales": s.rescales,
               "node_seconds": s.node_seconds, "one_gpu_seconds": done_work,
               "gpu_efficiency": done_work / s.node_seconds if s.node_seconds else None,
               "static_run_s": static_run, "speedup_vs_static": None,
               "completed": s.finish is not None, "unschedulable": j.job_id in stuck}
        if s.first_start is not None:
            row["queue_s"] = s.first_start - j.submit
        if s.finish is not None:
            row["run_s"] = s.finish - s.first_start
            row["jct_s"] = s.finish - j.submit
            row["speedup_vs_static"] = static_run / row["run_s"] if row["run_s"] > 0 else None
        rows.append(row)
    return rows


def _stat(values: list[float], q: float | None = None) -> float | None:
    if not values:
        return None
    return float(np.mean(values)) if q is None else float(np.percentile(values, q))


def run_kpis(result: ReplayResult) -> dict:
    jobs = job_kpis(result)
    done = [r for r in jobs if r["completed"]]
    queue = [r["queue_s"] for r in jobs if r["queue_s"] is not None]
    jct = [r["jct_s"] for r in done]
    run = [r["run_s"] for r in done]
    eff = [r["speedup_vs_static"] for r in done if r["speedup_vs_static"] is not None]
    first_submit = min((r["submit_s"] for r in jobs), default=0.0)
    last_finish = max((r["finish_s"] for r in done), default=first_submit)
    decisions = [w.decision_seconds for w in result.windows]
    gaps = [w.mip_gap for w in result.windows if w.mip_gap is not None]
    solvers: dict[str, int] = {}
    statuses: dict[str, int] = {}
    for w in result.windows:
        solvers[w.solver] = solvers.get(w.solver, 0) + 1
        statuses[w.status] = statuses.get(w.status, 0) + 1
    allocated = sum(r["node_seconds"] for r in jobs)
    # over the run: from the first submission to the last completion
    capacity = result.capacity_node_seconds(first_submit, last_finish)
    return {
        "jobs": len(jobs), "completed": len(done),
        "mean_queue_s": _stat(queue), "p50_queue_s": _stat(queue, 50),
        "p95_queue_s": _stat(queue, 95),
        "mean_jct_s": _stat(jct), "p50_jct_s": _stat(jct, 50), "p95_jct_s": _stat(jct, 95),
        "mean_run_s": _stat(run), "p50_run_s": _stat(run, 50), "p95_run_s": _stat(run, 95),
        "makespan_s": last_finish - first_submit,
        "utilization": allocated / capacity if capacity else None,
        "gpu_efficiency": (sum(r["one_gpu_seconds"] for r in jobs) / allocated
                           if allocated else None),
        "speedup_vs_static": _stat(eff),
        "rescales": int(sum(r["rescales"] for r in jobs)),
        "rescales_per_job": sum(r["rescales"] for r in jobs) / len(jobs) if jobs else None,
        "unschedulable": len(result.unschedulable),
        "windows": len(result.windows),
        "decision_p50_s": _stat(decisions, 50), "decision_p95_s": _stat(decisions, 95),
        "decision_max_s": max(decisions) if decisions else None,
        "mip_gap_max": max(gaps) if gaps else None,
        "solvers": solvers, "statuses": statuses,
    }


def ratios(summary: dict[str, dict], base: str = RATIO_BASE) -> dict[str, dict]:
    """{policy: {kpi: value / the base policy's value}} (None where either is missing or the
    base is 0); empty when the base policy was not replayed."""
    if base not in summary:
        return {}
    out = {}
    for name, s in summary.items():
        out[name] = {k: (s[k] / summary[base][k])
                     if s.get(k) is not None and summary[base].get(k) else None
                     for k in RATIO_KEYS}
    return out

"""KPIs of DESIGN §7, per job and per run, and the ratios between policies replayed on the
same trace."""

from __future__ import annotations

import math
from collections.abc import Mapping

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
# jobs with no tenant, in per-tenant KPIs (the default tenant of DESIGN §4.2)
DEFAULT_TENANT = "(none)"
# what Jain's index across tenants is taken of: each tenant's mean slowdown (JCT ÷ the job's
# run time at its requested size with no contention), over its completed jobs
JAIN_OF = "mean_slowdown"


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


def _run_span(jobs: list[dict]) -> tuple[float, float]:
    """A run's span over its job KPI rows: first submission, last completion."""
    first = min((r["submit_s"] for r in jobs), default=0.0)
    last = max((r["finish_s"] for r in jobs if r["completed"]), default=first)
    return first, last


def run_kpis(result: ReplayResult) -> dict:
    jobs = job_kpis(result)
    done = [r for r in jobs if r["completed"]]
    queue = [r["queue_s"] for r in jobs if r["queue_s"] is not None]
    jct = [r["jct_s"] for r in done]
    run = [r["run_s"] for r in done]
    eff = [r["speedup_vs_static"] for r in done if r["speedup_vs_static"] is not None]
    first_submit, last_finish = _run_span(jobs)
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


def jain(values: list[float]) -> float | None:
    """Jain's fairness index (Σx)² ÷ (n·Σx²): 1 when all are equal, 1/n when one has it all;
    None with no values or all zero."""
    squares = sum(x * x for x in values)
    return sum(values) ** 2 / (len(values) * squares) if squares else None


def quota_node_seconds(steps: list[tuple[float, int, int]], start: float, end: float
                       ) -> float | None:
    """∫ max_nodes dt over [start, end] for a tenant's quota steps (from seconds, max_nodes,
    guaranteed_nodes), counting only the time a quota is in force; None when none is."""
    total, in_force = 0.0, False
    for i, (since, cap, _) in enumerate(steps):
        until = steps[i + 1][0] if i + 1 < len(steps) else end
        overlap = min(until, end) - max(since, start)
        if overlap > 0:
            total, in_force = total + cap * overlap, True
    return total if in_force else None


def tenant_kpis(result: ReplayResult, tenants: Mapping[str, str | None] | None = None,
                quotas: Mapping[str, list[tuple[float, int, int]]] | None = None) -> list[dict]:
    """Per tenant (DESIGN §7), one row each, sorted by tenant; [] when the jobs have fewer than
    two tenants. `tenants` maps job_id → tenant (default: the trace jobs' own); `quotas` a
    tenant to its quota steps (Trace.quotas). `share`: its node-seconds ÷ all jobs'
    node-seconds; `quota_use`: its node-seconds ÷ its quota's node-seconds over the run's span
    (`quota_node_seconds`), when it has a quota; `mean_slowdown`: over its completed jobs, JCT ÷
    run time at the requested size with no contention."""
    jobs = job_kpis(result)
    of = tenants if tenants is not None else {s.job.job_id: s.job.tenant for s in result.states}
    groups: dict[str, list[dict]] = {}
    for r in jobs:
        groups.setdefault(of.get(r["job_id"]) or DEFAULT_TENANT, []).append(r)
    if len(groups) < 2:
        return []
    total = sum(r["node_seconds"] for r in jobs)
    first, last = _run_span(jobs)
    rows = []
    for tenant, rs in sorted(groups.items()):
        done = [r for r in rs if r["completed"]]
        node_seconds = sum(r["node_seconds"] for r in rs)
        cap = quota_node_seconds((quotas or {}).get(tenant, []), first, last)
        rows.append({
            "policy": result.policy, "tenant": tenant, "jobs": len(rs), "completed": len(done),
            "node_seconds": node_seconds, "share": node_seconds / total if total else None,
            "quota_node_seconds": cap, "quota_use": node_seconds / cap if cap else None,
            "mean_queue_s": _stat([r["queue_s"] for r in rs if r["queue_s"] is not None]),
            "mean_jct_s": _stat([r["jct_s"] for r in done]),
            "mean_slowdown": _stat([r["jct_s"] / r["static_run_s"] for r in done
                                    if r["static_run_s"] and math.isfinite(r["static_run_s"])]),
        })
    return rows


def tenant_summary(rows: list[dict]) -> dict | None:
    """summary.json's per-tenant entry of one policy: Jain's index of the tenants'
    `JAIN_OF` and each tenant's KPIs (None when there are no tenant rows)."""
    if not rows:
        return None
    return {"jain_index": jain([r[JAIN_OF] for r in rows if r[JAIN_OF] is not None]),
            "jain_of": JAIN_OF,
            "by_tenant": {r["tenant"]: {k: v for k, v in r.items() if k not in ("policy", "tenant")}
                          for r in rows}}

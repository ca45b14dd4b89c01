"""Backtest: replay several policies on the same trace in the same process. Thin glue over
warehouse (logs, truth, estimator, Parquet) and replay (engine, KPIs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from replay.engine import ReplayConfig, replay
from replay.kpis import job_kpis, run_kpis
from replay.trace import trace_from_records
from warehouse.errors import EtplanError
from warehouse.outputs import write_json, write_partition
from warehouse.replay_inputs import SqlEstimator, load_logs, load_truth

SUMMARY_KEYS = ("jobs", "completed", "mean_queue_s", "p95_queue_s", "mean_jct_s", "p95_jct_s",
                "mean_run_s", "makespan_s", "utilization", "efficiency", "rescales",
                "decision_p50_s", "decision_p95_s")
RATIO_KEYS = ("mean_queue_s", "p95_queue_s", "mean_jct_s", "p95_jct_s", "mean_run_s",
              "makespan_s", "utilization", "efficiency")


def load_trace(logs: Path, truth: Path | None, capacity: int | None):
    data, _ = load_logs([logs])
    truth_path = truth or logs / "truth.json"
    if not truth_path.is_file():
        raise EtplanError(f"{truth_path}: no truth file; pass --truth FILE with each job's "
                          "true throughput curve (the importers write truth.json)")
    curves, rescale, per_machine = load_truth(truth_path)
    cap = [(0, capacity)] if capacity else data["capacity"]
    if not cap:
        raise EtplanError(f"{logs}: no capacity feed; pass --capacity N")
    try:
        return trace_from_records(data["jobs"], data["samples"], cap, curves, rescale,
                                  nodes_per_machine=per_machine)
    except KeyError as err:
        raise EtplanError(f"{truth_path}: no true curve for job {err.args[0]}") from None


def ratios(summary: dict[str, dict], base: str = "greedy") -> dict[str, dict]:
    if base not in summary:
        return {}
    out = {}
    for name, s in summary.items():
        out[name] = {k: (s[k] / summary[base][k])
                     if s.get(k) is not None and summary[base].get(k) else None
                     for k in RATIO_KEYS}
    return out


def backtest(logs: Path, policies: list[str], out: Path, *, truth: Path | None = None,
             capacity: int | None = None, config: ReplayConfig | None = None,
             on_progress: Callable[[str, float, float], None] | None = None,
             kpi_dir: Path | None = None) -> dict:
    """KPI tables go to kpi_dir (default out/kpis)/{jobs,runs,windows,intervals}/policy=…/,
    the summary to out/summary.json."""
    trace = load_trace(logs, truth, capacity)
    kpis_out = kpi_dir or out / "kpis"
    summary: dict[str, dict] = {}
    for policy in policies:
        result = replay(trace, policy, SqlEstimator(), config,
                        on_progress=(lambda done, total, p=policy: on_progress(p, done, total))
                        if on_progress else None)
        kpis = run_kpis(result)
        write_partition(kpis_out / "jobs", job_kpis(result), policy=policy)
        write_partition(kpis_out / "runs", [{"policy": policy} | kpis], policy=policy)
        write_partition(kpis_out / "windows",
                        [{"policy": policy, **w.__dict__} for w in result.windows],
                        policy=policy)
        write_partition(kpis_out / "intervals",
                        [{"policy": policy, "job_id": j, "start_s": a, "end_s": b, "nodes": n}
                         for j, a, b, n in result.intervals], policy=policy)
        summary[policy] = {k: kpis[k] for k in SUMMARY_KEYS}
    doc = {"policies": summary, "ratios_vs_greedy": ratios(summary)}
    write_json(out / "summary.json", doc)
    return doc

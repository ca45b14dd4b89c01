"""Run use cases: backtest (replay several policies on the same trace in the same process,
KPIs as Parquet, summary.json with ratios) and its report, written once for the CLI, the
Prefect flows and the bench; the demo's replay."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path

from flows import defaults
from replay import FAITHFUL_ONLY
from replay.engine import ReplayConfig, replay
from replay.kpis import SUMMARY_KEYS, job_kpis, ratios, run_kpis
from replay.trace import Trace, trace_from_records
from report.html import write_report
from solver.policies import Settings
from sources.truth import read_truth
from warehouse.errors import EtplanError
from warehouse.outputs import write_json, write_partition
from warehouse.replay_inputs import SqlEstimator, load_logs

log = logging.getLogger(__name__)

Progress = Callable[[str, float, float], None]   # (policy, simulated seconds, expected total)


def replay_config(window: float = defaults.REPLAY_WINDOW, slots: int = defaults.NUM_SLOTS,
                  time_limit: float = defaults.BACKTEST_TIME_LIMIT,
                  gap: float = defaults.REPLAY_GAP, *, preemption: bool = False,
                  replan_on_events: bool = False) -> ReplayConfig:
    return ReplayConfig(window=window, slots=slots, replan_on_events=replan_on_events,
                        settings=Settings(time_limit=time_limit, gap=gap,
                                          preemption=preemption))


def load_trace(logs: Path, truth: Path | None, capacity: int | None) -> Trace:
    """The logs in `logs` (validated as `etplan ingest` does) with the true curves of
    `truth` (default logs/truth.json); `capacity` overrides the capacity feed."""
    data, _ = load_logs([logs])
    truth_path = truth or logs / "truth.json"
    if not truth_path.is_file():
        raise EtplanError(f"{truth_path}: no truth file; pass --truth FILE with each job's "
                          "true throughput curve (the importers write truth.json)")
    curves, rescale, per_machine = read_truth(truth_path)
    cap = [(0, capacity)] if capacity else data["capacity"]
    if not cap:
        raise EtplanError(f"{logs}: no capacity feed; pass --capacity N")
    try:
        return trace_from_records(data["jobs"], data["samples"], cap, curves, rescale,
                                  nodes_per_machine=per_machine)
    except KeyError as err:
        raise EtplanError(f"{truth_path}: no true curve for job {err.args[0]}") from None


def _write_kpis(kpis_out: Path, policy: str, result, kpis: dict) -> None:
    """KPI tables kpis_out/{jobs,runs,windows,intervals}/policy=…/ (DESIGN §8)."""
    write_partition(kpis_out / "jobs", job_kpis(result), policy=policy)
    write_partition(kpis_out / "runs", [{"policy": policy} | kpis], policy=policy)
    write_partition(kpis_out / "windows",
                    [{"policy": policy, **w.__dict__} for w in result.windows], policy=policy)
    write_partition(kpis_out / "intervals",
                    [{"policy": policy, "job_id": j, "start_s": a, "end_s": b, "nodes": n}
                     for j, a, b, n in result.intervals], policy=policy)


def _drop_stale_policies(kpis_out: Path, policies: list[str]) -> None:
    """A rerun into the same folder replaces its KPIs: partitions of policies this run does
    not replay would otherwise mix into its tables and report."""
    keep = {f"policy={p}" for p in policies}
    for part in sorted(kpis_out.glob("*/policy=*")):
        if part.is_dir() and part.name not in keep:
            log.info("removing %s: not a policy of this backtest", part)
            shutil.rmtree(part)


def backtest(logs: Path, policies: list[str], out: Path, *, truth: Path | None = None,
             capacity: int | None = None, config: ReplayConfig | None = None,
             on_progress: Progress | None = None, kpi_dir: Path | None = None) -> dict:
    """Replay each policy on the same trace. KPI tables go to kpi_dir (default out/kpis),
    the summary {"policies": …, "ratios_vs_greedy": …} to out/summary.json."""
    trace = load_trace(logs, truth, capacity)
    config = config or replay_config()
    kpis_out = kpi_dir or out / "kpis"
    _drop_stale_policies(kpis_out, policies)
    summary: dict[str, dict] = {}
    faithful = any(p in FAITHFUL_ONLY for p in policies)
    for policy in policies:
        if faithful:   # the Pollux artifact's engine rules (replay/faithful.py)
            from replay.pollux_runs import replay_imported

            result = replay_imported(truth or logs / "truth.json", policy,
                                     settings=config.settings)
        else:
            result = replay(trace, policy, SqlEstimator(), config,
                            on_progress=(lambda done, total, p=policy:
                                         on_progress(p, done, total)) if on_progress else None)
        kpis = run_kpis(result)
        _write_kpis(kpis_out, policy, result, kpis)
        summary[policy] = {k: kpis[k] for k in SUMMARY_KEYS}
    doc = {"policies": summary, "ratios_vs_greedy": ratios(summary)}
    write_json(out / "summary.json", doc)
    return doc


def backtest_and_report(logs: Path, policies: list[str], out: Path, *,
                        truth: Path | None = None, capacity: int | None = None,
                        config: ReplayConfig | None = None,
                        on_progress: Progress | None = None) -> tuple[dict, Path]:
    """backtest, then out/report.html over its KPIs: (summary, report path)."""
    doc = backtest(logs, policies, out, truth=truth, capacity=capacity, config=config,
                   on_progress=on_progress)
    report = write_report(out / "report.html", doc, out / "kpis", None,
                          title=f"backtest of {logs}")
    return doc, report


def demo_backtest(logs: Path, kpi_dir: Path) -> dict:
    """The demo's replay: the default policies, a plan per operational window."""
    config = replay_config(defaults.SLOT_SECONDS, defaults.NUM_SLOTS, defaults.DEMO_TIME_LIMIT)
    return backtest(logs, list(defaults.POLICIES), kpi_dir, config=config, kpi_dir=kpi_dir)


def run_report(outputs: Path, run_id: str, summary: dict, kpi_dir: Path,
               plan_rows: list[dict] | None) -> Path:
    """outputs/reports/run_id=…/report.html: the run's KPIs, charts and its plan's Gantt."""
    return write_report(outputs / "reports" / f"run_id={run_id}" / "report.html", summary,
                        kpi_dir, plan_rows, title=f"etplan run {run_id}")

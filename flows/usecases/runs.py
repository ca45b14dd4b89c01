"""Run use cases: backtest (replay several policies on the same trace in the same process,
KPIs as Parquet, summary.json with ratios) and its report, written once for the CLI, the
Prefect flows and the bench; the demo's replay."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path

from flows import defaults
from flows.usecases.common import opened
from replay import FAITHFUL_ONLY
from replay.engine import ReplayConfig, replay
from replay.kpis import SUMMARY_KEYS, job_kpis, ratios, run_kpis, tenant_kpis, tenant_summary
from replay.trace import Trace, check_finishable, trace_from_records
from report.html import PlanInput, WarehouseFacts, write_report
from solver.churn_rules import ChurnRules
from solver.policies import Settings
from sources.errors import SourceError
from sources.truth import read_truth
from warehouse.errors import EtplanError
from warehouse.outputs import write_json, write_partition
from warehouse.replay_inputs import SqlEstimator, load_logs
from warehouse.report_inputs import curve_fits, curve_samples, rejected_by_rule

log = logging.getLogger(__name__)

Progress = Callable[[str, float, float], None]   # (policy, simulated seconds, expected total)


def replay_config(window: float = defaults.REPLAY_WINDOW, slots: int = defaults.NUM_SLOTS,
                  time_limit: float = defaults.BACKTEST_TIME_LIMIT,
                  gap: float = defaults.REPLAY_GAP, *, preemption: bool = False,
                  replan_on_events: bool = False, churn: ChurnRules | None = None
                  ) -> ReplayConfig:
    return ReplayConfig(window=window, slots=slots, replan_on_events=replan_on_events,
                        settings=Settings(time_limit=time_limit, gap=gap,
                                          preemption=preemption),
                        churn=churn or ChurnRules())


def load_trace(logs: Path, truth: Path | None, capacity: int | None) -> Trace:
    """The logs in `logs` (validated as `etplan ingest` does) with the true curves of
    `truth` (default logs/truth.json); `capacity` overrides the capacity feed."""
    data, files = load_logs([logs])
    rejected = sum(f.rows_rejected for f in files)
    if rejected:   # said, never silently left out of the replay
        log.warning("%s: %d rows rejected as `etplan ingest` would (ingest the logs and query "
                    "rejected_rows to see why); the backtest replays the rest", logs, rejected)
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
                                  nodes_per_machine=per_machine, quotas=data["quotas"])
    except KeyError as err:
        raise EtplanError(f"{truth_path}: no true curve for job {err.args[0]}") from None
    except SourceError as err:
        raise SourceError(f"{truth_path}: {err}") from None


def _write_kpis(kpis_out: Path, policy: str, result, kpis: dict) -> None:
    """KPI tables kpis_out/{jobs,runs,windows,intervals}/policy=…/ (DESIGN §8)."""
    write_partition(kpis_out / "jobs", job_kpis(result), policy=policy)
    write_partition(kpis_out / "runs", [{"policy": policy} | kpis], policy=policy)
    write_partition(kpis_out / "windows",
                    [{"policy": policy, **w.__dict__} for w in result.windows], policy=policy)
    write_partition(kpis_out / "intervals",
                    [{"policy": policy, "job_id": j, "start_s": a, "end_s": b, "nodes": n}
                     for j, a, b, n in result.intervals], policy=policy)


def _write_tenant_kpis(kpis_out: Path, policy: str, result, trace: Trace) -> dict | None:
    """Per-tenant KPIs (DESIGN §7) of the trace's tenants and quotas to
    kpis_out/tenants/policy=…/ and their summary.json entry; None, and no table, when the trace
    has fewer than two tenants."""
    rows = tenant_kpis(result, {j.job_id: j.tenant for j in trace.jobs}, trace.quotas)
    folder = kpis_out / "tenants" / f"policy={policy}"
    if not rows:
        shutil.rmtree(folder, ignore_errors=True)   # from an earlier run with tenants
        return None
    write_partition(kpis_out / "tenants", rows, policy=policy)
    return tenant_summary(rows)


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
             on_progress: Progress | None = None, kpi_dir: Path | None = None,
             faithful: bool | None = None) -> dict:
    """Replay each policy on the same trace. KPI tables go to kpi_dir (default out/kpis),
    the summary {"engine": …, "policies": …, "ratios_vs_greedy": …} to out/summary.json. All
    run in the faithful engine when `faithful`, or (None) when one of them exists only there."""
    trace = load_trace(logs, truth, capacity)
    config = config or replay_config()
    try:
        check_finishable(trace, config.window * config.max_windows)
    except SourceError as err:
        raise SourceError(f"{truth or logs / 'truth.json'}: {err}") from None
    kpis_out = kpi_dir or out / "kpis"
    _drop_stale_policies(kpis_out, policies)
    summary: dict[str, dict] = {}
    by_tenant: dict[str, dict] = {}
    if faithful is None:
        faithful = any(p in FAITHFUL_ONLY for p in policies)
    for policy in policies:
        if faithful:   # the Pollux artifact's engine rules (replay/faithful.py)
            from replay.pollux_runs import replay_imported

            result = replay_imported(truth or logs / "truth.json", policy,
                                     settings=config.settings, churn=config.churn)
        else:
            result = replay(trace, policy, SqlEstimator(), config,
                            on_progress=(lambda done, total, p=policy:
                                         on_progress(p, done, total)) if on_progress else None)
        kpis = run_kpis(result)
        _write_kpis(kpis_out, policy, result, kpis)
        summary[policy] = {k: kpis[k] for k in SUMMARY_KEYS}
        if per_tenant := _write_tenant_kpis(kpis_out, policy, result, trace):
            by_tenant[policy] = per_tenant
    doc = {"engine": "faithful" if faithful else "windowed", "policies": summary,
           "ratios_vs_greedy": ratios(summary)}
    if by_tenant:   # only when the trace has more than one tenant
        doc["tenants"] = by_tenant
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
               planned: dict | None, warehouse: str | Path | None = None) -> Path:
    """outputs/reports/run_id=…/report.html: the run's KPIs and charts, its plan (`planned`:
    the plan window task's dict, with its rows) and the warehouse's curves and rejected rows."""
    plan_input = None
    if planned and planned.get("rows"):
        plan_input = PlanInput(planned["rows"], planned["slot_seconds"], planned["capacity"],
                               planned.get("slot_prices"))
    with opened(warehouse, read_only=True) as con:
        facts = WarehouseFacts(curve_fits(con), curve_samples(con), rejected_by_rule(con))
    return write_report(outputs / "reports" / f"run_id={run_id}" / "report.html", summary,
                        kpi_dir, plan_input, title=f"etplan run {run_id}", facts=facts)

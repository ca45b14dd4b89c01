"""What-if (DESIGN §11): re-solve the latest plan's window with one change — capacity ±N, a job
dropped, a job's weight, a tenant's max_nodes — with the same policy, and compare per job its
size in slot 0 and its ETC before → after, and the plan's KPIs. "Before" is the latest plan's
node counts scored on the re-loaded window (so both sides are scored by the same objective);
"after" is the new plan, warm-started from the latest one. The official plan is never touched:
the what-if plan goes to <outputs>/whatif/run_id=…/window_start=…/ only."""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import numpy as np

from flows import defaults
from flows.usecases.common import opened
from flows.usecases.plans import require_warehouse, window_instance
from solver.churn_rules import ChurnRules
from solver.instance import Instance, TenantQuota
from solver.objective import score
from solver.plans import Plan, etc_seconds
from solver.policies import Settings, plan
from warehouse.errors import EtplanError
from warehouse.explain import latest_plan_rows
from warehouse.outputs import write_partition
from warehouse.plans import attach_output_views, partition_time
from warehouse.window_state import load_window

log = logging.getLogger(__name__)

OPTIONS = ("--capacity", "--drop", "--weight", "--quota")


@dataclass(frozen=True)
class Change:
    """One what-if change: `option` one of OPTIONS, `target` the job or tenant it names (None
    for --capacity), `value` the nodes added, the weight or the tenant's max_nodes."""
    option: str
    target: str | None
    value: float

    def text(self) -> str:
        if self.option == "--capacity":
            return f"--capacity {self.value:+.0f}"
        if self.option == "--drop":
            return f"--drop {self.target}"
        return f"{self.option} {self.target}={self.value:g}"


def parse_change(capacity: str | None = None, drop: str | None = None,
                 weight: str | None = None, quota: str | None = None) -> Change:
    """The one change given on the command line, checked for form (not yet against the
    window); a one-line EtplanError naming the option otherwise."""
    given = [(o, v) for o, v in zip(OPTIONS, (capacity, drop, weight, quota), strict=True)
             if v is not None]
    if len(given) != 1:
        raise EtplanError(f"plan whatif: give exactly one change of {', '.join(OPTIONS)} "
                          f"({len(given)} given)")
    option, text = given[0]
    text = text.strip()
    if option == "--capacity":
        if not re.fullmatch(r"[+-]?\d+", text):
            raise EtplanError(f"--capacity {text!r}: give the nodes to add or remove, "
                              "e.g. +16 or -8")
        return Change(option, None, float(int(text)))
    if option == "--drop":
        if not text:
            raise EtplanError("--drop: give a job id (`etplan plan show` lists them)")
        return Change(option, text, 0.0)
    name, _, number = text.partition("=")
    what = "JOB=W with W > 0, e.g. job-7=2" if option == "--weight" else \
        "TENANT=N with N ≥ 0 whole nodes, e.g. team-a=16"
    try:
        value = float(number) if option == "--weight" else float(int(number))
    except ValueError:
        value = float("nan")
    if not name.strip() or not np.isfinite(value) or value < 0 or \
            (option == "--weight" and value == 0):
        raise EtplanError(f"{option} {text!r}: give {what}")
    return Change(option, name.strip(), value)


def apply_change(inst: Instance, change: Change, where: str) -> Instance:
    """`inst` with `change` made; a one-line EtplanError for a job or tenant the window does
    not have, or a capacity below zero. `where` names the window in messages."""
    ids = {j.job_id for j in inst.jobs}
    if change.option == "--capacity":
        cap = [c + int(change.value) for c in inst.capacity]
        if min(cap) < 0:
            raise EtplanError(f"{change.text()}: the window at {where} has "
                              f"{min(inst.capacity)} nodes; remove at most that many")
        return replace(inst, capacity=cap)
    if change.option in ("--drop", "--weight") and change.target not in ids:
        raise EtplanError(f"{change.option} {change.target}: no job {change.target} in the "
                          f"window at {where}; `etplan plan show` lists its jobs")
    if change.option == "--drop":
        return replace(inst, jobs=[j for j in inst.jobs if j.job_id != change.target])
    if change.option == "--weight":
        return replace(inst, jobs=[replace(j, weight=change.value)
                                   if j.job_id == change.target else j for j in inst.jobs])
    tenants = {j.tenant for j in inst.jobs if j.tenant} | set(inst.quotas)
    if change.target not in tenants:
        known = ", ".join(sorted(tenants)) or "none"
        raise EtplanError(f"--quota {change.target}: no tenant {change.target} in the window "
                          f"at {where} (tenants: {known})")
    old = inst.quotas.get(change.target, TenantQuota())
    n = int(change.value)
    quotas = {**inst.quotas, change.target: TenantQuota(n, min(old.guaranteed_nodes, n))}
    return replace(inst, quotas=quotas)


@dataclass
class JobDelta:
    """One job's slot-0 size and ETC before → after (None after: dropped)."""
    job_id: str
    nodes_before: int
    nodes_after: int | None
    etc_before: float
    etc_after: float | None


@dataclass
class WhatIf:
    at: datetime
    policy: str
    change: Change
    jobs: int                               # jobs in the window
    changed: list[JobDelta]                 # only the jobs whose size or ETC changes
    kpis: list[tuple[str, float, float]]    # (name, before, after)
    plan: Plan
    path: Path
    seconds: float = 0.0


def latest_window(outputs: Path) -> tuple[datetime, str, dict[str, list[int]]]:
    """The latest plan's window start, policy and node counts per job and slot."""
    con = duckdb.connect()
    if "latest_plan" not in attach_output_views(con, outputs):
        raise EtplanError(f"{outputs}: no plans yet; run `etplan plan window` first")
    rows = latest_plan_rows(con)
    nodes: dict[str, list[int]] = {}
    for r in rows:
        nodes.setdefault(str(r["job_id"]), []).append(int(r["nodes"]))
    at = rows[0]["window_time"]
    return (at if at.tzinfo else at.replace(tzinfo=UTC)).astimezone(UTC), rows[0]["policy"], \
        nodes


def _before_nodes(inst: Instance, nodes: dict[str, list[int]]) -> np.ndarray:
    """The latest plan's node matrix for the jobs of `inst` (0 for a job it did not have)."""
    return np.array([(nodes.get(j.job_id, []) + [0] * inst.T)[:inst.T] for j in inst.jobs],
                    dtype=int).reshape(len(inst.jobs), inst.T)


def _kpis(inst: Instance, nodes: np.ndarray, objective: float) -> list[float]:
    first = nodes[:, 0] if len(nodes) else np.zeros(0, dtype=int)
    return [objective, float(first.sum()), float((first == 0).sum())]


def compare(inst: Instance, before: np.ndarray, changed: Instance, after: Plan
            ) -> tuple[list[JobDelta], list[tuple[str, float, float]]]:
    """Per job (slot 0 size, ETC) before → after, only those that change; and the KPIs
    objective, nodes used and jobs waiting in slot 0, before and after."""
    etc0 = etc_seconds(inst, before)
    n1 = {a.job_id: a.nodes for a in after.allocations if a.slot == 0}
    etc1 = {e.job_id: e.etc_seconds for e in after.jobs}
    deltas = []
    for j, job in enumerate(inst.jobs):
        d = JobDelta(job.job_id, int(before[j, 0]), n1.get(job.job_id),
                     float(etc0[j]), etc1.get(job.job_id))
        if (d.nodes_after != d.nodes_before or d.etc_after is None
                or abs(d.etc_after - d.etc_before) >= 1.0):
            deltas.append(d)
    after_nodes = after.node_matrix(changed)
    names = ("objective", "nodes used (slot 0)", "jobs waiting (slot 0)")
    kpis = list(zip(names, _kpis(inst, before, score(inst, before)),
                    _kpis(changed, after_nodes, after.objective), strict=True))
    return deltas, kpis


def what_if(warehouse: str | Path | None, outputs: Path, change: Change, run_id: str, *,
            settings: Settings | None = None, churn: ChurnRules | None = None) -> WhatIf:
    """Re-solve the latest plan's window with `change` (module docstring)."""
    started = time.perf_counter()
    at, policy, nodes = latest_window(outputs)
    require_warehouse(warehouse)
    with opened(warehouse) as con:
        state = load_window(con, at, rescale_seconds=defaults.RESCALE_SECONDS)
    inst = window_instance(state, slot_seconds=defaults.SLOT_SECONDS,
                           num_slots=defaults.NUM_SLOTS,
                           rescale_seconds=defaults.RESCALE_SECONDS, churn=churn)
    changed = apply_change(inst, change, f"{at:%Y-%m-%dT%H:%M:%SZ}")
    before = _before_nodes(inst, nodes)
    after = plan(changed, policy, settings or Settings(time_limit=defaults.WHATIF_TIME_LIMIT),
                 hint={j.job_id: nodes[j.job_id] for j in changed.jobs if j.job_id in nodes})
    deltas, kpis = compare(inst, before, changed, after)
    path = write_partition(outputs / "whatif", after.rows(at), run_id=run_id,
                           window_start=partition_time(at))
    log.info("what-if %s at %s: %d of %d jobs change; plan %s", change.text(), at,
             len(deltas), len(inst.jobs), path)
    return WhatIf(at, policy, change, len(inst.jobs), deltas, kpis, after, path,
                  time.perf_counter() - started)

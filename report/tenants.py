"""Per-tenant KPIs (DESIGN §7: node-seconds share against quota, mean queueing and JCT, Jain's
index across tenants) from summary.json's `tenants` ({policy: {jain_index, jain_of,
by_tenant: {tenant: {…}}}}, replay/kpis.py tenant_summary), when the run has them."""

from __future__ import annotations

from report import units
from report.figures import esc, table

# column: (heading, format, definition)
COLUMNS = {
    "jobs": ("jobs", units.count, "The tenant's jobs in the trace."),
    "completed": ("completed", units.count, "Its jobs that finished."),
    "node_seconds": ("node-hours", lambda v: units.sig(None if v is None else v / 3600, 3),
                     "Node-hours allocated to its jobs."),
    "share": ("share", units.percent, "Its node-seconds ÷ all jobs' node-seconds."),
    "quota_node_seconds": ("quota node-hours",
                           lambda v: units.sig(None if v is None else v / 3600, 3),
                           "∫ max_nodes dt over the run's span while a quota is in force."),
    "quota_use": ("quota use", units.percent,
                  "Its node-seconds ÷ its quota node-seconds: how much of its quota it used."),
    "mean_queue_s": ("mean queueing", units.duration, "Mean queueing delay of its jobs."),
    "mean_jct_s": ("mean JCT", units.duration, "Mean JCT of its completed jobs."),
    "mean_slowdown": ("mean slowdown", units.ratio,
                      "Mean over its completed jobs of JCT ÷ run time at the requested size "
                      "with no contention (1× = as if alone)."),
}
JAIN = ("Jain's index", "Jain's fairness index (Σx)² ÷ (n·Σx²) across tenants of the measure "
        "named beside it: 1 = all tenants equal, 1/n = one tenant has everything.")


def definitions(summary: dict) -> list[tuple[str, str]]:
    """(term, definition) of the per-tenant KPIs, when the summary has them."""
    if not summary.get("tenants"):
        return []
    return [(f"tenant {h}", d) for h, _, d in COLUMNS.values()] + [JAIN]


def _heading(key: str) -> str:
    return COLUMNS[key][0] if key in COLUMNS else key.replace("_", " ")


def _cell(key: str, v) -> str:
    if key in COLUMNS:
        return COLUMNS[key][1](v)
    return esc(v) if v is not None else units.MISSING


def section(summary: dict) -> list[tuple[str, str, str]]:
    per_policy = summary.get("tenants") or {}
    found = [(p, t, v) for p, s in per_policy.items()
             for t, v in (s.get("by_tenant") or {}).items()]
    if not found:
        return []
    present = {k for _, _, v in found for k, x in v.items() if x is not None}
    keys = [k for k in COLUMNS if k in present] + sorted(present - set(COLUMNS))
    rows = [[esc(p), esc(t)] + [_cell(k, v.get(k)) for k in keys] for p, t, v in found]
    head = ["policy", "tenant"] + [esc(_heading(k)) for k in keys]
    jain = table(["policy", "Jain's index", "of"],
                 [[esc(p), units.sig(s.get("jain_index")), esc(_heading(s.get("jain_of", "")))]
                  for p, s in per_policy.items()])
    return [("tenants", "Per-tenant KPIs", table(head, rows) + jain)]

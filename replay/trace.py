"""A trace to replay, as plain data."""

from __future__ import annotations

from dataclasses import dataclass, field

from solver.instance import DEFAULT_RESCALE_SECONDS
from sources.errors import SourceError


@dataclass
class TraceJob:
    job_id: str
    submit: float                    # seconds from the trace start
    min_nodes: int
    max_nodes: int
    requested_nodes: int
    total_work: float
    true_throughput: dict[int, float]   # samples/s on n nodes, what really happens
    weight: float = 1.0
    model: str | None = None
    tenant: str | None = None        # None: the default tenant (DESIGN §4.2)


@dataclass
class Trace:
    jobs: list[TraceJob]                            # in submit order
    capacity: list[tuple[float, int]]               # (seconds from start, nodes), sorted
    samples: list[tuple] = field(default_factory=list)
    # (job_id, seconds, nodes, throughput[, machines]) observed before the replay starts
    rescale_seconds: float = DEFAULT_RESCALE_SECONDS
    # nodes packed onto each machine: replay samples then say the machines they spanned
    nodes_per_machine: int | None = None
    # tenant -> [(seconds from start, max_nodes, guaranteed_nodes)] sorted: its quota from then
    quotas: dict[str, list[tuple[float, int, int]]] = field(default_factory=dict)

    def capacity_at(self, t: float) -> int:
        cap = self.capacity[0][1] if self.capacity else 0
        for when, nodes in self.capacity:
            if when <= t:
                cap = nodes
            else:
                break
        return cap


def trace_from_records(jobs: list[dict], samples: list[tuple], capacity: list[tuple],
                       truth: dict[str, dict[int, float]],
                       rescale_seconds: float = DEFAULT_RESCALE_SECONDS, *,
                       nodes_per_machine: int | None = None,
                       quotas: list[tuple] | None = None) -> Trace:
    """A Trace from plain rows. Times are datetimes or seconds; they become seconds from the
    first submission. `truth` maps job_id to its true curve; a job without one is an error.
    `quotas`: rows (tenant, effective_from, max_nodes, guaranteed_nodes)."""
    def secs(x) -> float:
        return x.timestamp() if hasattr(x, "timestamp") else float(x)

    origin = min((secs(j["submit"]) for j in jobs), default=0.0)
    out = []
    for j in sorted(jobs, key=lambda r: (secs(r["submit"]), r["job_id"])):
        curve = truth.get(j["job_id"])
        if curve is None:
            raise KeyError(j["job_id"])
        gaps = [n for n in range(j["min_nodes"], j["max_nodes"] + 1) if n not in curve]
        if gaps:
            raise SourceError(f"job {j['job_id']}: its true curve has no throughput for "
                              f"{gaps[0]} nodes (sizes {j['min_nodes']}..{j['max_nodes']}); "
                              "give every size from min_nodes to max_nodes")
        out.append(TraceJob(
            job_id=j["job_id"], submit=secs(j["submit"]) - origin, min_nodes=j["min_nodes"],
            max_nodes=j["max_nodes"], requested_nodes=j["requested_nodes"],
            total_work=j["total_work"], weight=j.get("weight") or 1.0, model=j.get("model"),
            tenant=j.get("tenant"),
            true_throughput={n: curve[n] for n in range(j["min_nodes"], j["max_nodes"] + 1)}))
    return Trace(
        jobs=out,
        capacity=sorted((max(secs(t) - origin, 0.0), n) for t, n in capacity),
        samples=[(s[0], secs(s[1]) - origin, *s[2:]) for s in samples],
        rescale_seconds=rescale_seconds, nodes_per_machine=nodes_per_machine,
        quotas=_quota_steps(quotas or [], lambda t: secs(t) - origin))


def _quota_steps(rows: list[tuple], seconds) -> dict[str, list[tuple[float, int, int]]]:
    """Quota rows (tenant, effective_from, max_nodes, guaranteed_nodes) as each tenant's steps
    (seconds from the trace start, max_nodes, guaranteed_nodes), in time order."""
    steps: dict[str, list[tuple[float, int, int]]] = {}
    for tenant, when, cap, floor in rows:
        steps.setdefault(tenant, []).append((seconds(when), cap, floor))
    return {t: sorted(v) for t, v in steps.items()}


def check_finishable(trace: Trace, horizon: float) -> None:
    """Refuse a trace with a job that even at its fastest true size would run longer than
    `horizon` seconds (the replay's longest stretch): a near-zero true throughput would
    otherwise keep the replay going window after window for hours."""
    for j in trace.jobs:
        n, best = max(j.true_throughput.items(), key=lambda kv: kv[1])
        need = j.total_work / best
        if need > horizon:
            raise SourceError(f"job {j.job_id}: its true curve ({best:g} samples/s at best, "
                              f"on {n} nodes) needs {need / 86400:,.0f} days for its "
                              f"total_work {j.total_work:g}, longer than the replay's "
                              f"{horizon / 86400:,.0f} days; fix its curve or total_work")

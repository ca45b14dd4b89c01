"""A trace to replay, as plain data."""

from __future__ import annotations

from dataclasses import dataclass, field

from solver.instance import DEFAULT_RESCALE_SECONDS


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


@dataclass
class Trace:
    jobs: list[TraceJob]                            # in submit order
    capacity: list[tuple[float, int]]               # (seconds from start, nodes), sorted
    samples: list[tuple] = field(default_factory=list)
    # (job_id, seconds, nodes, throughput[, machines]) observed before the replay starts
    rescale_seconds: float = DEFAULT_RESCALE_SECONDS
    # nodes packed onto each machine: replay samples then say the machines they spanned
    nodes_per_machine: int | None = None

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
                       nodes_per_machine: int | None = None) -> Trace:
    """A Trace from plain rows. Times are datetimes or seconds; they become seconds from the
    first submission. `truth` maps job_id to its true curve; a job without one is an error."""
    def secs(x) -> float:
        return x.timestamp() if hasattr(x, "timestamp") else float(x)

    origin = min((secs(j["submit"]) for j in jobs), default=0.0)
    out = []
    for j in sorted(jobs, key=lambda r: (secs(r["submit"]), r["job_id"])):
        curve = truth.get(j["job_id"])
        if curve is None:
            raise KeyError(j["job_id"])
        out.append(TraceJob(
            job_id=j["job_id"], submit=secs(j["submit"]) - origin, min_nodes=j["min_nodes"],
            max_nodes=j["max_nodes"], requested_nodes=j["requested_nodes"],
            total_work=j["total_work"], weight=j.get("weight") or 1.0, model=j.get("model"),
            true_throughput={n: curve[n] for n in range(j["min_nodes"], j["max_nodes"] + 1)}))
    return Trace(
        jobs=out,
        capacity=sorted((max(secs(t) - origin, 0.0), n) for t, n in capacity),
        samples=[(s[0], secs(s[1]) - origin, *s[2:]) for s in samples],
        rescale_seconds=rescale_seconds, nodes_per_machine=nodes_per_machine)

"""Deterministic synthetic platform logs (DESIGN §3.1) for the demo, tests and benchmarks.

A seeded generator draws jobs from a handful of model classes, each with its own Amdahl-like
scaling curve (time per sample = a + b/n) and per-job variation, submits them as a Poisson
process with a daily cycle, and runs them on a pool with an elastic first-come-first-served
policy, writing what a platform would log: job events, throughput samples (with noise, at the
sizes each job really ran) and the pool's capacity (with an occasional outage). The log stops
at the end of the arrival window, so some jobs are still queued or running: the state a planner
meets. The true curves go to ``truth.json`` for the replay engine. Same arguments, same bytes.
"""

from __future__ import annotations

import csv
import heapq
import json
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

DEFAULT_START = datetime(2026, 11, 30, tzinfo=UTC)
SAMPLE_EVERY_S = 300.0
MAX_SAMPLES_PER_INTERVAL = 12
RESCALE_SECONDS = 30.0

# (name, single-node samples/s, serial fraction, share of jobs)
MODEL_CLASSES: tuple[tuple[str, float, float, float], ...] = (
    ("resnet50", 1200.0, 0.03, 0.25),
    ("bert", 180.0, 0.08, 0.20),
    ("gpt-small", 90.0, 0.12, 0.15),
    ("yolov3", 300.0, 0.05, 0.15),
    ("deepspeech2", 400.0, 0.06, 0.15),
    ("ncf", 50000.0, 0.25, 0.10),
)
REQUESTED_SIZES = np.array([1, 2, 4, 8, 16])
REQUESTED_PROBS = np.array([0.30, 0.25, 0.22, 0.15, 0.08])
TENANTS = ("vision", "nlp", "speech", "recsys", "research")


@dataclass
class SynthJob:
    job_id: str
    model: str
    tenant: str
    submit: float                    # seconds after start
    min_nodes: int
    max_nodes: int
    requested_nodes: int
    total_work: float
    weight: float
    f1: float                        # true single-node throughput
    serial: float                    # true serial fraction
    fate: str = "completed"          # completed | failed | cancelled
    fate_after: float = math.inf     # seconds of running (failed) or queueing (cancelled)
    intervals: list[tuple[float, float | None, int]] = field(default_factory=list)
    end: float | None = None

    def throughput(self, n: int) -> float:
        """True samples/s on n nodes: 1/f(n) = a + b/n with a/(a+b) = serial."""
        return self.f1 * n / (1.0 + self.serial * (n - 1))


@dataclass
class SynthTrace:
    jobs: list[SynthJob]
    capacity: list[tuple[float, int]]     # (seconds after start, nodes)
    horizon: float                         # the log stops here
    start: datetime
    pool: str


def make_jobs(n_jobs: int, rng: np.random.Generator, capacity: int, load: float
              ) -> tuple[list[SynthJob], float]:
    names = [c[0] for c in MODEL_CLASSES]
    shares = np.array([c[3] for c in MODEL_CLASSES])
    cls = rng.choice(len(names), size=n_jobs, p=shares / shares.sum())
    req = rng.choice(REQUESTED_SIZES, size=n_jobs, p=REQUESTED_PROBS)
    req = np.minimum(req, max(1, capacity // 2))
    elastic = rng.random(n_jobs) > 0.2
    down = rng.choice([1, 2, 4], size=n_jobs, p=[0.3, 0.4, 0.3])
    up = rng.choice([1, 2, 4], size=n_jobs, p=[0.2, 0.5, 0.3])
    min_nodes = np.where(elastic, np.maximum(1, req // down), req)
    max_nodes = np.where(elastic, np.minimum(np.maximum(req * up, req), max(1, capacity // 2)),
                         req)
    # run time at the requested size: heavy tailed, median 40 min, capped at 2 days
    run_s = np.minimum(np.exp(rng.normal(math.log(2400.0), 1.1, n_jobs)), 172800.0)
    run_s = np.maximum(run_s, 120.0)
    f1_var = np.exp(rng.normal(0.0, 0.15, n_jobs))
    s_var = np.exp(rng.normal(0.0, 0.3, n_jobs))
    weight = rng.choice([1.0, 1.0, 1.0, 2.0], size=n_jobs)
    tenant = rng.choice(len(TENANTS), size=n_jobs)
    fate_draw = rng.random(n_jobs)
    fate_frac = rng.random(n_jobs)

    jobs = []
    for i in range(n_jobs):
        name, f1, serial, _ = MODEL_CLASSES[cls[i]]
        job = SynthJob(
            job_id=f"job-{i + 1:06d}", model=name, tenant=TENANTS[tenant[i]], submit=0.0,
            min_nodes=int(min_nodes[i]), max_nodes=int(max_nodes[i]),
            requested_nodes=int(req[i]), total_work=0.0, weight=float(weight[i]),
            f1=round(f1 * float(f1_var[i]), 3), serial=min(0.6, round(serial * float(s_var[i]), 4)),
        )
        job.total_work = float(round(run_s[i] * job.throughput(job.requested_nodes)))
        if fate_draw[i] < 0.03:
            job.fate, job.fate_after = "failed", float(run_s[i] * fate_frac[i])
        elif fate_draw[i] < 0.05:
            job.fate, job.fate_after = "cancelled", float(3600.0 * (0.5 + fate_frac[i]))
        jobs.append(job)

    # offered load decides how long the arrival window is
    node_seconds = float(np.sum(run_s * req))
    span = node_seconds / (load * capacity)
    # Poisson arrivals with a daily cycle, conditioned on n_jobs: invert the cumulative intensity
    grid = np.linspace(0.0, span, 4097)
    intensity = 1.0 + 0.6 * np.sin(2 * math.pi * (grid / 86400.0 - 0.25))
    cum = np.concatenate([[0.0], np.cumsum((intensity[1:] + intensity[:-1]) / 2 * np.diff(grid))])
    u = np.sort(rng.random(n_jobs)) * cum[-1]
    submits = np.interp(u, cum, grid)
    for job, t in zip(jobs, submits, strict=True):
        job.submit = float(round(t))
    return jobs, span


def make_capacity(rng: np.random.Generator, capacity: int, span: float
                  ) -> list[tuple[float, int]]:
    """Full pool from the start; an outage of a few nodes about once a day, lasting an hour."""
    points = [(0.0, capacity)]
    n_out = rng.poisson(max(span, 1.0) / 86400.0)
    starts = np.sort(rng.random(n_out) * span)
    for s in starts:
        lost = int(rng.integers(1, max(2, capacity // 8) + 1))
        begin = float(round(s))
        if begin <= points[-1][0]:
            continue
        points.append((begin, capacity - lost))
        points.append((begin + 3600.0, capacity))
    return points


def simulate(jobs: list[SynthJob], capacity_points: list[tuple[float, int]], horizon: float
             ) -> None:
    """Elastic FCFS: start a queued job when its minimum fits, give it up to its maximum, hand
    freed nodes to running jobs in submit order. Fills each job's intervals and end."""
    order = sorted(range(len(jobs)), key=lambda i: (jobs[i].submit, i))
    remaining = {i: jobs[i].total_work for i in order}
    size: dict[int, int] = {}
    last: dict[int, float] = {}
    ran: dict[int, float] = {}
    queue: list[int] = []
    events: list[tuple[float, int, int]] = []   # (time, kind, job) kind 0=arrive 1=finish 2=cap
    for i in order:
        heapq.heappush(events, (jobs[i].submit, 0, i))
        if jobs[i].fate == "cancelled":
            heapq.heappush(events, (jobs[i].submit + jobs[i].fate_after, 3, i))
    for t, _ in capacity_points[1:]:
        heapq.heappush(events, (t, 2, -1))
    cap_times = [t for t, _ in capacity_points]
    version: dict[int, int] = {}

    def cap_at(t: float) -> int:
        k = int(np.searchsorted(cap_times, t, side="right")) - 1
        return capacity_points[max(k, 0)][1]

    def advance(i: int, t: float) -> None:
        dt = t - last[i]
        if dt > 0:
            remaining[i] -= jobs[i].throughput(size[i]) * dt
            ran[i] = ran.get(i, 0.0) + dt
        last[i] = t

    def finish_time(i: int, t: float) -> float:
        job = jobs[i]
        done = t + max(remaining[i], 0.0) / job.throughput(size[i])
        if job.fate == "failed":
            done = min(done, t + max(job.fate_after - ran.get(i, 0.0), 0.0))
        return done

    def set_size(i: int, n: int, t: float) -> None:
        job = jobs[i]
        if job.intervals and job.intervals[-1][1] is None:
            s, _, old = job.intervals[-1]
            job.intervals[-1] = (s, t, old)
        job.intervals.append((t, None, n))
        size[i] = n
        last[i] = t
        remaining[i] += job.throughput(n) * RESCALE_SECONDS * (1 if i in ran else 0)
        version[i] = version.get(i, 0) + 1
        heapq.heappush(events, (finish_time(i, t), 1, i * 1_000_000 + version[i]))

    def reschedule(t: float) -> None:
        free = cap_at(t) - sum(size.values())
        for i in sorted(size, key=lambda k: (jobs[k].submit, k)):
            if free <= 0:
                break
            grow = min(free, jobs[i].max_nodes - size[i])
            if grow > 0:
                advance(i, t)
                set_size(i, size[i] + grow, t)
                free -= grow
        for i in list(queue):
            job = jobs[i]
            if free >= job.min_nodes:
                n = min(free, job.max_nodes)
                queue.remove(i)
                set_size(i, n, t)
                free -= n
            else:
                break  # first come, first served: no overtaking

    while events:
        t, kind, key = heapq.heappop(events)
        if t > horizon:
            break
        if kind == 0:
            queue.append(key)
        elif kind == 3:
            if key in queue:
                queue.remove(key)
                jobs[key].end = t
            else:
                continue
        elif kind == 1:
            i, ver = divmod(key, 1_000_000)
            if i not in size or version[i] != ver:
                continue
            advance(i, t)
            s, _, n = jobs[i].intervals[-1]
            jobs[i].intervals[-1] = (s, t, n)
            jobs[i].end = t
            if jobs[i].fate == "cancelled":
                jobs[i].fate = "completed"   # it got to run before its owner gave up
            del size[i]
        reschedule(t)


def generate_trace(n_jobs: int, seed: int, capacity: int = 64, load: float = 0.9,
                   start: datetime = DEFAULT_START, pool: str = "default") -> SynthTrace:
    rng = np.random.default_rng(seed)
    jobs, span = make_jobs(n_jobs, rng, capacity, load)
    caps = make_capacity(rng, capacity, span)
    horizon = float(max(j.submit for j in jobs)) if jobs else 0.0
    simulate(jobs, caps, horizon)
    return SynthTrace(jobs=jobs, capacity=caps, horizon=horizon, start=start, pool=pool)


def _ts(start: datetime, seconds: float) -> str:
    return (start + timedelta(seconds=round(seconds))).strftime("%Y-%m-%dT%H:%M:%SZ")


EVENT_COLUMNS = ["job_id", "event_time", "event", "nodes", "min_nodes", "max_nodes",
                 "requested_nodes", "total_work", "weight", "model", "tenant"]
SAMPLE_COLUMNS = ["job_id", "sample_time", "nodes", "throughput"]
CAPACITY_COLUMNS = ["pool", "effective_from", "nodes"]


def event_rows(trace: SynthTrace) -> list[dict]:
    rows = []
    for job in sorted(trace.jobs, key=lambda j: (j.submit, j.job_id)):
        base = {c: None for c in EVENT_COLUMNS} | {"job_id": job.job_id}
        rows.append(base | {
            "event_time": job.submit, "event": "submitted", "min_nodes": job.min_nodes,
            "max_nodes": job.max_nodes, "requested_nodes": job.requested_nodes,
            "total_work": job.total_work, "weight": job.weight, "model": job.model,
            "tenant": job.tenant})
        for k, (s, _, n) in enumerate(job.intervals):
            rows.append(base | {"event_time": s, "event": "started" if k == 0 else "scaled",
                                "nodes": n})
        if job.end is not None:
            rows.append(base | {"event_time": job.end, "event": job.fate})
    rows.sort(key=lambda r: (r["event_time"], r["job_id"]))
    for r in rows:
        r["event_time"] = _ts(trace.start, r["event_time"])
    return rows


def sample_rows(trace: SynthTrace, rng: np.random.Generator) -> list[dict]:
    rows = []
    for job in trace.jobs:
        for s, e, n in job.intervals:
            end = trace.horizon if e is None else e
            first = s + RESCALE_SECONDS + 60.0
            if end <= first:
                continue
            count = min(MAX_SAMPLES_PER_INTERVAL, int((end - first) // SAMPLE_EVERY_S) + 1)
            noise = rng.normal(0.0, 0.03, count)
            for k in range(count):
                rows.append({"job_id": job.job_id,
                             "sample_time": s + RESCALE_SECONDS + 60.0 + k * SAMPLE_EVERY_S,
                             "nodes": n,
                             "throughput": round(job.throughput(n) * (1.0 + noise[k]), 3)})
    rows.sort(key=lambda r: (r["sample_time"], r["job_id"]))
    for r in rows:
        r["sample_time"] = _ts(trace.start, r["sample_time"])
    return rows


def capacity_rows(trace: SynthTrace) -> list[dict]:
    return [{"pool": trace.pool, "effective_from": _ts(trace.start, t), "nodes": n}
            for t, n in trace.capacity]


def truth(trace: SynthTrace) -> dict:
    return {
        "curve": "throughput(n) = f1 * n / (1 + serial * (n - 1))",
        "start": trace.start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "log_end": _ts(trace.start, trace.horizon),
        "rescale_seconds": RESCALE_SECONDS,
        "jobs": {j.job_id: {"f1": j.f1, "serial": j.serial,
                            "throughput": {str(n): round(j.throughput(n), 6)
                                           for n in range(j.min_nodes, j.max_nodes + 1)}}
                 for j in trace.jobs},
    }


def inject_faults(rows: list[dict], fraction: float, rng: np.random.Generator, kind: str
                  ) -> list[dict]:
    """Replace about `fraction` of the rows by faulty copies (the originals stay too, except
    for duplicates). Faults rotate over the kinds a real log shows."""
    if fraction <= 0 or not rows:
        return rows
    n_bad = max(1, int(round(fraction * len(rows))))
    picks = rng.choice(len(rows), size=min(n_bad, len(rows)), replace=False)
    out = list(rows)
    for k, idx in enumerate(sorted(picks)):
        bad = dict(rows[idx])
        if kind == "events":
            fault = k % 6
            if fault == 0:
                bad["job_id"] = None
            elif fault == 1:
                bad["event_time"] = "yesterday"
            elif fault == 2:
                bad["job_id"] = f"ghost-{k}"
                bad["event"] = "started"
                bad["nodes"] = 1
            elif fault == 3:
                bad["event"] = "exploded"
            elif fault == 4:
                pass                                   # exact duplicate
            else:
                bad["nodes"] = -2
                bad["event"] = "scaled"
        else:
            fault = k % 3
            if fault == 0:
                bad["throughput"] = -abs(bad["throughput"])
            elif fault == 1:
                bad["nodes"] = "four"
            # else exact duplicate
        out.append(bad)
    key = "event_time" if kind == "events" else "sample_time"
    out.sort(key=lambda r: (str(r[key]), str(r["job_id"])))
    return out


def write_rows(rows: list[dict], columns: list[str], path: Path, fmt: str) -> Path:
    path = path.with_suffix({"csv": ".csv", "jsonl": ".jsonl", "parquet": ".parquet"}[fmt])
    if fmt == "csv":
        with path.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(columns)
            for r in rows:
                w.writerow(["" if r[c] is None else r[c] for c in columns])
    elif fmt == "jsonl":
        with path.open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps({c: r[c] for c in columns if r[c] is not None}) + "\n")
    else:
        table = pa.table({c: pa.array([None if r[c] is None else str(r[c]) for r in rows],
                                      type=pa.string()) for c in columns})
        pq.write_table(table, path, compression="zstd")
    return path


def write_logs(out: Path, n_jobs: int, seed: int, *, capacity: int = 64, load: float = 0.9,
               bad_rows: float = 0.0, formats: dict[str, str] | None = None) -> dict[str, Path]:
    """Write job_events, throughput_samples, capacity and truth.json into `out`."""
    fmts = {"job_events": "csv", "throughput_samples": "csv", "capacity": "csv"}
    fmts.update(formats or {})
    out.mkdir(parents=True, exist_ok=True)
    trace = generate_trace(n_jobs, seed, capacity=capacity, load=load)
    rng = np.random.default_rng([seed, 1])
    events = inject_faults(event_rows(trace), bad_rows, rng, "events")
    samples = inject_faults(sample_rows(trace, rng), bad_rows, rng, "samples")
    written = {
        "job_events": write_rows(events, EVENT_COLUMNS, out / "job_events", fmts["job_events"]),
        "throughput_samples": write_rows(samples, SAMPLE_COLUMNS, out / "throughput_samples",
                                     fmts["throughput_samples"]),
        "capacity": write_rows(capacity_rows(trace), CAPACITY_COLUMNS, out / "capacity",
                           fmts["capacity"]),
    }
    truth_path = out / "truth.json"
    truth_path.write_text(json.dumps(truth(trace), indent=1, sort_keys=True) + "\n")
    written["truth"] = truth_path
    return written

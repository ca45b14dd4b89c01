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

import heapq
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from solver.instance import DEFAULT_RESCALE_SECONDS as RESCALE_SECONDS
from sources.feeds import CAPACITY, EVENT_COLUMNS, JOB_EVENTS, THROUGHPUT_SAMPLES, write_rows
from sources.truth import write_truth

DEFAULT_START = datetime(2026, 11, 30, tzinfo=UTC)
SAMPLE_EVERY_S = 300.0
MAX_SAMPLES_PER_INTERVAL = 12

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


def _specs(n_jobs: int, rng: np.random.Generator, capacity: int) -> dict[str, np.ndarray]:
    """Every random draw of the jobs, one array per quantity (the order of draws is fixed:
    same seed, same jobs)."""
    shares = np.array([c[3] for c in MODEL_CLASSES])
    d = {"cls": rng.choice(len(MODEL_CLASSES), size=n_jobs, p=shares / shares.sum())}
    req = rng.choice(REQUESTED_SIZES, size=n_jobs, p=REQUESTED_PROBS)
    d["req"] = req = np.minimum(req, max(1, capacity // 2))
    elastic = rng.random(n_jobs) > 0.2
    down = rng.choice([1, 2, 4], size=n_jobs, p=[0.3, 0.4, 0.3])
    up = rng.choice([1, 2, 4], size=n_jobs, p=[0.2, 0.5, 0.3])
    d["min_nodes"] = np.where(elastic, np.maximum(1, req // down), req)
    d["max_nodes"] = np.where(elastic, np.minimum(np.maximum(req * up, req),
                                                  max(1, capacity // 2)), req)
    # run time at the requested size: heavy tailed, median 40 min, capped at 2 days
    run_s = np.minimum(np.exp(rng.normal(math.log(2400.0), 1.1, n_jobs)), 172800.0)
    d["run_s"] = np.maximum(run_s, 120.0)
    d["f1_var"] = np.exp(rng.normal(0.0, 0.15, n_jobs))
    d["s_var"] = np.exp(rng.normal(0.0, 0.3, n_jobs))
    d["weight"] = rng.choice([1.0, 1.0, 1.0, 2.0], size=n_jobs)
    d["tenant"] = rng.choice(len(TENANTS), size=n_jobs)
    d["fate_draw"] = rng.random(n_jobs)
    d["fate_frac"] = rng.random(n_jobs)
    return d


def _job(i: int, d: dict[str, np.ndarray]) -> SynthJob:
    name, f1, serial, _ = MODEL_CLASSES[d["cls"][i]]
    job = SynthJob(
        job_id=f"job-{i + 1:06d}", model=name, tenant=TENANTS[d["tenant"][i]], submit=0.0,
        min_nodes=int(d["min_nodes"][i]), max_nodes=int(d["max_nodes"][i]),
        requested_nodes=int(d["req"][i]), total_work=0.0, weight=float(d["weight"][i]),
        f1=round(f1 * float(d["f1_var"][i]), 3),
        serial=min(0.6, round(serial * float(d["s_var"][i]), 4)),
    )
    run_s = d["run_s"][i]
    job.total_work = float(round(run_s * job.throughput(job.requested_nodes)))
    if d["fate_draw"][i] < 0.03:
        job.fate, job.fate_after = "failed", float(run_s * d["fate_frac"][i])
    elif d["fate_draw"][i] < 0.05:
        job.fate, job.fate_after = "cancelled", float(3600.0 * (0.5 + d["fate_frac"][i]))
    return job


def _submit_times(n_jobs: int, rng: np.random.Generator, span: float) -> np.ndarray:
    """Poisson arrivals over [0, span] with a daily cycle, conditioned on n_jobs: the cumulative
    intensity inverted at sorted uniform draws."""
    grid = np.linspace(0.0, span, 4097)
    intensity = 1.0 + 0.6 * np.sin(2 * math.pi * (grid / 86400.0 - 0.25))
    cum = np.concatenate([[0.0], np.cumsum((intensity[1:] + intensity[:-1]) / 2 * np.diff(grid))])
    u = np.sort(rng.random(n_jobs)) * cum[-1]
    return np.interp(u, cum, grid)


def make_jobs(n_jobs: int, rng: np.random.Generator, capacity: int, load: float
              ) -> tuple[list[SynthJob], float]:
    """The jobs and the length of the arrival window, which the offered load decides."""
    d = _specs(n_jobs, rng, capacity)
    jobs = [_job(i, d) for i in range(n_jobs)]
    node_seconds = float(np.sum(d["run_s"] * d["req"]))
    span = node_seconds / (load * capacity)
    for job, t in zip(jobs, _submit_times(n_jobs, rng, span), strict=True):
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


# kinds of simulator events, in the order they are taken at the same time
ARRIVE, FINISH, CAPACITY_CHANGE, CANCEL = 0, 1, 2, 3


class _Fcfs:
    """Elastic FCFS: start a queued job when its minimum fits, give it up to its maximum, hand
    freed nodes to running jobs in submit order. Fills each job's intervals and end."""

    def __init__(self, jobs: list[SynthJob], capacity_points: list[tuple[float, int]]) -> None:
        self.jobs = jobs
        self.capacity_points = capacity_points
        self.cap_times = [t for t, _ in capacity_points]
        order = sorted(range(len(jobs)), key=lambda i: (jobs[i].submit, i))
        self.remaining = {i: jobs[i].total_work for i in order}
        self.size: dict[int, int] = {}
        self.last: dict[int, float] = {}
        self.ran: dict[int, float] = {}
        self.version: dict[int, int] = {}
        self.queue: list[int] = []
        self.events: list[tuple[float, int, int]] = []   # (time, kind, job or job+version)
        for i in order:
            heapq.heappush(self.events, (jobs[i].submit, ARRIVE, i))
            if jobs[i].fate == "cancelled":
                heapq.heappush(self.events, (jobs[i].submit + jobs[i].fate_after, CANCEL, i))
        for t, _ in capacity_points[1:]:
            heapq.heappush(self.events, (t, CAPACITY_CHANGE, -1))

    def cap_at(self, t: float) -> int:
        k = int(np.searchsorted(self.cap_times, t, side="right")) - 1
        return self.capacity_points[max(k, 0)][1]

    def advance(self, i: int, t: float) -> None:
        dt = t - self.last[i]
        if dt > 0:
            self.remaining[i] -= self.jobs[i].throughput(self.size[i]) * dt
            self.ran[i] = self.ran.get(i, 0.0) + dt
        self.last[i] = t

    def finish_time(self, i: int, t: float) -> float:
        job = self.jobs[i]
        done = t + max(self.remaining[i], 0.0) / job.throughput(self.size[i])
        if job.fate == "failed":
            done = min(done, t + max(job.fate_after - self.ran.get(i, 0.0), 0.0))
        return done

    def set_size(self, i: int, n: int, t: float) -> None:
        job = self.jobs[i]
        if job.intervals and job.intervals[-1][1] is None:
            s, _, old = job.intervals[-1]
            job.intervals[-1] = (s, t, old)
        job.intervals.append((t, None, n))
        self.size[i] = n
        self.last[i] = t
        # a resize of a job that already ran costs the rescale time at the new size
        self.remaining[i] += job.throughput(n) * RESCALE_SECONDS * (1 if i in self.ran else 0)
        self.version[i] = self.version.get(i, 0) + 1
        heapq.heappush(self.events, (self.finish_time(i, t), FINISH,
                                     i * 1_000_000 + self.version[i]))

    def reschedule(self, t: float) -> None:
        free = self.cap_at(t) - sum(self.size.values())
        for i in sorted(self.size, key=lambda k: (self.jobs[k].submit, k)):
            if free <= 0:
                break
            grow = min(free, self.jobs[i].max_nodes - self.size[i])
            if grow > 0:
                self.advance(i, t)
                self.set_size(i, self.size[i] + grow, t)
                free -= grow
        for i in list(self.queue):
            job = self.jobs[i]
            if free < job.min_nodes:
                break  # first come, first served: no overtaking
            n = min(free, job.max_nodes)
            self.queue.remove(i)
            self.set_size(i, n, t)
            free -= n

    def cancel(self, i: int, t: float) -> bool:
        """The owner gives up on a job still queued; False when it already runs."""
        if i not in self.queue:
            return False
        self.queue.remove(i)
        self.jobs[i].end = t
        return True

    def finish(self, key: int, t: float) -> None:
        i, ver = divmod(key, 1_000_000)
        if i not in self.size or self.version[i] != ver:
            return       # a finish planned before the job's last resize
        job = self.jobs[i]
        self.advance(i, t)
        s, _, n = job.intervals[-1]
        job.intervals[-1] = (s, t, n)
        job.end = t
        if job.fate == "cancelled":
            job.fate = "completed"   # it got to run before its owner gave up
        del self.size[i]

    def run(self, horizon: float) -> None:
        while self.events:
            t, kind, key = heapq.heappop(self.events)
            if t > horizon:
                break
            if kind == ARRIVE:
                self.queue.append(key)
            elif kind == CANCEL and not self.cancel(key, t):
                continue
            elif kind == FINISH:
                self.finish(key, t)
            self.reschedule(t)


def simulate(jobs: list[SynthJob], capacity_points: list[tuple[float, int]], horizon: float
             ) -> None:
    """Run the elastic FCFS pool until `horizon`; fills each job's intervals and end."""
    _Fcfs(jobs, capacity_points).run(horizon)


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


def write_trace_truth(path: Path, trace: SynthTrace) -> Path:
    """truth.json: each job's true curve over its allowed sizes, and its f1 and serial."""
    jobs = {j.job_id: {"f1": j.f1, "serial": j.serial,
                       "throughput": {str(n): round(j.throughput(n), 6)
                                      for n in range(j.min_nodes, j.max_nodes + 1)}}
            for j in trace.jobs}
    return write_truth(path, jobs, curve="throughput(n) = f1 * n / (1 + serial * (n - 1))",
                       start=trace.start.strftime("%Y-%m-%dT%H:%M:%SZ"),
                       rescale_seconds=RESCALE_SECONDS,
                       log_end=_ts(trace.start, trace.horizon))


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


def write_logs(out: Path, n_jobs: int, seed: int, *, capacity: int = 64, load: float = 0.9,
               bad_rows: float = 0.0, formats: dict[str, str] | None = None) -> dict[str, Path]:
    """Write job_events, throughput_samples, capacity and truth.json into `out`."""
    fmts = dict.fromkeys((JOB_EVENTS, THROUGHPUT_SAMPLES, CAPACITY), "csv")
    fmts.update(formats or {})
    out.mkdir(parents=True, exist_ok=True)
    trace = generate_trace(n_jobs, seed, capacity=capacity, load=load)
    rng = np.random.default_rng([seed, 1])
    events = inject_faults(event_rows(trace), bad_rows, rng, "events")
    samples = inject_faults(sample_rows(trace, rng), bad_rows, rng, "samples")
    written = {
        JOB_EVENTS: write_rows(JOB_EVENTS, events, out / JOB_EVENTS, fmts[JOB_EVENTS]),
        THROUGHPUT_SAMPLES: write_rows(THROUGHPUT_SAMPLES, samples, out / THROUGHPUT_SAMPLES,
                                       fmts[THROUGHPUT_SAMPLES]),
        CAPACITY: write_rows(CAPACITY, capacity_rows(trace), out / CAPACITY, fmts[CAPACITY]),
    }
    written["truth"] = write_trace_truth(out / "truth.json", trace)
    return written

"""Replay: every window the policy plans from what the platform would see (estimated curves
from the samples observed so far, remaining work, waiting times); the engine executes the
plan's first slot against the TRUE curves. A start or size change costs the rescale seconds, a
job completes at the exact moment its work runs out and frees its nodes, capacity changes
apply at window boundaries, and jobs report a throughput sample each window they run."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from replay.trace import Trace, TraceJob
from solver.instance import Instance, Job, candidate_sizes
from solver.policies import Settings, plan

log = logging.getLogger(__name__)

# (jobs that need a curve, samples so far) -> {job_id: {nodes: samples/s}}
Estimator = Callable[[list[TraceJob], list[tuple[str, float, int, float]]],
                     dict[str, dict[int, float]]]
SAMPLE_NOISE = 0.03


@dataclass
class JobState:
    job: TraceJob
    remaining: float
    nodes: int = 0
    first_start: float | None = None
    finish: float | None = None
    rescales: int = 0
    node_seconds: float = 0.0

    @property
    def done(self) -> bool:
        return self.finish is not None


@dataclass
class WindowRecord:
    t: float
    queued: int
    running: int
    allocated: int
    capacity: int
    decision_seconds: float
    solver: str
    status: str
    mip_gap: float | None


@dataclass
class ReplayResult:
    policy: str
    states: list[JobState]
    windows: list[WindowRecord] = field(default_factory=list)
    end_time: float = 0.0
    capacity_segments: list[tuple[float, float, int]] = field(default_factory=list)
    # (start, end, nodes in the pool)

    def capacity_node_seconds(self, start: float, end: float) -> float:
        return sum(n * max(0.0, min(b, end) - max(a, start))
                   for a, b, n in self.capacity_segments)
    intervals: list[tuple[str, float, float, int]] = field(default_factory=list)
    # (job_id, start, end, nodes): the allocation history


@dataclass
class ReplayConfig:
    window: float = 300.0
    slots: int = 6
    replan_on_events: bool = False
    settings: Settings = field(default_factory=Settings)
    seed: int = 0
    max_windows: int = 200_000


def replay(trace: Trace, policy: str, estimator: Estimator, config: ReplayConfig | None = None,
           on_progress: Callable[[float, float], None] | None = None) -> ReplayResult:
    cfg = config or ReplayConfig()
    rng = np.random.default_rng(cfg.seed)
    states = [JobState(j, j.total_work) for j in trace.jobs]
    samples = list(trace.samples)
    per_machine = trace.nodes_per_machine
    result = ReplayResult(policy, states)
    curves: dict[str, dict[int, float]] = {}
    stale = True
    last_arrival = max((j.submit for j in trace.jobs), default=0.0)
    t = min((j.submit for j in trace.jobs), default=0.0)
    start_t = t
    open_since: dict[str, tuple[float, int]] = {}
    hint: dict[str, list[int]] = {}
    for _ in range(cfg.max_windows):
        active = [s for s in states if s.job.submit <= t and not s.done]
        if not active:
            future = [s.job.submit for s in states if s.job.submit > t]
            if not future:
                break
            t_next = min(future)
            result.capacity_segments.append((t, t_next, trace.capacity_at(t)))
            t = t_next
            continue
        cap = trace.capacity_at(t)
        if stale or any(s.job.job_id not in curves for s in active):
            seen = [x for x in samples if x[1] <= t]
            curves = estimator([s.job for s in states if s.job.submit <= t], seen)
            stale = False
        inst = _instance(active, curves, t, cap, cfg, trace.rescale_seconds)
        started = time.perf_counter()
        p = plan(inst, policy, cfg.settings, hint=hint)
        decision = time.perf_counter() - started
        first = {a.job_id: a.nodes for a in p.allocations if a.slot == 0}
        # the rest of this plan, one slot on, is the next window's warm start
        hint = {job_id: row[1:] for job_id, row in p.nodes_by_job().items()}

        # what each job does this window: (state, nodes, seconds lost to the rescale)
        moves = []
        for s in active:
            n = first.get(s.job.job_id, 0)
            moves.append((s, n, trace.rescale_seconds if n > 0 and n != s.nodes else 0.0))
        window_end = t + cfg.window
        if cfg.replan_on_events:
            # the next arrival or completion ends the window
            events = [s.job.submit for s in states if t < s.job.submit < window_end]
            events += [t + lost + s.remaining / s.job.true_throughput[n]
                       for s, n, lost in moves if n > 0]
            window_end = max(min([window_end, *events]), t + 1e-6)
        for s, n, lost in moves:
            if n != s.nodes:
                if s.nodes > 0:
                    _close(result, open_since, s, t)
                if n > 0:
                    if s.first_start is None:
                        s.first_start = t
                    elif s.nodes > 0:
                        s.rescales += 1
                    open_since[s.job.job_id] = (t, n)
                s.nodes = n
            if n == 0:
                continue
            rate = s.job.true_throughput[n]
            busy = max(0.0, window_end - t - lost)
            if rate * busy >= s.remaining * (1 - 1e-12):
                s.finish = t + lost + s.remaining / rate
                s.node_seconds += n * (s.finish - t)
                s.remaining = 0.0
                _close(result, open_since, s, s.finish)
                s.nodes = 0
            else:
                s.remaining -= rate * busy
                s.node_seconds += n * (window_end - t)
                if busy > 0:
                    samples.append((s.job.job_id, window_end, n,
                                    rate * (1.0 + SAMPLE_NOISE * float(rng.standard_normal())),
                                    -(-n // per_machine) if per_machine else None))
                    stale = True
        result.windows.append(WindowRecord(
            t=t, queued=sum(1 for s in active if s.first_start is None),
            running=sum(1 for _, n, _ in moves if n > 0),
            allocated=sum(n for _, n, _ in moves), capacity=cap,
            decision_seconds=decision, solver=p.solver, status=p.status, mip_gap=p.mip_gap))
        result.capacity_segments.append((t, window_end, cap))
        t = window_end
        if on_progress:
            on_progress(t - start_t, max(last_arrival - start_t, 1.0))
    else:
        log.warning("replay of %s stopped after %d windows with jobs unfinished", policy,
                    cfg.max_windows)
    for s in states:
        if s.nodes > 0:
            _close(result, open_since, s, t)
    result.end_time = t
    return result


def _close(result: ReplayResult, open_since: dict[str, tuple[float, int]], s: JobState,
           t: float) -> None:
    began = open_since.pop(s.job.job_id, None)
    if began is not None and t > began[0]:
        result.intervals.append((s.job.job_id, began[0], t, began[1]))


def _instance(active: list[JobState], curves: dict[str, dict[int, float]], t: float, cap: int,
              cfg: ReplayConfig, rescale: float) -> Instance:
    jobs = []
    for s in active:
        j = s.job
        est = curves[j.job_id]
        allowed = [n for n in candidate_sizes(j.min_nodes, j.max_nodes, j.requested_nodes,
                                              s.nodes) if est.get(n, 0) > 0]
        jobs.append(Job(
            job_id=j.job_id, min_nodes=j.min_nodes, max_nodes=j.max_nodes,
            requested_nodes=j.requested_nodes, current_nodes=s.nodes,
            remaining_work=s.remaining, total_work=j.total_work, weight=j.weight,
            waiting_seconds=(t - j.submit) if s.first_start is None else 0.0,
            rescale_seconds=rescale, throughput={n: est[n] for n in allowed},
            allowed_nodes=allowed))
    return Instance(jobs=jobs, capacity=[cap] * cfg.slots, slot_seconds=cfg.window,
                    num_slots=cfg.slots)


def oracle_estimator(trace: Trace) -> Estimator:
    """Curves known exactly (tests, and the 'perfect information' reference)."""
    truth = {j.job_id: dict(j.true_throughput) for j in trace.jobs}

    def estimate(jobs: list[TraceJob], _samples) -> dict[str, dict[int, float]]:
        return {j.job_id: truth[j.job_id] for j in jobs}

    return estimate

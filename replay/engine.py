"""Replay: every window the policy plans from what the platform would see (estimated curves
from the samples observed so far, remaining work, waiting times); the engine executes the
plan's first slot against the TRUE curves. A start or size change costs the rescale seconds, a
job completes at the exact moment its work runs out and frees its nodes, capacity changes
apply at window boundaries, and jobs report a throughput sample each window they run.

Each window is two steps: `plan_window` (estimate, build the instance, ask the policy) and
`execute_first_slot` (run the plan's first slot). Between them the engine checks the rules
every plan must keep — capacity, sizes within [min, max], no preemption unless allowed — and
raises `RuleBroken` when one is broken."""

from __future__ import annotations

import bisect
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from replay.trace import Trace, TraceJob
from solver.capacity import preemptible_jobs
from solver.churn_rules import ChurnRules
from solver.instance import Instance, job_from_state
from solver.policies import Settings, plan

if TYPE_CHECKING:
    from solver.plans import Plan

log = logging.getLogger(__name__)

# (jobs submitted so far, samples so far, ids of the jobs that need a curve)
#   -> {job_id: {nodes: samples/s}} for at least the jobs that need one; the other jobs inform
#   their model class only (a finished job's samples still count, its curve is never used)
Estimator = Callable[[list[TraceJob], list[tuple[str, float, int, float]], set[str]],
                     dict[str, dict[int, float]]]
SAMPLE_NOISE = 0.03
# the replay refits the curves when a job reports a (size, machines) it had no sample of, or
# once the samples have grown by this share since the last fit: a median of k samples with 3 %
# noise moves by about 3 %/√k, so more samples of sizes already seen move the curves within
# noise, and refitting for each of them (about 100 ms of DuckDB per fit, most windows) was 90 %
# of a baseline's replay; a job that arrives in between is fitted alone (`_Replay._fit`)
REFIT_GROWTH = 0.25


class RuleBroken(AssertionError):
    """A policy's plan broke a rule of DESIGN §4 in the replay (an internal error)."""


@dataclass
class JobState:
    job: TraceJob
    remaining: float
    nodes: int = 0
    first_start: float | None = None
    finish: float | None = None
    rescales: int = 0
    node_seconds: float = 0.0
    resized_at: float | None = None   # when its size last changed (a start too)

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
    intervals: list[tuple[str, float, float, int]] = field(default_factory=list)
    # (job_id, start, end, nodes): the allocation history
    unschedulable: list[str] = field(default_factory=list)
    # jobs that could never fit (their smallest size above the pool); the replay ended
    # without them

    def capacity_node_seconds(self, start: float, end: float) -> float:
        return sum(n * max(0.0, min(b, end) - max(a, start))
                   for a, b, n in self.capacity_segments)

    @property
    def unfinished(self) -> list[str]:
        """Jobs the replay stopped before they completed (it ran out of windows)."""
        return [s.job.job_id for s in self.states if not s.done]


@dataclass
class ReplayConfig:
    """How to replay: a plan every `window` seconds over `slots` slots of that length (the
    defaults live with the callers, flows.defaults)."""
    window: float
    slots: int
    replan_on_events: bool = False
    settings: Settings = field(default_factory=Settings)
    churn: ChurnRules = field(default_factory=ChurnRules)   # DESIGN §4.1, every window
    seed: int = 0
    max_windows: int = 200_000


@dataclass
class Move:
    """What one job does in a window's first slot."""
    state: JobState
    nodes: int
    lost: float          # seconds lost to the start or size change


@dataclass
class PlannedWindow:
    t: float
    capacity: int
    active: list[JobState]
    plan: Plan
    decision_seconds: float
    moves: list[Move]


def replay(trace: Trace, policy: str, estimator: Estimator, config: ReplayConfig,
           on_progress: Callable[[float, float], None] | None = None) -> ReplayResult:
    return _Replay(trace, policy, estimator, config).run(on_progress)


class _Replay:
    """The replay's moving state: the clock, the samples seen so far, the estimated curves,
    the warm start for the next window and the open allocation intervals."""

    def __init__(self, trace: Trace, policy: str, estimator: Estimator, cfg: ReplayConfig):
        self.trace, self.policy, self.estimator, self.cfg = trace, policy, estimator, cfg
        self.rng = np.random.default_rng(cfg.seed)
        self.states = [JobState(j, j.total_work) for j in trace.jobs]
        self.samples = list(trace.samples)
        self.result = ReplayResult(policy, self.states)
        self.curves: dict[str, dict[int, float]] = {}
        self.stale = True
        self.fitted: set[tuple] = set()   # the (job, nodes, machines) the last fit had samples of
        self.fitted_samples = 0           # how many samples the last fit had
        self.new_samples = 0              # samples reported since the last fit
        self.logged = sorted(trace.samples, key=_sample_time)   # the logs' samples become
        self.logged_seen = 0                                     # visible in time order, and
                                                                 # how many have
        self.t = min((j.submit for j in trace.jobs), default=0.0)
        self.open_since: dict[str, tuple[float, int]] = {}
        self.hint: dict[str, list[int]] = {}
        # jobs whose smallest size is above every capacity of the trace can never run
        most = max((n for _, n in trace.capacity), default=0)
        self.result.unschedulable = [j.job_id for j in trace.jobs if j.min_nodes > most]
        self.waiting = [s for s in self.states if s.job.job_id not in self.result.unschedulable]

    def run(self, on_progress: Callable[[float, float], None] | None) -> ReplayResult:
        start_t = self.t
        last_arrival = max((j.submit for j in self.trace.jobs), default=0.0)
        for _ in range(self.cfg.max_windows):
            active = [s for s in self.waiting if s.job.submit <= self.t and not s.done]
            if not active:
                if not self._skip_to_next_arrival():
                    break
                continue
            self.execute_first_slot(self.plan_window(active))
            if on_progress:
                on_progress(self.t - start_t, max(last_arrival - start_t, 1.0))
        else:
            log.warning("replay of %s stopped after %d windows with jobs unfinished: %s",
                        self.policy, self.cfg.max_windows, ", ".join(self.result.unfinished))
        for s in self.states:
            if s.nodes > 0:
                self._close(s, self.t)
        self.result.end_time = self.t
        return self.result

    def _skip_to_next_arrival(self) -> bool:
        """Nothing to run: the clock jumps to the next submission (False when none is left)."""
        future = [s.job.submit for s in self.waiting if s.job.submit > self.t]
        if not future:
            return False
        t_next = min(future)
        self.result.capacity_segments.append((self.t, t_next, self.trace.capacity_at(self.t)))
        self.t = t_next
        return True

    # ---- step 1: plan a window ------------------------------------------------------------
    def plan_window(self, active: list[JobState]) -> PlannedWindow:
        t, cap = self.t, self.trace.capacity_at(self.t)
        self._fit(active, t)
        inst = _instance(active, self.curves, t, cap, self.cfg, self.trace.rescale_seconds)
        started = time.perf_counter()
        p = plan(inst, self.policy, self.cfg.settings, hint=self.hint, prices=False)
        decision = time.perf_counter() - started
        self.hint = p.next_hint()
        first = p.first_slot()
        rescale = self.trace.rescale_seconds
        moves = []
        for s in active:
            n = first.get(s.job.job_id, 0)
            moves.append(Move(s, n, rescale if n > 0 and n != s.nodes else 0.0))
        check_rules(inst, moves, cap, preemption=self.cfg.settings.preemption,
                    policy=self.policy, t=t)
        return PlannedWindow(t, cap, active, p, decision, moves)

    def _fit(self, active: list[JobState], t: float) -> None:
        """Curves for the window: every active job's when the samples are stale (REFIT_GROWTH;
        the logs' samples count from when they become visible); else the curves of the jobs
        that have none yet (new arrivals), fitted alone on the samples of now, while the
        others keep theirs as between any two refits."""
        visible = bisect.bisect_right(self.logged, t, key=_sample_time)
        for x in self.logged[self.logged_seen:visible]:
            self._note_sample(x)
        self.logged_seen = visible
        wanted = {s.job.job_id for s in active if self.stale or s.job.job_id not in self.curves}
        if not wanted:
            return
        seen = [x for x in self.samples if x[1] <= t]
        curves = self.estimator([s.job for s in self.states if s.job.submit <= t], seen, wanted)
        if not self.stale:   # their samples so far are in their curves
            self.curves.update({job_id: curves[job_id] for job_id in wanted})
            self.fitted |= {_sample_key(x) for x in seen if x[0] in wanted}
            return
        self.curves, self.stale = curves, False
        self.fitted = {_sample_key(x) for x in seen}
        self.fitted_samples, self.new_samples = len(seen), 0

    # ---- step 2: execute its first slot ---------------------------------------------------
    def execute_first_slot(self, w: PlannedWindow) -> None:
        window_end = self._window_end(w)
        for m in w.moves:
            self._resize(m.state, m.nodes, w.t)
            if m.nodes > 0:
                self._run(m, w.t, window_end)
        self.result.windows.append(WindowRecord(
            t=w.t, queued=sum(1 for s in w.active if s.first_start is None),
            running=sum(1 for m in w.moves if m.nodes > 0),
            allocated=sum(m.nodes for m in w.moves), capacity=w.capacity,
            decision_seconds=w.decision_seconds, solver=w.plan.solver, status=w.plan.status,
            mip_gap=w.plan.mip_gap))
        self.result.capacity_segments.append((w.t, window_end, w.capacity))
        self.t = window_end

    def _window_end(self, w: PlannedWindow) -> float:
        window_end = w.t + self.cfg.window
        if not self.cfg.replan_on_events:
            return window_end
        # the next arrival or completion ends the window
        events = [s.job.submit for s in self.states if w.t < s.job.submit < window_end]
        events += [w.t + m.lost + m.state.remaining / m.state.job.true_throughput[m.nodes]
                   for m in w.moves if m.nodes > 0]
        return max(min([window_end, *events]), w.t + 1e-6)

    def _resize(self, s: JobState, n: int, t: float) -> None:
        """Start, stop or rescale a job at t (nothing when its size stays)."""
        if n == s.nodes:
            return
        if s.nodes > 0:
            self._close(s, t)
        if n > 0:
            if s.first_start is None:
                s.first_start = t
            elif s.nodes > 0:
                s.rescales += 1
            self.open_since[s.job.job_id] = (t, n)
        s.nodes = n
        s.resized_at = t

    def _run(self, m: Move, t: float, window_end: float) -> None:
        """The job works at its true rate until the window ends or its work runs out."""
        s, n = m.state, m.nodes
        rate = s.job.true_throughput[n]
        busy = max(0.0, window_end - t - m.lost)
        if rate * busy >= s.remaining * (1 - 1e-12):
            s.finish = t + m.lost + s.remaining / rate
            s.node_seconds += n * (s.finish - t)
            s.remaining = 0.0
            self._close(s, s.finish)
            s.nodes = 0
            return
        s.remaining -= rate * busy
        s.node_seconds += n * (window_end - t)
        if busy > 0:
            per_machine = self.trace.nodes_per_machine
            self.samples.append((s.job.job_id, window_end, n,
                                 rate * (1.0 + SAMPLE_NOISE * float(self.rng.standard_normal())),
                                 -(-n // per_machine) if per_machine else None))
            self._note_sample(self.samples[-1])

    def _note_sample(self, sample: tuple) -> None:
        """Mark the curves stale by the refit rule (REFIT_GROWTH); a new (size, machines) of a
        job without a curve yet (one the logs report before it runs) is its own fit's."""
        self.new_samples += 1
        if ((sample[0] in self.curves and _sample_key(sample) not in self.fitted)
                or self.new_samples >= REFIT_GROWTH * max(self.fitted_samples, 1)):
            self.stale = True

    def _close(self, s: JobState, t: float) -> None:
        began = self.open_since.pop(s.job.job_id, None)
        if began is not None and t > began[0]:
            self.result.intervals.append((s.job.job_id, began[0], t, began[1]))


def check_rules(inst: Instance, moves: list[Move], capacity: int, *, preemption: bool,
                policy: str, t: float) -> None:
    """The rules every window's first slot keeps: nodes allocated ≤ capacity, each size within
    the job's [min, max], and no running job stopped unless preemption is allowed or the
    capacity rule (solver.capacity) released it. Raises RuleBroken naming the rule."""
    where = f"replay of {policy} at t={t:.1f} s"
    allocated = sum(m.nodes for m in moves)
    if allocated > capacity:
        raise RuleBroken(f"{where}: {allocated} nodes allocated > capacity {capacity}")
    released = set() if preemption else preemptible_jobs(inst)[0]
    for m in moves:
        j = m.state.job
        if m.nodes and not j.min_nodes <= m.nodes <= j.max_nodes:
            raise RuleBroken(f"{where}: job {j.job_id} on {m.nodes} nodes, outside "
                             f"[{j.min_nodes}, {j.max_nodes}]")
        if (not preemption and m.state.nodes > 0 and m.nodes == 0
                and j.job_id not in released):
            raise RuleBroken(f"{where}: running job {j.job_id} stopped without preemption")


def _instance(active: list[JobState], curves: dict[str, dict[int, float]], t: float, cap: int,
              cfg: ReplayConfig, rescale: float) -> Instance:
    """The window's instance: what the platform would know of each active job at t."""
    jobs = [job_from_state(_job_state(s, t), curves[s.job.job_id], rescale_seconds=rescale)
            for s in active]
    return Instance(jobs=jobs, capacity=[cap] * cfg.slots, slot_seconds=cfg.window,
                    num_slots=cfg.slots, **cfg.churn.fields())


def _job_state(s: JobState, t: float) -> dict:
    """The job-state keys of `solver.instance.job_from_state`."""
    j = s.job
    return {"job_id": j.job_id, "min_nodes": j.min_nodes, "max_nodes": j.max_nodes,
            "requested_nodes": j.requested_nodes, "current_nodes": s.nodes,
            "remaining_work": s.remaining, "total_work": j.total_work, "weight": j.weight,
            "waiting_seconds": (t - j.submit) if s.first_start is None else 0.0,
            "seconds_since_resize": None if s.resized_at is None else t - s.resized_at}


def _sample_time(sample: tuple) -> float:
    return sample[1]


def _sample_key(sample: tuple) -> tuple:
    """A sample's job, size and machine count (what a new sample may add to a fit)."""
    return (sample[0], sample[2], sample[4] if len(sample) > 4 else None)


def oracle_estimator(trace: Trace) -> Estimator:
    """Curves known exactly (tests, and the 'perfect information' reference)."""
    truth = {j.job_id: dict(j.true_throughput) for j in trace.jobs}

    def estimate(jobs: list[TraceJob], _samples, wanted: set[str]) -> dict[str, dict[int, float]]:
        return {j.job_id: truth[j.job_id] for j in jobs if j.job_id in wanted}

    return estimate

"""The faithful replay: the Pollux artifact's engine rules, for Pollux workloads.

Every `interval` (60 s) the engine advances each job on its machines, then asks the policy for
an allocation per job (machine lists, or GPU counts it places with a `replay.cluster` rule). A
job whose machines change restarts: 30 s without progress, charged at the first start, on every
resize or move and on a resume; stopping costs nothing. Progress follows
`replay.pollux_physics` (placement-dependent step time, fixed batch with accumulation,
statistical-efficiency-adjusted epochs); a job completes inside an interval, and its GPUs idle
until the next decision. With `window` set, decisions are taken only every `window` seconds and
machines are held in between (the windowed mode beside the 60 s one).

Why a second engine beside `replay.engine` and not a mode of it: that engine's unit is a job's
samples at a throughput per node count, re-estimated from samples each window; this one's unit
is epochs of statistical-efficiency-adjusted progress at a machine placement, with the
artifact's clock (decisions on multiples of 60 s). Sharing the loop would put two physics
behind flags in every step. Both hand back the same `ReplayResult`, so `replay.kpis`, the
backtest summary and the report read either unchanged.

A replay ends when every job has completed, or when the jobs left can never fit on the cluster
(their policy's smallest size is above its GPUs); those are reported `unschedulable`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from replay.cluster import (
    GPUS_PER_MACHINE,
    MACHINES,
    RESTART_SECONDS,
    Allocation,
    Placement,
    free_gpus,
    place_counts,
    spread,
    to_placement,
)
from replay.engine import JobState, ReplayResult, WindowRecord
from replay.pollux_physics import (
    Model,
    config_at,
    iteration_seconds,
    remaining_seconds,
    trained_batch,
)
from replay.trace import TraceJob

INTERVAL = 60


@dataclass(frozen=True)
class PolluxJob:
    """One workload row: submitted at `submit` s, training `model` at total batch `batch_size`,
    asking for `requested_gpus`; elastic policies may give it [min_gpus, max_gpus]."""
    job_id: str
    submit: float
    model: str
    requested_gpus: int
    batch_size: int
    min_gpus: int = 1
    max_gpus: int | None = None


@dataclass
class EngineJob:
    spec: PolluxJob
    model: Model
    placement: Placement = ()
    atomic: int = 0
    accum: int = 0
    restart_left: float = 0.0
    progress: float = 0.0
    epoch: int = 0
    finish: float | None = None
    first_start: float | None = None
    attained: float = 0.0          # GPU-seconds held, restarts included
    starts: int = 0
    last_change: float = 0.0       # when its machines last changed
    last_resize: float | None = None   # when its GPU count last changed (a start too)
    spread_starts: int = 0         # (re)starts on more machines than packed

    @property
    def name(self) -> str:
        return self.spec.job_id

    def reallocate(self, placement: Placement, t: float) -> None:
        self.placement = placement
        if not placement:
            return
        self.atomic, self.accum = config_at(self.model, self.spec.batch_size, placement,
                                            self.epoch)
        self.restart_left = RESTART_SECONDS
        self.starts += 1
        self.spread_starts += spread(placement)
        if self.first_start is None:
            self.first_start = t

    def advance(self, start: float, seconds: float) -> None:
        """Run `seconds` from `start`: restart delay first, then epochs; each epoch crossing is
        rounded to whole seconds, as the artifact does; an adaptive batch is re-chosen for the
        epoch the interval starts in."""
        n = sum(self.placement)
        if self.model.adaptive_batch:
            self.atomic, self.accum = config_at(self.model, self.spec.batch_size,
                                                self.placement, self.epoch)
        self.attained += seconds * n
        delay = min(self.restart_left, seconds)
        self.restart_left -= delay
        now, seconds = start + delay, seconds - delay
        m = self.model
        trained = trained_batch(n, self.atomic, self.accum)
        it_s = iteration_seconds(m, self.placement, self.atomic, self.accum)
        while seconds > 0 and self.finish is None:
            rate = m.gain(trained, self.epoch) / it_s
            target = m.progress_at(self.epoch + 1)
            if self.progress + rate * seconds < target:
                self.progress += rate * seconds
                return
            delta = round((target - self.progress) / rate)
            self.epoch += 1
            self.progress = target
            now += delta
            seconds -= delta
            if self.epoch >= m.max_epochs:
                self.finish = now   # its GPUs stay allocated, idle, until the next decision


@dataclass
class State:
    """What a policy sees at a decision."""
    time: float
    jobs: list[EngineJob]                  # active, in arrival order
    allocations: dict[str, Allocation]     # the previous decision's, active jobs only
    machines: int = MACHINES
    per_machine: int = GPUS_PER_MACHINE

    @property
    def gpus(self) -> int:
        return self.machines * self.per_machine


class EnginePolicy:
    """A faithful-replay policy: `decide(state)` -> {job: GPU count or machine list}."""
    name = "policy"
    placement = "most_free"           # the replay.cluster rule that places GPU counts

    def min_gpus(self, spec: PolluxJob) -> int:
        """The fewest GPUs this policy runs the job on (above the cluster: unschedulable)."""
        return spec.min_gpus

    def decide(self, state: State) -> Mapping[str, int | Allocation]:
        raise NotImplementedError


@dataclass
class FaithfulConfig:
    interval: int = INTERVAL
    window: int | None = None        # decide only every `window` s (a multiple of interval)
    machines: int = MACHINES
    per_machine: int = GPUS_PER_MACHINE
    horizon: float = 4e6


@dataclass
class FaithfulResult(ReplayResult):
    """ReplayResult plus the engine's own counts per job."""
    restarts: dict[str, int] = field(default_factory=dict)
    spread_starts: dict[str, int] = field(default_factory=dict)
    jobs: list[EngineJob] = field(default_factory=list)

    @property
    def mean_jct(self) -> float:
        jct = [j.finish - j.spec.submit for j in self.jobs if j.finish is not None]
        return sum(jct) / len(jct) if jct else math.nan


def simulate(specs: list[PolluxJob], models: Mapping[str, Model], policy: EnginePolicy,
             config: FaithfulConfig | None = None) -> FaithfulResult:
    """Replay `specs` under `policy` with the artifact's clock (see the module docstring)."""
    cfg = config or FaithfulConfig()
    jobs = [EngineJob(s, models[s.model]) for s in sorted(specs, key=lambda s: s.submit)]
    gpus = cfg.machines * cfg.per_machine
    stuck = {j.name for j in jobs if policy.min_gpus(j.spec) > gpus}
    result = FaithfulResult(policy.name, [], jobs=jobs)
    allocs: dict[str, Allocation] = {}
    t = 0
    while any(j.finish is None and j.name not in stuck for j in jobs):
        running = [j for j in jobs if j.placement and j.finish is None]
        if not running and not any(j.spec.submit <= t and j.finish is None
                                   and j.name not in stuck for j in jobs):
            nxt = min(j.spec.submit for j in jobs if j.finish is None and j.name not in stuck)
            t = max(t, cfg.interval * math.ceil(nxt / cfg.interval) - cfg.interval)
        for j in running:
            j.advance(t, cfg.interval)
        t += cfg.interval
        if t > cfg.horizon:
            raise RuntimeError(f"faithful replay of {policy.name} passed {cfg.horizon:.0f} s")
        active = [j for j in jobs if j.spec.submit <= t and j.finish is None
                  and j.name not in stuck]
        allocs = _drop_finished(allocs, {j.name: j for j in active}, jobs, t, result)
        if not active or (cfg.window and t % cfg.window):
            continue
        allocs = _decide(policy, State(t, active, dict(allocs), cfg.machines, cfg.per_machine),
                         result)
    result.end_time = t
    return _finish(result, jobs, stuck, gpus)


def _drop_finished(allocs: dict[str, Allocation], active: dict[str, EngineJob],
                   jobs: list[EngineJob], t: float, result: FaithfulResult
                   ) -> dict[str, Allocation]:
    """The completed jobs' GPUs are freed at the decision after their completion."""
    for j in jobs:
        if j.name in allocs and j.name not in active:
            result.intervals.append((j.name, j.last_change, t, len(allocs[j.name])))
    return {k: v for k, v in allocs.items() if k in active}


def _decide(policy: EnginePolicy, state: State, result: FaithfulResult) -> dict[str, Allocation]:
    """Ask the policy, place its counts, restart the jobs whose machines changed."""
    started = time.perf_counter()
    decision = policy.decide(state)
    seconds = time.perf_counter() - started
    lists = {k: list(v) for k, v in decision.items() if not isinstance(v, int) and len(v)}
    counts = {k: v for k, v in decision.items() if isinstance(v, int)}
    new = (place_counts(counts, state.allocations, policy.placement, lists, state.machines,
                        state.per_machine) if counts else lists)
    if any(f < 0 for f in free_gpus(new, state.machines, state.per_machine)):
        raise ValueError(f"{policy.name} over-allocated a machine at t={state.time}")
    for j in state.jobs:
        if len(new.get(j.name, [])) != len(state.allocations.get(j.name, [])):
            j.last_resize = state.time
        if new.get(j.name) != state.allocations.get(j.name):
            if state.allocations.get(j.name):
                result.intervals.append((j.name, j.last_change, state.time,
                                         len(state.allocations[j.name])))
            j.last_change = state.time
            j.reallocate(to_placement(new.get(j.name, [])), state.time)
    result.windows.append(WindowRecord(
        t=state.time, queued=sum(1 for j in state.jobs if j.first_start is None),
        running=len(new), allocated=sum(map(len, new.values())), capacity=state.gpus,
        decision_seconds=seconds, solver=policy.name, status="ok", mip_gap=None))
    return new


def _finish(result: FaithfulResult, jobs: list[EngineJob], stuck: set[str], gpus: int
            ) -> FaithfulResult:
    """The shared ReplayResult: one JobState per job, with the job's work in one-GPU seconds
    (packed) and its true speed-up at 1 GPU and at its request, for the KPIs."""
    first = min((j.spec.submit for j in jobs), default=0.0)
    result.capacity_segments.append((first, max(result.end_time, first), gpus))
    for j in jobs:
        s, m = j.spec, j.model
        one = remaining_seconds(m, s.batch_size, 1, 0, 0.0) or math.nan
        req = remaining_seconds(m, s.batch_size, s.requested_gpus, 0, 0.0) or math.nan
        trace_job = TraceJob(job_id=s.job_id, submit=s.submit, min_nodes=s.min_gpus,
                             max_nodes=s.max_gpus or s.requested_gpus,
                             requested_nodes=s.requested_gpus, total_work=one,
                             true_throughput={1: 1.0, s.requested_gpus: one / req},
                             model=s.model)
        done = j.finish is not None
        left = 0.0 if done else (remaining_seconds(m, s.batch_size, 1, j.epoch, j.progress)
                                 or one)
        result.states.append(JobState(trace_job, left, first_start=j.first_start,
                                      finish=j.finish, rescales=max(j.starts - 1, 0),
                                      node_seconds=j.attained))
        if j.placement and not done:
            result.intervals.append((j.name, j.last_change, result.end_time, sum(j.placement)))
        result.restarts[j.name] = max(j.starts - 1, 0)
        result.spread_starts[j.name] = j.spread_starts
    result.unschedulable = sorted(stuck)
    return result

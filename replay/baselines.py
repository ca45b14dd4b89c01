"""The Pollux artifact's baselines as faithful-replay policies (rules re-derived, no code copied).

- `Tiresias`: two-queue discretised least-attained-service, non-elastic and preemptive. A new
  job joins queue 0 in arrival order; once its executed time × requested GPUs reaches 16 GPU-hours
  it moves to the tail of queue 1 (no promotion back). Each decision walks queue 0 then queue 1:
  a job whose request fits in the GPUs left runs (keeping its machines if it ran before), one
  that does not is preempted (skip-over, not head-of-line). New runners take the machines with
  the most free GPUs.
- `OptimusOracle`: one GPU to each job in arrival order while GPUs remain, then one GPU at a time
  to the job whose remaining time drops most, (t(n) − t(n+1)) × remaining iterations, from the
  TRUE step time of the packed placement; a job stops growing at B // smallest per-GPU batch
  (ncf: 1). Remaining iterations count the current epoch (the artifact's formula leaves it out).
"""

from __future__ import annotations

from replay.cluster import Allocation, free_gpus, packed, take_most_free
from replay.faithful import EngineJob, EnginePolicy, PolluxJob, State
from replay.pollux_physics import batch_config, iteration_seconds

TIRESIAS_THRESHOLD_GPU_S = 16 * 3600.0


class Tiresias(EnginePolicy):
    name = "tiresias"

    def __init__(self, threshold_gpu_s: float = TIRESIAS_THRESHOLD_GPU_S):
        self.threshold = threshold_gpu_s
        self.queues: tuple[list[str], list[str]] = ([], [])
        self.running: dict[str, bool] = {}
        self.last_check: dict[str, float] = {}
        self.executed: dict[str, float] = {}

    def min_gpus(self, spec: PolluxJob) -> int:
        return spec.requested_gpus

    def _account(self, now: float, req: dict[str, int]) -> None:
        """New jobs join queue 0; jobs that ran since the last call gain the time between; a
        job past the threshold moves to the tail of queue 1."""
        q0, q1 = self.queues
        q0[:] = [k for k in q0 if k in req]
        q1[:] = [k for k in q1 if k in req]
        self.running = {k: v for k, v in self.running.items() if k in req}
        for k in req:
            if k not in self.running:
                self.running[k] = False
                q0.append(k)
        for k in req:
            elapsed = now - self.last_check.get(k, 0.0)
            self.last_check[k] = now
            if self.running[k]:
                self.executed[k] = self.executed.get(k, 0.0) + elapsed
                if k in q0 and self.executed[k] * req[k] >= self.threshold:
                    q0.remove(k)
                    q1.append(k)

    def decide(self, state: State) -> dict[str, Allocation]:
        req = {j.name: j.spec.requested_gpus for j in state.jobs}
        self._account(state.time, req)
        allocs = dict(state.allocations)
        left = state.gpus
        order = self.queues[0] + self.queues[1]
        for k in order:
            self.running[k] = req[k] <= left
            if self.running[k]:
                left -= req[k]
            else:
                allocs.pop(k, None)
        free = free_gpus(allocs, state.machines, state.per_machine)
        for k in order:
            if self.running[k] and not allocs.get(k):
                allocs[k] = take_most_free(free, req[k])
        return allocs


class OptimusOracle(EnginePolicy):
    name = "optimus-oracle"

    @staticmethod
    def max_replicas(job: EngineJob) -> int:
        return 1 if job.model.name == "ncf" else job.spec.batch_size // job.model.min_local_bsz

    @staticmethod
    def step_seconds(job: EngineJob, n: int) -> float:
        """True iteration time on n GPUs packed (Optimus assumes accumulation on 1 GPU)."""
        atomic, accum = batch_config(job.model, job.spec.batch_size, n, one_gpu_accum=True)
        return iteration_seconds(job.model, packed(n), atomic, accum)

    @staticmethod
    def remaining_iterations(job: EngineJob) -> float:
        m, b = job.model, job.spec.batch_size
        done = m.iterations(b, job.epoch - 1) if job.epoch > 0 else 0.0
        return m.iterations(b, m.max_epochs - 1) - done

    def decide(self, state: State) -> dict[str, int]:
        left = state.gpus
        n: dict[str, int] = {}
        gain: dict[str, float] = {}
        jobs = {j.name: j for j in state.jobs}
        rem = {k: self.remaining_iterations(j) for k, j in jobs.items()}

        def marginal(k: str) -> float:
            j = jobs[k]
            if n[k] + 1 > self.max_replicas(j) or left < 1:
                return 0.0
            return (self.step_seconds(j, n[k]) - self.step_seconds(j, n[k] + 1)) * rem[k]

        for k in jobs:
            n[k] = 1 if left >= 1 else 0
            left -= n[k]
            gain[k] = marginal(k) if n[k] else 0.0
        while left > 0 and gain and max(gain.values()) > 0:
            k = max(gain, key=lambda x: gain[x])
            n[k] += 1
            left -= 1
            gain[k] = marginal(k)
        return n

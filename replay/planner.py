"""Our policies (mip, optimus, greedy, fifo) in the faithful replay.

At each decision every active job becomes a solver `Job` through the one adapter,
`solver.instance.job_from_state`: work in one-GPU seconds (packed), summed over the job's
remaining epochs at the engine's own per-epoch rate, so remaining and total work are exact; the
curve is f(n) = remaining seconds on 1 GPU ÷ remaining seconds on n GPUs packed (oracle, like
Optimus+Oracle); the range is [1, B // smallest per-GPU batch] (or the job's own); waiting is the
time queued before the first start (`aging="starved"`: the time it has waited for its requested
size, `solver.objective.starved_seconds`, age less attained GPU-seconds ÷ request, so a running
job held below its request keeps aging; measured in docs/model.md, not the default;
`critical_seconds` sets θ of `solver.objective.critical_factor`, None the instance default for
the planner's slots); a restart costs the engine's 30 s; the time since its size last changed
comes from the engine's history (`EngineJob.last_resize`), for the churn rules `churn`. The
plan's first-slot counts are placed best-fit (`replay.cluster`; a job whose count is unchanged
stays on its machines); then a job spread over more machines than its GPUs need moves to fewer when
the time that saves on the rest of its work (at the engine's step times for both placements)
exceeds its 30 s restart (`repack`; a job placed anew this decision moves whenever it gains).
The rest of the plan is the next decision's warm start. The plan looks 12 minutes ahead in
6 slots of 120 s and only its first minute is run: against 6 slots of 60 s the same mean JCT
with a sixth fewer rescales (docs/model.md, "Trials in our faithful replay").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from replay.cluster import (
    GPUS_PER_MACHINE,
    RESTART_SECONDS,
    Allocation,
    place_counts,
    repack,
    to_placement,
)
from replay.faithful import EngineJob, EnginePolicy, State
from replay.pollux_physics import max_useful_gpus, placement_slowdown, remaining_seconds
from solver.churn_rules import ChurnRules
from solver.instance import Instance, candidate_sizes, job_from_state
from solver.objective import starved_seconds
from solver.policies import Settings, plan


@dataclass
class PlannerPolicy(EnginePolicy):
    name: str = "mip"
    slot_seconds: float = 120.0  # the plan's slots; the engine re-plans every 60 s (docstring)
    num_slots: int = 6
    settings: Settings = field(default_factory=lambda: Settings(time_limit=0.3))
    placement: str = "best_fit"
    churn: ChurnRules = field(default_factory=ChurnRules)
    aging: str = "queued"       # "queued" (queue time only) or "starved" (starved_seconds)
    pack: bool = False          # offer only sizes that pack onto the engine's machines
    critical_seconds: float | None = None   # θ of the critical-path factor (None: by slot)
    repack: bool = True         # move spread jobs to fewer machines when it pays (docstring)

    def __post_init__(self):
        self.hint: dict[str, list[int]] = {}

    def job_range(self, j: EngineJob) -> tuple[int, int]:
        hi = j.spec.max_gpus or max_useful_gpus(j.model, j.spec.batch_size)
        lo = min(j.spec.min_gpus, hi)
        return lo, hi

    def solver_job(self, j: EngineJob, current: int, t: float):
        s, m = j.spec, j.model
        lo, hi = self.job_range(j)
        req = min(max(s.requested_gpus, lo), hi)
        one = remaining_seconds(m, s.batch_size, 1, j.epoch, j.progress)
        curve = {}
        per = GPUS_PER_MACHINE if self.pack else None
        for n in candidate_sizes(lo, hi, req, current, per_machine=per):
            left = remaining_seconds(m, s.batch_size, n, j.epoch, j.progress)
            if left and one:
                curve[n] = one / left
        state = {"job_id": j.name, "min_nodes": lo, "max_nodes": hi, "requested_nodes": req,
                 "current_nodes": current, "remaining_work": one,
                 "total_work": max(remaining_seconds(m, s.batch_size, 1, 0, 0.0), one),
                 "weight": 1.0,
                 "waiting_seconds": self.waiting(j, req, t),
                 "seconds_since_resize": None if j.last_resize is None else t - j.last_resize}
        return job_from_state(state, curve, rescale_seconds=RESTART_SECONDS, per_machine=per)

    def waiting(self, j: EngineJob, requested: int, t: float) -> float:
        """The job's aging time q_j (see the module docstring)."""
        if self.aging == "queued":
            return t - j.spec.submit if j.first_start is None else 0.0
        return starved_seconds(t - j.spec.submit, j.attained, requested)

    def decide(self, state: State) -> dict[str, int] | dict[str, Allocation]:
        jobs = [self.solver_job(j, len(state.allocations.get(j.name, [])), state.time)
                for j in state.jobs]
        inst = Instance(jobs=jobs, capacity=[state.gpus] * self.num_slots,
                        slot_seconds=self.slot_seconds, num_slots=self.num_slots,
                        critical_seconds=self.critical_seconds, **self.churn.fields())
        p = plan(inst, self.name, self.settings, hint=self.hint, prices=False)
        self.hint = p.next_hint()
        counts = p.first_slot()
        return self.place(counts, state) if self.repack else counts

    def place(self, counts: dict[str, int], state: State) -> dict[str, Allocation]:
        """The counts placed best-fit, then the spread jobs repacked where it pays."""
        allocs = place_counts(counts, state.allocations, self.placement,
                              machines=state.machines, per=state.per_machine)
        jobs = {j.name: j for j in state.jobs}

        def worth(name: str, now: Allocation, new: Allocation) -> bool:
            j = jobs[name]
            m, batch = j.model, j.spec.batch_size
            left = remaining_seconds(m, batch, len(now), j.epoch, j.progress) or 0.0
            saved = left * (placement_slowdown(m, batch, to_placement(now), j.epoch)
                            - placement_slowdown(m, batch, to_placement(new), j.epoch))
            kept = now == state.allocations.get(name)
            return saved > (RESTART_SECONDS if kept else 0.0)

        return repack(allocs, worth, state.machines, state.per_machine)

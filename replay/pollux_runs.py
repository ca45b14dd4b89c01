"""Running a Pollux workload in the faithful replay: the workload's jobs, the models they train,
and the policies by name (`tiresias`, `optimus-oracle`, and ours through `replay.planner`)."""

from __future__ import annotations

import csv
from pathlib import Path

from replay import FAITHFUL_ONLY
from replay.baselines import OptimusOracle, Tiresias
from replay.faithful import EnginePolicy, FaithfulConfig, FaithfulResult, PolluxJob, simulate
from replay.pollux_physics import load_model
from sources.pollux import read_checked_pollux_jobs

BASELINES = dict(zip(FAITHFUL_ONLY, (Tiresias, OptimusOracle), strict=True))


def load_workload(path: Path) -> list[PolluxJob]:
    """The jobs of a `workload-<k>.csv` (name, time, application, num_replicas, batch_size)."""
    with path.open() as fh:
        return [PolluxJob(r["name"], float(r["time"]), r["application"], int(r["num_replicas"]),
                          int(r["batch_size"])) for r in csv.DictReader(fh)]


def make_policy(name: str, **options) -> EnginePolicy:
    """A fresh policy (they keep state across decisions) by name."""
    if name in BASELINES:
        return BASELINES[name]()
    from replay.planner import PlannerPolicy

    return PlannerPolicy(name, **options)


def run_workload(workload: Path, traces: Path, policy: str,
                 config: FaithfulConfig | None = None, adaptive_batch: bool = False,
                 **options) -> FaithfulResult:
    """`adaptive_batch`: jobs train at the batch Pollux would pick, not their own
    (`replay.pollux_physics.adaptive_config`; a what-if, not the artifact's rule)."""
    jobs = load_workload(workload)
    models = {m: load_model(traces, m, adaptive_batch) for m in {j.model for j in jobs}}
    return simulate(jobs, models, make_policy(policy, **options), config)


def replay_imported(truth: Path, policy: str, config: FaithfulConfig | None = None,
                    **options) -> FaithfulResult:
    """The faithful replay of logs written by `etplan import pollux|philly` (their truth.json
    names each job's model, batch size, request and the profiles folder)."""
    rows, profiles = read_checked_pollux_jobs(truth)
    jobs = [PolluxJob(r["job_id"], r["submit"], r["model"], r["requested_gpus"],
                      r["batch_size"], r["min_gpus"], r["max_gpus"])
            for r in sorted(rows, key=lambda r: r["submit"])]
    models = {m: load_model(profiles, m) for m in {j.model for j in jobs}}
    return simulate(jobs, models, make_policy(policy, **options), config)

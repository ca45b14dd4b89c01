"""The churn options (DESIGN §4.1) from the command line, the Prefect flows and the replays to
the window instance, and `seconds_since_resize`: from `job_intervals` in operation, from the
engine's history in both replays, where a cooldown is then honoured."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flows.cli.common import churn_given
from flows.usecases.runs import replay_config
from replay.engine import JobState, ReplayConfig, _job_state, oracle_estimator, replay
from replay.faithful import FaithfulConfig, PolluxJob, simulate
from replay.planner import PlannerPolicy
from replay.pollux_physics import load_model
from replay.trace import Trace, TraceJob
from solver.churn_rules import ChurnRules
from solver.instance import DEFAULT_RESCALE_PENALTY, Instance
from solver.objective import rescales
from solver.policies import Settings
from tests.conftest import POLLUX, run_cli
from tests.test_replay import small_traces
from tests.test_whatif import small_warehouse

FLOWS = ("plan_window_flow", "pipeline_flow", "backtest_flow")


def test_defaults_are_the_instance_defaults_and_given_options_replace_them():
    assert ChurnRules().fields() == {"max_rescales": None, "cooldown_seconds": None,
                                     "rescale_penalty": None}
    inst = Instance(jobs=[], capacity=[4], **ChurnRules().fields())
    assert (inst.max_rescales, inst.cooldown_seconds, inst.rescale_penalty) == (
        None, None, DEFAULT_RESCALE_PENALTY)
    assert ChurnRules().label() == "default κ"
    assert churn_given(None, None, None) == {}
    assert churn_given(2, 600.0, 0.0) == {"max_rescales": 2, "cooldown_seconds": 600.0,
                                          "rescale_penalty": 0.0}
    assert replay_config(churn=ChurnRules(max_rescales=1)).churn.max_rescales == 1
    assert ChurnRules(2, 600.0, 0.5).label() == "κ=0.5, max_rescales=2, cooldown=600 s"


def test_the_prefect_flows_take_the_churn_parameters():
    import inspect

    import flows.pipeline as pipeline

    for name in FLOWS:
        params = inspect.signature(getattr(pipeline, name).fn).parameters
        assert params["max_rescales"].default is None, name
        assert params["cooldown_seconds"].default is None, name
        assert params["rescale_penalty"].default is None, name   # the instance's default


def test_commands_have_the_churn_options():
    import typer.main

    from flows.cli import app

    root = typer.main.get_command(app)
    for path in (["solve"], ["plan", "window"], ["plan", "whatif"], ["backtest"],
                 ["pipeline"], ["serve"]):
        cmd = root
        for name in path:
            cmd = cmd.commands[name]
        opts = {o for p in cmd.params for o in p.opts}
        assert {"--max-rescales", "--cooldown", "--rescale-penalty"} <= opts, path


def running_instance(tmp_path):
    """Four running jobs that would all grow if they could, with room to grow."""
    jobs = [{"job_id": f"j{i}", "min_nodes": 1, "max_nodes": 4, "requested_nodes": 1,
             "current_nodes": 1, "remaining_work": 5e5, "total_work": 5e5,
             "seconds_since_resize": 60.0 * i,
             "throughput": {str(n): 100.0 * n for n in range(1, 5)}} for i in range(4)]
    path = tmp_path / "inst.json"
    path.write_text(json.dumps({"capacity": 16, "num_slots": 3, "slot_seconds": 600,
                                "jobs": jobs}))
    return path


def first_slot(plan_json: str) -> dict[str, int]:
    return {a["job_id"]: a["nodes"] for a in json.loads(plan_json)["allocations"]
            if a["slot"] == 0}


def test_solve_options_replace_the_instance_fields(tmp_path):
    from flows.usecases.plans import solve_file

    path = running_instance(tmp_path)
    free = solve_file(path, "greedy", Settings())
    assert sum(n != 1 for n in first_slot(free.to_json()).values()) >= 2
    budget = solve_file(path, "greedy", Settings(), {"max_rescales": 1})
    assert sum(n != 1 for n in first_slot(budget.to_json()).values()) <= 1
    # j0..j3 resized 0, 60, 120, 180 s ago: a 150 s cooldown holds j0, j1 and j2
    cool = run_cli("solve", str(path), "--time-limit", "2", "--cooldown", "150")
    assert cool.returncode == 0, cool.stderr
    sizes = first_slot(cool.stdout)
    assert [sizes[f"j{i}"] for i in range(3)] == [1, 1, 1] and sizes["j3"] > 1
    bad = run_cli("solve", str(path), "--max-rescales", "-1")
    assert bad.returncode == 2


def test_plan_window_carries_the_options_and_seconds_since_resize(tmp_path):
    from flows.usecases.common import opened
    from flows.usecases.plans import plan_window
    from warehouse.window_state import load_window

    wh = small_warehouse(tmp_path)
    with opened(wh) as con:
        (at,) = con.execute("SELECT max(start_time) + INTERVAL 90 SECOND FROM job_intervals "
                            "WHERE end_time IS NULL OR end_time > start_time").fetchone()
        since = dict(con.execute(
            "SELECT job_id, epoch($at - start_time) FROM job_intervals WHERE start_time <= $at "
            "AND (end_time IS NULL OR end_time > $at)", {"at": at}).fetchall())
        state = load_window(con, at, rescale_seconds=30.0)
        got = {j["job_id"]: j["seconds_since_resize"] for j in state.jobs}
        assert since and {k: got[k] for k in since} == pytest.approx(since)
        assert all(v is None for k, v in got.items() if k not in since)
        assert min(since.values()) == pytest.approx(90.0)
        wp = plan_window(con, tmp_path / "out", "t", at=at,
                         policy="greedy", churn=ChurnRules(0, 600.0, 0.5))
    assert (wp.instance.max_rescales, wp.instance.cooldown_seconds,
            wp.instance.rescale_penalty) == (0, 600.0, 0.5)
    assert {j.job_id: j.seconds_since_resize for j in wp.instance.jobs} == pytest.approx(got)


def test_the_windowed_replay_reports_the_time_since_a_job_last_changed_size():
    s = JobState(TraceJob("a", 0.0, 1, 2, 1, 100.0, {1: 1.0, 2: 2.0}), 100.0, nodes=1,
                 first_start=100.0, resized_at=400.0)
    assert _job_state(s, 1000.0)["seconds_since_resize"] == 600.0
    assert _job_state(JobState(s.job, 100.0), 1000.0)["seconds_since_resize"] is None


def resize_gaps(intervals, job_id: str) -> list[float]:
    """Seconds a job had held its size when it changed size while running (an interval
    followed at once by one at another size)."""
    mine = sorted((a, b, n) for j, a, b, n in intervals if j == job_id)
    return [b1 - a1 for (a1, b1, n1), (a2, _, n2) in zip(mine, mine[1:], strict=False)
            if a2 == b1 and n1 != n2]


@settings(max_examples=25, deadline=None)
@given(trace=small_traces(), policy=st.sampled_from(["mip", "greedy", "optimus"]),
       cooldown=st.sampled_from([300.0, 900.0]))
def test_a_cooldown_is_honoured_in_the_windowed_replay(trace, policy, cooldown):
    # a constant capacity (the smallest of the trace's): keeping every size is always feasible
    trace = Trace(trace.jobs, [(0.0, min(c for _, c in trace.capacity))],
                  rescale_seconds=trace.rescale_seconds)
    cfg = ReplayConfig(window=300.0, slots=3, max_windows=5000,
                       settings=Settings(time_limit=0.5, gap=1e-3),
                       churn=ChurnRules(cooldown_seconds=cooldown, rescale_penalty=0.0))
    res = replay(trace, policy, oracle_estimator(trace), cfg)
    assert res.unfinished == []
    for j in trace.jobs:
        assert all(g >= cooldown - 1e-6 for g in resize_gaps(res.intervals, j.job_id))


@pytest.mark.parametrize("policy", ["mip", "optimus"])
def test_a_cooldown_holds_a_job_that_would_shrink_at_the_next_window(policy):
    # A takes all 4 nodes at 0; B (2 nodes) arrives at 10. Free to, A shrinks at 300 to let B
    # start; with a 900 s cooldown it keeps its 4 nodes until 900.
    trace = Trace([TraceJob("A", 0.0, 1, 4, 1, 40000.0, {n: 10.0 * n for n in range(1, 5)}),
                   TraceJob("B", 10.0, 2, 2, 2, 4000.0, {2: 20.0})], [(0.0, 4)],
                  rescale_seconds=30.0)
    gaps = {}
    for cooldown in (None, 900.0):
        cfg = ReplayConfig(window=300.0, slots=3, settings=Settings(time_limit=0.5),
                           churn=ChurnRules(cooldown_seconds=cooldown, rescale_penalty=0.0))
        gaps[cooldown] = resize_gaps(replay(trace, policy, oracle_estimator(trace),
                                            cfg).intervals, "A")
    assert gaps[None][0] == 300.0
    assert gaps[900.0] and min(gaps[900.0]) >= 900.0


class Recording(PlannerPolicy):
    """PlannerPolicy that records each decision: (time, current counts, new counts)."""

    def __post_init__(self):
        super().__post_init__()
        self.log: list[tuple[float, dict[str, int], dict[str, int]]] = []

    def decide(self, state):
        new = super().decide(state)
        self.log.append((state.time, {j.name: len(state.allocations.get(j.name, []))
                                      for j in state.jobs},
                         {k: v if isinstance(v, int) else len(v) for k, v in new.items()}))
        return new


def quick_resizes(log, cooldown: float) -> int:
    """Rescales of running jobs less than `cooldown` after their last size change."""
    changed: dict[str, float] = {}
    quick = 0
    for t, now, new in log:
        for job, n in now.items():
            m = new.get(job, 0)
            if m != n:
                quick += n > 0 and m > 0 and t - changed[job] < cooldown
                changed[job] = t
    return quick


@pytest.mark.skipif(not (POLLUX / "traces" / "cifar10").is_dir(),
                    reason="../shared/data/pollux is absent")
def test_a_cooldown_is_honoured_in_the_faithful_replay():
    specs = [PolluxJob(f"c{i}", 120.0 * i, "cifar10", 2, 256) for i in range(5)]
    models = {"cifar10": load_model(POLLUX / "traces", "cifar10")}
    config = FaithfulConfig(machines=2, per_machine=4)
    runs = {}
    for name, cooldown in (("optimus", None), ("optimus", 900.0), ("mip", 900.0)):
        policy = Recording(name, churn=ChurnRules(cooldown_seconds=cooldown,
                                                  rescale_penalty=0.0),
                           settings=Settings(time_limit=0.3))
        r = simulate(specs, models, policy, config)
        assert all(j.finish is not None for j in r.jobs)
        runs[name, cooldown] = quick_resizes(policy.log, 900.0)
    # without the cooldown Optimus-style resizes within 900 s over and over; with it, never
    assert runs["optimus", None] > 10
    assert runs["optimus", 900.0] == 0 and runs["mip", 900.0] == 0


def test_the_engine_history_feeds_the_instance():
    specs = [PolluxJob("a", 0.0, "cifar10", 2, 256)]
    if not (POLLUX / "traces" / "cifar10").is_dir():
        pytest.skip("../shared/data/pollux is absent")
    models = {"cifar10": load_model(POLLUX / "traces", "cifar10")}
    seen: list[float | None] = []

    class Spy(PlannerPolicy):
        def solver_job(self, j, current, t):
            job = super().solver_job(j, current, t)
            seen.append(job.seconds_since_resize)
            return job

    simulate(specs, models, Spy("fifo"), FaithfulConfig(machines=1, per_machine=4))
    # first decision: never resized; then the time since its start at the first decision
    assert seen[0] is None and seen[1:4] == [60.0, 120.0, 180.0]


def test_rescales_counted_as_the_objective_counts_them():
    # a start is not a rescale (DESIGN §4.1); the options' effect is measured with this count
    import numpy as np

    inst = Instance.from_json(running_instance_text())
    assert rescales(inst, np.array([[1, 2], [0, 1]])).sum() == 1


def running_instance_text() -> str:
    return json.dumps({"capacity": 4, "num_slots": 2, "jobs": [
        {"job_id": "a", "min_nodes": 1, "max_nodes": 2, "current_nodes": 1,
         "remaining_work": 10.0, "total_work": 10.0, "throughput": {"1": 1.0, "2": 2.0}},
        {"job_id": "b", "min_nodes": 1, "max_nodes": 2, "remaining_work": 10.0,
         "total_work": 10.0, "throughput": {"1": 1.0, "2": 2.0}}]})

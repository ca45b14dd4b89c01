"""The replay engine and KPIs on a trace small enough to compute by hand, and its invariants
(capacity, sizes, no preemption, every job completes or is reported) over random traces."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.engine import (
    JobState,
    Move,
    ReplayConfig,
    RuleBroken,
    check_rules,
    oracle_estimator,
    replay,
)
from replay.kpis import job_kpis, run_kpis
from replay.trace import Trace, TraceJob
from solver.instance import Instance
from solver.policies import Settings


def three_jobs() -> Trace:
    return Trace(jobs=[
        TraceJob("A", 0.0, 2, 2, 2, 1000.0, {2: 10.0}),
        TraceJob("B", 50.0, 1, 1, 1, 200.0, {1: 5.0}),
        TraceJob("C", 60.0, 1, 1, 1, 100.0, {1: 4.0}),
    ], capacity=[(0.0, 2)], rescale_seconds=30.0)


def test_three_job_trace_kpis_by_hand():
    trace = three_jobs()
    res = replay(trace, "fifo", oracle_estimator(trace), ReplayConfig(window=100.0, slots=3))
    # A starts at 0 on 2 nodes: 30 s rescale, 70 s at 10/s = 700; at 100 the last 300 take
    # 30 s -> done at 130. B and C wait for the window at 200: 30 s rescale, then B needs
    # 200/5 = 40 s (done 270), C 100/4 = 25 s (done 255).
    jobs = {r["job_id"]: r for r in job_kpis(res)}
    assert {k: (r["first_start_s"], r["finish_s"]) for k, r in jobs.items()} == {
        "A": (0.0, 130.0), "B": (200.0, 270.0), "C": (200.0, 255.0)}
    assert [jobs[k]["queue_s"] for k in "ABC"] == [0.0, 150.0, 140.0]
    assert [jobs[k]["jct_s"] for k in "ABC"] == [130.0, 220.0, 195.0]
    assert [jobs[k]["run_s"] for k in "ABC"] == [130.0, 70.0, 55.0]
    k = run_kpis(res)
    assert k["completed"] == 3
    assert k["mean_queue_s"] == pytest.approx(290 / 3)
    assert k["mean_jct_s"] == pytest.approx(545 / 3)
    assert k["makespan_s"] == 270.0
    # node-seconds held: A 2 x 130, B 70, C 55, over 2 nodes x 270 s
    assert k["utilization"] == pytest.approx((260 + 70 + 55) / 540)
    assert k["speedup_vs_static"] == pytest.approx((100 / 130 + 40 / 70 + 25 / 55) / 3)
    assert k["rescales"] == 0
    assert k["windows"] == 3


def test_mip_completes_every_job_and_rescales_cost_time():
    trace = Trace(jobs=[
        TraceJob("big", 0.0, 1, 4, 2, 8000.0, {1: 10.0, 2: 19.0, 3: 27.0, 4: 34.0}),
        TraceJob("small", 120.0, 1, 2, 1, 1000.0, {1: 10.0, 2: 18.0}),
    ], capacity=[(0.0, 4)], rescale_seconds=30.0)
    for policy in ("mip", "greedy", "fifo", "optimus"):
        res = replay(trace, policy, oracle_estimator(trace), ReplayConfig(window=100.0, slots=4))
        k = run_kpis(res)
        assert k["completed"] == 2, policy
        for s in res.states:
            # every interval at a size opens with a 30 s rescale that makes no progress; the
            # rest of it, at the true rate, adds up to exactly the job's work
            done = sum((b - a - 30.0) * s.job.true_throughput[n]
                       for j, a, b, n in res.intervals if j == s.job.job_id)
            assert done == pytest.approx(s.job.total_work, rel=1e-9), policy
            assert len([i for i in res.intervals if i[0] == s.job.job_id]) == 1 + s.rescales
    mip = run_kpis(replay(trace, "mip", oracle_estimator(trace),
                          ReplayConfig(window=100.0, slots=4)))
    fifo = run_kpis(replay(trace, "fifo", oracle_estimator(trace),
                           ReplayConfig(window=100.0, slots=4)))
    assert mip["mean_jct_s"] <= fifo["mean_jct_s"]


def test_samples_reported_in_a_replay_say_the_machines_their_size_spans():
    trace = Trace(jobs=[TraceJob("A", 0.0, 3, 3, 3, 1e6, {3: 10.0})], capacity=[(0.0, 4)],
                  nodes_per_machine=2)
    oracle = oracle_estimator(trace)
    seen: list[tuple] = []

    def estimator(jobs, samples, wanted):
        seen[:] = samples
        return oracle(jobs, samples, wanted)

    replay(trace, "fifo", estimator, ReplayConfig(window=100.0, slots=2, max_windows=3))
    assert seen and all(s[2] == 3 and s[4] == 2 for s in seen)


def test_truth_files_are_read_with_their_machine_size_or_refused_in_one_line(tmp_path):
    from sources.errors import SourceError
    from sources.truth import read_truth

    path = tmp_path / "truth.json"
    path.write_text('{"rescale_seconds": 20, "nodes_per_machine": 4,'
                    ' "jobs": {"a": {"throughput": {"1": 5, "2": 9}}}}')
    assert read_truth(path) == ({"a": {1: 5.0, 2: 9.0}}, 20.0, 4)
    path.write_text('{"jobs": {"a": {"throughput": {"1": 5}}}}')
    assert read_truth(path) == ({"a": {1: 5.0}}, 30.0, None)
    path.write_text('{"nodes_per_machine": 0, "jobs": {}}')
    with pytest.raises(SourceError, match="nodes_per_machine must be a whole number"):
        read_truth(path)
    path.write_text("[1, 2]")
    with pytest.raises(SourceError, match="not a truth file"):
        read_truth(path)


# ---- invariants over small random traces (Hypothesis) -----------------------------------------

@st.composite
def small_traces(draw) -> Trace:
    """1–5 jobs whose every size fits the smallest capacity the trace ever has (so each job can
    run alone), concave true curves, a capacity that may change twice."""
    low = draw(st.integers(2, 6))
    jobs = []
    for i in range(draw(st.integers(1, 5))):
        lo = draw(st.integers(1, low))
        hi = draw(st.integers(lo, low))
        base, exponent = draw(st.floats(2.0, 20.0)), draw(st.floats(0.5, 1.0))
        jobs.append(TraceJob(
            f"j{i}", draw(st.floats(0.0, 1500.0)), lo, hi, draw(st.integers(lo, hi)),
            draw(st.floats(100.0, 6000.0)), {n: base * n ** exponent for n in range(lo, hi + 1)},
            weight=draw(st.sampled_from([1.0, 2.0]))))
    jobs.sort(key=lambda j: (j.submit, j.job_id))
    changes = draw(st.lists(st.tuples(st.floats(1.0, 4000.0), st.integers(low, low + 4)),
                            max_size=2))
    return Trace(jobs=jobs, capacity=sorted([(0.0, draw(st.integers(low, low + 4))), *changes]),
                 rescale_seconds=draw(st.sampled_from([0.0, 10.0, 30.0])))


def check_invariants(trace: Trace, res) -> None:
    jobs = {j.job_id: j for j in trace.jobs}
    # every job completes (the budget of windows is ample) or is named as unfinished
    assert res.unfinished == []
    assert {r["job_id"]: r["completed"] for r in job_kpis(res)} == dict.fromkeys(jobs, True)
    for w in res.windows:
        assert w.allocated <= w.capacity == trace.capacity_at(w.t)
        held = sum(n for _, a, b, n in res.intervals if a <= w.t < b)
        assert held <= w.capacity
    for s in res.states:
        mine = sorted((a, b, n) for j, a, b, n in res.intervals if j == s.job.job_id)
        assert all(s.job.min_nodes <= n <= s.job.max_nodes for _, _, n in mine)
        assert all(b1 <= a2 for (_, b1, _), (a2, _, _) in zip(mine, mine[1:], strict=False))
        # each interval at a size opens with the rescale; the rest of it does the work
        done = sum((b - a - trace.rescale_seconds) * s.job.true_throughput[n] for a, b, n in mine)
        assert done == pytest.approx(s.job.total_work, rel=1e-6)
        assert s.first_start is not None and s.first_start >= s.job.submit


@settings(max_examples=150, deadline=None)
@given(trace=small_traces(), policy=st.sampled_from(["greedy", "fifo", "optimus"]),
       window=st.sampled_from([100.0, 300.0, 600.0]))
def test_heuristics_keep_capacity_and_rules_every_window(trace, policy, window):
    res = replay(trace, policy, oracle_estimator(trace),
                 ReplayConfig(window=window, slots=3, max_windows=5000))
    check_invariants(trace, res)


@settings(max_examples=40, deadline=None)
@given(trace=small_traces(), preemption=st.booleans())
def test_mip_keeps_capacity_and_rules_every_window(trace, preemption):
    res = replay(trace, "mip", oracle_estimator(trace),
                 ReplayConfig(window=300.0, slots=3, max_windows=5000,
                              settings=Settings(time_limit=0.5, gap=1e-3,
                                                preemption=preemption)))
    check_invariants(trace, res)


def test_jobs_left_when_the_windows_run_out_are_reported(caplog):
    trace = three_jobs()
    res = replay(trace, "fifo", oracle_estimator(trace),
                 ReplayConfig(window=100.0, slots=3, max_windows=1))
    assert res.unfinished == ["A", "B", "C"]
    assert [r["completed"] for r in job_kpis(res)] == [False] * 3
    assert "unfinished: A, B, C" in caplog.text


def test_a_plan_that_breaks_a_rule_stops_the_replay():
    a = JobState(TraceJob("A", 0.0, 2, 3, 2, 100.0, {2: 1.0, 3: 1.5}), 100.0, nodes=2)
    b = JobState(TraceJob("B", 0.0, 1, 1, 1, 100.0, {1: 1.0}), 100.0)
    inst = Instance(jobs=[], capacity=[4])
    rules = {"policy": "test", "t": 0.0, "preemption": False}
    check_rules(inst, [Move(a, 3, 0.0), Move(b, 1, 0.0)], 4, **rules)
    with pytest.raises(RuleBroken, match="5 nodes allocated > capacity 4"):
        check_rules(inst, [Move(a, 3, 0.0), Move(b, 2, 0.0)], 4, **rules)
    with pytest.raises(RuleBroken, match=r"job A on 4 nodes, outside \[2, 3\]"):
        check_rules(inst, [Move(a, 4, 0.0)], 4, **rules)
    with pytest.raises(RuleBroken, match="running job A stopped without preemption"):
        check_rules(inst, [Move(a, 0, 0.0)], 4, **rules)
    check_rules(inst, [Move(a, 0, 0.0)], 4, **(rules | {"preemption": True}))


def test_replay_ends_when_the_jobs_left_can_never_fit():
    trace = three_jobs()
    trace.jobs.append(TraceJob("X", 70.0, 3, 4, 3, 100.0, {3: 9.0, 4: 12.0}))
    res = replay(trace, "fifo", oracle_estimator(trace), ReplayConfig(window=100.0, slots=3))
    assert res.unschedulable == ["X"] and res.end_time < 1000
    k = run_kpis(res)
    assert k["completed"] == 3 and k["unschedulable"] == 1


def _modelled_trace(seed: int = 3) -> Trace:
    """Twelve jobs of three model classes arriving over time on 8 nodes, 4 to a machine, with
    a few samples before the replay: enough for class shapes, cross-machine rates and jobs
    that finish while others still need curves."""
    import random

    rng = random.Random(seed)
    jobs, samples = [], []
    for i in range(12):
        serial = 0.05 + 0.1 * (i % 3)
        curve = {n: 10.0 * n / (1 + serial * (n - 1)) * (0.8 if n > 4 else 1.0)
                 for n in range(1, 9)}
        jobs.append(TraceJob(f"j{i}", 200.0 * i, 1, 8, rng.choice([1, 2, 4]),
                             rng.uniform(5e3, 4e4), curve, model=f"m{i % 3}"))
        if i % 4 == 0:
            samples.append((f"j{i}", 0.0, 2, curve[2], 1))
    return Trace(jobs=jobs, capacity=[(0.0, 8)], samples=samples, rescale_seconds=20.0,
                 nodes_per_machine=4)


@pytest.mark.parametrize("policy", ["greedy", "fifo", "mip"])
def test_curves_for_the_active_jobs_only_replay_exactly_as_curves_for_all(policy):
    """The replay asks the SQL estimator for the active jobs' curves only (finished jobs inform
    their class without sizes): same calls, same curves, same KPIs as fitting every job."""
    from warehouse.replay_inputs import SqlEstimator

    trace, fast, full = _modelled_trace(), SqlEstimator(), SqlEstimator()
    asked: list[tuple[int, int]] = []

    def fit_all(jobs, samples, wanted):
        curves = full(jobs, samples)
        fast_curves = fast(jobs, samples, wanted)
        assert fast_curves == {j: c for j, c in curves.items() if j in wanted}
        asked.append((len(jobs), len(wanted)))
        return curves

    cfg = ReplayConfig(window=300.0, slots=4, settings=Settings(time_limit=1.0))
    a = run_kpis(replay(trace, policy, fit_all, cfg))
    b = run_kpis(replay(trace, policy, SqlEstimator(), cfg))
    for k in ("completed", "mean_jct_s", "mean_queue_s", "makespan_s", "rescales"):
        assert a[k] == pytest.approx(b[k], rel=1e-9 if policy != "mip" else 0.05), k
    assert any(n > w for n, w in asked)   # finished jobs were left without sizes


def test_a_job_arriving_between_refits_is_fitted_alone():
    """Between refits (REFIT_GROWTH) a new job gets a fit of its own, its logged samples
    included, while the others keep their curves; once the samples have grown by a quarter,
    every active job is refitted."""
    trace = Trace(jobs=[TraceJob("A", 0.0, 1, 1, 1, 1e4, {1: 10.0}),
                        TraceJob("B", 150.0, 1, 1, 1, 1e4, {1: 10.0}),
                        TraceJob("C", 250.0, 1, 1, 1, 1e4, {1: 10.0})],
                  capacity=[(0.0, 3)],
                  samples=[("A", 0.0, 1, 10.0)] * 40 + [("B", 150.0, 1, 10.0)])
    oracle, asked = oracle_estimator(trace), []

    def recording(jobs, samples, wanted):
        asked.append((len(samples), sorted(wanted)))
        return oracle(jobs, samples, wanted)

    res = replay(trace, "fifo", recording, ReplayConfig(window=100.0, slots=2))
    assert run_kpis(res)["completed"] == 3
    # at 0 s A alone; at 200 s B (A's two samples of its run and B's logged one seen: fewer
    # than a quarter of 40 more); at 300 s C; at 400 s, when C reports the size its curve
    # had no sample of, all three
    assert asked[:4] == [(40, ["A"]), (43, ["B"]), (45, ["C"]), (48, ["A", "B", "C"])]

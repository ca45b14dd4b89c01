"""The replay engine and KPIs on a trace small enough to compute by hand."""

from __future__ import annotations

import pytest

from replay.engine import ReplayConfig, oracle_estimator, replay
from replay.kpis import job_kpis, run_kpis
from replay.trace import Trace, TraceJob


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
    assert k["efficiency"] == pytest.approx((100 / 130 + 40 / 70 + 25 / 55) / 3)
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

    def estimator(jobs, samples):
        seen[:] = samples
        return oracle(jobs, samples)

    replay(trace, "fifo", estimator, ReplayConfig(window=100.0, slots=2, max_windows=3))
    assert seen and all(s[2] == 3 and s[4] == 2 for s in seen)


def test_truth_files_are_read_with_their_machine_size_or_refused_in_one_line(tmp_path):
    from warehouse.errors import EtplanError
    from warehouse.replay_inputs import load_truth

    path = tmp_path / "truth.json"
    path.write_text('{"rescale_seconds": 20, "nodes_per_machine": 4,'
                    ' "jobs": {"a": {"throughput": {"1": 5, "2": 9}}}}')
    assert load_truth(path) == ({"a": {1: 5.0, 2: 9.0}}, 20.0, 4)
    path.write_text('{"jobs": {"a": {"throughput": {"1": 5}}}}')
    assert load_truth(path) == ({"a": {1: 5.0}}, 30.0, None)
    path.write_text('{"nodes_per_machine": 0, "jobs": {}}')
    with pytest.raises(EtplanError, match="nodes_per_machine must be a whole number"):
        load_truth(path)
    path.write_text("[1, 2]")
    with pytest.raises(EtplanError, match="not a truth file"):
        load_truth(path)

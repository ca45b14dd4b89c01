"""The faithful replay's rules on hand-computed traces (a toy model), each baseline's rule on its
own, and the fidelity against the published means where the Pollux data is present."""

from pathlib import Path

import pytest

from replay.baselines import OptimusOracle, Tiresias
from replay.cluster import place_counts, to_placement
from replay.faithful import EngineJob, EnginePolicy, FaithfulConfig, PolluxJob, State, simulate
from replay.kpis import run_kpis
from replay.pollux_physics import (
    Model,
    adaptive_config,
    batch_config,
    epoch_seconds,
    fastest_epoch_seconds,
    max_useful_gpus,
    placement_slowdown,
)
from sources.pollux import RawProfile

POLLUX = Path(__file__).resolve().parents[2] / "shared" / "data" / "pollux"


def toy(grad_var: float = 0.0, epochs: int = 2, spread: tuple[float, float] = (2.0, 3.0),
        adaptive: bool = False) -> Model:
    """Per-GPU batch 8 or 16. One GPU: 1 s / 2 s a step, no sync; 2 GPUs on one machine: the
    same with 0.2 s sync; 2 GPUs on two machines (1,1): `spread` (2 s / 3 s), 1.2 s sync.
    Batches 16 and 32 measured; epochs end at progress 10, 20, …; with grad_var 0 every
    iteration is one unit of progress."""
    rows = [("1", 8, 1.0, 0.0), ("1", 16, 2.0, 0.0), ("2", 8, 1.0, 0.2), ("2", 16, 2.0, 0.2),
            ("11", 8, spread[0], 1.2), ("11", 16, spread[1], 1.2)]
    placements = tuple({"placement": p, "local_bsz": float(b), "step_time": s, "sync_time": y}
                       for p, b, s, y in rows)
    scal = ({"num_nodes": 4.0, "num_replicas": 16.0, "local_bsz": 8.0, "step_time": 3.0,
             "sync_time": 2.0},)
    col = {"progress": tuple(10.0 * (e + 1) for e in range(epochs)),
           "grad_sqr": (1.0,) * epochs, "grad_var": (grad_var,) * epochs}
    validation = {16: col | {"iteration": tuple(15.0 * (e + 1) for e in range(epochs))},
                  32: col | {"iteration": tuple(5.0 * (e + 1) for e in range(epochs))}}
    return Model(RawProfile("toy", placements, scal, validation), max_epochs=epochs,
                 adaptive_batch=adaptive)


class Script(EnginePolicy):
    """Gives each job what `plan(t)` says (counts or machine lists)."""
    name = "script"

    def __init__(self, plan):
        self.plan = plan

    def decide(self, state):
        return {j.name: self.plan(state.time) for j in state.jobs}


def one_job(plan, batch=32, **cfg):
    spec = PolluxJob("a", 0.0, "toy", 2, batch)
    return simulate([spec], {"toy": toy()}, Script(plan), FaithfulConfig(**cfg))


def test_first_start_costs_30_s_then_two_epochs_of_20_s():
    # decided at t=60, restart to 90, two epochs of 10 iterations × 2 s
    r = one_job(lambda t: 2)
    assert r.jobs[0].finish == 130 and r.restarts["a"] == 0


def test_rate_follows_the_placement():
    # the same 2 GPUs on two machines: 3 s an iteration, 30 s an epoch
    r = one_job(lambda t: [0, 1])
    assert r.jobs[0].finish == 150 and r.spread_starts["a"] == 1


def test_one_gpu_accumulates():
    # B 32 on 1 GPU: micro-batch 16 and one extra micro-step of step − sync: 4 s an iteration
    assert batch_config(toy(), 32, 1) == (16, 1)
    assert one_job(lambda t: 1).jobs[0].finish == 170


def test_resize_restarts_and_keeps_progress():
    # 2 GPUs from 60: restart to 90, epoch 1 at 110, half of epoch 2 by 120; then 1 GPU:
    # restart to 150, the last 5 iterations × 4 s → 170
    r = one_job(lambda t: 2 if t < 120 else 1)
    assert r.jobs[0].finish == 170 and r.restarts["a"] == 1


def test_windowed_decisions_hold_machines():
    # a job submitted at 61 is first seen at the 300 s window: restart to 330, done at 370
    spec = PolluxJob("a", 61.0, "toy", 2, 32)
    r = simulate([spec], {"toy": toy()}, Script(lambda t: 2), FaithfulConfig(window=300))
    assert r.jobs[0].finish == 370


def test_fastest_epoch_seconds_takes_the_fastest_shape_the_engine_looks_up():
    # batch 32 on 2 GPUs: 16 a GPU, no accumulation; 10 iterations an epoch
    assert epoch_seconds(toy(), 32, 2) == pytest.approx((20.0, 20.0))      # packed: 2 s a step
    assert fastest_epoch_seconds(toy(), 32, 2) == pytest.approx((20.0, 20.0))
    # (1, 1) measured at 1 s a step: faster than packed, and the bound takes it
    assert fastest_epoch_seconds(toy(spread=(0.5, 1.0)), 32, 2) == pytest.approx((10.0, 10.0))


def test_adaptive_batch_takes_the_batch_with_the_most_progress_a_second():
    # 2 GPUs packed, batches 16 to 32. grad_var 0: every batch gains 1 an iteration, so the
    # fastest step wins: 8 a GPU (1 s) over 16 a GPU (2 s) or 8 + one micro-step (1.8 s)
    assert adaptive_config(toy(adaptive=True), (2,), 0) == (8, 0)
    # grad_var 100: batch 32 gains (100 + 1) / (100 / 2 + 1) = 1.98 an iteration; 8 a GPU with
    # one micro-step (1 + 0.8 s) makes 1.1 a second, against 1.0 (8 a GPU) and 0.99 (16)
    assert adaptive_config(toy(grad_var=100.0, adaptive=True), (2,), 0) == (8, 1)


def test_adaptive_batch_in_the_engine_and_the_range():
    # B 32 on 2 GPUs trains at batch 16 instead: 1 s an iteration, 10 s an epoch, so the
    # restart to 90 and two epochs end at 110 (130 at the fixed batch)
    spec = PolluxJob("a", 0.0, "toy", 2, 32)
    r = simulate([spec], {"toy": toy(adaptive=True)}, Script(lambda t: 2))
    assert r.jobs[0].finish == 110
    # a fixed batch of 16 uses at most 16 // 8 GPUs; an adaptive one up to 32 // 8
    assert max_useful_gpus(toy(), 16) == 2 and max_useful_gpus(toy(adaptive=True), 16) == 4
    # spread over (1, 1): at batch 32, 3 s an iteration against 2 s packed; adaptive, each
    # placement takes its best batch (16 either way: 2 s spread, 1 s packed), so progress is half
    assert placement_slowdown(toy(), 32, (1, 1)) == pytest.approx(1.5)
    assert placement_slowdown(toy(adaptive=True), 32, (1, 1)) == pytest.approx(2.0)


def test_statistical_efficiency_gain():
    # grad_sqr 1, grad_var 1: batch 32 is 2× the smallest, gain (1 + 1) / (1/2 + 1)
    assert toy(grad_var=1.0).gain(32, 0) == pytest.approx(4 / 3)


def test_placement_rules():
    prev = {"a": [0, 0, 0], "b": [1, 1]}
    out = place_counts({"a": 3, "b": 4, "c": 2}, prev, "most_free", machines=3)
    assert out == {"a": [0, 0, 0], "c": [1, 1], "b": [2, 2, 2, 2]}
    best = place_counts({"a": 3, "b": 4, "c": 1}, prev, "best_fit", machines=3)
    assert best["b"] == [1, 1, 1, 1] and best["c"] == [0]     # c fills a's machine
    assert to_placement([3, 3, 5, 5, 5]) == (2, 3)


def test_tiresias_demotes_after_its_threshold_and_preempts():
    m = toy()
    jobs = [EngineJob(PolluxJob("big", 0, "toy", 3, 32), m),
            EngineJob(PolluxJob("later", 0, "toy", 2, 32), m)]
    pol = Tiresias(threshold_gpu_s=3 * 180)          # 180 s at 3 GPUs
    a = pol.decide(State(60, jobs, {}, machines=1, per_machine=4))
    assert set(a) == {"big"}                         # 2 more do not fit in 4
    t = 60
    while "big" in a:
        t += 60
        a = pol.decide(State(t, jobs, a, machines=1, per_machine=4))
    assert t == 240 and set(a) == {"later"}          # demoted after 180 s run, preempted


def test_optimus_one_gpu_each_then_largest_marginal_gain():
    m = toy()
    jobs = [EngineJob(PolluxJob("a", 0, "toy", 1, 32), m),
            EngineJob(PolluxJob("c", 0, "toy", 1, 16), m)]
    # a: 4 s → 2 s per iteration, 10 iterations left: gain 20; c: 2 s → 1 s, 30 left: gain 30
    n = OptimusOracle().decide(State(60, jobs, {}, machines=1, per_machine=3))
    assert n == {"a": 1, "c": 2}
    jobs.append(EngineJob(PolluxJob("d", 0, "toy", 1, 16), m))
    n = OptimusOracle().decide(State(60, jobs, {}, machines=1, per_machine=2))
    assert n == {"a": 1, "c": 1, "d": 0}             # GPUs ran out in arrival order


def test_replay_ends_when_the_jobs_left_can_never_fit():
    specs = [PolluxJob("ok", 0, "toy", 2, 32), PolluxJob("huge", 0, "toy", 8, 32)]
    r = simulate(specs, {"toy": toy()}, Tiresias(),
                 FaithfulConfig(machines=1, per_machine=4))
    assert r.unschedulable == ["huge"] and r.jobs[0].finish == 130
    k = run_kpis(r)
    assert k["completed"] == 1 and k["unschedulable"] == 1 and k["rescales_per_job"] == 0


def test_kpis_of_a_faithful_run():
    k = run_kpis(one_job(lambda t: 2))
    # 2 epochs: 80 s on 1 GPU (work), 40 s on 2 GPUs; held 2 GPUs from 60 to 130 (+ idle to 180)
    assert k["speedup_vs_static"] == pytest.approx(40 / 70)
    assert k["gpu_efficiency"] == pytest.approx(80 / (2 * 120))


@pytest.mark.skipif(not (POLLUX / "workloads").is_dir(), reason="Pollux data absent")
@pytest.mark.parametrize(("policy", "published", "tolerance"),
                         [("tiresias", 3470, 0.01), ("optimus-oracle", 5302, 0.10)])
def test_fidelity_on_workload_6(policy, published, tolerance):
    from replay.pollux_runs import run_workload

    r = run_workload(POLLUX / "workloads" / "workload-6.csv", POLLUX / "traces", policy)
    assert abs(r.mean_jct / published - 1) <= tolerance


@pytest.mark.skipif(not (POLLUX / "traces").is_dir(), reason="Pollux data absent")
def test_an_imported_workload_replays_as_the_workload_file(tmp_path):
    from replay.pollux_runs import replay_imported, run_workload
    from sources.importers import import_pollux

    workload = tmp_path / "w.csv"
    workload.write_text("name,time,application,num_replicas,batch_size\n"
                        "ncf-0,0,ncf,1,256\nbert-1,30,bert,4,24\ncifar10-2,90,cifar10,2,256\n")
    import_pollux(workload, POLLUX / "traces", tmp_path / "logs")
    a = replay_imported(tmp_path / "logs" / "truth.json", "tiresias")
    b = run_workload(workload, POLLUX / "traces", "tiresias")
    assert a.mean_jct == b.mean_jct and not a.unschedulable

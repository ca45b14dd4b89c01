"""The faithful planner's rules of issue 13: the objective ages a job for the time it waited for
its requested size (`solver.objective.starved_seconds`), running below its request included, so
a long job held at 1 GPU is not starved; sizes that pack onto 4-GPU machines. A spread job
is repacked onto fewer machines when that saves more than its restart. Hand-computed 2–3 job
cases."""

from pathlib import Path

import pytest

from replay.cluster import repack, spread
from replay.faithful import EngineJob, PolluxJob, State
from replay.planner import PlannerPolicy
from replay.pollux_physics import load_model, placement_slowdown
from solver.instance import Instance, Job, candidate_sizes
from solver.objective import coefficients, starved_seconds
from tests.test_engine_faithful import POLLUX, toy


def test_starved_seconds_by_hand():
    assert starved_seconds(600.0, 0.0, 4) == 600.0            # queued: its queue time
    assert starved_seconds(1000.0, 1000.0, 4) == 750.0        # 1 of 4 GPUs: 3/4 s per s
    assert starved_seconds(1000.0, 4000.0, 4) == 0.0          # at its request: no aging
    assert starved_seconds(1000.0, 8000.0, 4) == 0.0          # above it: never below 0
    assert starved_seconds(1000.0, 500.0, 1) == 500.0         # half the time run


def engine_job(name: str, requested: int, attained: float, started: bool) -> EngineJob:
    j = EngineJob(PolluxJob(name, 0.0, "toy", requested, 32), toy())
    j.attained = attained
    j.first_start = 60.0 if started else None
    return j


@pytest.mark.parametrize(("aging", "expected"), [("starved", [900.0, 60.0, 1200.0]),
                                                 ("queued", [0.0, 0.0, 1200.0])])
def test_the_planner_ages_a_job_held_below_its_request(aging, expected):
    # at t = 1200: a has run 1 of its 2 GPUs for 600 s (600 GPU-s, restarts included), b 2 of 2
    # since t = 60 (2280 GPU-s: its 60 s in the queue stay), c is still queued
    policy = PlannerPolicy("mip", aging=aging)
    jobs = [engine_job("a", 2, 600.0, True), engine_job("b", 2, 2280.0, True),
            engine_job("c", 2, 0.0, False)]
    got = [policy.solver_job(j, 1 if j.name == "a" else 2 * (j.name == "b"), 1200.0)
           .waiting_seconds for j in jobs]
    assert got == expected


def test_a_starved_job_weighs_more_in_the_objective():
    # two equal jobs; a waited 900 s for its request: with τ = 900 its progress weighs twice b's
    jobs = [Job(k, 1, 2, 10.0, 10.0, {1: 1.0, 2: 2.0}, current_nodes=1, waiting_seconds=q)
            for k, q in (("a", 900.0), ("b", 0.0))]
    c = coefficients(Instance(jobs, [2, 2], slot_seconds=1.0, num_slots=2,
                              aging_seconds=900.0))
    assert c.progress[0, 0] == pytest.approx(2 * c.progress[1, 0])



def test_sizes_that_pack_onto_machines():
    assert candidate_sizes(1, 64, 3, 0) == [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
    # 3 and 6 split machines; the request (3) and the smallest size stay offered
    assert candidate_sizes(1, 64, 3, 0, per_machine=4) == [1, 2, 3, 4, 8, 12, 16, 24, 32, 48, 64]
    assert candidate_sizes(1, 10, 4, 6, per_machine=4) == [1, 2, 4, 6, 8]
    assert candidate_sizes(3, 16, 0, 0, per_machine=4) == [3, 4, 8, 12, 16]


@pytest.mark.skipif(not (POLLUX / "traces" / "cifar10").is_dir(),
                    reason="../shared/data/pollux is absent")
def test_the_planner_offers_packing_sizes_only_when_asked():
    # cifar10 at batch 128: per-GPU batch ≥ 32, so 1–4 GPUs
    j = EngineJob(PolluxJob("a", 0.0, "cifar10", 3, 128), load_model(POLLUX / "traces", "cifar10"))
    assert PlannerPolicy("mip").solver_job(j, 0, 60.0).allowed == [1, 2, 3, 4]
    assert PlannerPolicy("mip", pack=True).solver_job(j, 0, 60.0).allowed == [1, 2, 3, 4]
    j = EngineJob(PolluxJob("b", 0.0, "cifar10", 2, 128), j.model)
    assert PlannerPolicy("mip", pack=True).solver_job(j, 0, 60.0).allowed == [1, 2, 4]


def test_repack_moves_a_spread_job_to_fewer_machines_when_worth_it():
    # a's 4 GPUs span machines 0 and 1 (b has the rest of 0); without a, machine 1 is whole
    # again: a moves onto it if worth it
    allocs = {"a": [0, 0, 1, 1], "b": [0, 0]}
    assert repack(allocs, lambda *_: True, machines=3)["a"] == [1, 1, 1, 1]
    assert repack(allocs, lambda *_: False, machines=3)["a"] == [0, 0, 1, 1]
    # no machine would have 4 free GPUs without a: it stays (b and c fill the other halves)
    crowded = {"a": [0, 0, 1, 1], "b": [0, 0, 2, 2], "c": [1, 1, 2, 2]}
    assert repack(crowded, lambda *_: True, machines=3)["a"] == [0, 0, 1, 1]
    assert spread((1, 1)) and not spread((2,)) and not spread((4, 1))


@pytest.mark.parametrize(("epochs", "moves"), [(2, False), (10, True)])
def test_the_planner_repacks_when_the_time_saved_exceeds_a_restart(epochs, moves):
    # toy: 2 GPUs at batch 32 (16 per GPU) step in 2 s on one machine, 3 s on two; an epoch is
    # 10 iterations. 2 epochs left: 40 s packed, 60 s spread, saves 20 s < the 30 s restart;
    # 10 epochs: saves 100 s
    j = EngineJob(PolluxJob("a", 0.0, "toy", 2, 32), toy(epochs=epochs))
    state = State(600.0, [j], {"a": [0, 1]}, machines=2, per_machine=2)
    assert placement_slowdown(j.model, 32, (1, 1)) == pytest.approx(1.5)
    got = PlannerPolicy("mip").place({"a": 2}, state)["a"]
    assert got == ([0, 0] if moves else [0, 1])


def test_the_embedding_example_in_operations_md_runs_as_written(capsys):
    """docs/operations.md, "The planner inside another scheduler": its code block runs and
    prints what the page says, and the settings it names are `PlannerPolicy`'s."""
    doc = (Path(__file__).parents[1] / "docs" / "operations.md").read_text()
    section = doc.split("## The planner inside another scheduler", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/operations.md", "exec"), {})
    assert capsys.readouterr().out.strip() == "{'a': 4, 'b': 4}"
    assert "`{'a': 4, 'b': 4}`" in section
    policy = PlannerPolicy()
    assert (policy.slot_seconds, policy.num_slots, policy.settings.time_limit) == (120.0, 6, 0.3)

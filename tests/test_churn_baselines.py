"""Issue 14 item 1: the baselines (greedy, fifo, optimus) obey the churn budget of DESIGN §4.1
— `max_rescales` and `cooldown_seconds` in slot 0 — checked from outside by `violations`, on
random windows, with capacity that may fall below what the running jobs hold."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.capacity import preemptible_jobs
from solver.generate import random_instance
from solver.instance import Instance
from solver.objective import churn_violations, violations
from solver.policies import plan
from solver.policies.fifo import fifo
from solver.policies.greedy import greedy
from solver.policies.greedy_elastic import greedy_elastic
from solver.policies.optimus import optimus
from tests.test_solver import two_running_jobs

BASELINES = {"greedy": greedy, "fifo": fifo, "optimus": optimus,
             "greedy-elastic": greedy_elastic}


def _obeyable(inst: Instance, released: set[str]) -> bool:
    """Whether any slot 0 keeps the churn rules within capacity: released jobs may stop, the
    others keep their size or, out of their cooldown and within the budget, shrink."""
    running = [j for j in inst.jobs if j.current_nodes > 0 and j.remaining_work > 0
               and j.job_id not in released]
    savings = sorted((j.current_nodes - j.allowed[0] for j in running
                      if not inst.in_cooldown(j)), reverse=True)
    if inst.max_rescales is not None:
        savings = savings[: inst.max_rescales]
    return sum(j.current_nodes for j in running) - sum(savings) <= inst.capacity[0]


def _with_rules(inst: Instance, max_rescales, cooldown, since, capacity) -> Instance:
    if capacity is not None:
        inst = dataclasses.replace(inst, capacity=list(capacity), num_slots=len(capacity))
    inst.max_rescales, inst.cooldown_seconds = max_rescales, cooldown
    for k, job in enumerate(inst.jobs):
        job.seconds_since_resize = since[k % len(since)]
    return inst


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(BASELINES)), seed=st.integers(0, 10_000),
       n_jobs=st.integers(1, 12), running_share=st.sampled_from([0.4, 0.7, 1.0]),
       max_rescales=st.one_of(st.none(), st.integers(0, 3)),
       cooldown=st.one_of(st.none(), st.sampled_from([0.0, 600.0, 1800.0])),
       since=st.lists(st.one_of(st.none(), st.sampled_from([60.0, 900.0, 7200.0])),
                      min_size=1, max_size=4),
       capacity=st.one_of(st.none(), st.lists(st.integers(0, 40), min_size=1, max_size=6)))
def test_baselines_obey_the_churn_rules(name, seed, n_jobs, running_share, max_rescales,
                                        cooldown, since, capacity):
    inst = _with_rules(random_instance(n_jobs, num_slots=4, seed=seed,
                                       running_share=running_share),
                       max_rescales, cooldown, since, capacity)
    released, _ = preemptible_jobs(inst)
    nodes = BASELINES[name](inst, released)
    assert np.all(nodes.sum(axis=0) <= np.array(inst.capacity))
    found = violations(inst, nodes, preemptible=released)
    if _obeyable(inst, released):
        assert found == [], found
    else:   # no plan keeps the rules (the MIP has none either): only they may break
        assert set(found) <= set(churn_violations(inst, nodes)), found


def test_grows_beyond_the_budget_and_in_cooldown_are_undone():
    for name in BASELINES:
        if name == "fifo":
            continue   # FIFO never resizes a running job
        free = plan(two_running_jobs(), name).nodes_by_job()
        assert free["a"][0] > 1 and free["b"][0] > 1
        none = plan(two_running_jobs(max_rescales=0), name).nodes_by_job()
        assert (none["a"][0], none["b"][0]) == (1, 1)
        one = plan(two_running_jobs(max_rescales=1), name).nodes_by_job()
        assert sorted((one["a"][0] > 1, one["b"][0] > 1)) == [False, True]
        cool = plan(two_running_jobs(cooldown_seconds=120), name).nodes_by_job()
        assert cool["a"][0] == 1 and cool["b"][0] > 1


def test_a_forced_shrink_in_cooldown_stops_a_released_job_instead():
    """Capacity falls to 5 under jobs holding 4 + 4 (minimum 2 each, so the later one is
    released); the earlier one is in its cooldown, so the released one stops rather than the
    earlier shrinking, as the MIP must."""
    job = {"min_nodes": 2, "max_nodes": 4, "current_nodes": 4, "remaining_work": 1e7,
           "total_work": 1e7, "throughput": {"2": 190.0, "4": 360.0}, "allowed_nodes": [2, 4]}
    inst = Instance.from_dict({"capacity": [5, 3, 3], "num_slots": 3, "slot_seconds": 600,
                               "cooldown_seconds": 600,
                               "jobs": [job | {"job_id": "a", "seconds_since_resize": 60},
                                        job | {"job_id": "b"}]})
    released, _ = preemptible_jobs(inst)
    assert released == {"b"}
    for rule in BASELINES.values():
        nodes = rule(inst, released)
        assert nodes[:, 0].tolist() == [4, 0]
        assert violations(inst, nodes, preemptible=released) == []


def test_optimus_ends_when_forced_shrinks_use_the_whole_budget():
    """Found by a CI run: shrinks forced by capacity took more than `max_rescales`, and the
    loop that hands the budget out never ended."""
    inst = _with_rules(random_instance(11, num_slots=4, seed=4471, running_share=1.0),
                       1, 1800.0, [7200.0, 7200.0, None], [19])
    released, _ = preemptible_jobs(inst)
    nodes = optimus(inst, released)
    assert nodes[:, 0].sum() <= 19

"""Issue 15 item 4: no baseline holds more nodes than a slot has, whatever the capacity per
slot, and none stops a job it started before its work is done."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.capacity import preemptible_jobs
from solver.generate import random_instance
from solver.objective import violations
from solver.policies import plan
from solver.policies.fifo import fifo
from solver.policies.greedy import greedy
from solver.policies.greedy_elastic import greedy_elastic
from solver.policies.optimus import optimus

BASELINES = {"greedy": greedy, "fifo": fifo, "optimus": optimus,
             "greedy-elastic": greedy_elastic}


def _with_capacity(inst, capacity):
    return dataclasses.replace(inst, capacity=list(capacity), num_slots=len(capacity))


def _check(inst, rule):
    released, _ = preemptible_jobs(inst)
    nodes = rule(inst, released)
    used = nodes.sum(axis=0)
    assert np.all(used <= np.array(inst.capacity)), (used.tolist(), inst.capacity)
    assert violations(inst, nodes, preemptible=released) == []


@pytest.mark.parametrize("name", sorted(BASELINES))
@pytest.mark.parametrize("seed", range(6))
def test_the_reported_capacity_profile(name, seed):
    inst = _with_capacity(random_instance(12, seed=seed), [16, 8, 0, 4, 16, 2])
    _check(inst, BASELINES[name])
    p = plan(inst, name)
    per_slot = [0] * inst.T
    for a in p.allocations:
        per_slot[a.slot] += a.nodes
    assert all(u <= c for u, c in zip(per_slot, inst.capacity, strict=True))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(BASELINES)), seed=st.integers(0, 10_000),
       n_jobs=st.integers(1, 14),
       capacity=st.lists(st.integers(0, 40), min_size=1, max_size=8))
def test_any_capacity_per_slot(name, seed, n_jobs, capacity):
    inst = _with_capacity(random_instance(n_jobs, seed=seed), capacity)
    _check(inst, BASELINES[name])

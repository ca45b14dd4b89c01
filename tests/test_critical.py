"""The critical-path factor of the objective (`solver.objective.critical_factor`, the instance
key `critical_seconds`): hand-computed weights and JSON. Every solver path is checked against
enumeration with it on in tests/test_solver.py (`with_rules`)."""

from __future__ import annotations

import pytest

from solver.instance import (
    DEFAULT_CRITICAL_SECONDS,
    SHORT_SLOT_CRITICAL_SECONDS,
    SHORT_SLOT_RESCALE_PENALTY,
    SHORT_SLOT_SECONDS,
    Instance,
    InvalidInstance,
)
from solver.objective import coefficients, critical_factor


def two_jobs(current: int = 1, **rules) -> Instance:
    """a: 3,600 s of work left at its fastest (4 nodes, 400/s); b: 300 s (8 nodes, 800/s);
    both running on `current` nodes (0: queued)."""
    a = {"job_id": "a", "min_nodes": 1, "max_nodes": 4, "remaining_work": 1.44e6,
         "total_work": 1.44e6, "throughput": {"1": 100.0, "2": 200.0, "4": 400.0},
         "allowed_nodes": [1, 2, 4]}
    b = {"job_id": "b", "min_nodes": 1, "max_nodes": 8, "remaining_work": 2.4e5,
         "total_work": 2.4e5, "throughput": {"1": 100.0, "8": 800.0}, "allowed_nodes": [1, 8]}
    jobs = [{**j, "current_nodes": current} for j in (a, b)]
    return Instance.from_dict({"capacity": 8, "num_slots": 2, "slot_seconds": 600,
                               "jobs": jobs, **rules})


def test_the_factor_is_one_plus_the_fastest_remaining_time_over_theta():
    assert two_jobs().critical_seconds == DEFAULT_CRITICAL_SECONDS == 0.0   # off by default
    off = two_jobs()
    assert [critical_factor(off, j) for j in off.jobs] == [1.0, 1.0]
    on = two_jobs(critical_seconds=1200)
    assert [critical_factor(on, j) for j in on.jobs] == pytest.approx([1 + 3600 / 1200,
                                                                        1 + 300 / 1200])
    ratio = coefficients(on).progress / coefficients(off).progress
    assert ratio[:, 0].tolist() == pytest.approx([4.0, 1.25])
    assert ratio[:, 1].tolist() == pytest.approx([4.0, 1.25])


def test_a_queued_job_competes_on_its_aging_alone():
    """The factor raises running jobs only: queued long jobs taking the cluster ahead of short
    ones lengthened mean JCT wherever jobs queue (docs/model.md, "Defaults by slot length")."""
    queued = two_jobs(current=0, critical_seconds=1200)
    assert [critical_factor(queued, j) for j in queued.jobs] == [1.0, 1.0]
    off = two_jobs(current=0)
    assert coefficients(queued).progress.tolist() == coefficients(off).progress.tolist()


def test_critical_seconds_round_trips_and_is_checked():
    inst = two_jobs(critical_seconds=900)
    assert Instance.from_json(inst.to_json()).critical_seconds == 900.0
    with pytest.raises(InvalidInstance) as err:
        two_jobs(critical_seconds=-1)
    assert str(err.value) == "instance: critical_seconds must be ≥ 0, got -1"


def test_kappa_and_theta_left_out_take_the_defaults_of_the_slot_length():
    """Slots of at most SHORT_SLOT_SECONDS (re-planning every minute or two): κ = 3, θ = 1200 s;
    longer slots: κ = 1, θ off; given values (JSON or keyword) are kept either way."""
    for slot, kappa, theta in ((60, 3.0, 1200.0), (SHORT_SLOT_SECONDS, 3.0, 1200.0),
                               (300, 1.0, 0.0), (600, 1.0, 0.0)):
        inst = Instance(jobs=[], capacity=[4], num_slots=1, slot_seconds=slot)
        assert (inst.rescale_penalty, inst.critical_seconds) == (kappa, theta), slot
        data = {"capacity": 4, "num_slots": 1, "slot_seconds": slot, "jobs": []}
        inst = Instance.from_dict(data)
        assert (inst.rescale_penalty, inst.critical_seconds) == (kappa, theta), slot
        inst = Instance.from_dict({**data, "rescale_penalty": 0.5, "critical_seconds": 0})
        assert (inst.rescale_penalty, inst.critical_seconds) == (0.5, 0.0), slot
        inst = Instance.from_dict({**data, "critical_seconds": None})
        assert inst.critical_seconds == theta, slot
    assert (SHORT_SLOT_RESCALE_PENALTY, SHORT_SLOT_CRITICAL_SECONDS) == (3.0, 1200.0)

"""Window instances a careless user writes: one-line errors, never a traceback (issue 15)."""

from __future__ import annotations

import pytest

from solver.instance import Instance, InvalidInstance

JOB = {"job_id": "a", "min_nodes": 1, "max_nodes": 4, "requested_nodes": 2,
       "remaining_work": 10.0, "total_work": 10.0,
       "throughput": {"1": 1.0, "2": 2.0, "4": 3.0}, "allowed_nodes": [1, 2, 4]}


def instance(**changes) -> dict:
    job = {**JOB, **changes.pop("job", {})}
    return {"capacity": 4, "jobs": [job], **changes}


def test_requested_size_outside_the_allowed_sizes_is_one_line() -> None:
    with pytest.raises(InvalidInstance, match="requested_nodes 3 is not an allowed node count"):
        Instance.from_dict(instance(job={"requested_nodes": 3}))


@pytest.mark.parametrize("start", ["yesterday", "2026-13-01T00:00:00Z", ""])
def test_window_start_must_be_a_time(start: str) -> None:
    with pytest.raises(InvalidInstance, match="window_start"):
        Instance.from_dict(instance(window_start=start))


def test_a_real_window_start_is_kept() -> None:
    inst = Instance.from_dict(instance(window_start="2026-12-02T10:00:00Z"))
    assert inst.window_start == "2026-12-02T10:00:00Z"

"""Issue 13 item 4, the seed's own experiment: `--elastic-range LO,HI` on the importers and the
`greedy-elastic` baseline (DESIGN §6), its rule on its own on hand-computed windows."""

from __future__ import annotations

import csv
import json
from fractions import Fraction

import pytest

from replay.pollux_runs import replay_imported
from solver.capacity import preemptible_jobs
from solver.instance import Instance, Job
from solver.objective import violations
from solver.policies import plan
from solver.policies.greedy import greedy
from solver.policies.greedy_elastic import greedy_elastic
from sources.errors import SourceError
from sources.importers import elastic_bounds, import_pollux, parse_elastic_range
from sources.pollux import read_pollux_jobs
from tests.conftest import POLLUX, needs_pollux, run_cli

HALF_TO_TWICE = (Fraction(1, 2), Fraction(2))


# ---- the range --------------------------------------------------------------------------------
def test_parse_elastic_range():
    assert parse_elastic_range("0.5,2") == HALF_TO_TWICE
    assert parse_elastic_range(" 1 , 1 ") == (1, 1)
    for bad in ("2,1", "0,2", "-0.5,2", "0.5", "0.5,2,3", "a,b", "1/0,2", "1.5,2", "0.5,0.9",
                ""):
        with pytest.raises(SourceError, match="--elastic-range"):
            parse_elastic_range(bad)


@pytest.mark.parametrize(("req", "largest", "factors", "bounds"), [
    (6, 12, HALF_TO_TWICE, (3, 12)),
    (3, 64, HALF_TO_TWICE, (2, 6)),          # ⌈1.5⌉ = 2
    (1, 2, HALF_TO_TWICE, (1, 2)),
    (48, 64, HALF_TO_TWICE, (24, 64)),       # capped at the largest measured size
    (1, 1, HALF_TO_TWICE, (1, 1)),
    (10, 64, (Fraction("0.7"), Fraction("1.3")), (7, 13)),   # exact: 0.7 · 10 is 7
    (1, 64, (Fraction("0.1"), Fraction(1)), (1, 1)),          # at least 1
])
def test_elastic_bounds(req, largest, factors, bounds):
    assert elastic_bounds(req, largest, factors) == bounds


def test_a_bad_range_is_one_line_on_the_command_line(tmp_path):
    r = run_cli("import", "pollux", str(tmp_path / "w.csv"), "--profiles",
                str(tmp_path), "--out", str(tmp_path / "o"), "--elastic-range", "2,0.5")
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --elastic-range '2,0.5'"), r.stderr
    assert "Traceback" not in r.stderr + r.stdout


def _workload(tmp_path, rows):
    path = tmp_path / "workload.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["name", "time", "application", "num_replicas", "batch_size"])
        w.writerows(rows)
    return path


@needs_pollux
def test_import_sets_each_jobs_range_and_the_replay_reads_it(tmp_path):
    rows = [["cifar10-0", 0, "cifar10", 6, 2048], ["ncf-1", 30, "ncf", 1, 32768],
            ["yolov3-2", 60, "yolov3", 3, 64]]
    work = _workload(tmp_path, rows)
    plain = import_pollux(work, POLLUX / "traces", tmp_path / "plain")
    wide = import_pollux(work, POLLUX / "traces", tmp_path / "wide", elastic=HALF_TO_TWICE)

    def ranges(written):
        with written["job_events"].open() as fh:
            return {r["job_id"]: (int(r["min_nodes"]), int(r["max_nodes"]),
                                  int(r["requested_nodes"])) for r in csv.DictReader(fh)}

    before, after = ranges(plain), ranges(wide)
    largest = {j: hi for j, (_, hi, _) in before.items()}
    assert all(lo == 1 for lo, _, _ in before.values())      # the default is unchanged
    for j, (lo, hi, req) in after.items():
        assert (lo, hi) == elastic_bounds(req, largest[j], HALF_TO_TWICE)
    assert after["cifar10-0"] == (3, 12, 6)
    truth = json.loads(wide["truth"].read_text())["jobs"]
    assert (truth["cifar10-0"]["min_gpus"], truth["cifar10-0"]["max_gpus"]) == (3, 12)
    assert "min_gpus" not in json.loads(plain["truth"].read_text())["jobs"]["cifar10-0"]
    jobs, _ = read_pollux_jobs(wide["truth"])
    assert {r["job_id"]: (r["min_gpus"], r["max_gpus"]) for r in jobs} == {
        j: (lo, hi) for j, (lo, hi, _) in after.items()}


@needs_pollux
def test_greedy_elastic_runs_in_the_faithful_replay_within_the_ranges(tmp_path):
    rows = [["ncf-0", 0, "ncf", 2, 32768], ["ncf-1", 10, "ncf", 4, 32768],
            ["bert-2", 20, "bert", 4, 384]]
    written = import_pollux(_workload(tmp_path, rows), POLLUX / "traces", tmp_path / "logs",
                            elastic=HALF_TO_TWICE)
    result = replay_imported(written["truth"], "greedy-elastic")
    assert all(j.finish is not None for j in result.jobs)
    spec = {j.spec.job_id: j.spec for j in result.jobs}
    assert (spec["ncf-1"].min_gpus, spec["ncf-1"].max_gpus) == (2, 8)
    assert result.intervals
    for job_id, _, _, n in result.intervals:
        assert n == 0 or spec[job_id].min_gpus <= n <= spec[job_id].max_gpus


# ---- greedy-elastic's rule on its own ---------------------------------------------------------
def _job(job_id: str, lo: int, hi: int, current: int = 0, since: float | None = None) -> Job:
    """A job too long to finish inside the window, linear in its node count."""
    return Job(job_id, lo, hi, 1e9, 1e9, {n: 10.0 * n for n in range(lo, hi + 1)},
               current_nodes=current, seconds_since_resize=since)


def _plan(jobs: list[Job], cap: int, slots: int = 2, **rules) -> dict[str, list[int]]:
    inst = Instance(jobs=jobs, capacity=[cap] * slots, slot_seconds=60, num_slots=slots,
                    **rules)
    released, _ = preemptible_jobs(inst)
    nodes = greedy_elastic(inst, released)
    assert violations(inst, nodes, preemptible=released) == []
    return {job.job_id: nodes[j].tolist() for j, job in enumerate(inst.jobs)}


def test_a_running_job_shrinks_to_let_a_queued_one_start():
    """8 nodes: a holds 6 of [2, 8], b waits for 4 of [4, 8]: a gives 2 back, both run on 4.
    greedy instead grows a to 8 and b keeps waiting."""
    assert _plan([_job("a", 2, 8, current=6), _job("b", 4, 8)], 8) == {
        "a": [4, 4], "b": [4, 4]}
    inst = Instance(jobs=[_job("a", 2, 8, current=6), _job("b", 4, 8)], capacity=[8, 8],
                    slot_seconds=60, num_slots=2)
    assert greedy(inst).tolist() == [[8, 8], [0, 0]]


def test_minimums_first_then_the_rest_in_submit_order():
    """10 nodes, three queued jobs: each starts at its minimum (1 + 2 + 3), then the 4 left go
    in submit order: a up to its maximum 4, b the last one."""
    assert _plan([_job("a", 1, 4), _job("b", 2, 8), _job("c", 3, 3)], 10) == {
        "a": [4, 4], "b": [3, 3], "c": [3, 3]}


def test_the_latest_submitted_shrinks_first():
    assert _plan([_job("a", 2, 4, current=4), _job("b", 2, 4, current=4), _job("c", 2, 2)],
                 8) == {"a": [4, 4], "b": [2, 2], "c": [2, 2]}


def test_a_queued_job_that_cannot_fit_waits_and_a_smaller_one_starts():
    """4 nodes all held by a (minimum 3): b needs 2 and waits; c needs 1 and starts."""
    assert _plan([_job("a", 3, 4, current=4), _job("b", 2, 4), _job("c", 1, 1)], 4) == {
        "a": [3, 3], "b": [0, 0], "c": [1, 1]}


def test_the_churn_rules_hold_in_slot_zero():
    """The first case under max_rescales = 0 or with a in its cooldown: a keeps 6 in slot 0
    and b waits a slot (the rules bind slot 0 only)."""
    expected = {"a": [6, 4], "b": [0, 4]}
    assert _plan([_job("a", 2, 8, current=6), _job("b", 4, 8)], 8, max_rescales=0) == expected
    assert _plan([_job("a", 2, 8, current=6, since=60), _job("b", 4, 8)], 8,
                 cooldown_seconds=120) == expected
    # one rescale allowed: of two running jobs only the latest shrinks, which is enough
    two = [_job("a", 2, 4, current=4), _job("b", 2, 4, current=4), _job("c", 2, 2)]
    assert _plan(two, 8, max_rescales=1) == {"a": [4, 4], "b": [2, 2], "c": [2, 2]}


def test_behind_the_registry():
    inst = Instance(jobs=[_job("a", 2, 8, current=6), _job("b", 4, 8)], capacity=[8, 8],
                    slot_seconds=60, num_slots=2)
    p = plan(inst, "greedy-elastic")
    assert p.policy == "greedy-elastic"
    assert p.nodes_by_job() == {"a": [4, 4], "b": [4, 4]}


def test_a_tenants_max_nodes_caps_starts_and_growth():
    """10 nodes, tenant t capped at 4: a, b, c start at 1; a (of t) then grows only to 3, as
    c (of t) holds the fourth; b takes the rest."""
    from solver.instance import TenantQuota

    jobs = [_job("a", 1, 8), _job("b", 1, 8), _job("c", 1, 2)]
    jobs[0].tenant = jobs[2].tenant = "t"
    inst = Instance(jobs=jobs, capacity=[10], slot_seconds=60, num_slots=1,
                    quotas={"t": TenantQuota(max_nodes=4)})
    nodes = greedy_elastic(inst, set())
    assert nodes[:, 0].tolist() == [3, 6, 1]

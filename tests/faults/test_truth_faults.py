"""Issue 15 item 6: a true curve (truth.json) that is negative, NaN, zero, infinite, too slow
to ever finish, or missing a size is one line naming the file, the job and the size, at load
time — never a hang nor a KeyError traceback; likewise an imported truth.json of the faithful
replay with a bad batch size, GPU count, model or time."""

from __future__ import annotations

import json
import shutil

import pytest

from flows.usecases.runs import backtest
from sources.errors import SourceError
from sources.importers import import_pollux
from sources.truth import read_truth, write_truth
from tests.conftest import POLLUX, needs_pollux, run_cli


def _bad_copy(src, dst, job: str, change) -> None:
    doc = json.loads(src.read_text())
    change(doc["jobs"][job])
    dst.write_text(json.dumps(doc))


def _first_job(logs) -> str:
    return sorted(json.loads((logs / "truth.json").read_text())["jobs"])[0]


@pytest.mark.parametrize("value", [-5.0, 0.0, float("nan"), float("inf"), 1e-300, True])
def test_a_bad_true_throughput_is_refused_naming_file_job_and_size(tmp_path, small_logs, value):
    job = _first_job(small_logs)
    bad = tmp_path / "truth.json"
    _bad_copy(small_logs / "truth.json", bad, job,
              lambda j: j["throughput"].update({n: value for n in j["throughput"]}))
    with pytest.raises(SourceError, match=rf"^{bad}: job {job} at \d+ nodes: throughput "):
        read_truth(bad)


def test_backtest_refuses_a_nan_truth_in_one_line(tmp_path, small_logs):
    """Before: a KeyError traceback (NaN) or a replay that never ends (negative, zero)."""
    job = _first_job(small_logs)
    for value in ("NaN", "0", "-1"):
        bad = tmp_path / f"truth{value}.json"
        text = (small_logs / "truth.json").read_text()
        doc = json.loads(text)
        size = next(iter(doc["jobs"][job]["throughput"]))
        doc["jobs"][job]["throughput"][size] = "@"
        bad.write_text(json.dumps(doc).replace('"@"', value))
        r = run_cli("backtest", str(small_logs), "--out", str(tmp_path / "out"),
                    "--truth", str(bad), "--policies", "greedy")
        last = r.stderr.strip().splitlines()[-1]
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert last.startswith(f"error: {bad}: job {job} at {size} nodes: throughput"), last


def test_a_curve_too_slow_to_finish_or_missing_a_size_is_refused(tmp_path, small_logs):
    job = _first_job(small_logs)
    slow = tmp_path / "slow.json"
    _bad_copy(small_logs / "truth.json", slow, job,
              lambda j: j["throughput"].update({n: 1e-6 for n in j["throughput"]}))
    with pytest.raises(SourceError, match=rf"^{slow}: job {job}: .* longer than the replay"):
        backtest(small_logs, ["greedy"], tmp_path / "out", truth=slow)
    gap = tmp_path / "gap.json"
    curves = json.loads((small_logs / "truth.json").read_text())["jobs"]
    job = max(sorted(curves), key=lambda j: len(curves[j]["throughput"]))
    _bad_copy(small_logs / "truth.json", gap, job,
              lambda j: j["throughput"].pop(max(j["throughput"], key=int)))
    with pytest.raises(SourceError, match=rf"^{gap}: job {job}: its true curve has no "
                                          r"throughput for \d+ nodes"):
        backtest(small_logs, ["greedy"], tmp_path / "out", truth=gap)


def test_bad_rescale_seconds_and_node_counts_are_refused(tmp_path):
    path = tmp_path / "truth.json"
    path.write_text('{"rescale_seconds": -1, "jobs": {"a": {"throughput": {"1": 5}}}}')
    with pytest.raises(SourceError, match="rescale_seconds must be a finite number"):
        read_truth(path)
    path.write_text('{"jobs": {"a": {"throughput": {"0": 5}}}}')
    with pytest.raises(SourceError, match="job a: node count 0 outside"):
        read_truth(path)
    path.write_text('{"jobs": {"a": {"throughput": {}}}}')
    with pytest.raises(SourceError, match="job a has an empty throughput curve"):
        read_truth(path)


def test_writers_refuse_a_bad_curve(tmp_path):
    """The generator and the importers write through write_truth: no bad curve leaves them."""
    with pytest.raises(SourceError, match="job a at 2 nodes: throughput nan"):
        write_truth(tmp_path / "t.json", {"a": {"throughput": {"1": 3.0, "2": float("nan")}}},
                    curve="test", start="2026-01-01T00:00:00Z")
    assert not (tmp_path / "t.json").exists()


@pytest.fixture(scope="module")
def pollux_logs(tmp_path_factory):
    out = tmp_path_factory.mktemp("plogs")
    workload = out / "workload.csv"
    lines = (POLLUX / "workloads" / "workload-7.csv").read_text().splitlines()[:4]
    workload.write_text("\n".join(lines) + "\n")
    import_pollux(workload, POLLUX / "traces", out / "logs")
    return out / "logs"


FAITHFUL_FAULTS = [
    ("batch_size", 0, "batch_size, requested_gpus and min_gpus must be ≥ 1"),
    ("requested_gpus", -8, "batch_size, requested_gpus and min_gpus must be ≥ 1"),
    ("batch_size", "big", "not a truth.json of `etplan import pollux|philly`"),
    ("submit", "yesterday", "not a truth.json of `etplan import pollux|philly`"),
    ("model", "gpt9", "no measured profile for model 'gpt9'"),
    ("profiles", "/nonexistent", "needs each job's model, batch size and one profiles folder"),
]


@needs_pollux
@pytest.mark.parametrize(("key", "value", "said"), FAITHFUL_FAULTS)
def test_the_faithful_replay_refuses_a_bad_imported_truth(tmp_path, pollux_logs, key, value,
                                                          said):
    """Before: ZeroDivisionError, FileNotFoundError, ValueError tracebacks, or a replay that
    ran to its 4,000,000 s horizon (a request of 0 GPUs)."""
    logs = tmp_path / "logs"
    shutil.copytree(pollux_logs, logs)
    job = _first_job(logs)
    _bad_copy(pollux_logs / "truth.json", logs / "truth.json", job,
              lambda j: j.update({key: value}))
    with pytest.raises(SourceError, match=f"^{logs / 'truth.json'}: .*{said[:30]}"):
        backtest(logs, ["tiresias"], tmp_path / "out")

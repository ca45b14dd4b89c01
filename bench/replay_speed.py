"""Replay speed of the windowed engine as `etplan backtest` runs it (issue 16 item 3): the wall
time of `replay()` on imported logs, with the SQL estimator every window, per policy.
Writes bench/results/replay_speed.json.

Run: `.venv/bin/python bench/replay_speed.py [--workloads 6] [--policies mip,greedy,fifo]
[--philly] [--baseline DIR] [--repeats 1]`. Each replay runs in a process of its own;
`--baseline DIR` (a worktree of an older commit) times the same cells with that code too,
interleaved with this tree's (same machine, same load), and checks their KPIs.
The Philly slice is `etplan import philly … --start 2017-10-09T00:00:00Z --hours 72
--jobs 2000` replayed with a plan every 600 s; the Pollux workloads every 300 s, 64 GPUs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from benchlib import BENCH, POLLUX, RESULTS

ROOT = BENCH.parent
PHILLY_START = datetime(2017, 10, 9, tzinfo=UTC)
LIMIT = 0.5   # the MIP's time limit per window, as in docs/benchmarks.md


def one(logs: Path, policy: str, window: float) -> dict:
    """Replay `policy` on `logs` in this process (the code of the current directory)."""
    from flows.usecases.runs import load_trace, replay_config
    from replay.engine import replay
    from replay.kpis import SUMMARY_KEYS, run_kpis
    from warehouse.replay_inputs import SqlEstimator

    trace = load_trace(logs, None, 64)
    estimator = SqlEstimator()
    start = time.perf_counter()
    result = replay(trace, policy, estimator, replay_config(window, 6, LIMIT))
    wall = time.perf_counter() - start
    kpis = run_kpis(result)
    return {"wall_s": round(wall, 2), "windows": len(result.windows),
            "estimator_calls": estimator.calls,
            "decision_s": round(sum(w.decision_seconds for w in result.windows), 2),
            "kpis": {k: kpis[k] for k in SUMMARY_KEYS if not k.startswith("decision")}}


def run_cell(root: Path, logs: Path, policy: str, window: float) -> dict:
    """`one` in a fresh process whose code is the checkout at `root`."""
    code = ("import json, sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; "
            "import replay_speed as rs; from pathlib import Path; "
            "print(json.dumps(rs.one(Path(sys.argv[3]), sys.argv[4], float(sys.argv[5]))))")
    out = subprocess.run([sys.executable, "-c", code, str(root), str(BENCH), str(logs), policy,
                          str(window)], cwd=root, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def traces(tmp: Path, workloads: list[int], philly: bool) -> list[tuple[str, Path, float]]:
    """(name, logs folder, window seconds) of each trace to replay."""
    from sources.importers import import_philly, import_pollux

    out = []
    for k in workloads:
        logs = tmp / f"workload-{k}"
        import_pollux(POLLUX / "workloads" / f"workload-{k}.csv", POLLUX / "traces", logs)
        out.append((f"pollux workload {k}", logs, 300.0))
    if philly:
        logs = tmp / "philly"
        import_philly(POLLUX / "traces" / "philly.csv", POLLUX / "traces", logs,
                      start=PHILLY_START, hours=72, jobs=2000)
        out.append(("philly 2,000 jobs", logs, 600.0))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default="6")
    ap.add_argument("--policies", default="mip,greedy,fifo")
    ap.add_argument("--philly", action="store_true", help="also the 2,000-job Philly slice")
    ap.add_argument("--philly-policies", default="mip")
    ap.add_argument("--baseline", type=Path, help="a checkout of older code to time as well")
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    roots = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, logs, window in traces(Path(tmp), [int(k) for k in args.workloads.split(",")
                                                     if k], args.philly):
            policies = (args.philly_policies if name.startswith("philly") else args.policies)
            for policy in policies.split(","):
                for rep in range(args.repeats):
                    for code, root in (reversed(roots.items()) if rep % 2 else roots.items()):
                        cell = run_cell(root, logs, policy, window)
                        rows.append({"trace": name, "policy": policy, "code": code,
                                     "repeat": rep, **cell})
                        print(json.dumps(rows[-1]), flush=True)
    save(rows)


def _cell(row: dict) -> tuple:
    return row["trace"], row["policy"], row["code"], row["repeat"]


def save(rows: list[dict]) -> None:
    """bench/results/replay_speed.json: these rows, and the earlier runs' rows of other cells."""
    path = RESULTS / "replay_speed.json"
    old = json.loads(path.read_text())["rows"] if path.exists() else []
    new = {_cell(r) for r in rows}
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    rows = [r for r in old if _cell(r) not in new] + [
        {**r, "measured": stamp, "command": " ".join(sys.argv)} for r in rows]
    RESULTS.mkdir(exist_ok=True)
    path.write_text(json.dumps({"rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()

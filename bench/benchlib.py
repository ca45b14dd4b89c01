"""What the bench scripts share: where the data and results are, and how each script writes
only its own section of docs/results.md — between `<!-- begin: NAME -->` and
`<!-- end: NAME -->` — so that running one never drops another's figures.

Import it first: run as `python bench/x.py`, the bench folder comes first on sys.path, where
bench/solver.py would hide the `solver` package; importing this module takes the folder off."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from solver.policies import Settings

BENCH = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]

POLLUX = BENCH.parent.parent / "shared" / "data" / "pollux"
RESULTS = BENCH / "results"
RESULTS_DOC = BENCH.parent / "docs" / "results.md"

# the published mean JCT (s) on the 8 normal-load workloads, 64 GPUs, from the data README:
# (Pollux, Optimus+Oracle, Tiresias)
REFERENCE = {1: (2089, 4087, 2474), 2: (3323, 6914, 5145), 3: (2188, 3944, 3876),
             4: (2721, 5968, 3280), 5: (2674, 5656, 3501), 6: (2446, 5302, 3470),
             7: (3616, 7291, 5480), 8: (2952, 6294, 5080)}


# our planner's rows in the benches: the MIP, and the same allowed to stop running jobs
# (Settings.preemption, `etplan backtest --preemption`)
OURS = {"mip": False, "mip-preemptive": True}


def planner_settings(time_limit: float, preemption: bool = False) -> Settings:
    """Our planners' solver settings in a faithful replay: `time_limit` a decision and the gap
    every replay uses (flows.defaults.REPLAY_GAP), as `etplan backtest` passes them."""
    from flows.usecases.runs import replay_config

    return replay_config(time_limit=time_limit, preemption=preemption).settings


def replay_policy(policy: str, time_limit: float) -> tuple[str, dict]:
    """The faithful replay's policy name and options for a bench row: the artifact's baselines
    (`tiresias`, `optimus-oracle`) take none; ours run with `planner_settings`, `mip-preemptive`
    being the planner `mip` with preemption."""
    from replay import FAITHFUL_ONLY

    if policy in FAITHFUL_ONLY:
        return policy, {}
    name = "mip" if policy in OURS else policy
    return name, {"settings": planner_settings(time_limit, preemption=OURS.get(policy, False))}


def write_section(name: str, lines: list[str], doc: Path = RESULTS_DOC) -> None:
    """Replace section `name` of `doc` with `lines` (appended at the end when absent)."""
    begin, end = f"<!-- begin: {name} -->", f"<!-- end: {name} -->"
    section = "\n".join([begin, *lines, end])
    text = doc.read_text() if doc.exists() else ""
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + section + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + section + "\n"
    doc.write_text(text)

"""Reusing a backtest --out with fewer policies leaves none of the old policies' KPIs
(issue 15, item 8)."""

from __future__ import annotations

from pathlib import Path

from flows.usecases.runs import backtest, replay_config
from sources.synthetic import write_logs


def test_rerun_with_fewer_policies_drops_the_old_ones(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_logs(logs, 12, seed=3)
    out = tmp_path / "out"
    config = replay_config(600, 3, 0.2)
    backtest(logs, ["greedy", "fifo"], out, capacity=16, config=config)
    assert (out / "kpis" / "runs" / "policy=fifo").is_dir()
    doc = backtest(logs, ["greedy"], out, capacity=16, config=config)
    assert list(doc["policies"]) == ["greedy"]
    left = {p.name for p in (out / "kpis").glob("*/policy=*")}
    assert left == {"policy=greedy"}

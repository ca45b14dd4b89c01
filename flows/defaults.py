"""THE operational defaults: every default of the CLI, the Prefect flows and the backtest bench
is named here once. Model defaults stay with the model and are re-used by import: the rescale
seconds (`solver.instance`, DESIGN §3.3) and the warehouse file (`warehouse.connection`, the
DuckDB layer's own default)."""

from __future__ import annotations

from pathlib import Path

from solver.instance import (
    DEFAULT_GAP,
    DEFAULT_NUM_SLOTS,
    DEFAULT_RESCALE_SECONDS,
    DEFAULT_SLOT_SECONDS,
    DEFAULT_TIME_LIMIT,
)
from warehouse.connection import DEFAULT_WAREHOUSE

WAREHOUSE = DEFAULT_WAREHOUSE              # overridden by --warehouse / $ETPLAN_WAREHOUSE
OUTPUTS = Path("data") / "out"             # Parquet plans, KPIs and reports (DESIGN §8)
DEMO_LOGS = Path("data") / "demo-logs"     # where `etplan demo` writes its synthetic logs
PREFECT_HOME = Path(".prefect")            # Prefect's state, per checkout (unless $PREFECT_HOME)

# the operational window: a plan every SLOT_SECONDS, NUM_SLOTS slots ahead
SLOT_SECONDS = DEFAULT_SLOT_SECONDS
NUM_SLOTS = DEFAULT_NUM_SLOTS
SERVE_CRON = "*/10 * * * *"                # the schedule's default: one plan per slot
SERVE_DEPLOYMENT = "etplan-serve"          # `etplan serve`'s; prefect.yaml's is etplan-pipeline
RESCALE_SECONDS = DEFAULT_RESCALE_SECONDS

# replays (backtest, sweep, bench): a plan every REPLAY_WINDOW seconds
REPLAY_WINDOW = 300.0
REPLAY_GAP = 0.005                         # every replay's (docs/benchmarks.md, "The replays' gap")
POLICIES = ("mip", "optimus", "greedy", "fifo")   # compared by backtest and demo by default

# solver time limits, one per purpose (seconds per decision)
PLAN_GAP = DEFAULT_GAP                     # relative MIP gap of `solve`
PLAN_TIME_LIMIT = DEFAULT_TIME_LIMIT       # `solve`, `plan window`, the scheduled pipeline
BACKTEST_TIME_LIMIT = 2.0                  # each window of `backtest` and the sweep
DEMO_TIME_LIMIT = 0.5                      # each window of the demo's replay
WHATIF_TIME_LIMIT = 3.0                    # `plan whatif`: an answer in seconds (< 15 s)
BENCH_TIME_LIMIT = 0.5                     # each window of bench/backtest.py

# synthetic logs (`generate`, `demo`) and imported traces
SYNTHETIC_JOBS = 200
SYNTHETIC_SEED = 7
POOL_NODES = 64

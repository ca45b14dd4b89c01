"""Replay engine: drives a policy window by window over a historical trace (plain data in,
KPIs out). Depends on `solver` only; the caller supplies the throughput estimator."""

# the artifact's baselines, which run only in the faithful replay (replay/pollux_runs.py); a
# backtest that names one replays all its policies there
FAITHFUL_ONLY = ("tiresias", "optimus-oracle")

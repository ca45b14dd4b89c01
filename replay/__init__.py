"""Replay engine: drives a policy window by window over a historical trace (plain data in,
KPIs out). Depends on `solver` only; the caller supplies the throughput estimator."""

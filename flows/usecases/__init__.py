"""The use cases of etplan as plain functions: the CLI (`flows.cli`) and the Prefect flows
(`flows.pipeline`) both call these and add only parsing, printing or orchestration.

- `data`: generate and import logs, ingest, estimate, summary, read-only SQL and its export;
- `plans`: plan a window from the warehouse (the operational job), solve an instance file,
  random instances, the latest plan;
- `runs`: backtest (replay policies on one trace) + KPIs + report, the demo's steps.
"""

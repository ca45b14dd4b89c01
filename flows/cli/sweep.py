"""The sweep command: backtest cells (workloads × capacities × policies) on a Dask cluster."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from flows import defaults
from flows.cli.common import (
    ReplaySlotsOpt,
    ReplayTimeLimitOpt,
    ReplayWindowOpt,
    out,
    say,
    whole_table,
)
from flows.cli.runs import parse_policies

app = typer.Typer()

# the KPIs shown, with headers that fit 80 columns (all of them are in each cell's folder)
SHOWN = {"mean_jct_s": "JCT s", "mean_queue_s": "queue s", "rescales_per_job": "resc/job",
         "gpu_efficiency": "GPU eff"}


@app.command()
def sweep(
    workloads: Annotated[list[Path], typer.Argument(
        exists=True, file_okay=False, help="Workload folders (etplan import or generate).")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder of the cells' results; a "
                                                        "rerun skips finished cells.")],
    policies: Annotated[list[str] | None, typer.Option(
        callback=parse_policies, help="Repeated or comma-separated policy names (as for "
                                      "backtest).")] = None,
    capacity: Annotated[list[int] | None, typer.Option(
        min=1, help="Pool sizes in nodes, repeated; default: each workload's capacity "
                    "feed.")] = None,
    dask_address: Annotated[str | None, typer.Option(
        "--dask-address", help="An existing Dask scheduler, e.g. tcp://10.0.0.5:8786; "
                               "default: a local cluster.")] = None,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes of the local "
                                                     "cluster.")] = 2,
    window: ReplayWindowOpt = defaults.REPLAY_WINDOW,
    slots: ReplaySlotsOpt = defaults.NUM_SLOTS,
    time_limit: ReplayTimeLimitOpt = defaults.BACKTEST_TIME_LIMIT,
    force: Annotated[bool, typer.Option("--force", help="Replay finished cells too.")
                     ] = False,
) -> None:
    """Replay every workload × capacity × policy as a Prefect task on a Dask cluster; cells
    finished before with the same inputs are reused. The workers report to the Prefect API
    that PREFECT_API_URL names, or else to a local server started (and stopped) for the
    sweep: Prefect's ephemeral API lives inside this process, out of the workers' reach."""
    from flows.cli.server import prefect_api
    from flows.usecases import runs
    from flows.usecases import sweep as cells_of

    # one set of inputs for the check below and for the flow, so both fingerprint alike
    inputs = dict(workloads=[str(w) for w in workloads], policies=policies,
                  capacities=list(capacity or [None]))
    replay = dict(window=window, slots=slots, time_limit=time_limit, gap=defaults.REPLAY_GAP)
    cells, done = cells_of.prior(**inputs, out=out_dir, config=runs.replay_config(**replay),
                                 force=force)
    if len(done) == len(cells):   # nothing to replay: no cluster, no Prefect server
        _print_results(done)
        out.print(f"0 cells replayed, {len(done)} reused; results: {out_dir}", highlight=False)
        return
    home = Path(os.environ.get("PREFECT_HOME", defaults.PREFECT_HOME))
    with prefect_api(home, say):
        from flows.pipeline import dask_runner, sweep_flow

        flow = sweep_flow.with_options(task_runner=dask_runner(dask_address, workers))
        doc = flow(**inputs, **replay, out=str(out_dir), force=force)
    _print_results(doc["results"])
    out.print(f"{doc['replayed']} cells replayed, {doc['reused']} reused; results: {out_dir}",
              highlight=False)


def _print_results(results: dict[str, dict]) -> None:
    from flows.usecases.sweep import results_table

    rows = []
    for row in results_table(results):
        cells = [row["workload"], row["capacity"], row["policy"]]   # text (results_table)
        for key in SHOWN:
            v = row.get(key)
            cells.append("-" if v is None else f"{v:,.0f}" if key.endswith("_s")
                         else f"{v:,.3f}")
        rows.append(tuple(cells))
    out.print(whole_table(["workload", "capacity", "policy", *SHOWN.values()], rows,
                          right_from=3, title="sweep"))

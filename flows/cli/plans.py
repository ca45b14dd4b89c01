"""Plan commands: solve, generate-instance, plan window, plan show."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from flows import defaults
from flows.cli.common import (
    AtOpt,
    OutputsOpt,
    Policy,
    PreemptionOpt,
    RunIdOpt,
    SolverName,
    WarehouseOpt,
    err,
    out,
    parse_time,
)

app = typer.Typer()

TimeLimitOpt = Annotated[float, typer.Option("--time-limit", min=0.01,
                                             help="Solver seconds for the window.")]


@app.command()
def solve(
    instance: Annotated[Path, typer.Argument(help="Window instance JSON (DESIGN §3.3).")],
    policy: Annotated[Policy, typer.Option(help="The MIP or a baseline heuristic.")
                      ] = Policy.mip,
    solver: Annotated[SolverName, typer.Option(
        help="auto = column generation, and when it does not prove the gap the full MIP on "
             "Gurobi (if its licence admits the model) or HiGHS; columns = the same with "
             "HiGHS; gurobi / highs = the full MIP on that backend only.")
                      ] = SolverName.auto,
    time_limit: TimeLimitOpt = defaults.PLAN_TIME_LIMIT,
    gap: Annotated[float, typer.Option(min=0.0, max=1.0, help="Relative MIP gap.")] = 1e-4,
    threads: Annotated[int, typer.Option(min=1, help="Solver threads.")] = 1,
    preemption: PreemptionOpt = False,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write the plan JSON here "
                                                                "(default: stdout).")] = None,
) -> None:
    """Plan one window: the MIP of DESIGN §4, or a baseline, as plan JSON."""
    from flows.usecases.common import write_text
    from flows.usecases.plans import solve_file
    from solver.policies import Settings

    result = solve_file(instance, policy.value, Settings(
        solver=solver.value, time_limit=time_limit, gap=gap, threads=threads,
        preemption=preemption))
    if out_file:
        write_text(out_file, result.to_json() + "\n")
        err.print(f"{result.policy} plan ({result.solver}, {result.status}, objective "
                  f"{result.objective:.6g}, {result.solve_seconds:.2f} s) written to {out_file}",
                  highlight=False)
    else:
        sys.stdout.write(result.to_json() + "\n")


@app.command("generate-instance")
def generate_instance(
    jobs: Annotated[int, typer.Option(min=1, help="Number of jobs.")] = 50,
    slots: Annotated[int, typer.Option(min=1, help="Slots in the window.")
                     ] = defaults.NUM_SLOTS,
    capacity: Annotated[int | None, typer.Option(min=0, help="Nodes; default about 2/3 of "
                                                           "the jobs' requests.")] = None,
    seed: Annotated[int, typer.Option(help="Random seed; same seed, same instance.")] = 0,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write the instance here "
                                                                "(default: stdout).")] = None,
) -> None:
    """Write a random but realistic window instance (JSON)."""
    from flows.usecases.common import write_text
    from flows.usecases.plans import random_instance_json

    text = random_instance_json(jobs, slots, capacity, seed)
    if out_file:
        write_text(out_file, text)
    else:
        sys.stdout.write(text)


plan_app = typer.Typer(no_args_is_help=True, help="Plan the next window; show the plan.")
app.add_typer(plan_app, name="plan")


@plan_app.command("window")
def plan_window(
    at: AtOpt = None,
    run_id: RunIdOpt = None,
    policy: Annotated[Policy, typer.Option(help="The MIP or a baseline heuristic.")
                      ] = Policy.mip,
    time_limit: TimeLimitOpt = defaults.PLAN_TIME_LIMIT,
    preemption: PreemptionOpt = False,
    outputs: OutputsOpt = defaults.OUTPUTS,
    warehouse: WarehouseOpt = None,
) -> None:
    """Plan the window starting --at from the warehouse's state and write it as Parquet."""
    from flows.usecases.common import new_run_id
    from flows.usecases.plans import plan_window_in
    from solver.policies import Settings

    wp = plan_window_in(warehouse, outputs, run_id or new_run_id(), at=parse_time(at, "--at"),
                        policy=policy.value,
                        settings=Settings(time_limit=time_limit, preemption=preemption))
    out.print(f"{len(wp.instance.jobs)} jobs planned at {wp.at:%Y-%m-%dT%H:%M:%SZ} by "
              f"{wp.plan.solver} ({wp.plan.status}); plan written to {wp.path}")
    for w in wp.plan.warnings:
        err.print(f"warning: {w}", highlight=False)


@plan_app.command("show")
def plan_show(outputs: OutputsOpt = defaults.OUTPUTS) -> None:
    """The latest plan as ops act on it: job, action, nodes now → next, ETC, saved vs static."""
    from flows.usecases.plans import duration_text, latest_plan

    rows = latest_plan(outputs)
    if not rows:
        out.print("the latest plan has no jobs")
        return
    table = Table(title=f"plan for {rows[0][6]:%Y-%m-%d %H:%M} UTC (run {rows[0][7]}, "
                        f"{rows[0][8]}, {rows[0][9]})")
    for c in ("job", "action", "nodes now → next", "ETC", "saved vs static"):
        table.add_column(c, justify="left" if c in ("job", "action") else "right")
    for job, action, now, nxt, etc, saved, *_ in rows:
        table.add_row(job, action, f"{now} → {nxt}", duration_text(etc), duration_text(saved))
    out.print(table)


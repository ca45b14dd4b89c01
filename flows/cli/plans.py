"""Plan commands: solve, generate-instance, plan window, plan show, plan explain, plan whatif."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from flows import defaults
from flows.cli.common import (
    NO_CHURN,
    AtOpt,
    ChurnGiven,
    OutputsOpt,
    Policy,
    PreemptionOpt,
    RunIdOpt,
    SolverName,
    WarehouseOpt,
    churn_options,
    err,
    out,
    whole_table,
)

if TYPE_CHECKING:
    from warehouse.explain import CurveBehind

app = typer.Typer()

TimeLimitOpt = Annotated[float, typer.Option("--time-limit", min=0.01,
                                             help="Solver seconds for the window.")]


@app.command()
@churn_options
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
    gap: Annotated[float, typer.Option(min=0.0, max=1.0, help="Relative MIP gap.")
                   ] = defaults.PLAN_GAP,
    threads: Annotated[int, typer.Option(min=1, max=256, help="Solver threads.")] = 1,
    preemption: PreemptionOpt = False,
    churn: ChurnGiven = NO_CHURN,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write the plan JSON here "
                                                                "(default: stdout).")] = None,
) -> None:
    """Plan one window: the MIP of DESIGN §4, or a baseline, as plan JSON. The churn options
    replace the instance's own fields when given."""
    from flows.usecases.common import write_text
    from flows.usecases.plans import solve_file
    from solver.policies import Settings

    result = solve_file(instance, policy.value, Settings(
        solver=solver.value, time_limit=time_limit, gap=gap, threads=threads,
        preemption=preemption), churn)
    if out_file:
        write_text(out_file, result.to_json() + "\n")
        bound = "" if result.best_bound is None else f", bound {result.best_bound:.6g}"
        err.print(f"{result.policy} plan ({result.solver}, {result.status}, objective "
                  f"{result.objective:.6g}{bound}, {result.solve_seconds:.2f} s + build "
                  f"{result.build_seconds:.2f} s, stopped by {result.stopped_by}) written to "
                  f"{out_file}", highlight=False)
    else:
        sys.stdout.write(result.to_json() + "\n")


@app.command("generate-instance")
def generate_instance(
    jobs: Annotated[int, typer.Option(min=1, max=100_000, help="Number of jobs.")] = 50,
    slots: Annotated[int, typer.Option(min=1, help="Slots in the window.")
                     ] = defaults.NUM_SLOTS,
    capacity: Annotated[int | None, typer.Option(min=0, help="Nodes; default about 2/3 of "
                                                           "the jobs' requests.")] = None,
    seed: Annotated[int, typer.Option(min=0, help="Random seed; same seed, same instance.")
                    ] = 0,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write the instance here "
                                                                "(default: stdout).")] = None,
) -> None:
    """Write a random but realistic window instance (JSON)."""
    from flows.usecases.common import write_text
    from flows.usecases.plans import random_instance_json

    text = random_instance_json(jobs, slots, capacity, seed)
    if out_file:
        write_text(out_file, text)
        err.print(f"window instance ({jobs} jobs, {slots} slots) written to {out_file}",
                  highlight=False)
    else:
        sys.stdout.write(text)


plan_app = typer.Typer(no_args_is_help=True, help="Plan the next window; show the plan.")
app.add_typer(plan_app, name="plan")


@plan_app.command("window")
@churn_options
def plan_window(
    at: AtOpt = None,
    run_id: RunIdOpt = None,
    policy: Annotated[Policy, typer.Option(help="The MIP or a baseline heuristic.")
                      ] = Policy.mip,
    time_limit: TimeLimitOpt = defaults.PLAN_TIME_LIMIT,
    preemption: PreemptionOpt = False,
    churn: ChurnGiven = NO_CHURN,
    outputs: OutputsOpt = defaults.OUTPUTS,
    warehouse: WarehouseOpt = None,
) -> None:
    """Plan the window starting --at from the warehouse's state and write it as Parquet."""
    from flows.usecases.common import new_run_id
    from flows.usecases.plans import plan_window_in
    from solver.churn_rules import ChurnRules
    from solver.policies import Settings

    wp = plan_window_in(warehouse, outputs, run_id or new_run_id(), at=at,
                        policy=policy.value,
                        settings=Settings(time_limit=time_limit, preemption=preemption),
                        churn=ChurnRules(**churn))
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
    cells = [(job, action, f"{now} → {nxt}", duration_text(etc), duration_text(saved))
             for job, action, now, nxt, etc, saved, *_ in rows]
    out.print(whole_table(["job", "action", "nodes now → next", "ETC", "saved vs static"],
                          cells, right_from=2,   # job ids whole: ops act on them
                          title=f"plan for {rows[0][6]:%Y-%m-%d %H:%M} UTC (run {rows[0][7]}, "
                                f"{rows[0][8]}, {rows[0][9]})"))



@plan_app.command("whatif")
@churn_options
def plan_whatif(
    capacity: Annotated[str | None, typer.Option(
        metavar="+N|-N", help="Nodes added to (or taken from) every slot's capacity.")] = None,
    drop: Annotated[str | None, typer.Option(metavar="JOB",
                                             help="Leave this job out of the window.")] = None,
    weight: Annotated[str | None, typer.Option(metavar="JOB=W",
                                               help="Give this job weight W (> 0).")] = None,
    quota: Annotated[str | None, typer.Option(
        metavar="TENANT=N", help="Cap this tenant's jobs at N nodes per slot (its max_nodes).")
                     ] = None,
    time_limit: Annotated[float, typer.Option("--time-limit", min=0.01,
                                              help="Solver seconds for the re-solve.")
                          ] = defaults.WHATIF_TIME_LIMIT,
    churn: ChurnGiven = NO_CHURN,
    run_id: RunIdOpt = None,
    outputs: OutputsOpt = defaults.OUTPUTS,
    warehouse: WarehouseOpt = None,
) -> None:
    """Re-solve the latest plan's window with ONE change, same policy: per job its size (slot
    0) and ETC before → after (only jobs that change), then the KPI deltas. The official plan
    stays; the what-if plan is written under OUTPUTS/whatif/. Give the churn options the
    plan was made with."""
    from flows.usecases.common import new_run_id
    from flows.usecases.whatif import parse_change, what_if
    from solver.churn_rules import ChurnRules
    from solver.policies import Settings

    w = what_if(warehouse, outputs, parse_change(capacity, drop, weight, quota),
                run_id or new_run_id(), settings=Settings(time_limit=time_limit),
                churn=ChurnRules(**churn))
    _print_whatif(w)


def _print_whatif(w) -> None:
    """The what-if's job changes, their count, the KPI deltas and where the plan went."""
    from flows.usecases.plans import duration_text

    out.print(f"what-if {w.change.text()} on the window at {w.at:%Y-%m-%d %H:%M} UTC "
              f"({w.policy}, {w.jobs} jobs): {w.plan.solver} ({w.plan.status}) in "
              f"{w.plan.solve_seconds:.2f} s", highlight=False)
    if w.changed:
        cells = [(d.job_id,
                  f"{d.nodes_before} → {'dropped' if d.nodes_after is None else d.nodes_after}",
                  f"{duration_text(d.etc_before)} → {duration_text(d.etc_after)}")
                 for d in w.changed]
        out.print(whole_table(["job", "nodes before → after", "ETC before → after"], cells,
                              right_from=1, title="jobs that change (nodes in slot 0, ETC)"))
    out.print(f"{len(w.changed)} of {w.jobs} jobs change", highlight=False)
    kpis = Table(title="plan KPIs")
    for c in ("KPI", "before", "after", "Δ"):
        kpis.add_column(c, justify="left" if c == "KPI" else "right")
    for name, before, after in w.kpis:
        kpis.add_row(name, f"{before:,.4g}", f"{after:,.4g}", f"{after - before:+,.4g}")
    out.print(kpis)
    out.print(f"what-if plan: {w.path} ({w.seconds:.1f} s)", highlight=False)


@plan_app.command("explain")
def plan_explain(
    job: Annotated[str, typer.Argument(help="A job id of the latest plan.")],
    outputs: OutputsOpt = defaults.OUTPUTS,
    warehouse: WarehouseOpt = None,
) -> None:
    """Why the latest plan gives JOB its nodes (DESIGN §11): sizes and why per slot, the curve
    used and the samples behind it, each allowed size's value against the slot prices, and
    the rules that bound it."""
    from flows.usecases.plans import explain_job

    x = explain_job(job, outputs, warehouse)
    first = x.rows[0]
    out.print(_wrapped(f"job {job} in the latest plan for {first['window_time']:%Y-%m-%d %H:%M}"
                       f" UTC (run {first['run_id']}, {first['policy']} by {first['solver']}, "
                       f"{first['status']})", ""), highlight=False)
    _explain_slots(x.rows)
    if x.curve is not None:
        _explain_curve(x.curve, x.sizes)
    if x.values is not None:
        _explain_values(x.rows, x.sizes, x.values)
    rules: dict[str, list[str]] = {}
    for r in x.rows:
        if r["why"] and r["why"] != "price":
            rules.setdefault(r["why"], []).append(str(r["slot"]))
    said = "; ".join(f"{code} (slot {', '.join(slots)})" for code, slots in rules.items())
    out.print(_wrapped(f"binding rules: {said or 'none, prices only'}", ""), highlight=False)


def _wrapped(text: str, indent: str) -> str:
    import textwrap

    return textwrap.fill(text, width=79, initial_indent=indent,
                         subsequent_indent=" " * (len(indent) + 2))


def _explain_slots(rows: list[dict]) -> None:
    """Per slot: nodes, action, why code and the slot's price; then each slot's sentence."""
    table = Table(title="sizes per slot")
    for c in ("slot", "nodes", "action", "why", "price/node"):
        table.add_column(c, justify="right" if c in ("slot", "nodes", "price/node") else "left")
    for r in rows:
        price = "-" if r["slot_price"] is None else f"{r['slot_price']:.3g}"
        table.add_row(str(r["slot"]), str(r["nodes"]), r["action"], r["why"] or "-", price)
    out.print(table)
    for r in rows:
        out.print(_wrapped(r["why_text"] or "(plan written before explanations)",
                           f"  slot {r['slot']}: "), highlight=False)


def _explain_curve(c: CurveBehind, sizes: list[int]) -> None:
    """The curve the plan used: where it came from, its points at the sizes the job was offered
    (all when unknown) and where it was measured, the samples behind it."""
    if not c.curve:
        out.print("curve: none in the warehouse now (re-estimated since the plan?)")
        return
    fit = "" if c.r2 is None else f", r² {c.r2:.3f} over {c.n_points} sizes"
    out.print(_wrapped(f"curve: source {c.source}{fit}; model class {c.model or '-'}: "
                       f"{c.class_samples} samples from {c.class_jobs} jobs", ""),
              highlight=False)
    own = {n: (k, tp) for n, k, tp in c.own}
    table = Table(title="throughput curve")
    for col in ("nodes", "samples/s", "own samples", "median measured"):
        table.add_column(col, justify="right")
    shown = set(sizes or c.curve) | set(own)
    for n, tp in sorted(c.curve.items()):
        if n not in shown:
            continue
        k, med = own.get(n, (0, None))
        table.add_row(str(n), f"{tp:.4g}", str(k), "-" if med is None else f"{med:.4g}")
    out.print(table)


def _explain_values(rows: list[dict], sizes: list[int], values: list[list[float]]) -> None:
    """Each allowed size's value per slot less the price of its nodes (* = the plan's)."""
    prices = [r["slot_price"] for r in rows]
    priced = all(p is not None for p in prices)
    title = ("value − price × nodes per slot (* planned)" if priced
             else "value per slot (* planned; no slot prices)")
    table = Table(title=title)
    table.add_column("size", justify="right")
    for r in rows:
        table.add_column(str(r["slot"]), justify="right")
    for k, n in enumerate(sizes):
        cells = []
        for t, r in enumerate(rows):
            v = values[k][t] - (prices[t] * n if priced else 0.0)
            cells.append(f"{v:.3g}{'*' if r['nodes'] == n else ''}")
        table.add_row(str(n), *cells)
    out.print(table)

"""The `etplan` command line: each command parses its options, calls one use case
(`flows.usecases`) or Prefect flow (`flows.pipeline`) and prints. The packages below it only
log. Commands by group: `data` (generate, ingest, sql, summary, estimate, import),
`plans` (solve, generate-instance, plan window / show / explain / whatif), `runs` (backtest,
demo, pipeline, serve), `sweep` (backtest cells on a Dask cluster); `common` holds the shared
options and printing."""

from __future__ import annotations

import inspect
import os
import sys

import typer

from flows import defaults
from flows.cli import data, plans, runs, sweep
from flows.cli.common import err
from sources.errors import SourceError
from warehouse.errors import EtplanError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="etplan — plan node allocations for elastic deep-learning training jobs.")
for group in (data, plans, runs, sweep):
    app.add_typer(group.app)


def _one_line_summaries(typer_app: typer.Typer) -> None:
    """Give every command the first paragraph of its docstring, on one line, as the summary in
    its group's command list (typer's rich mode would keep the docstring's line breaks there)."""
    for info in typer_app.registered_commands:
        if info.short_help is None and info.callback is not None and info.callback.__doc__:
            first = inspect.cleandoc(info.callback.__doc__).split("\n\n")[0]
            info.short_help = " ".join(first.split())
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _one_line_summaries(group.typer_instance)


_one_line_summaries(app)


def main() -> None:
    """Console entry point: one-line errors, exit 1; usage errors exit 2 (typer). Prefect
    keeps its own log format; its state lives in the project's .prefect/ unless PREFECT_HOME
    says otherwise (set before Prefect is imported)."""
    os.environ.setdefault("PREFECT_HOME", str(defaults.PREFECT_HOME.resolve()))
    # no machine here may call home; Prefect's server would log a failure on every start
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    # Prefect waits 20 s for its ephemeral API server; a busy 2-core machine needs longer
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    try:
        app()
    except (EtplanError, SourceError) as e:
        err.print(f"error: {e}", highlight=False, soft_wrap=True)
        sys.exit(1)
    except Exception as e:   # a fault nobody foresaw: still one line; the traceback on request
        if os.environ.get("ETPLAN_DEBUG"):
            raise
        first = (str(e).splitlines() or [""])[0]
        err.print(f"error: unexpected {type(e).__name__}: {first} (a bug in etplan: rerun with "
                  "ETPLAN_DEBUG=1 for the traceback and report it)", highlight=False)
        sys.exit(1)

"""What every chart of the report shares: plotly figures as <div>s (the library's JavaScript is
embedded once by report/html.py), one colour per policy, tables as html."""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio
import pyarrow.parquet as pq
from plotly.colors import qualitative

CONFIG = {"displaylogo": False, "responsive": True,
          "modeBarButtonsToRemove": ["select2d", "lasso2d"]}
PALETTE = qualitative.D3
CAPACITY_COLOUR = "#444"


def colours(names: Iterable[str]) -> dict[str, str]:
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}


RIGHT_LEGEND = {"orientation": "v", "x": 1.01, "y": 1, "yanchor": "top"}
# log axes of hours and of seconds, ticked in human units
HOUR_TICKS = ([1 / 60, 5 / 60, 0.25, 0.5, 1, 2, 4, 8, 24, 48, 168, 720],
              ["1 min", "5 min", "15 min", "30 min", "1 h", "2 h", "4 h", "8 h", "1 d", "2 d",
               "1 wk", "30 d"])
SECOND_TICKS = ([0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 60, 300, 600, 3600],
                ["1 ms", "3 ms", "10 ms", "30 ms", "0.1 s", "0.3 s", "1 s", "3 s", "10 s", "30 s",
                 "1 min", "5 min", "10 min", "1 h"])


@cache
def _template() -> go.layout.Template:
    """plotly_white's layout without its per-trace-type styles: the same look, copied into
    each figure at a fraction of the cost."""
    return go.layout.Template(layout=pio.templates["plotly_white"].layout)


def layout(fig: go.Figure, height: int, **kw) -> go.Figure:
    kw.setdefault("legend", {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0})
    fig.update_layout(template=_template(), height=height, font={"size": 13},
                      margin={"l": 70, "r": 30, "t": 50, "b": 50},
                      hoverlabel={"namelength": -1}, **kw)
    return fig


def div(fig: go.Figure, div_id: str) -> str:
    """The figure as a <div> drawn by plotly (no JavaScript of ours)."""
    return pio.to_html(fig, full_html=False, include_plotlyjs=False, div_id=div_id,
                       config=CONFIG, validate=False)


def read_kpis(folder: Path) -> dict[str, list[dict]]:
    """Rows per policy from a hive-partitioned kpis/<table>/policy=<p>/ folder."""
    out: dict[str, list[dict]] = {}
    if not folder.is_dir():
        return out
    for part in sorted(folder.glob("policy=*/part-0.parquet")):
        out[part.parent.name.split("=", 1)[1]] = pq.read_table(part).to_pylist()
    return out


def table(head: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    """An html table; cells are already html (escape text before)."""
    th = "".join(f"<th>{h}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    klass = f' class="{cls}"' if cls else ""
    return f"<table{klass}><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def esc(x) -> str:
    return html.escape(str(x))


def hours(seconds: Iterable[float]) -> list[float]:
    return [s / 3600 for s in seconds]


def finite(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)

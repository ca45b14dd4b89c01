"""Charts of a backtest's replay, from its KPI Parquet tables (kpis/{windows,jobs,intervals}):
queue and utilisation, JCT and queueing CDFs, nodes in use per policy against the capacity,
and the solver's time and gap per window."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
from plotly.subplots import make_subplots

from report import units
from report.figures import (
    CAPACITY_COLOUR,
    HOUR_TICKS,
    RIGHT_LEGEND,
    SECOND_TICKS,
    colours,
    div,
    esc,
    finite,
    hours,
    layout,
    read_kpis,
    table,
)

HOURS = "hours since the trace's start"


def queue_and_utilisation(windows: dict[str, list[dict]], col: dict[str, str]) -> str:
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08)
    for p, rows in windows.items():
        t = hours(r["t"] for r in rows)
        fig.add_scatter(x=t, y=[r["queued"] for r in rows], row=1, col=1, name=p,
                        legendgroup=p, line={"shape": "hv", "color": col[p]})
        fig.add_scatter(x=t, y=[100 * r["allocated"] / max(r["capacity"], 1) for r in rows],
                        row=2, col=1, name=p, legendgroup=p, showlegend=False,
                        line={"shape": "hv", "color": col[p]})
    fig.update_yaxes(title_text="jobs queued", row=1, col=1)
    fig.update_yaxes(title_text="nodes in use (% of capacity)", row=2, col=1)
    fig.update_xaxes(title_text=HOURS, row=2, col=1)
    return div(layout(fig, 520, hovermode="x unified"), "chart-queue")


def _cdf(values: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """Positive values in hours and the share of jobs at or below each; zeros (a job that
    started at once) lift the curve's start instead of sitting at log(0)."""
    v = np.sort(np.asarray(values, dtype=float))
    zeros = int((v <= 0).sum())
    pos = v[v > 0]
    return pos / 3600, (zeros + np.arange(1, pos.size + 1)) / max(v.size, 1)


def cdfs(jobs: dict[str, list[dict]], col: dict[str, str]) -> str:
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("job completion time", "queueing delay"))
    for p, rows in jobs.items():
        for i, key in enumerate(("jct_s", "queue_s"), start=1):
            x, y = _cdf([r[key] for r in rows if finite(r[key])])
            fig.add_scatter(x=x, y=100 * y, row=1, col=i, name=p, legendgroup=p,
                            showlegend=i == 1, line={"shape": "hv", "color": col[p]},
                            customdata=[units.duration(h * 3600) for h in x],
                            hovertemplate="%{customdata}: %{y:.0f} % of jobs")
    fig.update_xaxes(type="log", title_text="time (log scale)", tickvals=HOUR_TICKS[0],
                     ticktext=HOUR_TICKS[1])
    fig.update_yaxes(title_text="% of jobs at or below", range=[0, 101])
    return div(layout(fig, 420, legend=RIGHT_LEGEND), "chart-cdf")


def nodes_in_use(intervals: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """(times, nodes allocated from each time on) of a policy's (start_s, end_s, nodes)."""
    if not intervals:
        return np.zeros(0), np.zeros(0)
    t = np.array([r["start_s"] for r in intervals] + [r["end_s"] for r in intervals], float)
    d = np.array([r["nodes"] for r in intervals] + [-r["nodes"] for r in intervals], float)
    order = np.argsort(t, kind="stable")
    t, used = t[order], np.cumsum(d[order])
    last = np.r_[t[1:] != t[:-1], True]     # one value per time: after all its changes
    return t[last], used[last]


def allocation(intervals: dict[str, list[dict]], windows: dict[str, list[dict]],
               col: dict[str, str]) -> str:
    pols = list(intervals)
    fig = make_subplots(rows=len(pols), cols=1, shared_xaxes=True,
                        vertical_spacing=0.25 / len(pols), subplot_titles=pols)
    for i, p in enumerate(pols, start=1):
        t, used = nodes_in_use(intervals[p])
        fig.add_scatter(x=hours(t), y=used, row=i, col=1, name=p, fill="tozeroy",
                        line={"shape": "hv", "color": col[p]},
                        hovertemplate="%{y:.0f} nodes at %{x:.1f} h")
        cap = windows.get(p) or next(iter(windows.values()), [])
        fig.add_scatter(x=hours(r["t"] for r in cap), y=[r["capacity"] for r in cap],
                        row=i, col=1, name="capacity", legendgroup="capacity",
                        showlegend=i == 1, hovertemplate="capacity %{y:.0f}",
                        line={"shape": "hv", "color": CAPACITY_COLOUR, "dash": "dash"})
        fig.update_yaxes(title_text="nodes", rangemode="tozero", row=i, col=1)
    fig.update_xaxes(title_text=HOURS, row=len(pols), col=1)
    return div(layout(fig, 140 + 190 * len(pols), legend=RIGHT_LEGEND), "chart-allocation")


def solver_per_window(windows: dict[str, list[dict]], col: dict[str, str]) -> str | None:
    """Decision time per window for every policy, MIP gap per window where there is one."""
    gapped = {p: [r for r in rows if finite(r.get("mip_gap"))] for p, rows in windows.items()}
    gapped = {p: rows for p, rows in gapped.items() if rows}
    n = 2 if gapped else 1
    fig = make_subplots(rows=n, cols=1, shared_xaxes=True, vertical_spacing=0.1)
    for p, rows in windows.items():
        fig.add_scatter(x=hours(r["t"] for r in rows), y=[r["decision_seconds"] for r in rows],
                        row=1, col=1, mode="markers", name=p, legendgroup=p,
                        marker={"color": col[p], "size": 5},
                        customdata=[[r["solver"], r["status"]] for r in rows],
                        hovertemplate="%{y:.2g} s (%{customdata[0]}, %{customdata[1]})<extra>"
                                      + p + "</extra>")
    for p, rows in gapped.items():
        fig.add_scatter(x=hours(r["t"] for r in rows), y=[100 * r["mip_gap"] for r in rows],
                        row=2, col=1, mode="markers", name=p, legendgroup=p,
                        showlegend=False, marker={"color": col[p], "size": 5},
                        hovertemplate="gap %{y:.2g} %")
        fig.update_yaxes(title_text="MIP gap (%)", rangemode="tozero", row=2, col=1)
    fig.update_yaxes(title_text="decision time (log)", type="log", tickvals=SECOND_TICKS[0],
                     ticktext=SECOND_TICKS[1], row=1, col=1)
    fig.update_xaxes(title_text=HOURS, row=n, col=1)
    return div(layout(fig, 260 + 200 * n), "chart-solver")


def solver_table(windows: dict[str, list[dict]]) -> str:
    """Per policy: windows planned, by solver and by status, the largest gap."""
    rows = []
    for p, ws in windows.items():
        by = Counter(r["solver"] for r in ws)
        st = Counter(r["status"] for r in ws)
        gaps = [r["mip_gap"] for r in ws if finite(r.get("mip_gap"))]
        rows.append([esc(p), units.count(len(ws)),
                     esc(", ".join(f"{k} {v:,}" for k, v in by.most_common())),
                     esc(", ".join(f"{k} {v:,}" for k, v in st.most_common())),
                     units.percent(max(gaps)) if gaps else units.MISSING])
    return table(["policy", "windows", "solver used", "status", "largest gap"], rows)


def sections(kpi_dir: Path, policies: list[str]) -> list[tuple[str, str, str]]:
    """(anchor, title, html) of each replay section whose data is there."""
    windows, jobs = read_kpis(kpi_dir / "windows"), read_kpis(kpi_dir / "jobs")
    intervals = read_kpis(kpi_dir / "intervals")
    col = colours(list(dict.fromkeys(policies + list(windows) + list(jobs))))
    out = []
    if windows:
        out.append(("queue", "Queue length and utilisation over time",
                    queue_and_utilisation(windows, col)))
    if intervals:
        out.append(("allocation", "Nodes in use per policy",
                    "<p>Nodes allocated over the replay, one panel per policy; the dashed "
                    "line is the capacity.</p>" + allocation(intervals, windows, col)))
    if jobs:
        out.append(("cdf", "JCT and queueing delay per policy",
                    "<p>Share of jobs whose time is at most x. Jobs that started at once "
                    "(no queueing) lift the start of the queueing curve.</p>" + cdfs(jobs, col)))
    if windows:
        out.append(("solver", "Solver time and gap per window",
                    solver_table(windows) + solver_per_window(windows, col)))
    return out

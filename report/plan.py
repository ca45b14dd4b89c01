"""The plan section (issue 14 item 5): a Gantt of the window in wall-clock time with the
capacity line, every job of the window (waiting ones too), actions marked, why on hover and in
a table; the solver, status, gap and the slots' prices."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from plotly.colors import sample_colorscale
from plotly.subplots import make_subplots

from report import units
from report.figures import CAPACITY_COLOUR, div, esc, finite, layout, table

ACTION_MARKS = {"start": ("triangle-right", "#2ca02c"), "scale_up": ("triangle-up", "#1f77b4"),
                "scale_down": ("triangle-down", "#ff7f0e"), "stop": ("x", "#d62728")}
IDLE = "#e8e8e8"


@dataclass
class PlanInput:
    """A window's plan as the report needs it: Plan.rows, the slot length, the capacity per
    slot and (when the plan has them) the slot prices."""
    rows: list[dict]
    slot_seconds: float
    capacity: list[int]
    slot_prices: list[float] | None = None


def _by_job(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in sorted(rows, key=lambda r: r["slot"]):
        out.setdefault(str(r["job_id"]), []).append(r)
    return out


def job_order(rows: list[dict]) -> list[str]:
    """Jobs running now first, then those the plan starts (earliest first), waiting ones last."""
    def key(item: tuple[str, list[dict]]):
        job, rs = item
        first = next((r["slot"] for r in rs if r["nodes"] > 0), len(rs))
        return (rs[0]["current_nodes"] == 0, first, job)
    return [j for j, _ in sorted(_by_job(rows).items(), key=key)]


def _window_start(p: PlanInput) -> datetime:
    at = p.rows[0]["window_time"]
    return datetime.fromisoformat(at) if isinstance(at, str) else at


def _start(p: PlanInput, slot: int) -> datetime:
    return _window_start(p) + timedelta(seconds=slot * p.slot_seconds)


def _hover(r: dict) -> str:
    text = f"<b>{esc(r['job_id'])}</b>: {r['nodes']} nodes ({esc(r['action'])})"
    if r.get("why_text"):
        text += f"<br>{esc(r.get('why', ''))}: {esc(r['why_text'])}"
    return text


def _colour(nodes: int, top: int) -> tuple[str, str]:
    """(bar, text) colours of a size: viridis from 1 node to the plan's largest size, the
    text dark on the light end."""
    f = (nodes - 1) / max(top - 1, 1)
    return sample_colorscale("Viridis", [0.05 + 0.9 * f])[0], ("#222" if f > 0.6 else "white")


def _bars(fig, p: PlanInput) -> None:
    ms = p.slot_seconds * 1000
    top = max((r["nodes"] for r in p.rows), default=1)
    for running in (True, False):
        rs = [r for r in p.rows if (r["nodes"] > 0) == running]
        cols = [_colour(r["nodes"], top) for r in rs] if running else []
        fig.add_bar(x=[ms] * len(rs), base=[_start(p, r["slot"]) for r in rs],
                    y=[str(r["job_id"]) for r in rs], orientation="h", row=2, col=1,
                    name="running (nodes written in the bar)" if running else "not running",
                    marker={"color": [c for c, _ in cols] if running else IDLE,
                            "line": {"color": "white", "width": 1}},
                    text=[str(r["nodes"]) for r in rs] if running else None,
                    textposition="inside", insidetextanchor="middle", textangle=0,
                    textfont={"size": 10, "color": [t for _, t in cols] or "white"},
                    hovertext=[_hover(r) for r in rs], hoverinfo="text")


def _actions(fig, p: PlanInput) -> None:
    for action, (symbol, colour) in ACTION_MARKS.items():
        rs = [r for r in p.rows if r["action"] == action]
        if rs:
            fig.add_scatter(x=[_start(p, r["slot"]) for r in rs],
                            y=[str(r["job_id"]) for r in rs], mode="markers", row=2, col=1,
                            name=action.replace("_", " "),
                            marker={"symbol": symbol, "size": 11, "color": colour,
                                    "line": {"color": "white", "width": 1}},
                            hovertext=[_hover(r) for r in rs], hoverinfo="text")


def _usage(fig, p: PlanInput, slots: int) -> None:
    used = [sum(r["nodes"] for r in p.rows if r["slot"] == s) for s in range(slots)]
    edges = [_start(p, s) for s in range(slots + 1)]
    fig.add_scatter(x=edges, y=used + used[-1:], row=1, col=1, name="nodes planned",
                    mode="lines",
                    line={"shape": "hv", "color": "#1f77b4"}, fill="tozeroy",
                    hovertemplate="%{y} nodes planned")
    cap = list(p.capacity[:slots]) or [0]
    fig.add_scatter(x=edges, y=cap + cap[-1:], row=1, col=1, name="capacity", mode="lines",
                    line={"shape": "hv", "color": CAPACITY_COLOUR, "dash": "dash"},
                    hovertemplate="capacity %{y}")


def gantt(p: PlanInput) -> str:
    order = job_order(p.rows)
    slots = 1 + max(r["slot"] for r in p.rows)
    gantt_px = 24 * len(order) + 60
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.03,
                        row_heights=[170 / (170 + gantt_px), gantt_px / (170 + gantt_px)])
    _usage(fig, p, slots)
    _bars(fig, p)
    _actions(fig, p)
    top = max(max(p.capacity or [0]), max(sum(r["nodes"] for r in p.rows if r["slot"] == s)
                                          for s in range(slots)))
    fig.update_yaxes(title_text="nodes", range=[0, 1.15 * top + 1], row=1, col=1)
    fig.update_yaxes(categoryorder="array", categoryarray=order, autorange="reversed",
                     tickfont={"size": 11}, row=2, col=1)
    fig.update_xaxes(type="date", tickformat="%H:%M\n%b %d", row=2, col=1)
    fig.update_xaxes(type="date", row=1, col=1)
    return div(layout(fig, 170 + gantt_px + 120, barmode="overlay", bargap=0.25,
                      hovermode="closest", xaxis2_title_text="wall-clock time (UTC)"),
               "chart-plan")


def header(p: PlanInput) -> str:
    r = p.rows[0]
    slots = 1 + max(x["slot"] for x in p.rows)
    jobs = _by_job(p.rows)
    waiting = sum(all(x["nodes"] == 0 for x in rs) for rs in jobs.values())
    gap = units.percent(r.get("mip_gap")) if finite(r.get("mip_gap")) else "none reported"
    return (f"<p>Window from {units.clock(_window_start(p))}: {slots} slots of "
            f"{units.duration(p.slot_seconds)}, {len(jobs):,} jobs ({waiting:,} waiting the "
            f"whole window). Planned by <b>{esc(r.get('policy', ''))}</b> with solver "
            f"<b>{esc(r.get('solver', ''))}</b>, status <b>{esc(r.get('status', ''))}</b>, "
            f"MIP gap {gap}, solve time {units.duration(r.get('solve_seconds'))}, objective "
            f"{units.sig(r.get('objective'), 4)}.</p>"
            + (f"<p class='warn'>{esc(r['warnings'])}</p>" if r.get("warnings") else ""))


def slot_prices(p: PlanInput) -> list[float] | None:
    """The plan's slot prices, or those its rows carry (`slot_price`), None when it has none."""
    if p.slot_prices:
        return [float(v) for v in p.slot_prices]
    by_slot = {r["slot"]: r.get("slot_price") for r in p.rows}
    if not by_slot or any(by_slot.get(s) is None for s in range(1 + max(by_slot))):
        return None
    return [float(by_slot[s]) for s in range(len(by_slot))]


def prices(p: PlanInput) -> str:
    values = slot_prices(p)
    if not values:
        return ""
    slots = len(values)
    used = [sum(r["nodes"] for r in p.rows if r["slot"] == s) for s in range(slots)]
    cap = list(p.capacity) + [None] * slots
    rows = [[str(s), esc(_start(p, s).strftime("%H:%M")), units.count(cap[s]),
             units.count(used[s]), units.sig(v, 3)] for s, v in enumerate(values)]
    return ("<h3>Slot prices</h3><p>The capacity price of each slot: the value one more node "
            "would add there (the duals of the capacity rows, DESIGN §4.3). A job gets a "
            "larger size only when its value per extra node is above the price.</p>"
            + table(["slot", "starts (UTC)", "capacity", "nodes planned", "price"], rows))


def job_table(p: PlanInput) -> str:
    jobs = _by_job(p.rows)
    has_why = any(r.get("why") for r in p.rows)
    head = ["job", "action now", "nodes now → next", "nodes per slot", "ETC"]
    head += ["why", "why (slot 0)"] if has_why else []
    rows = []
    for j in job_order(p.rows):
        first = jobs[j][0]
        row = [esc(j), esc(first["action"].replace("_", " ")),
               f"{first['current_nodes']} → {first['nodes']}",
               " ".join(str(r["nodes"]) for r in jobs[j]), units.duration(first["etc_seconds"])]
        if has_why:
            row += [f"<code>{esc(first.get('why') or '')}</code>",
                    esc(first.get("why_text") or "")]
        rows.append(row)
    return table(head, rows, "left plan")


DEFINITIONS = [
    ("ETC", "Estimated time to completion from the window's start if the job runs the plan's "
            "sizes slot by slot, then on at its last size."),
    ("MIP gap", "How far the plan's objective may be from the best possible, as the solver "
                "proved it: (bound − objective) ÷ objective; none for a heuristic's plan."),
    ("slot price", "The capacity dual of the slot in the column-generation master LP: the "
                   "objective one more node there would add (for a baseline, the MIP's prices "
                   "of the same window)."),
    ("why", "The rule behind a job's size (DESIGN §11), first that applies: finishing, "
            "no_preemption, cooldown, churn_budget, quota, at_max, min_does_not_fit, else "
            "price (its next larger size is worth less per extra node than the slot's "
            "price)."),
]


def definitions(p: PlanInput | None) -> list[tuple[str, str]]:
    return DEFINITIONS if p is not None and p.rows else []


def section(p: PlanInput | None) -> list[tuple[str, str, str]]:
    if p is None or not p.rows:
        return []
    return [("plan", "The plan of the latest window",
             header(p) + gantt(p) + prices(p) + "<h3>Every job of the window</h3>"
             + job_table(p))]

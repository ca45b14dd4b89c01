"""The warehouse's side of the report: the throughput curves behind the plan (measured samples
against the fitted curve, by the curve's source) and the rejected input rows per rule."""

from __future__ import annotations

from dataclasses import dataclass, field

from plotly.subplots import make_subplots

from report import units
from report.figures import PALETTE, RIGHT_LEGEND, div, esc, layout, table

SOURCES = {"job": "own samples (job)", "model": "its model's curve (model)",
           "global": "the global curve (global)"}


@dataclass
class WarehouseFacts:
    """Plain rows from warehouse/report_inputs.py."""
    curve_fits: list[dict] = field(default_factory=list)
    curve_samples: list[dict] = field(default_factory=list)
    rejected: list[dict] = field(default_factory=list)


def _by_job(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(r["job_id"], []).append(r)
    return out


def _traces(jobs: list[str], fits: dict[str, list[dict]], samples: dict[str, list[dict]]
            ) -> tuple[dict, dict]:
    """One line trace (the fits, jobs separated by gaps) and one marker trace (the samples),
    each job scaled by its fitted rate at its smallest size."""
    line: dict = {"x": [], "y": [], "text": []}
    dots: dict = {"x": [], "y": [], "text": []}
    for j in jobs:
        pts = sorted(fits[j], key=lambda r: r["nodes"])
        base = pts[0]["throughput"] or 1.0
        for r in pts:
            line["x"].append(r["nodes"])
            line["y"].append(r["throughput"] / base)
            line["text"].append(f"{j} ({r.get('model') or '?'}): {units.sig(r['throughput'], 3)}"
                                f" samples/s fitted at {r['nodes']} nodes")
        for k in ("x", "y", "text"):
            line[k].append(None)
        for r in samples.get(j, []):
            dots["x"].append(r["nodes"])
            dots["y"].append(r["throughput"] / base)
            dots["text"].append(f"{j}: median {units.sig(r['throughput'], 3)} samples/s of "
                                f"{r['n']:,} samples at {r['nodes']} nodes")
    return line, dots


def curves(facts: WarehouseFacts) -> str | None:
    fits, samples = _by_job(facts.curve_fits), _by_job(facts.curve_samples)
    source = {j: rows[0]["source"] for j, rows in fits.items()}
    present = [s for s in SOURCES if s in source.values()]
    present += sorted(set(source.values()) - set(present))
    if not present:
        return None
    titles = [f"{SOURCES.get(s, s)}: {sum(v == s for v in source.values()):,} jobs"
              for s in present]
    fig = make_subplots(rows=1, cols=len(present), shared_yaxes=True, subplot_titles=titles,
                        horizontal_spacing=0.04)
    for i, s in enumerate(present, start=1):
        line, dots = _traces(sorted(j for j, v in source.items() if v == s), fits, samples)
        fig.add_scatter(**line, row=1, col=i, mode="lines", name="fitted curve",
                        legendgroup="fit", showlegend=i == 1, hovertemplate="%{text}",
                        line={"color": PALETTE[0], "width": 1}, opacity=0.6)
        fig.add_scatter(**dots, row=1, col=i, mode="markers", name="measured (median)",
                        legendgroup="samples", showlegend=i == 1, hovertemplate="%{text}",
                        marker={"color": PALETTE[1], "size": 6, "opacity": 0.7})
        fig.update_xaxes(title_text="nodes", row=1, col=i)
    fig.update_yaxes(title_text="throughput ÷ fitted at smallest size", row=1, col=1)
    return div(layout(fig, 440, hovermode="closest", legend=RIGHT_LEGEND), "chart-curves")


def rejected(facts: WarehouseFacts) -> str:
    if not facts.rejected:
        return "<p>No input row was rejected.</p>"
    total = sum(r["n"] for r in facts.rejected)
    rows = [[esc(r["feed"]), f"<code>{esc(r['rule'])}</code>", units.count(r["n"]),
             esc(r["example"])] for r in facts.rejected]
    return (f"<p>{total:,} rows rejected at ingest, by feed and rule (query them with "
            "<code>etplan sql \"SELECT * FROM rejected_rows WHERE rule = '…'\"</code>).</p>"
            + table(["feed", "rule", "rows", "one reason"], rows, "left"))


def sections(facts: WarehouseFacts | None) -> list[tuple[str, str, str]]:
    if facts is None:
        return []
    out = []
    chart = curves(facts)
    if chart:
        out.append(("curves", "Throughput curves behind the plan",
                    "<p>Each job's fitted curve (lines) and its measured samples (dots), "
                    "scaled by the fitted rate at the job's smallest size, one panel per "
                    "source of the curve. Hover for the job and the samples/s.</p>" + chart))
    out.append(("rejected", "Rejected input rows by rule", rejected(facts)))
    return out

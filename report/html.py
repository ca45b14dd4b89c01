"""One self-contained `report.html` per run (DESIGN §8): the KPI comparison (our policy against
the strongest baseline, better or worse coloured), per-tenant KPIs, the plan of the latest
window, the replay's charts, the curves behind the plan and the rejected rows, and the
definition of every KPI shown. Charts are plotly's (its JavaScript embedded once, no network),
interactive: hover, zoom, legend toggles."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from plotly.offline import get_plotlyjs

from report import data, plan, replay, tenants
from report.data import WarehouseFacts
from report.figures import esc
from report.kpis import KPIS, OURS, kpi, strongest_baseline, verdict
from report.plan import PlanInput
from report.units import ratio
from warehouse.outputs import write_text

__all__ = ["PlanInput", "WarehouseFacts", "render", "write_report"]

STYLE = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1180px;padding:0 1em;
color:#222;line-height:1.4}
h1{margin-bottom:.2em}h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.6em 0}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:right;vertical-align:top}
thead th{background:#f4f4f4}table.left td,table.left th,tbody th{text-align:left}
td{white-space:nowrap}table.left td:last-child{white-space:normal}
table.plan td:last-child{max-width:520px;font-size:.9em}
td.better{background:#d9f2d9}td.worse{background:#f8d7d7}td.ref{font-weight:bold}
small{color:#555}nav a{margin-right:1em}dt{font-weight:bold;margin-top:.5em}
dd{margin-left:1.5em}.warn{color:#a60}code{font-size:.92em}
"""


def _kpi_keys(pols: dict[str, dict]) -> list[str]:
    present = list(dict.fromkeys(k for s in pols.values() for k in s))
    return [k for k in KPIS if k in present] + [k for k in present if k not in KPIS]


def _cell(key: str, policy: str, value, pols: dict[str, dict]) -> str:
    k = kpi(key)
    text = k.fmt(value)
    ref = strongest_baseline(key, pols)
    if ref is None or not any(p in OURS for p in pols):
        return f"<td>{text}</td>"
    if policy not in OURS:
        return f"<td class='ref'>{text}</td>" if policy == ref[0] else f"<td>{text}</td>"
    word, r = verdict(key, value if isinstance(value, int | float) else None, ref[1])
    if word == "same" and (r is None or ratio(r) == "1.0×"):
        return f"<td>{text}</td>"
    # a real difference never reads "1.0×": one more digit then (1.03×)
    shown = ratio(r, 3 if ratio(r) == "1.0×" else 2)
    note = f"{shown} {esc(ref[0])}" if r is not None else f"vs {k.fmt(ref[1])}"
    return f"<td class='{word}'>{text}<br><small>{note}</small></td>"


def kpi_section(summary: dict) -> tuple[str, list[str]]:
    """The comparison table and the KPI keys it shows."""
    pols = summary.get("policies", {})
    keys = _kpi_keys(pols)
    rows = []
    for key in keys:
        k = kpi(key)
        arrow = {"lower": " ↓", "higher": " ↑"}.get(k.better or "", "")
        rows.append(f"<tr><th><a href='#def-{esc(key)}'>{esc(k.label)}</a>{arrow}</th>"
                    + "".join(_cell(key, p, s.get(key), pols) for p, s in pols.items())
                    + "</tr>")
    ours = [p for p in pols if p in OURS]
    intro = ("<p>↓ lower is better, ↑ higher is better. "
             + (f"Under {', '.join(map(esc, ours))} each value is compared with the strongest "
                "baseline on that KPI (in bold): the ratio and that baseline's name, green "
                "when better, red when worse (within 1 %: neither).</p>" if ours else "</p>"))
    head = "".join(f"<th>{esc(p)}</th>" for p in pols)
    return (intro + f"<table class='kpis'><thead><tr><th>KPI</th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"), keys


def definitions(keys: list[str], summary: dict, plan_input: PlanInput | None) -> str:
    items = [(kpi(k).label, kpi(k).definition, k) for k in keys if kpi(k).definition]
    items += [(t, d, f"tenant-{i}") for i, (t, d) in enumerate(tenants.definitions(summary))]
    items += [(t, d, f"plan-{i}") for i, (t, d) in enumerate(plan.definitions(plan_input))]
    items += [("ratio", "Our policy's value ÷ the strongest baseline's value on the same "
               "trace, replayed in the same process.", "ratio")]
    return "<dl>" + "".join(f"<dt id='def-{esc(a)}'>{esc(t)}</dt><dd>{esc(d)}</dd>"
                            for t, d, a in items) + "</dl>"


def render(summary: dict, kpi_dir: Path, plan_input: PlanInput | None = None,
           title: str = "etplan report", facts: WarehouseFacts | None = None) -> str:
    kpis, keys = kpi_section(summary)
    parts = [("kpis", "KPIs", kpis)]
    parts += tenants.section(summary)
    parts += plan.section(plan_input)
    parts += replay.sections(kpi_dir, list(summary.get("policies", {})))
    parts += data.sections(facts)
    parts.append(("definitions", "Definitions", definitions(keys, summary, plan_input)))
    nav = "".join(f"<a href='#{a}'>{esc(t)}</a>" for a, t, _ in parts)
    body = "".join(f"<section id='{a}'><h2>{esc(t)}</h2>{h}</section>" for a, t, h in parts)
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>
<style>{STYLE}</style>
<script>{get_plotlyjs()}</script></head>
<body><h1>{esc(title)}</h1><p>Made {made}. Charts are interactive: hover for values, drag to
zoom, double-click to reset, click a legend entry to hide it.</p><nav>{nav}</nav>
{body}
</body></html>
"""


def write_report(path: Path, summary: dict, kpi_dir: Path, plan_input: PlanInput | None = None,
                 title: str = "etplan report", facts: WarehouseFacts | None = None) -> Path:
    return write_text(path, render(summary, kpi_dir, plan_input, title, facts))

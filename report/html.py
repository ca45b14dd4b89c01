"""One self-contained `report.html` per run (DESIGN §8): KPI table with ratios vs greedy and
charts embedded as PNG — queue length and utilisation over time, JCT and queueing CDFs per
policy, and the allocation Gantt of the plan."""

from __future__ import annotations

import base64
import html
import io
from datetime import UTC, datetime
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from warehouse.outputs import write_text  # noqa: E402

KPI_ROWS = ("completed", "mean_queue_s", "p95_queue_s", "mean_jct_s", "p95_jct_s",
            "mean_run_s", "makespan_s", "utilization", "gpu_efficiency", "speedup_vs_static",
            "rescales", "rescales_per_job",
            "decision_p50_s", "decision_p95_s")


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def _read(folder: Path) -> dict[str, list[dict]]:
    """Rows per policy from a hive-partitioned kpis/<table>/policy=<p>/ folder."""
    out: dict[str, list[dict]] = {}
    if not folder.is_dir():
        return out
    for part in sorted(folder.glob("policy=*/part-0.parquet")):
        out[part.parent.name.split("=", 1)[1]] = pq.read_table(part).to_pylist()
    return out


def charts(kpi_dir: Path, plan_rows: list[dict] | None) -> list[tuple[str, str]]:
    windows = _read(kpi_dir / "windows")
    jobs = _read(kpi_dir / "jobs")
    figs: list[tuple[str, str]] = []
    if windows:
        fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
        for policy, rows in windows.items():
            t = np.array([r["t"] for r in rows]) / 3600
            a1.step(t, [r["queued"] for r in rows], where="post", label=policy)
            a2.step(t, [r["allocated"] / max(r["capacity"], 1) for r in rows], where="post",
                    label=policy)
        a1.set_ylabel("queued jobs")
        a2.set_ylabel("allocated / capacity")
        a2.set_xlabel("hours since the first submission")
        a1.legend()
        a1.set_title("Queue length and utilisation over time")
        figs.append(("Queue length and utilisation over time", _png(fig)))
    if jobs:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
        for policy, rows in jobs.items():
            for ax, key in ((a1, "jct_s"), (a2, "queue_s")):
                v = np.sort([r[key] for r in rows if r[key] is not None])
                if v.size:
                    ax.step(v / 3600, np.arange(1, v.size + 1) / v.size, where="post",
                            label=policy)
        a1.set_xlabel("job completion time (h)")
        a2.set_xlabel("queueing delay (h)")
        for ax in (a1, a2):
            ax.set_ylabel("share of jobs")
            ax.set_xscale("symlog", linthresh=0.1)
            ax.legend()
        a1.set_title("JCT CDF")
        a2.set_title("Queueing CDF")
        figs.append(("JCT and queueing CDF per policy", _png(fig)))
    if plan_rows:
        ids = sorted({r["job_id"] for r in plan_rows if r["nodes"] > 0})
        if ids:
            fig, ax = plt.subplots(figsize=(9, max(2.0, 0.25 * len(ids) + 1)))
            y = {j: i for i, j in enumerate(ids)}
            top = max(r["nodes"] for r in plan_rows) or 1
            for r in plan_rows:
                if r["nodes"] > 0:
                    ax.barh(y[r["job_id"]], 1, left=r["slot"],
                            color=plt.cm.viridis(r["nodes"] / top), edgecolor="white")
                    ax.text(r["slot"] + 0.5, y[r["job_id"]], str(r["nodes"]), ha="center",
                            va="center", fontsize=7, color="white")
            ax.set_yticks(range(len(ids)), ids, fontsize=7)
            ax.set_xlabel("slot")
            ax.set_title("Allocation plan (nodes per job and slot)")
            figs.append(("Allocation Gantt of the plan", _png(fig)))
    return figs


def render(summary: dict, kpi_dir: Path, plan_rows: list[dict] | None, title: str) -> str:
    pols = summary.get("policies", {})
    ratios = summary.get("ratios_vs_greedy", {})
    head = "".join(f"<th>{html.escape(p)}</th>" for p in pols)
    body = []
    for key in KPI_ROWS:
        cells = []
        for p, s in pols.items():
            v = s.get(key)
            txt = "–" if v is None else (f"{v:,.3f}" if isinstance(v, float) and abs(v) < 10
                                         else f"{v:,.0f}")
            r = ratios.get(p, {}).get(key)
            if r is not None and p != "greedy":
                txt += f" <small>({r:.2f}×)</small>"
            cells.append(f"<td>{txt}</td>")
        body.append(f"<tr><th>{key}</th>{''.join(cells)}</tr>")
    imgs = "".join(f'<h2>{html.escape(t)}</h2><img alt="{html.escape(t)}" '
                   f'src="data:image/png;base64,{b}">' for t, b in charts(kpi_dir, plan_rows))
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1000px}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}
img{{max-width:100%}}</style></head>
<body><h1>{html.escape(title)}</h1><p>Made {made}. Ratios in brackets are against greedy on the
same trace.</p>
<h2>KPIs</h2><table><tr><th>KPI</th>{head}</tr>{''.join(body)}</table>
{imgs}
</body></html>
"""


def write_report(path: Path, summary: dict, kpi_dir: Path, plan_rows: list[dict] | None,
                 title: str = "etplan report") -> Path:
    return write_text(path, render(summary, kpi_dir, plan_rows, title))

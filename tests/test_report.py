"""The report's units, its KPI comparison and its sections (rendered without a browser; the
Chromium check of a real run's report is tests/test_flows.py)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from report import units
from report.html import PlanInput, WarehouseFacts, render
from report.kpis import strongest_baseline, verdict


@pytest.mark.parametrize("seconds, text", [
    (100_550, "27 h 56 min"), (3600, "1 h"), (3599.7, "1 h"), (5400, "1 h 30 min"),
    (270, "4 min 30 s"), (59.6, "1 min"), (60, "1 min"), (42.4, "42 s"), (1.53, "1.5 s"),
    (0.35, "0.35 s"), (0.0042, "4.2 ms"), (0, "0 s"), (-90, "−1 min 30 s"),
    (None, "–"), (float("nan"), "–")])
def test_durations_read_in_hours_minutes_seconds(seconds, text):
    assert units.duration(seconds) == text


@pytest.mark.parametrize("x, text", [
    (0.001234, "0.0012×"), (0.87, "0.87×"), (1.0, "1.0×"), (1.26, "1.3×"), (12.4, "12×"),
    (99.6, "100×"), (1234.5, "1,234×"), (0, "0×"), (None, "–")])
def test_ratios_have_two_significant_digits(x, text):
    assert units.ratio(x) == text


def test_shares_and_counts():
    assert units.percent(0.834) == "83 %"
    assert units.percent(0.0012) == "0.12 %"
    assert units.count(12345) == "12,345"
    assert units.sig({"highs": 3}) == units.duration("x") == "–"   # not a number: a dash


@settings(max_examples=200)
@given(st.floats(min_value=1e-6, max_value=1e6))
def test_a_ratio_is_never_shown_as_zero_and_stays_close(x):
    text = units.ratio(x)
    assert not re.fullmatch(r"0(\.0+)?×", text)
    assert abs(float(text[:-1].replace(",", "")) - x) <= 0.05 * x + 0.5


@settings(max_examples=200)
@given(st.floats(min_value=0, max_value=1e7))
def test_a_duration_uses_one_unit_system(s):
    text = units.duration(s)
    assert re.fullmatch(r"[\d,]+ h( \d+ min)?|\d+ min( \d+ s)?|[\d.]+ m?s", text), text


POLICIES = {"mip": {"mean_jct_s": 900.0, "utilization": 0.5, "rescales": 3},
            "greedy": {"mean_jct_s": 1000.0, "utilization": 0.8, "rescales": 0},
            "fifo": {"mean_jct_s": 1200.0, "utilization": 0.6, "rescales": 0}}


def test_ours_against_the_strongest_baseline_per_kpi():
    assert strongest_baseline("mean_jct_s", POLICIES) == ("greedy", 1000.0)
    assert strongest_baseline("utilization", POLICIES) == ("greedy", 0.8)
    assert verdict("mean_jct_s", 900.0, 1000.0) == ("better", 0.9)
    assert verdict("utilization", 0.5, 0.8)[0] == "worse"
    assert verdict("rescales", 3, 0) == ("worse", None)       # no ratio against 0
    assert verdict("mean_jct_s", 1005.0, 1000.0)[0] == "same"


def test_the_kpi_table_colours_and_defines_what_it_shows(tmp_path):
    page = render({"policies": POLICIES}, tmp_path / "no-kpis")
    assert "<td class='better'>15 min<br><small>0.90× greedy</small></td>" in page
    assert "<td class='worse'>50 %" in page
    assert "<td class='ref'>16 min 40 s</td>" in page
    # a real difference never reads 1.0×: one more digit
    close = render({"policies": {"mip": {"utilization": 0.824}, "greedy": {"utilization": 0.8}}},
                   tmp_path)
    assert "<small>1.03× greedy</small>" in close
    for term in ("mean JCT", "utilisation", "rescales"):
        assert "<dt id='def-" in page and f">{term}</dt>" in page
    # sections without data are left out, not drawn empty
    for absent in ("id='plan'", "id='allocation'", "id='curves'", "id='tenants'"):
        assert absent not in page


def _plan(why: bool) -> PlanInput:
    at = datetime(2026, 12, 2, 14, 0, tzinfo=UTC)
    rows = []
    for job, now, sizes in (("a", 4, [4, 8]), ("b", 0, [0, 0]), ("c", 0, [2, 2])):
        for slot, n in enumerate(sizes):
            prev = now if slot == 0 else sizes[slot - 1]
            action = ("wait" if n == 0 and prev == 0 else "start" if prev == 0 else
                      "keep" if n == prev else "scale_up")
            rows.append({"window_time": at, "job_id": job, "slot": slot, "nodes": n,
                         "current_nodes": now, "action": action, "etc_seconds": 7200.0,
                         "policy": "mip", "solver": "highs", "status": "optimal",
                         "mip_gap": 0.0004, "objective": 12.5, "solve_seconds": 0.4}
                        | ({"why": "price", "why_text": f"{job}: value below the price"}
                           if why else {}))
    return PlanInput(rows, 600.0, [10, 10], [0.5, 0.25] if why else None)


def test_the_plan_section_has_every_job_and_its_why_when_present(tmp_path):
    page = render({"policies": {}}, tmp_path, _plan(why=True))
    assert "id='plan'" in page and "chart-plan" in page
    assert "2026-12-02 14:00 UTC" in page and "2 slots of 10 min" in page
    assert "1 jobs (1 waiting" not in page and "3 jobs (1 waiting the whole window)" in page
    assert "b: value below the price" in page and "Slot prices" in page
    plain = render({"policies": {}}, tmp_path, _plan(why=False))
    assert "Slot prices" not in plain and "why (slot 0)" not in plain and "chart-plan" in plain
    # prices carried by the rows (Plan.rows' slot_price) are shown too
    rows = [r | {"slot_price": 0.5 / (1 + r["slot"])} for r in _plan(why=False).rows]
    assert "<td>0.250</td>" in render({"policies": {}}, tmp_path, PlanInput(rows, 600.0, [10, 10]))


def test_tenants_curves_and_rejects_render_when_present(tmp_path):
    summary = {"policies": {}, "tenants": {"mip": {
        "jain_index": 0.93, "jain_of": "share",
        "by_tenant": {"vc1": {"jobs": 3, "share": 0.61, "mean_jct_s": 7300.0},
                      "vc2": {"jobs": 2, "share": 0.39, "mean_jct_s": 400.0}}}}}
    facts = WarehouseFacts(
        [{"job_id": "a", "model": "bert", "source": "job", "nodes": n, "throughput": 10.0 * n}
         for n in (1, 2, 4)],
        [{"job_id": "a", "nodes": 2, "throughput": 19.0, "n": 5}],
        [{"feed": "job_events", "rule": "missing_field", "n": 3, "example": "no job_id"}])
    page = render(summary, tmp_path, facts=facts)
    assert "Per-tenant KPIs" in page and "61 %" in page and "2 h 2 min" in page
    assert "0.93" in page and ">tenant share</dt>" in page
    assert "chart-curves" in page and "own samples (job): 1 jobs" in page
    assert "<code>missing_field</code>" in page

"""Numbers as a person reads them in the report: durations in h / min / s, ratios and shares
with two significant digits (never "0.00×"), counts with thousands separators."""

from __future__ import annotations

import math
from datetime import datetime

MISSING = "–"


def _finite(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def sig(x: float | None, digits: int = 2) -> str:
    """`x` to `digits` significant digits: 0.0012, 1.2, 12, 1,234 (whole numbers past
    10**digits keep all their digits)."""
    if not _finite(x):
        return MISSING
    if x == 0:
        return "0"
    if abs(x) >= 10 ** digits:
        return f"{x:,.0f}"
    places = digits - 1 - math.floor(math.log10(abs(x)))
    text = f"{round(x, places):.{max(places, 0)}f}"
    if abs(float(text)) >= 10 ** digits:  # rounding went up a decade (99.6 → 100)
        return f"{x:,.0f}"
    return text


def ratio(x: float | None, digits: int = 2) -> str:
    """A ratio between two policies: 0.0012×, 0.87×, 1.3×, 12×."""
    return MISSING if not _finite(x) else f"{sig(x, digits)}×"


def percent(x: float | None) -> str:
    """A share (0–1) as a percentage with two significant digits: 83 %, 4.2 %, 0.12 %."""
    return MISSING if not _finite(x) else f"{sig(100 * x)} %"


def count(x: float | None) -> str:
    return MISSING if not _finite(x) else f"{x:,.0f}"


def duration(seconds: float | None) -> str:
    """27 h 56 min, 4 min 30 s, 42 s, 1.5 s, 35 ms."""
    if not _finite(seconds):
        return MISSING
    sign = "−" if seconds < 0 else ""
    s = abs(seconds)
    if round(s) >= 3600:
        h, m = divmod(round(s / 60), 60)
        return f"{sign}{h:,} h" + (f" {m} min" if m else "")
    if round(s) >= 60:
        m, r = divmod(round(s), 60)
        return f"{sign}{m} min" + (f" {r} s" if r else "")
    if s >= 10:
        return f"{sign}{round(s)} s"
    if s == 0 or s >= 0.1:
        return f"{sign}{sig(s)} s"
    return f"{sign}{sig(1000 * s)} ms"


def clock(t: datetime) -> str:
    """A wall-clock time in UTC: 2026-12-02 14:30 UTC."""
    return t.strftime("%Y-%m-%d %H:%M UTC")

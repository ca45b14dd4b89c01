"""What explanations cost (DESIGN §11): per window size, the time to fill every row's `why`
and `why_text` of a greedy plan (best of 5) and to compute its LP slot prices (once).
Run: `.venv/bin/python bench/explain.py [--sizes 30,200]`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# run as `python bench/explain.py`, this file's folder comes first on sys.path
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from solver.explain import annotate, plan_nodes  # noqa: E402
from solver.generate import random_instance  # noqa: E402
from solver.policies import plan  # noqa: E402
from solver.prices import lp_prices  # noqa: E402


def measure(jobs: int, slots: int = 6, seed: int = 1) -> tuple[float, float, bool]:
    """(explain ms, LP prices s, whether prices were proven) on one random window."""
    inst = random_instance(jobs, slots, None, seed)
    p = plan(inst, "greedy", prices=False)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        annotate(inst, p)
        times.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    prices = lp_prices(inst, plan_nodes(inst, p), released=set(), preemption=False,
                       time_limit=10.0)
    return min(times) * 1e3, time.perf_counter() - t0, prices is not None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="30,200")
    for jobs in (int(s) for s in ap.parse_args().sizes.split(",")):
        ms, secs, ok = measure(jobs)
        print(f"{jobs} jobs: explain {ms:.1f} ms, LP prices {secs:.2f} s "
              f"({'proven' if ok else 'none'})")


if __name__ == "__main__":
    main()

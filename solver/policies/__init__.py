"""Every policy behind one interface: `plan(instance, policy, settings, hint=...) -> Plan`.

POLICIES is the registry (name → policy, one module each: mip, greedy, fifo, optimus); SOLVERS
the solver settings the MIP accepts. The CLI's choices are their keys.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from solver.backends import SOLVERS
from solver.backends.status import Status
from solver.capacity import preemptible_jobs
from solver.deadline import COLUMN_SECONDS_PER_JOB, Deadline
from solver.instance import Instance
from solver.plans import Plan, make_plan
from solver.policies.fifo import fifo
from solver.policies.greedy import greedy
from solver.policies.greedy_elastic import greedy_elastic
from solver.policies.mip import plan_mip
from solver.policies.optimus import optimus
from solver.policies.settings import Hint, Settings
from solver.prices import explained

__all__ = ["POLICIES", "SOLVERS", "Policy", "Settings", "plan"]


class Policy(Protocol):
    def __call__(self, inst: Instance, settings: Settings, released: set[str],
                 warnings: list[str], hint: Hint | None, deadline: Deadline | None = None
                 ) -> Plan:
        """A plan for a non-empty window; `released`: jobs the capacity rule lets stop, named
        in `warnings`; `deadline`: the decision's (DESIGN §10)."""
        ...


@dataclass(frozen=True)
class Heuristic:
    """A baseline policy: a node-matrix rule, scored and explained like every plan."""
    name: str
    nodes: Callable[[Instance, set[str]], np.ndarray]

    def __call__(self, inst: Instance, settings: Settings, released: set[str],
                 warnings: list[str], hint: Hint | None, deadline: Deadline | None = None
                 ) -> Plan:
        """The rule's plan; a rule is bounded by itself (one pass over jobs and slots), so
        the deadline is not needed."""
        start = time.perf_counter()
        nodes = self.nodes(inst, released)
        return make_plan(inst, nodes, policy=self.name, solver=self.name,
                         status=Status.OPTIMAL, solve_seconds=time.perf_counter() - start,
                         warnings=warnings, reason="baseline")


POLICIES: dict[str, Policy] = {
    "mip": plan_mip,
    "greedy": Heuristic("greedy", greedy),
    "fifo": Heuristic("fifo", fifo),
    "optimus": Heuristic("optimus", optimus),
    "greedy-elastic": Heuristic("greedy-elastic", greedy_elastic),
}


def plan(inst: Instance, policy: str = "mip", settings: Settings | None = None,
         hint: Hint | None = None, prices: bool = True) -> Plan:
    """`hint`: node counts per slot by job id from an earlier plan (e.g. the previous window's
    plan shifted by one slot); the MIP tries it as a warm start beside the heuristics. Every
    row gets its `why` (solver/prices.explained); `prices` False: no slot prices are computed
    for a plan that has none of its own (replays, which do not need them)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; use one of {', '.join(POLICIES)}")
    s = settings or Settings()
    deadline = Deadline(s.time_limit)
    released, warnings = deadline.build(lambda: preemptible_jobs(inst))
    if not inst.jobs:
        return make_plan(inst, np.zeros((0, inst.T), dtype=int), policy=policy, solver=policy,
                         status=Status.OPTIMAL, reason="no jobs in the window")
    p = POLICIES[policy](inst, s, released, warnings, hint, deadline)
    spare = _price_time(inst, deadline) if prices else None
    with deadline.building() if not spare else nullcontext():   # no LP: only the rows' why
        p = explained(inst, p, released=released, preemption=s.preemption, time_limit=spare,
                      threads=s.threads)
    p.build_seconds = deadline.build_seconds
    p.solve_seconds = max(deadline.elapsed() - deadline.build_seconds, 0.0)
    return p


def _price_time(inst: Instance, deadline: Deadline) -> float:
    """Seconds the slot prices' LP (solver.prices) may take: what the deadline leaves, or 0
    when its model and first pricing round would not be ready in that time."""
    setup = len(inst.jobs) * COLUMN_SECONDS_PER_JOB
    left = deadline.remaining()
    return left if 2 * setup < left else 0.0

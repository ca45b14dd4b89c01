"""Every policy behind one interface: `plan(instance, policy, settings, hint=...) -> Plan`.

POLICIES is the registry (name → policy, one module each: mip, greedy, fifo, optimus); SOLVERS
the solver settings the MIP accepts. The CLI's choices are their keys.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from solver.backends import SOLVERS
from solver.backends.status import Status
from solver.capacity import preemptible_jobs
from solver.instance import Instance
from solver.plans import Plan, make_plan
from solver.policies.fifo import fifo
from solver.policies.greedy import greedy
from solver.policies.mip import plan_mip
from solver.policies.optimus import optimus
from solver.policies.settings import Hint, Settings

__all__ = ["POLICIES", "SOLVERS", "Policy", "Settings", "plan"]


class Policy(Protocol):
    def __call__(self, inst: Instance, settings: Settings, released: set[str],
                 warnings: list[str], hint: Hint | None) -> Plan:
        """A plan for a non-empty window; `released`: jobs the capacity rule lets stop, named
        in `warnings`."""
        ...


@dataclass(frozen=True)
class Heuristic:
    """A baseline policy: a node-matrix rule, scored and explained like every plan."""
    name: str
    nodes: Callable[[Instance, set[str]], np.ndarray]

    def __call__(self, inst: Instance, settings: Settings, released: set[str],
                 warnings: list[str], hint: Hint | None) -> Plan:
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
}


def plan(inst: Instance, policy: str = "mip", settings: Settings | None = None,
         hint: Hint | None = None) -> Plan:
    """`hint`: node counts per slot by job id from an earlier plan (e.g. the previous window's
    plan shifted by one slot); the MIP tries it as a warm start beside the heuristics."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; use one of {', '.join(POLICIES)}")
    released, warnings = preemptible_jobs(inst)
    if not inst.jobs:
        return make_plan(inst, np.zeros((0, inst.T), dtype=int), policy=policy, solver=policy,
                         status=Status.OPTIMAL, reason="no jobs in the window")
    return POLICIES[policy](inst, settings or Settings(), released, warnings, hint)

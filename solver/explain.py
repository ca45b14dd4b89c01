"""Why each plan row is what it is (DESIGN §11): a `why` code and a `why_text` sentence with the
numbers, for every job and slot of a plan, whichever policy made it.

The value of a size n of job j in slot t is the objective's progress coefficient times the share
of its remaining work n nodes do in that slot (the one slot-progress rule, after the plan's size
in the slot before and with the work the plan left it); slot prices are the capacity duals of
the column-generation master LP (solver/prices.py). Codes, in order of precedence: `finishing`,
`no_preemption`, `cooldown`, `churn_budget`, `quota`, `at_max`, `min_does_not_fit`, else
`price`. Without prices the rules that need none still apply and `price` rows give the values
alone. Vectorised over jobs, sizes and slots; only the sentences are made one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from math import isnan

import numpy as np

from solver.instance import Instance
from solver.objective import DONE_TOL, coefficients, progress_fractions, rescales, slot_progress
from solver.plans import Plan

CODES = ("finishing", "no_preemption", "cooldown", "churn_budget", "quota", "at_max",
         "min_does_not_fit", "price")


@dataclass
class SizeValues:
    """Per job its allowed sizes (padded with 0), and per job, size and slot the value of
    running that size in that slot of the plan (−inf on padding)."""
    sizes: np.ndarray    # [J, K]
    values: np.ndarray   # [J, K, T]
    planned: np.ndarray  # [J, T] value of the planned size (0 when off)
    done: np.ndarray     # [J, T] share of the remaining work the plan does in each slot


def size_values(inst: Instance, nodes: np.ndarray) -> SizeValues:
    """The value of each allowed size of each job in each slot of the plan `nodes`."""
    nodes = np.asarray(nodes, dtype=int)
    J, T = nodes.shape
    K = max((len(job.allowed) for job in inst.jobs), default=0)
    sizes = np.zeros((J, max(K, 1)), dtype=int)
    rates = np.zeros(sizes.shape)
    for j, job in enumerate(inst.jobs):
        sizes[j, : len(job.allowed)] = job.allowed
        rates[j, : len(job.allowed)] = [job.rate(n) for n in job.allowed]
    coef = coefficients(inst).progress
    done = progress_fractions(inst, nodes)
    remaining = np.array([job.remaining_work for job in inst.jobs], dtype=float)
    alive = remaining > 0
    left = np.where(alive, 1.0, 0.0)[:, None] - np.concatenate(
        [np.zeros((J, 1)), np.cumsum(done, axis=1)[:, :-1]], axis=1)
    cur = np.array([job.current_nodes for job in inst.jobs], dtype=int).reshape(J, 1)
    prev = np.concatenate([cur, nodes[:, :-1]], axis=1)
    rho = np.array([min(job.rescale_seconds, inst.slot_seconds) for job in inst.jobs])
    values = coef[:, None, :] * slot_progress(
        rates[:, :, None], sizes[:, :, None], prev[:, None, :],
        np.maximum(left, 0.0)[:, None, :], np.where(alive, remaining, 1.0)[:, None, None],
        rho[:, None, None], inst.slot_seconds)
    values = np.where(sizes[:, :, None] > 0, values, -np.inf)
    return SizeValues(sizes, values, coef * done, done)


@dataclass
class _Facts:
    """What the codes and sentences are read from, one [J, T] array each."""
    nodes: np.ndarray
    prev: np.ndarray
    price: np.ndarray       # the slot's price per node (nan: no prices)
    value: np.ndarray       # value of the planned size
    nxt: np.ndarray         # next larger allowed size (0: none); for a waiting job its smallest
    gain: np.ndarray        # value the next size adds per extra node
    lower: np.ndarray       # next smaller allowed size (0: none)
    drop: np.ndarray        # value per node the next smaller size would lose
    free: np.ndarray        # nodes no job holds in the slot
    cum: np.ndarray         # share of the remaining work done by the end of the slot
    tenant_room: np.ndarray  # nodes the job's tenant may still add (inf: no quota)


def _neighbours(sv: SizeValues, nodes: np.ndarray, J: int, T: int
                ) -> tuple[np.ndarray, ...]:
    """Next larger and smaller size of the planned one (per job and slot) and their values."""
    s = sv.sizes[:, :, None]
    n = nodes[:, None, :]
    valid = s > 0
    up = valid & (s > n)
    k_up = np.argmax(up, axis=1)
    has_up = up.any(axis=1)
    down = valid & (s < n)
    k_down = np.where(down.any(axis=1), down.shape[1] - 1 - np.argmax(down[:, ::-1], axis=1), 0)
    has_down = down.any(axis=1)
    jj = np.arange(J)[:, None]
    tt = np.arange(T)[None, :]
    nxt = np.where(has_up, sv.sizes[jj, k_up], 0)
    lower = np.where(has_down, sv.sizes[jj, k_down], 0)
    v_up = np.where(has_up, sv.values[jj, k_up, tt], 0.0)
    v_down = np.where(has_down, sv.values[jj, k_down, tt], 0.0)
    return nxt, lower, v_up, v_down


def _facts(inst: Instance, nodes: np.ndarray, prices: Sequence[float] | None) -> _Facts:
    J, T = nodes.shape
    sv = size_values(inst, nodes)
    nxt, lower, v_up, v_down = _neighbours(sv, nodes, J, T)
    value = sv.planned
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.where(nxt > 0, (v_up - value) / np.maximum(nxt - nodes, 1), 0.0)
        drop = np.where(lower > 0, (value - v_down) / np.maximum(nodes - lower, 1), 0.0)
    cur = np.array([job.current_nodes for job in inst.jobs], dtype=int).reshape(J, 1)
    price = np.full(T, np.nan) if prices is None else np.asarray(prices, dtype=float)
    free = np.asarray(inst.capacity, dtype=int) - nodes.sum(axis=0)
    room = np.full((J, T), np.inf)
    for tenant, quota in inst.quotas.items():
        mine = np.array([job.tenant == tenant for job in inst.jobs], dtype=bool)
        if quota.max_nodes is not None and mine.any():
            room[mine] = quota.max_nodes - nodes[mine].sum(axis=0)
    return _Facts(nodes, np.concatenate([cur, nodes[:, :-1]], axis=1),
                  np.broadcast_to(price, (J, T)), value, nxt, gain, lower, drop,
                  np.broadcast_to(free, (J, T)), np.cumsum(sv.done, axis=1), room)


def _codes(inst: Instance, f: _Facts, free_jobs: set[str]) -> np.ndarray:
    """The `why` code of every job and slot, by DESIGN §11's precedence."""
    J, T = f.nodes.shape
    on = f.nodes > 0
    known = ~np.isnan(f.price)
    alive = np.array([job.remaining_work > 0 for job in inst.jobs], dtype=bool)[:, None]
    before = np.concatenate([np.zeros((J, 1)), f.cum[:, :-1]], axis=1)
    finishing = ~alive | (before >= 1 - DONE_TOL) | (on & (f.cum >= 1 - DONE_TOL))
    bound = np.array([job.job_id not in free_jobs for job in inst.jobs], dtype=bool)[:, None]
    no_preempt = on & (f.prev > 0) & bound & known & (f.value < f.price * f.nodes)
    # would another size be worth more at the price (unknown price: assume so)
    wants = ~known | ((f.nxt > 0) & (f.gain >= f.price)) | ((f.lower > 0) & (f.drop < f.price))
    slot0 = np.zeros((J, T), dtype=bool)
    slot0[:, 0] = True
    kept = slot0 & on & (f.nodes == f.prev) & wants
    cooldown = kept & np.array([inst.in_cooldown(job) for job in inst.jobs])[:, None]
    budget = kept & (f.prev > 0) & _budget_used(inst, f.nodes)
    extra = np.where(on, f.nxt - f.nodes, f.nxt)
    quota = (f.nxt > 0) & (extra > f.tenant_room) & (~known | (f.gain >= f.price))
    at_max = on & (f.nxt == 0)
    no_fit = ~on & (f.nxt > f.free)
    conditions = [finishing, no_preempt, cooldown, budget, quota, at_max, no_fit]
    return np.select(conditions, list(CODES[:-1]), default=CODES[-1])


def _budget_used(inst: Instance, nodes: np.ndarray) -> bool:
    """Whether the window's rescales in slot 0 have used up `max_rescales`."""
    if inst.max_rescales is None or not len(inst.jobs):
        return False
    return bool(rescales(inst, nodes)[:, 0].sum() >= inst.max_rescales)


def explain(inst: Instance, nodes: np.ndarray, prices: Sequence[float] | None,
            free_jobs: set[str] | None = None) -> tuple[np.ndarray, list[list[str]]]:
    """[J, T] codes and sentences for the plan `nodes`; `free_jobs`: ids of jobs that may stop
    before they are done (released by the capacity rule, or all with preemption)."""
    nodes = np.asarray(nodes, dtype=int)
    if nodes.size == 0:
        return np.zeros(nodes.shape, dtype="<U16"), [[] for _ in range(nodes.shape[0])]
    f = _facts(inst, nodes, prices)
    codes = _codes(inst, f, free_jobs or set())
    rows = _Facts(**{k.name: getattr(f, k.name).tolist() for k in fields(f)})  # fast to index
    code_rows = codes.tolist()
    texts = [[_sentence(inst, rows, code_rows[j][t], j, t) for t in range(nodes.shape[1])]
             for j in range(nodes.shape[0])]
    return codes, texts


def plan_nodes(inst: Instance, plan: Plan) -> np.ndarray:
    """The plan's node matrix [job, slot] in the instance's job order."""
    index = {job.job_id: j for j, job in enumerate(inst.jobs)}
    nodes = np.zeros((len(inst.jobs), inst.T), dtype=np.int64)
    for a in plan.allocations:
        nodes[index[a.job_id], a.slot] = a.nodes
    return nodes


def annotate(inst: Instance, plan: Plan, free_jobs: set[str] | None = None) -> Plan:
    """Fill `why` and `why_text` of every allocation of `plan` (in place; also returned), at
    the plan's slot prices (None: without prices)."""
    index = {job.job_id: j for j, job in enumerate(inst.jobs)}
    codes, texts = explain(inst, plan_nodes(inst, plan), plan.slot_prices, free_jobs)
    for a in plan.allocations:
        j = index[a.job_id]
        a.why, a.why_text = str(codes[j, a.slot]), texts[j][a.slot]
    return plan


def _g(x: float) -> str:
    return f"{x:.3g}"


def _n(n: int) -> str:
    return f"{n} node" if n == 1 else f"{n} nodes"


def _sentence(inst: Instance, f: _Facts, code: str, j: int, t: int) -> str:
    """The `why_text` of one row."""
    job = inst.jobs[j]
    n, price, nxt = int(f.nodes[j][t]), float(f.price[j][t]), int(f.nxt[j][t])
    if code == "finishing":
        if n > 0:
            return f"finishes in slot {t}: its remaining work runs out at {_n(n)}"
        done = next((k for k, c in enumerate(f.cum[j]) if c >= 1 - DONE_TOL), -1)
        return "nothing left to run" if done < 0 else f"done in slot {done}; nothing left to run"
    if code == "no_preemption":
        return (f"kept on at {_n(n)}, worth {_g(f.value[j][t])} < their price "
                f"{_g(price * n)}: a running job may not stop before it is done")
    if code == "cooldown":
        return (f"keeps {_n(n)} in slot 0: resized {job.seconds_since_resize:.0f} s ago, "
                f"within the {inst.cooldown_seconds:.0f} s cooldown")
    if code == "churn_budget":
        if not inst.max_rescales:
            return f"keeps {_n(n)} in slot 0: this window allows no rescale"
        return (f"keeps {_n(n)} in slot 0: the window's {inst.max_rescales} allowed "
                "rescales are used")
    if code == "quota":
        held = job_quota(inst, j) - f.tenant_room[j][t]
        return (f"tenant {job.tenant} holds {held:.0f} of its {job_quota(inst, j)} nodes in "
                f"slot {t}; {_n(nxt)} would exceed its quota")
    if code == "at_max":
        tail = "" if isnan(price) else f" (price of its nodes {_g(price * n)})"
        return f"at its largest allowed size, {_n(n)}, worth {_g(f.value[j][t])}{tail}"
    if code == "min_does_not_fit":
        return (f"waits: its smallest size, {_n(nxt)}, exceeds the {_n(int(f.free[j][t]))} "
                f"free in slot {t}")
    return _price_sentence(f, j, t)


def job_quota(inst: Instance, j: int) -> int:
    """The max_nodes of job j's tenant (only called when it has one)."""
    quota = inst.quotas[inst.jobs[j].tenant or ""]
    return int(quota.max_nodes or 0)


def _price_sentence(f: _Facts, j: int, t: int) -> str:
    """A `price` row: the next size's gain per extra node against the slot's price."""
    n, price, nxt = int(f.nodes[j][t]), float(f.price[j][t]), int(f.nxt[j][t])
    gain, free = float(f.gain[j][t]), int(f.free[j][t])
    if n == 0 and nxt == 0:
        return "waits: its curve covers none of its allowed sizes"
    if n == 0:
        per = float(f.gain[j][t])
        if isnan(price):
            return f"waits: {_n(nxt)} would earn {_g(per)} per node (no slot prices)"
        if per < price:
            return (f"waits: {_n(nxt)} would earn {_g(per)} per node, below the slot "
                    f"price {_g(price)}")
        return (f"waits: {_n(nxt)} would earn {_g(per)} per node ≥ the slot price "
                f"{_g(price)}, but the horizon's plan starts it later")
    head = f"at {_n(n)} it earns {_g(f.value[j][t] / n)} per node; {nxt} would add {_g(gain)}"
    if isnan(price):
        return f"{head} per extra node (no slot prices)"
    if gain < price:
        return f"{head} per extra node, below the slot price {_g(price)}"
    if nxt - n > free:
        room = "no node is" if free <= 0 else f"only {_n(free)}"
        return f"{head} per extra node ≥ the slot price {_g(price)}, but {room} free"
    return (f"{head} per extra node ≥ the slot price {_g(price)}, but the horizon's plan "
            "keeps it smaller")

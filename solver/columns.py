"""Column generation over whole per-job schedules: a near-optimal plan for the window MIP and a
valid upper bound on its optimum (a Dantzig–Wolfe view of the same model).

The window MIP couples jobs only through the T capacity rows (and, with `max_rescales`, the
churn-budget row). Written over schedules — one column per (job, node counts for every slot),
valued with the model's own objective (rescale penalty included) and admitted by its rules
(cooldown included) — it is a set-partitioning problem with J "one schedule per job" rows, T
capacity rows and the budget row (a schedule uses 1 of it when it resizes a running job in
slot 0; it gets its own dual β), whose LP relaxation is far tighter than the MIP's own (a basic
solution has at most T jobs split between schedules). The master LP starts from the warm
start's schedules, stays one HiGHS object (its basis kept between rounds, each round's columns
added at once) and grows by pricing:

1. every round prices every schedule the model admits, for all jobs at once (`_price_exact`:
   slot by slot over numpy arrays of partial schedules, with a bound that prunes those which
   cannot beat the job's best master column). With coupling duals λ ≥ 0 (and β ≥ 0),
   `λ·C + β·max_rescales + Σ_j max_schedule (value − λ·nodes − β·rescaled)` is an upper bound
   on the MIP's optimum (Lagrangian relaxation of the coupling rows) for any such λ, so every
   round gives one; when no column prices out, the master LP's value is that bound;
2. pricing stops there, or when the LP is within gap/100 of the best bound, or at its share of
   the time. A round where exact pricing gives up (too many partial schedules) prices a pool
   of simple schedules per job instead (off, then at most two sizes, then off; the warm
   start's schedule too), made on first use.

The integer master (the LP's integral jobs fixed, the few split jobs chosen by HiGHS; the whole
master when that is infeasible) gives the plan. Every schedule is feasible for the MIP, so the
plan is too, and `bound − objective` is a proven gap. Pure numpy plus HiGHS (highspy) for the
master problems; no I/O.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from functools import cache

import numpy as np
import scipy.sparse as sp

from solver import backends
from solver.backends.highs import new_highs
from solver.deadline import MIP_SECONDS_PER_VAR, POOL_SECONDS_PER_SCHEDULE
from solver.instance import Instance
from solver.model import SparseModel
from solver.objective import DONE_TOL, coefficients, slot_progress, unfinished

log = logging.getLogger(__name__)

MAX_STATES = 3_000_000    # partial schedules alive at once in exact pricing; beyond, no bound
# columns of the reduced-cost-fixed master MIP; beyond, the fix-and-choose plan stands (HiGHS
# 1.16 was seen at the root of a 54,697-column master for 50 s past its 5 s time limit)
MAX_MASTER_MIP = 20_000
# shares of its time limit after which column generation starts no pricing round, and by which
# a round (its LP, its exact pricing) must end; the rest is the integer step's
PRICING_START, PRICING_END = 0.7, 0.85


@dataclass
class ColumnResult:
    nodes: np.ndarray
    objective: float
    bound: float | None        # valid upper bound on the MIP's optimum; None if not proven
    seconds: float
    rounds: int
    columns: int
    slot_prices: list[float] | None = None   # the last master LP's capacity duals (§4.3)


@cache
def _template(k: int, T: int) -> np.ndarray:
    """Every schedule 'off, size s1, size s2, off' over T slots, as indices into [0, sizes...]."""
    seqs = {(0,) * T}
    for a in range(T):
        for b in range(a + 1, T + 1):
            for c in range(b, T + 1):
                for s1 in range(1, k + 1):
                    for s2 in (range(1, k + 1) if c > b else (s1,)):
                        seqs.add((0,) * a + (s1,) * (b - a) + (s2,) * (c - b) + (0,) * (T - c))
    return np.array(sorted(seqs), dtype=np.int64)


def pool_schedules(sizes: np.ndarray, T: int) -> int:
    """How many simple schedules the pool values for jobs with `sizes[j]` allowed sizes each
    (what a solve costs before its first round, for the deadline)."""
    kinds, jobs = np.unique(np.asarray(sizes, dtype=np.int64), return_counts=True)
    return int(sum(len(_template(int(k), T)) * int(n) for k, n in zip(kinds, jobs, strict=True)))


class _Jobs:
    """Per-job arrays the schedule valuation needs, read once from the instance and model."""

    def __init__(self, inst: Instance, model: SparseModel, free: np.ndarray):
        self.J, self.T = len(inst.jobs), inst.T
        self.delta = inst.slot_seconds
        self.R = np.array([j.remaining_work for j in inst.jobs], dtype=float)
        self.alive = self.R > 0
        self.Rs = np.where(self.alive, self.R, 1.0)
        self.rho = np.array([min(j.rescale_seconds, self.delta) for j in inst.jobs])
        self.cur = np.array([j.current_nodes for j in inst.jobs], dtype=np.int64)
        self.free = free                      # may stop before done (released / preemption)
        coef = coefficients(inst)
        self.coef, self.eps, self.pen = coef.progress, coef.eps, coef.rescale
        self.unfinished = unfinished(inst)
        self.cool = np.array([inst.in_cooldown(j) for j in inst.jobs], dtype=bool)
        self.budget = inst.max_rescales          # None: no churn budget row in the master
        self.pair_job, self.pair_nodes = model.job_of, model.nodes_of
        self._quota_rows(model, inst)
        self.pair_rate = np.array([inst.jobs[j].throughput[n] for j, n in
                                   zip(model.job_of, model.nodes_of, strict=True)], dtype=float)
        top = int(max(self.pair_nodes.max(initial=0), self.cur.max(initial=0)))
        self.rate = np.zeros((self.J, top + 1))
        self.rate[self.pair_job, self.pair_nodes] = self.pair_rate

    def _quota_rows(self, model: SparseModel, inst: Instance) -> None:
        """The tenant quota rows of the master (DESIGN §4.2), all written `≤`: per tenant and
        slot, its nodes ≤ max_k, then −(its nodes) ≤ −G[k, t] (so every coupling dual is ≥ 0).
        Jobs of a tenant with a guarantee may hold nodes after they are done (`idle`): the
        model admits it and a guarantee's dual can make it pay."""
        q = model.quotas
        self.q_tenant = self.q_slot = np.zeros(0, dtype=np.int64)
        self.q_sign = self.q_rhs = np.zeros(0)
        self.tenant_of = np.full(self.J, -1, dtype=np.int64)
        self.idle = np.zeros(self.J, dtype=bool)
        if q is None:
            return
        for k in range(q.K):
            self.tenant_of[q.members[k]] = k
        self.idle = q.members[q.guaranteed()].any(axis=0)
        k_max, t_max = np.nonzero(np.isfinite(q.cap)[:, None] & np.ones((1, self.T), bool))
        k_min, t_min = np.nonzero(q.floor > 0)
        self.q_tenant = np.r_[k_max, k_min].astype(np.int64)
        self.q_slot = np.r_[t_max, t_min].astype(np.int64)
        self.q_sign = np.r_[np.ones(k_max.size), -np.ones(k_min.size)]
        self.q_rhs = np.r_[q.cap[k_max], -q.floor[k_min, t_min]]

    def rhs(self, capacity: list[int]) -> np.ndarray:
        """The right-hand sides of the coupling rows: capacity per slot, the churn budget,
        then the quota rows."""
        budget = [] if self.budget is None else [self.budget]
        return np.concatenate([np.array(capacity + budget, dtype=float), self.q_rhs])

    def prices(self, lam: np.ndarray) -> tuple[np.ndarray, float]:
        """From the coupling duals λ: the price of a node per job and slot (capacity dual + ε,
        plus the job's tenant's cap duals, less its guarantee duals) and the budget's β."""
        T, b = self.T, int(self.budget is not None)
        mu = np.repeat((lam[:T] + self.eps)[None, :], self.J, axis=0)
        beta = float(lam[T]) if b else 0.0
        dual = lam[T + b:]
        for r in np.nonzero(dual)[0]:
            mine = self.tenant_of == self.q_tenant[r]
            mu[mine, self.q_slot[r]] += self.q_sign[r] * dual[r]
        return mu, beta

    def rescaled0(self, N: np.ndarray, job: np.ndarray) -> np.ndarray:
        """Whether schedule N[i] changes the size of running job[i] in slot 0."""
        cur = self.cur[job]
        return (cur > 0) & (N[:, 0] > 0) & (N[:, 0] != cur)

    def usage(self, N: np.ndarray, job: np.ndarray) -> np.ndarray:
        """Each schedule's use of the master's coupling rows: nodes per slot, then (with a
        churn budget) 1 for a rescale in slot 0, then ± its nodes in its tenant's quota rows."""
        parts = [N] if self.budget is None else [N, self.rescaled0(N, job)[:, None]]
        if self.q_tenant.size:
            mine = self.tenant_of[job][:, None] == self.q_tenant[None, :]
            parts.append(mine * N[:, self.q_slot] * self.q_sign[None, :].astype(np.int64))
        return parts[0] if len(parts) == 1 else np.column_stack(parts).astype(N.dtype)

    def value(self, N: np.ndarray, job: np.ndarray, *, idle_ok: bool = False
              ) -> tuple[np.ndarray, np.ndarray]:
        """Objective value of each schedule N[i] for job[i], and whether the model admits it.
        Schedules that keep nodes after the job is done are admitted only with `idle_ok`
        (the model allows them, but stopping is better, so pricing leaves them out)."""
        left = np.where(self.alive[job], 1.0, 0.0)
        prev = self.cur[job]
        value = np.zeros(len(job))
        ok = ~(~self.alive[job] & (N.sum(axis=1) > 0))
        fr = self.free[job]
        ok &= ~(self.alive[job] & ~fr & (self.cur[job] > 0) & (N[:, 0] == 0))
        ok &= ~(self.cool[job] & self.rescaled0(N, job))
        idle = self.idle[job] | idle_ok
        for t in range(self.T):
            n = N[:, t]
            on = n > 0
            ok &= ~(on & (left <= DONE_TOL) & ~idle)
            done = slot_progress(self.rate[job, n], n, prev, left, self.Rs[job],
                                 self.rho[job], self.delta)
            left = left - done
            charged = (prev > 0) & (n != prev) & (on | self.unfinished[job, t])  # changes()
            value += self.coef[job, t] * done - self.pen * charged
            if t < self.T - 1:
                ok &= ~(on & (N[:, t + 1] == 0) & ~fr & (left > DONE_TOL))
            prev = n
        return value - self.eps * N.sum(axis=1), ok


def _pool(d: _Jobs, start: np.ndarray, start_value: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The simple schedules of every job plus the start's (worth `start_value`), admitted and
    deduplicated, in job order: (schedules, job, value). The start's schedules come first in
    each job's block."""
    blocks, owners = [], []
    counts = np.bincount(d.pair_job, minlength=d.J)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    for j in range(d.J):
        sizes = d.pair_nodes[first[j]: first[j] + counts[j]]
        tpl = _template(len(sizes), d.T)
        blocks.append(np.concatenate([[0], sizes])[tpl])
        owners.append(np.full(len(tpl), j))
    N = np.vstack(blocks)
    job = np.concatenate(owners)
    value, ok = d.value(N, job)
    N = np.vstack([start, N[ok]])
    job = np.concatenate([np.arange(d.J), job[ok]])
    value = np.concatenate([start_value, value[ok]])
    _, keep = np.unique(np.column_stack([job, N]), axis=0, return_index=True)
    keep = np.sort(keep)      # first occurrence: the start's schedule leads its job's block
    keep = keep[np.argsort(job[keep], kind="stable")]
    return N[keep], job[keep], value[keep]


@dataclass
class _Partial:
    """Partial schedules of exact pricing, one per entry: owner, size in the last slot, share
    of the work still left, value so far, ever on, and (for those kept) the sizes so far."""
    job: np.ndarray
    prev: np.ndarray
    left: np.ndarray
    value: np.ndarray
    ever: np.ndarray
    hist: np.ndarray | None = None


def _slot_gain_bound(d: _Jobs, mu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """tail[j, t]: the most slots t.. could add to job j's value at prices `mu[j, t]` (each
    slot's best size at full speed, never below 0); and idle[j, t]: the most the node terms
    alone could add (positive only where a guarantee's dual makes a node's price negative);
    both 0 at t = T."""
    node_terms = -mu[d.pair_job] * d.pair_nodes[:, None]
    gain = (d.coef[d.pair_job] * (d.pair_rate * d.delta / d.Rs[d.pair_job])[:, None]
            + node_terms)

    def suffix(per_pair: np.ndarray) -> np.ndarray:
        best_slot = np.zeros((d.J, d.T))
        np.maximum.at(best_slot, d.pair_job, np.maximum(per_pair, 0.0))
        return np.concatenate([np.cumsum(best_slot[:, ::-1], axis=1)[:, ::-1],
                               np.zeros((d.J, 1))], axis=1)

    return suffix(gain), suffix(node_terms)


def _extend(d: _Jobs, s: _Partial, t: int, mu: np.ndarray, beta: float, counts: np.ndarray,
            first: np.ndarray) -> tuple[_Partial, np.ndarray]:
    """Every one-slot extension of the partial schedules `s` at slot t (off, or each size of
    its job) that the model admits, valued at node prices `mu` and churn-budget price `beta`:
    the children and each child's parent index."""
    reps = counts[s.job]
    src = np.repeat(np.arange(s.job.size), reps)
    offset = np.arange(src.size) - np.repeat(np.cumsum(reps) - reps, reps)
    pair = np.concatenate([np.full(s.job.size, -1), first[s.job[src]] + offset])
    cs = np.concatenate([np.arange(s.job.size), src])
    cj = s.job[cs]
    cn = np.where(pair >= 0, d.pair_nodes[np.maximum(pair, 0)], 0)
    pv, lf, ev = s.prev[cs], s.left[cs], s.ever[cs]
    on = cn > 0
    fr = d.free[cj]
    running = (pv > 0) & (lf > DONE_TOL)
    ok = ~(on & (lf <= DONE_TOL) & ~d.idle[cj])          # nothing after done (but idle)
    ok &= ~(~on & running & ~fr)                          # no stop before done
    ok &= ~(on & (pv == 0) & ev & (lf > DONE_TOL) & ~fr)  # no restart after a stop
    change = (pv > 0) & on & (cn != pv)
    if t == 0:
        ok &= ~(~on & (d.cur[cj] > 0) & ~fr)              # a running job stays on
        ok &= ~(change & d.cool[cj])                      # no resize in its cooldown
    cj, cn, cs, pair, pv, lf, ev, on, change = (a[ok] for a in (cj, cn, cs, pair, pv, lf, ev, on,
                                                                change))
    rate = np.where(pair >= 0, d.pair_rate[np.maximum(pair, 0)], 0.0)
    done = slot_progress(rate, cn, pv, lf, d.Rs[cj], d.rho[cj], d.delta)
    charge = d.pen + (beta if t == 0 else 0.0)
    stop = (pv > 0) & ~on & d.unfinished[cj, t]  # a charged stop (objective.changes)
    value = (s.value[cs] + d.coef[cj, t] * done - mu[cj, t] * cn - charge * change
             - d.pen * stop)
    return _Partial(cj, cn, lf - done, value, ev | on), cs


def _record_best(c: _Partial, parent: np.ndarray, hist: np.ndarray, t: int, complete: np.ndarray,
                 best: np.ndarray, best_pat: np.ndarray) -> None:
    """Keep, per job, the complete schedule among `c[complete]` that beats `best` (in place)."""
    idx = np.nonzero(complete)[0]
    order = idx[np.lexsort((-c.value[idx], c.job[idx]))]
    head = order[np.r_[True, c.job[order][1:] != c.job[order][:-1]]]
    head = head[c.value[head] > best[c.job[head]]]
    best[c.job[head]] = c.value[head]
    best_pat[c.job[head]] = 0
    best_pat[c.job[head], :t] = hist[parent[head]]
    best_pat[c.job[head], t] = c.prev[head]


def _survivors(d: _Jobs, c: _Partial, t: int, complete: np.ndarray, lower: np.ndarray,
               tails: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Indices of the children that may still go on (incomplete, or done but free to hold
    nodes idle), may still beat `lower` (bound prune) and that no sibling dominates."""
    cj = c.job
    tail, idle = tails
    c_next = d.coef[cj, t + 1]
    reach = c.value + np.minimum(c_next * c.left + idle[cj, t + 1], tail[cj, t + 1])
    slack = 1e-12 * np.maximum(1.0, np.abs(lower[cj]))
    go_on = ~complete | (d.idle[cj] & (c.left <= DONE_TOL))
    go = np.nonzero(go_on & (reach >= lower[cj] - slack))[0]
    return go[_undominated(cj[go], c.prev[go], c.ever[go], c.left[go],
                           c.value[go] + c_next[go] * c.left[go])]


def _price_exact(d: _Jobs, lam: np.ndarray, lower: np.ndarray, deadline: float = np.inf
                 ) -> tuple[np.ndarray, np.ndarray] | None:
    """For each job, the best `value − (λ + ε)·nodes − β·[rescaled in slot 0]` over every
    schedule the model admits (λ: the capacity duals, then β, the churn budget's, when there is
    a budget), and that schedule; None when the search grows past MAX_STATES or runs past
    `deadline` (perf_counter). Two exact prunes, both resting on objective weights that never
    grow with the slot (so work still left is worth at most the next slot's weight c) and on
    rescale charges that only lower a value and depend only on the last size:
    - bound: `lower[j]` is a value some admitted schedule reaches; a partial schedule whose
      value plus the most its remaining slots could add stays below it is dropped;
    - dominance: of two partial schedules of a job with the same last size, A with no more work
      left than B and `value_A + c·left_A ≥ value_B + c·left_B` ends at least as well as B
      whatever follows, so B is dropped."""
    J, T = d.J, d.T
    mu, beta = d.prices(lam)
    tails = _slot_gain_bound(d, mu)
    counts = np.bincount(d.pair_job, minlength=J)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    lower = lower.copy()
    best = np.where(d.alive, -np.inf, 0.0)
    best_pat = np.zeros((J, T), dtype=np.int64)
    sj = np.nonzero(d.alive)[0]
    s = _Partial(sj, d.cur[sj], np.ones(sj.size), np.zeros(sj.size), d.cur[sj] > 0,
                 np.zeros((sj.size, 0), dtype=np.int64))
    for t in range(T):
        c, parent = _extend(d, s, t, mu, beta, counts, first)
        complete = (c.left <= DONE_TOL) | (t == T - 1)
        if complete.any():
            _record_best(c, parent, s.hist, t, complete, best, best_pat)
            lower = np.maximum(lower, best)
        if t == T - 1:
            break
        go = _survivors(d, c, t, complete, lower, tails)
        if go.size * (1 + counts.max(initial=0)) > MAX_STATES or time.perf_counter() > deadline:
            log.info("exact pricing stopped at slot %d: %d partial schedules", t, go.size)
            return None
        s = _Partial(c.job[go], c.prev[go], c.left[go], c.value[go], c.ever[go],
                     np.column_stack([s.hist[parent[go]], c.prev[go]]))
    return best, best_pat


def _undominated(job: np.ndarray, last: np.ndarray, ever: np.ndarray, left: np.ndarray,
                 key: np.ndarray) -> np.ndarray:
    """Mask of the partial schedules no other of the same (job, last size, ever on) dominates:
    none with no more work left and at least the same `key` (value + c·left) comes first."""
    if key.size == 0:
        return np.ones(0, dtype=bool)
    g = (job * (int(last.max()) + 1) + last) * 2 + ever      # one key per (job, last, ever)
    order = np.lexsort((-key, left, g))
    g = g[order]
    new_group = np.r_[True, g[1:] != g[:-1]]
    group = np.cumsum(new_group) - 1
    k = key[order]
    span = float(k.max() - k.min()) + 1.0
    # a running maximum that restarts per group: later groups are lifted above earlier ones
    run = np.maximum.accumulate(k + group * span)
    before = np.r_[-np.inf, run[:-1]]
    dominated = ~new_group & (before >= k + group * span)
    out = np.ones(key.size, dtype=bool)
    out[order[dominated]] = False
    return out


class _Master:
    """The restricted master LP (minimise −value) in one HiGHS object that grows by columns,
    added a round at a time (`addCols`); HiGHS keeps its basis between rounds, so each LP
    starts from the last one's optimum. The columns' schedules, coupling-row use, job and
    value are kept as arrays beside it."""

    def __init__(self, J: int, T: int, cap: np.ndarray, threads: int, solver: str = "columns"):
        import highspy

        self.hs = highspy
        self.threads = threads
        self.solver = solver       # the integer steps' backend (solver.backends.solve)
        self.cap = cap
        self.h = new_highs(threads)
        self.J = J
        inf = highspy.kHighsInf
        lo = np.concatenate([np.ones(J), np.full(cap.size, -inf)])
        hi = np.concatenate([np.ones(J), cap])
        self.h.addRows(lo.size, lo, hi, 0, np.zeros(0, np.int32), np.zeros(0, np.int32),
                       np.zeros(0))
        self.N = np.zeros((0, T), dtype=np.int64)
        self.U = np.zeros((0, cap.size), dtype=np.int64)   # use of the coupling rows
        self.job = np.zeros(0, dtype=np.int64)
        self.value = np.zeros(0)
        self._seen: set[bytes] = set()

    def add(self, job: np.ndarray, N: np.ndarray, U: np.ndarray, value: np.ndarray) -> int:
        """Add the schedules N[i] of job[i] (use U[i] of the coupling rows, worth value[i])
        not already in the master; how many were new."""
        keys = np.column_stack([job, N]).astype(np.int64)
        new = np.zeros(job.size, dtype=bool)
        for i, key in enumerate(keys):
            raw = key.tobytes()
            if raw not in self._seen:
                self._seen.add(raw)
                new[i] = True
        job, N, U, value = job[new], N[new], U[new], value[new]
        if job.size:
            rows = np.column_stack([job, self.J + np.arange(U.shape[1])[None, :]
                                    + np.zeros_like(job)[:, None]])
            vals = np.column_stack([np.ones(job.size), U.astype(float)])
            nz = vals != 0
            starts = np.r_[0, np.cumsum(nz.sum(axis=1))[:-1]].astype(np.int32)
            self.h.addCols(job.size, -value, np.zeros(job.size), np.ones(job.size),
                           int(nz.sum()), starts, rows[nz].astype(np.int32), vals[nz])
            self.N = np.concatenate([self.N, N])
            self.U = np.concatenate([self.U, U])
            self.job = np.concatenate([self.job, job])
            self.value = np.concatenate([self.value, value])
        return int(job.size)

    def best_reduced(self, lam: np.ndarray) -> np.ndarray:
        """Per job, the best reduced value `value − λ·use` among its columns (one that some
        schedule reaches: exact pricing prunes against it)."""
        out = np.full(self.J, -np.inf)
        np.maximum.at(out, self.job, self.value - self.U @ lam)
        return out

    def solve_lp(self, time_limit: float) -> tuple[float, np.ndarray, np.ndarray] | None:
        """(LP value, coupling duals λ ≥ 0 (capacity per slot, then the budget's and the
        quotas'), per-job duals); None when HiGHS does not prove it optimal in `time_limit`.
        HiGHS 1.x measures its time limit over all runs of one object (ERGO-Code/HiGHS#1477),
        so the limit set is its run time so far plus `time_limit`."""
        limit = self.h.getRunTime() + max(float(time_limit), 1e-3)
        self.h.setOptionValue("time_limit", limit)
        self.h.run()
        if self.h.getModelStatus() != self.hs.HighsModelStatus.kOptimal:
            return None
        dual = -np.array(self.h.getSolution().row_dual)
        return -float(self.h.getInfo().objective_function_value), \
            np.maximum(dual[self.J:], 0.0), dual[: self.J]

    def fix_and_choose(self, time_limit: float, gap: float) -> np.ndarray | None:
        """A quick integer choice: jobs integral in the LP keep their column and a MIP chooses
        among the split jobs' columns; when that is infeasible, a MIP over the same columns
        and the start's, nothing fixed; None when neither answers in time."""
        x = np.array(self.h.getSolution().col_value)
        if x.size != self.job.size:
            return None
        integral = x > 1 - 1e-7
        settled = np.zeros(self.J, dtype=bool)
        settled[self.job[integral]] = True
        lo = np.where(integral, 1.0, 0.0)
        hi = np.where(integral | ~settled[self.job], 1.0, 0.0)
        t0 = time.perf_counter()
        left = time_limit - int((hi > lo).sum()) * MIP_SECONDS_PER_VAR   # less its set-up
        chosen = self._mip(lo, hi, left, gap) if left > 0 else None
        if chosen is not None:
            return chosen
        # the integral columns can leave the split jobs no integral room: free them, with
        # every job's start schedule (the first J columns, a feasible choice) beside them
        keep = hi > 0
        keep[: self.J] = True
        left = time_limit - (time.perf_counter() - t0) - int(keep.sum()) * MIP_SECONDS_PER_VAR
        if left <= 0 or keep.sum() > MAX_MASTER_MIP:
            return None
        return self.choose(keep, np.arange(keep.size) < self.J, left, gap)

    def choose(self, keep: np.ndarray, start: np.ndarray | None, time_limit: float,
               gap: float) -> np.ndarray | None:
        """The master MIP over the columns in `keep`, from the choice `start`."""
        return self._mip(np.zeros(keep.size), keep.astype(float), time_limit, gap, start)

    def _mip(self, lo: np.ndarray, hi: np.ndarray, time_limit: float, gap: float,
             start: np.ndarray | None = None) -> np.ndarray | None:
        """The master MIP over the columns with `lo ≤ x ≤ hi` (those with hi = 0 left out) on
        the backend `self.solver` asks for (auto: Gurobi when its licence admits it, several
        times faster on these set-partitioning MIPs; else HiGHS); the chosen columns."""
        # columns fixed at 1 leave the MIP: their jobs' rows go, their use leaves the capacity
        fixed = np.nonzero((lo > 0.5) & (hi > 0))[0]
        cols = np.nonzero((hi > 0) & (lo <= 0.5))[0]
        cap = self.cap - self.U[fixed].sum(axis=0)
        # an LP stopped by its time limit is no vertex: its "integral" columns may give a job
        # two schedules or overfill a row (then the MIP below has no solution)
        if (np.bincount(self.job[fixed], minlength=self.J) > 1).any():
            return None
        chosen = np.zeros(self.job.size, dtype=bool)
        chosen[fixed] = True
        left = np.ones(self.J, dtype=bool)
        left[self.job[fixed]] = False
        if cols.size == 0:
            return chosen if not left.any() and (cap >= -1e-9).all() else None
        row_of = np.cumsum(left) - 1            # a remaining job's row
        jobs = int(left.sum())
        A = sp.vstack([sp.csr_matrix((np.ones(cols.size),
                                      (row_of[self.job[cols]], np.arange(cols.size))),
                                     shape=(jobs, cols.size)),
                       sp.csr_matrix(self.U[cols].T.astype(float))]).tocsr()
        m = SparseModel(c=self.value[cols], A=A,
                        row_lo=np.r_[np.ones(jobs), np.full(cap.size, -np.inf)],
                        row_hi=np.r_[np.ones(jobs), cap], col_lo=np.zeros(cols.size),
                        col_hi=np.ones(cols.size), integer=np.ones(cols.size, dtype=bool),
                        job_of=np.zeros(0, dtype=np.int64), nodes_of=np.zeros(0, dtype=np.int64),
                        J=jobs, T=0)
        warm = None if start is None else start[cols].astype(float)
        result, _ = backends.solve(m, solver=self.solver, time_limit=time_limit, gap=gap,
                                   threads=self.threads, warm_start=warm)
        if result.x is None:
            return None
        chosen[cols] = result.x > 0.5
        return chosen


@dataclass
class _Pool:
    """The simple schedules of every job (see `_pool`) with their use of the coupling rows,
    and each job's block [starts, ends). Made only when needed (exact pricing gave up, or the
    integer step looks beyond the master's columns) and when it fits the time left."""
    N: np.ndarray
    U: np.ndarray
    job: np.ndarray
    value: np.ndarray
    starts: np.ndarray
    ends: np.ndarray

    @classmethod
    def of(cls, d: _Jobs, start: np.ndarray, start_value: np.ndarray) -> _Pool:
        N, job, value = _pool(d, start, start_value)
        starts = np.searchsorted(job, np.arange(d.J))
        return cls(N, d.usage(N, job), job, value, starts, np.r_[starts[1:], len(job)])

    def add_to(self, master: _Master, k: np.ndarray) -> int:
        """Add the pool schedules k to the master."""
        return master.add(self.job[k], self.N[k], self.U[k], self.value[k])


@dataclass
class _Setup:
    """What column generation works from: the valuation arrays, the coupling rows' right-hand
    sides, the start's schedules and values, the master, the time, and the pool once made."""
    d: _Jobs
    cap: np.ndarray
    start: np.ndarray
    start_value: np.ndarray
    master: _Master
    t0: float
    time_limit: float
    pool_: _Pool | None = None

    def remaining(self) -> float:
        return max(self.time_limit - (time.perf_counter() - self.t0), 0.0)

    def pool(self) -> _Pool | None:
        """The pool of simple schedules, made on first use when its valuation fits half the
        time left; None when it does not."""
        if self.pool_ is None:
            sizes = np.bincount(self.d.pair_job, minlength=self.d.J)
            if pool_schedules(sizes, self.d.T) * POOL_SECONDS_PER_SCHEDULE > self.remaining() / 2:
                return None
            self.pool_ = _Pool.of(self.d, self.start, self.start_value)
        return self.pool_


@dataclass
class _Generation:
    """Where column generation stopped: the proven bound (if any), rounds, and the last master
    LP's value and duals (capacity λ, per-job μ)."""
    bound: float | None
    rounds: int
    lp_value: float
    lam: np.ndarray
    mu: np.ndarray


def _add_from_pool(master: _Master, pool: _Pool, lam: np.ndarray, mu: np.ndarray, tol: float
                   ) -> int:
    """Add each job's best-pricing pool schedule that prices out; how many were added."""
    reduced = pool.value - pool.U @ lam
    best = np.maximum.reduceat(reduced, pool.starts)
    jobs = np.nonzero(best - mu > tol)[0]
    order = np.lexsort((-reduced, pool.job))       # per job, its best schedule first
    first = order[pool.starts[jobs]]
    return pool.add_to(master, first)


def _add_exact(master: _Master, d: _Jobs, exact: tuple[np.ndarray, np.ndarray],
               lower: np.ndarray, lam: np.ndarray, mu: np.ndarray, cap: np.ndarray, tol: float
               ) -> tuple[float, int]:
    """Add the exactly priced schedules that price out; (the Lagrangian bound λ·C + Σ_j best,
    with C the capacities and the budget, columns added). `lower`: per job, a reduced value
    some column reaches (what pricing pruned against)."""
    exact_best, exact_sched = exact
    exact_best = np.maximum(exact_best, lower)
    who = np.nonzero(exact_best - mu > tol)[0]
    value, ok = d.value(exact_sched[who], who)
    who = who[ok]
    added = master.add(who, exact_sched[who], d.usage(exact_sched[who], who), value[ok])
    return float(lam @ cap + exact_best.sum()), added


def _price_round(s: _Setup, lam: np.ndarray, mu: np.ndarray, tol: float
                 ) -> tuple[float | None, int]:
    """One pricing round at duals (λ, μ): exact pricing of every job at once (a Lagrangian
    bound, valid for any λ ≥ 0) and its improving schedules; the pool's when exact pricing
    gives up. (bound or None, columns added)."""
    d, master = s.d, s.master
    lower = master.best_reduced(lam)
    exact = _price_exact(d, lam, lower, deadline=s.t0 + s.time_limit * PRICING_END)
    if exact is not None:
        return _add_exact(master, d, exact, lower, lam, mu, s.cap, tol)
    pool = s.pool()
    return None, 0 if pool is None else _add_from_pool(master, pool, lam, mu, tol)


def _generate(s: _Setup, gap: float, max_rounds: int) -> _Generation:
    """Price until no column improves, the master LP is within `gap` / 100 of the best bound,
    the start plan is proven within `gap` of it (nothing left to prove: the integer step can
    only improve on the start), the time is up (PRICING_START) or the search grows too
    large."""
    bound: float | None = None
    incumbent = float(s.start_value.sum())
    rounds = 0
    lp_value, lam, mu = 0.0, np.zeros(s.cap.size), np.zeros(s.d.J)
    while rounds < max_rounds:
        lp = s.master.solve_lp(s.remaining() - (1 - PRICING_END) * s.time_limit)
        if lp is None:
            break    # the last LP's duals and bound stand
        rounds += 1
        lp_value, lam, mu = lp
        if time.perf_counter() - s.t0 > s.time_limit * PRICING_START:
            break   # no new round; the integer step gets the rest (the LP is current)
        tol = 1e-9 * max(1.0, abs(lp_value))
        candidate, added = _price_round(s, lam, mu, tol)
        if candidate is not None:
            bound = candidate if bound is None else min(bound, candidate)
        if not added or (bound is not None and (bound - lp_value <= gap / 100 * abs(bound)
                                                or bound - incumbent <= gap * abs(bound))):
            break
    return _Generation(bound, rounds, lp_value, lam, mu)


def _fixed_master(s: _Setup, gen: _Generation, objective: float, chosen: np.ndarray | None,
                  gap: float) -> np.ndarray | None:
    """The master MIP after reduced-cost fixing: an integer solution worth at least `target`
    uses no column whose reduced value is below −(LP value − target), so it needs only the
    columns (generated, or in the pool when it is made) that pass that test."""
    master, lam, mu, bound = s.master, gen.lam, gen.mu, gen.bound
    target = max(objective, bound * (1 - gap / 2)) if bound is not None else objective
    margin = gen.lp_value - target if np.isfinite(target) else np.inf
    margin += 1e-9 * max(1.0, abs(gen.lp_value))
    pool = s.pool()
    if pool is not None:
        reduced = pool.value - pool.U @ lam - mu[pool.job]
        pool.add_to(master, np.nonzero(reduced >= -margin)[0])
    if s.remaining() <= 0:
        return None   # out of time (a deadline, solver/deadline.py)
    m_red = master.value - master.U @ lam - mu[master.job]
    keep = m_red >= -margin
    start_choice = None
    if chosen is not None:
        start_choice = np.zeros(master.job.size, dtype=bool)
        start_choice[: chosen.size] = chosen
        keep |= start_choice
    # HiGHS loads and presolves before it looks at its time limit: that much less, or none
    left = s.remaining() - int(keep.sum()) * MIP_SECONDS_PER_VAR
    if left <= 0 or keep.sum() > MAX_MASTER_MIP:
        return None
    # a third of the gap: the plan proves the gap with room to spare, and closing it to a
    # tenth took 100-job windows 0.26 s more for objectives 0.01 % higher (bench/solver.py)
    return master.choose(keep, start_choice, left, gap / 3)


def _integer_plan(s: _Setup, gen: _Generation, gap: float
                  ) -> tuple[np.ndarray | None, float]:
    """The chosen master columns and their value: the LP's integral jobs fixed first, then,
    when that is not within the gap of the bound, the reduced-cost-fixed master MIP."""
    master = s.master
    chosen = master.fix_and_choose(s.remaining(), gap / 100) if s.remaining() > 0 else None
    if chosen is None:   # the start's schedules (the first J columns) are a feasible choice
        chosen = np.arange(master.job.size) < master.J
    objective = float(master.value[chosen].sum())
    bound = gen.bound
    if (bound is None or objective < bound - gap * abs(bound)) and s.remaining() > 0:
        better = _fixed_master(s, gen, objective, chosen, gap)
        if better is not None:
            value_better = float(master.value[better].sum())
            if value_better > objective:
                chosen, objective = better, value_better
    start_value = float(s.start_value.sum())
    if objective < start_value:   # an LP stopped early can fix columns no better plan keeps
        chosen, objective = np.arange(master.job.size) < master.J, start_value
    grown = master.job.size - chosen.size     # the pool's columns added since the choice
    return np.r_[chosen, np.zeros(grown, dtype=bool)], objective


def _setup(inst: Instance, model: SparseModel, start: np.ndarray, free: set[int],
           threads: int, solver: str, t0: float, time_limit: float) -> _Setup | None:
    """The valuation arrays and the master, holding the start plan's schedules (the first J
    columns); None when the start breaks the model's rules."""
    free_mask = np.zeros(len(inst.jobs), dtype=bool)
    free_mask[list(free)] = True
    d = _Jobs(inst, model, free_mask)
    start = np.array(start, dtype=np.int64)
    for (j, n), smaller in model.dominated.items():   # sizes the model left out
        start[j][start[j] == n] = smaller
    every = np.arange(d.J)
    start_value, admitted = d.value(start, every, idle_ok=True)
    use = d.usage(start, every)
    cap = d.rhs(inst.capacity)
    if not admitted.all() or (use.sum(axis=0) > cap + 1e-9).any():  # capacity, budget, quota
        log.info("column generation skipped: the start plan breaks the model's rules")
        return None
    master = _Master(d.J, d.T, cap, threads, solver)
    master.add(every, start, use, start_value)
    return _Setup(d, cap, start, start_value, master, t0, time_limit)


def solve(inst: Instance, model: SparseModel, start: np.ndarray, *, free: set[int],
          time_limit: float, gap: float, threads: int = 1, max_rounds: int = 100,
          lp_only: bool = False, solver: str = "columns") -> ColumnResult | None:
    """Column generation from the feasible plan `start` (node matrix). `free`: indices of jobs
    that may stop before they are done. None when the integer master finds no plan. With
    `lp_only`, stop at the master LP: the result is the start with the LP's bound and prices.
    `solver`: the integer steps' backend, as in solver.backends.solve (columns: HiGHS)."""
    t0 = time.perf_counter()
    if not inst.jobs:
        return None
    s = _setup(inst, model, start, free, threads, solver, t0, time_limit)
    if s is None or s.remaining() <= 0:   # no time left for a round
        return None
    gen = _generate(s, 0.0 if lp_only else gap, max_rounds)
    master = s.master
    prices = [float(x) for x in gen.lam[: s.d.T]]
    if lp_only:
        return ColumnResult(nodes=start, objective=float(s.start_value.sum()),
                            bound=gen.bound, seconds=time.perf_counter() - t0,
                            rounds=gen.rounds, columns=master.job.size, slot_prices=prices)
    chosen, objective = _integer_plan(s, gen, gap)
    if chosen is None:
        return None
    nodes = np.zeros((s.d.J, s.d.T), dtype=np.int64)
    nodes[master.job[chosen]] = master.N[chosen]
    return ColumnResult(nodes=nodes, objective=objective, bound=gen.bound,
                        seconds=time.perf_counter() - t0, rounds=gen.rounds,
                        columns=master.job.size, slot_prices=prices)

"""The window MIP of DESIGN §4, built once in a solver-neutral sparse form.

Progress is scaled per job, p̃[j,t] = p[j,t] / R_j ∈ [0, 1] (DESIGN §9: unscaled, HiGHS returned
plans up to 2× off the optimum while calling them optimal).

Variable layout (E = number of (job, allowed node count) pairs, in job order then node order;
X = E·T):
    x[e, t]    at  e·T + t              binary: job_of[e] runs on nodes_of[e] nodes in slot t
    kept       at  X …                  continuous [0, 1], K columns: per size, stay[e, t] at
                                        X + e·T + t (it kept that size from slot t−1; K = X);
                                        or, compact, keep[j, t] at X + j·T + t (job j kept its
                                        size; K = J·T)
    p̃[j, t]    at  X + K + j·T + t      continuous [0, 1]: share of R_j done in slot t
    chg[k]     at  X + K + J·T + k      continuous [0, 1]: job chg_job[k] changes size in slot
                                        chg_slot[k] (only with a rescale penalty κ > 0)
Rows are lo ≤ A·v ≤ hi; the objective is maximised. `build` assembles the model from named
blocks: the columns (`_pairs`, `_Layout`), one function per row block of §4 (capacity, one size,
progress, kept only on the size of the slot before, work left, no preemption, rescale
indicators, churn budget, tenant quotas), then the objective and the column bounds (which also
hold the cooldown). The per-size form has the tighter relaxation (Gurobi proves small windows
sooner on it); the compact one about half the columns and rows, so windows of up to about 20
jobs fit the 2,000 of Gurobi's restricted licence: a model whose per-size form would have more
than PER_SIZE_MAX_VARS variables is built compact (docs/model.md, "Variable layout").
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from solver.instance import Instance
from solver.objective import changes, coefficients, progress_fractions, unfinished
from solver.quotas import TenantRows, tenant_rows

# the largest model built with a "kept" column per size; above, one per job (module docstring)
PER_SIZE_MAX_VARS = 2_000


@dataclass
class SparseModel:
    c: np.ndarray            # objective (maximise)
    A: sp.csr_matrix
    row_lo: np.ndarray
    row_hi: np.ndarray
    col_lo: np.ndarray
    col_hi: np.ndarray
    integer: np.ndarray      # bool per column
    job_of: np.ndarray       # per pair e
    nodes_of: np.ndarray     # per pair e
    J: int
    T: int
    build_seconds: float = 0.0
    dominated: dict[tuple[int, int], int] = field(default_factory=dict)
    # (job, size) left out -> the smaller allowed size that is at least as fast
    chg_job: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    chg_slot: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    quotas: TenantRows | None = None   # the tenant quota rows (DESIGN §4.2), when any
    compact: bool = False              # one "kept" column per job and slot, not per size

    @property
    def num_vars(self) -> int:
        return self.c.size

    @property
    def num_rows(self) -> int:
        return self.A.shape[0]

    @property
    def E(self) -> int:  # noqa: N802
        return self.job_of.size

    def x_index(self, e: np.ndarray | int, t: np.ndarray | int) -> np.ndarray | int:
        return e * self.T + t

    def nodes_from_solution(self, v: np.ndarray) -> np.ndarray:
        """nodes[j, t] read from a solution vector."""
        x = v[: self.E * self.T].reshape(self.E, self.T) > 0.5
        nodes = np.zeros((self.J, self.T), dtype=int)
        e_idx, t_idx = np.nonzero(x)
        np.add.at(nodes, (self.job_of[e_idx], t_idx), self.nodes_of[e_idx])
        return nodes

    def solution_from_nodes(self, inst: Instance, nodes: np.ndarray) -> np.ndarray:
        """The full variable vector of a plan (a warm start). A dominated size the model left
        out is read as the smaller size that is at least as fast (no slower, fewer nodes)."""
        E, T = self.E, self.T
        nodes = np.array(nodes, dtype=int)
        for (j, n), m in self.dominated.items():
            nodes[j][nodes[j] == n] = m
        v = np.zeros(self.num_vars)
        x = (nodes[self.job_of] == self.nodes_of[:, None]).astype(float)
        v[: E * T] = x.ravel()
        cur = np.array([inst.jobs[j].current_nodes for j in self.job_of])
        prev = np.concatenate([(cur == self.nodes_of)[:, None].astype(float), x[:, :-1]], axis=1)
        kept = np.minimum(x, prev)
        if self.compact:   # one per job: the sum over its sizes
            per_job = np.zeros((self.J, T))
            np.add.at(per_job, self.job_of, kept)
            kept = per_job
        p0 = E * T + kept.size
        v[E * T: p0] = kept.ravel()
        v[p0: p0 + self.J * T] = progress_fractions(inst, nodes).ravel()
        v[p0 + self.J * T:] = changes(inst, nodes)[self.chg_job, self.chg_slot]
        return v


def _pairs(inst: Instance, keep_all: np.ndarray
           ) -> tuple[list[int], list[int], list[float], dict[tuple[int, int], int]]:
    """The (job, allowed node count) pairs that get columns, with their throughput, and the
    sizes left out: a size no faster than a smaller one is never strictly better, so leaving
    it out changes no optimum and makes the model smaller (the current size always stays; jobs
    in `keep_all`, whose tenant has a guarantee that more nodes may help meet, keep all)."""
    pairs_j, pairs_n, pairs_f = [], [], []
    dominated: dict[tuple[int, int], int] = {}
    for j, job in enumerate(inst.jobs):
        kept: list[int] = []
        for n in sorted(job.allowed):
            f_n = job.throughput[n]
            faster = [m for m in kept if job.throughput[m] >= f_n]
            if faster and n != job.current_nodes and not keep_all[j]:
                dominated[(j, n)] = faster[0]
                continue
            kept.append(n)
            pairs_j.append(j)
            pairs_n.append(n)
            pairs_f.append(f_n)
    return pairs_j, pairs_n, pairs_f, dominated


class _Layout:
    """The columns (x, kept, p̃, chg) and the per-job data the row blocks read."""

    def __init__(self, inst: Instance, released: set[str], preemption: bool):
        self.quotas = tenant_rows(inst) if inst.quotas else None
        keep_all = np.zeros(len(inst.jobs), dtype=bool)
        if self.quotas is not None:
            keep_all = self.quotas.members[self.quotas.guaranteed()].any(axis=0)
        pairs_j, pairs_n, pairs_f, self.dominated = _pairs(inst, keep_all)
        self.J, self.T = len(inst.jobs), inst.T
        self.delta = delta = inst.slot_seconds
        self.job_of = np.array(pairs_j, dtype=np.int64)
        self.nodes_of = np.array(pairs_n, dtype=np.int64)
        self.f = np.array(pairs_f, dtype=float)
        self.E = self.job_of.size
        self.X = self.E * self.T
        self.R = np.array([job.remaining_work for job in inst.jobs], dtype=float)
        self.rho = np.array([min(job.rescale_seconds, delta) for job in inst.jobs], dtype=float)
        self.cur = np.array([job.current_nodes for job in inst.jobs], dtype=np.int64)
        self.alive = self.R > 0
        self.at_cur = self.nodes_of == self.cur[self.job_of]   # per pair: the job's size now
        self.safe_R = np.where(self.alive, self.R, 1.0)
        self.preemption = preemption
        self.kept_on = np.array([job.job_id not in released for job in inst.jobs], dtype=bool)
        self.may_stop = ~self.kept_on | preemption
        self.e_all = np.repeat(np.arange(self.E), self.T)
        self.t_all = np.tile(np.arange(self.T), self.E)
        self.x_idx = self.e_all * self.T + self.t_all
        # the kept columns from X on, each with its job and slot (module docstring)
        self.compact = 2 * self.X + self.J * self.T > PER_SIZE_MAX_VARS
        if self.compact:
            self.kj = np.repeat(np.arange(self.J), self.T)
            self.kt = np.tile(np.arange(self.T), self.J)
        else:
            self.kj, self.kt = self.job_of[self.e_all], self.t_all
        self.K0 = self.X
        self.P0 = self.X + self.kj.size            # the first p̃ column
        self.coef = coefficients(inst)
        self.unfinished = unfinished(inst)
        self.P = self.P0 + self.J * self.T         # the first chg column
        self.chg_job, self.chg_slot = self._rescale_slots()
        self.n_var = self.P + self.chg_job.size

    def _rescale_slots(self) -> tuple[np.ndarray, np.ndarray]:
        """(job, slot) of the rescale indicators: with κ > 0, every slot of a job that has more
        than one size, and every slot in which a job that may stop cannot be done yet (a stop
        there is charged, `objective.changes`), but slot 0 only for a running job (a start is
        not a rescale)."""
        sizes = np.bincount(self.job_of, minlength=self.J)
        slots = np.zeros((self.J, self.T), dtype=bool)
        if self.coef.rescale > 0:
            slots[(sizes > 1) & self.alive] = True
            slots |= self.may_stop[:, None] & self.unfinished
            slots[:, 0] &= self.cur > 0
        return np.nonzero(slots)


class _Rows:
    """Row blocks as triplets, numbered in the order they are added."""

    def __init__(self) -> None:
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []
        self.lo: list[np.ndarray] = []
        self.hi: list[np.ndarray] = []
        self.n = 0          # rows so far: the first row of the block being added

    def add(self, r: np.ndarray, c: np.ndarray, v: np.ndarray) -> None:
        self.rows.append(r)
        self.cols.append(c)
        self.vals.append(v)

    def close(self, lo: np.ndarray, hi: np.ndarray) -> None:
        """End the block: its rows' bounds."""
        self.lo.append(lo)
        self.hi.append(hi)
        self.n += lo.size

    def matrix(self, n_var: int) -> sp.csr_matrix:
        return sp.csr_matrix((np.concatenate(self.vals),
                              (np.concatenate(self.rows), np.concatenate(self.cols))),
                             shape=(self.n, n_var))


def _capacity_rows(rows: _Rows, d: _Layout, inst: Instance) -> None:
    """1. capacity: Σ n·x[e,t] ≤ C_t, one row per slot."""
    rows.add(rows.n + d.t_all, d.x_idx, d.nodes_of[d.e_all].astype(float))
    rows.close(np.full(d.T, -np.inf), np.array(inst.capacity, dtype=float))


def _one_size_rows(rows: _Rows, d: _Layout, inst: Instance) -> None:
    """2. one size per job and slot; a running job that may not stop is on in slot 0."""
    J, T = d.J, d.T
    rows.add(rows.n + d.job_of[d.e_all] * T + d.t_all, d.x_idx, np.ones(d.X))
    one_lo = np.full((J, T), -np.inf)   # x ≥ 0 already; a one-sided row stays one row
    forced = d.alive & (d.cur > 0) & d.kept_on
    if d.preemption:
        forced[:] = False
    one_lo[forced, 0] = 1.0
    rows.close(one_lo.ravel(), np.ones(J * T))


def _progress_coefficients(d: _Layout) -> tuple[np.ndarray, np.ndarray]:
    """Per pair: share of R done in a slot that starts/changes size (a) and the extra when it
    keeps its size (b); capped at 1, which changes no integer solution since p̃ ≤ 1."""
    a = np.minimum(d.f * (d.delta - d.rho[d.job_of]) / d.safe_R[d.job_of], 1.0)
    b = np.minimum(d.f * d.rho[d.job_of] / d.safe_R[d.job_of], 1.0)
    return a, b


def _progress_rows(rows: _Rows, d: _Layout, inst: Instance) -> None:
    """3. progress: per size, p̃[j,t] − Σ_n (a·x + b·stay) ≤ 0; compact, see
    `_compact_progress_rows`."""
    if d.compact:
        _compact_progress_rows(rows, d)
        return
    J, T = d.J, d.T
    a, b = _progress_coefficients(d)
    prog_row = rows.n + d.job_of[d.e_all] * T + d.t_all
    rows.add(prog_row, d.x_idx, -a[d.e_all])
    rows.add(prog_row, d.K0 + d.x_idx, -b[d.e_all])
    jt = np.arange(J * T)
    rows.add(rows.n + jt, d.P0 + jt, np.ones(J * T))
    rows.close(np.full(J * T, -np.inf), np.zeros(J * T))


def _compact_progress_rows(rows: _Rows, d: _Layout) -> None:
    """3. progress, compact, two rows per job and slot: p̃[j,t] − Σ_n (a+b)·x ≤ 0 (the size's
    full slot) and p̃[j,t] − Σ_n a·x − B_j·keep[j,t] ≤ 0 with B_j = max_n b (without keep, the slot
    less the rescale seconds); with keep = 1 the first row binds, so p̃ reads a + b of the size
    it kept."""
    J, T = d.J, d.T
    a, b = _progress_coefficients(d)
    jt = np.arange(J * T)
    prog_row = d.job_of[d.e_all] * T + d.t_all
    rows.add(rows.n + prog_row, d.x_idx, -(a + b)[d.e_all])
    rows.add(rows.n + jt, d.P0 + jt, np.ones(J * T))
    rows.add(rows.n + J * T + prog_row, d.x_idx, -a[d.e_all])
    rows.add(rows.n + J * T + jt, d.P0 + jt, np.ones(J * T))
    most = np.zeros(J)
    np.maximum.at(most, d.job_of, b)
    rows.add(rows.n + J * T + jt, d.K0 + jt, -np.repeat(most, T))
    rows.close(np.full(2 * J * T, -np.inf), np.zeros(2 * J * T))


def _kept_rows(rows: _Rows, d: _Layout, inst: Instance) -> None:
    """4. kept only on the size of the slot before: per size, stay ≤ x and stay[t] ≤ x[t−1]
    (t = 0 is a bound on the column); compact, `_keep_rows`."""
    if d.compact:
        _keep_rows(rows, d)
        return
    E, T, X = d.E, d.T, d.X
    rows.add(rows.n + d.x_idx, d.K0 + d.x_idx, np.ones(X))
    rows.add(rows.n + d.x_idx, d.x_idx, -np.ones(X))
    rows.close(np.full(X, -np.inf), np.zeros(X))
    if T <= 1:
        return
    e1 = np.repeat(np.arange(E), T - 1)
    t1 = np.tile(np.arange(1, T), E)
    r5 = rows.n + e1 * (T - 1) + (t1 - 1)
    rows.add(r5, X + e1 * T + t1, np.ones(E * (T - 1)))
    rows.add(r5, e1 * T + t1 - 1, -np.ones(E * (T - 1)))
    rows.close(np.full(E * (T - 1), -np.inf), np.zeros(E * (T - 1)))


def _keep_rows(rows: _Rows, d: _Layout) -> None:
    """4. compact: keep only on the size of the slot before: keep[j,t] + x[e,t] − x[e,t−1] ≤ 1
    for every size e of j and t ≥ 1 (running on e now but not before leaves keep 0; starting
    leaves it 0); at t = 0 a running job's keep[j,0] − x[its current size, 0] ≤ 0 (a job with no
    column at a current size has keep 0 at slot 0 by its column bound)."""
    E, T = d.E, d.T
    if T > 1:
        e1 = np.repeat(np.arange(E), T - 1)
        t1 = np.tile(np.arange(1, T), E)
        r = rows.n + np.arange(E * (T - 1))
        rows.add(r, d.K0 + d.job_of[e1] * T + t1, np.ones(E * (T - 1)))
        rows.add(r, e1 * T + t1, np.ones(E * (T - 1)))
        rows.add(r, e1 * T + t1 - 1, -np.ones(E * (T - 1)))
        rows.close(np.full(E * (T - 1), -np.inf), np.ones(E * (T - 1)))
    at_cur = np.nonzero(d.at_cur & d.alive[d.job_of])[0]
    r = rows.n + np.arange(at_cur.size)
    rows.add(r, d.K0 + d.job_of[at_cur] * T, np.ones(at_cur.size))
    rows.add(r, at_cur * T, -np.ones(at_cur.size))
    rows.close(np.full(at_cur.size, -np.inf), np.zeros(at_cur.size))
    _keep_only_on_rows(rows, d)


def _keep_only_on_rows(rows: _Rows, d: _Layout) -> None:
    """4. compact, for a job that may stop: keep[j,t] − Σ_n x[j,n,t] ≤ 0 for t ≥ 1, so a stop
    leaves keep 0 and the rescale penalty charges it (`_rescale_rows`)."""
    T = d.T
    jobs = np.nonzero(d.may_stop & d.alive)[0]
    if T <= 1 or jobs.size == 0:
        return
    rank = -np.ones(d.J, dtype=np.int64)
    rank[jobs] = np.arange(jobs.size)
    sel = (rank[d.job_of[d.e_all]] >= 0) & (d.t_all > 0)
    r_x = rows.n + rank[d.job_of[d.e_all[sel]]] * (T - 1) + d.t_all[sel] - 1
    rows.add(r_x, d.x_idx[sel], -np.ones(sel.sum()))
    jt = (jobs[:, None] * T + np.arange(1, T)[None, :]).ravel()
    rows.add(rows.n + np.arange(jt.size), d.K0 + jt, np.ones(jt.size))
    rows.close(np.full(jt.size, -np.inf), np.zeros(jt.size))


def _work_rows(rows: _Rows, d: _Layout, inst: Instance) -> None:
    """6. no more work than is left: Σ_t p̃ ≤ 1."""
    J, T = d.J, d.T
    jt = np.arange(J * T)
    rows.add(rows.n + np.repeat(np.arange(J), T), d.P0 + jt, np.ones(J * T))
    rows.close(np.full(J, -np.inf), np.ones(J))


def _no_preemption_rows(rows: _Rows, d: _Layout, inst: Instance) -> None:
    """7. no preemption: on[j,t] − on[j,t+1] − Σ_{t' ≤ t} p̃[j,t'] ≤ 0, for the jobs that may
    not stop."""
    J, T = d.J, d.T
    if T <= 1:
        return
    keep = np.ones(J, dtype=bool) if not d.preemption else np.zeros(J, dtype=bool)
    keep &= d.kept_on
    jobs_np = np.nonzero(keep)[0]
    rank = -np.ones(J, dtype=np.int64)
    rank[jobs_np] = np.arange(jobs_np.size)
    e_all, t_all = d.e_all, d.t_all
    sel = keep[d.job_of[e_all]] & (t_all < T - 1)
    base = rows.n + rank[d.job_of[e_all[sel]]] * (T - 1) + t_all[sel]
    rows.add(base, d.x_idx[sel], np.ones(sel.sum()))
    sel2 = keep[d.job_of[e_all]] & (t_all > 0)
    base2 = rows.n + rank[d.job_of[e_all[sel2]]] * (T - 1) + t_all[sel2] - 1
    rows.add(base2, d.x_idx[sel2], -np.ones(sel2.sum()))
    _cumulative_progress(rows, d, jobs_np, rank)
    rows.close(np.full(jobs_np.size * (T - 1), -np.inf), np.zeros(jobs_np.size * (T - 1)))


def _cumulative_progress(rows: _Rows, d: _Layout, jobs_np: np.ndarray, rank: np.ndarray
                         ) -> None:
    """The −p̃[j,t'] (t' ≤ t) terms of the no-preemption rows. A job that cannot have finished
    by the end of slot t even at its fastest size has Σ p̃ < 1 there, so the row reads
    on[t] ≤ on[t+1]; writing it so is the same for integer solutions and a far tighter
    relaxation."""
    T = d.T
    jj, tt, tp = [], [], []
    for t in range(T - 1):
        can_finish = jobs_np[~d.unfinished[jobs_np, t + 1]]
        for t2 in range(t + 1):
            jj.append(can_finish)
            tt.append(np.full(can_finish.size, t))
            tp.append(np.full(can_finish.size, t2))
    if jobs_np.size:
        jj_a, tt_a, tp_a = np.concatenate(jj), np.concatenate(tt), np.concatenate(tp)
        rows.add(rows.n + rank[jj_a] * (T - 1) + tt_a, d.P0 + jj_a * T + tp_a,
                 -np.ones(jj_a.size))


def _rescale_rows(rows: _Rows, d: _Layout, inst: Instance) -> None:
    """8. rescale indicators (κ > 0), kept[j,t] being keep[j,t] or Σ_n stay[j,n,t]: where a
    job that may stop cannot be done yet (`objective.unfinished`), Σ_n x[j,n,t−1] − kept[j,t]
    − chg ≤ 0 (at t = 0, for a running job, −kept[j,0] − chg ≤ −1): chg is 1 when a job that
    ran in t−1 does not keep its size in t, a stop included; elsewhere Σ_n x[j,n,t] +
    Σ_n x[j,n,t−1] − kept[j,t] − chg ≤ 1: chg is 1 when it runs on another size in t
    (`objective.changes`). A job kept on cannot stop there, so it keeps the second form (the
    same integer plans, and the default MIP's relaxation unchanged)."""
    K = d.chg_job.size
    if K == 0:
        return
    k_of = -np.ones((d.J, d.T), dtype=np.int64)
    k_of[d.chg_job, d.chg_slot] = np.arange(K)
    stop_form = (d.may_stop[:, None] & d.unfinished)[d.chg_job, d.chg_slot]
    k = k_of[d.job_of[d.e_all], d.t_all]
    sel = k >= 0
    sel[sel] = ~stop_form[k[sel]]
    rows.add(rows.n + k[sel], d.x_idx[sel], np.ones(sel.sum()))
    on = np.nonzero(k_of[d.kj, d.kt] >= 0)[0]   # the kept columns of those (job, slot)s
    rows.add(rows.n + k_of[d.kj[on], d.kt[on]], d.K0 + on, -np.ones(on.size))
    k_next = np.where(d.t_all < d.T - 1,
                      k_of[d.job_of[d.e_all], np.minimum(d.t_all + 1, d.T - 1)], -1)
    sel = k_next >= 0
    rows.add(rows.n + k_next[sel], d.x_idx[sel], np.ones(sel.sum()))
    rows.add(rows.n + np.arange(K), d.P + np.arange(K), -np.ones(K))
    rows.close(np.full(K, -np.inf), np.where(stop_form, 0.0, 1.0) - (d.chg_slot == 0))


def _budget_rows(rows: _Rows, d: _Layout, inst: Instance) -> None:
    """9. churn budget (DESIGN §4.1): Σ over running jobs of (Σ_n x[j,n,0] − kept[j,0]) ≤
    max_rescales; a running job on its current size may keep it, so its term is 1 exactly when
    it runs on another size (a stop is not a rescale)."""
    if inst.max_rescales is None:
        return
    sel = (d.t_all == 0) & (d.cur[d.job_of[d.e_all]] > 0) & d.alive[d.job_of[d.e_all]]
    kept = np.nonzero((d.kt == 0) & (d.cur[d.kj] > 0) & d.alive[d.kj])[0]
    rows.add(np.full(sel.sum(), rows.n), d.x_idx[sel], np.ones(sel.sum()))
    rows.add(np.full(kept.size, rows.n), d.K0 + kept, -np.ones(kept.size))
    rows.close(np.array([-np.inf]), np.array([float(inst.max_rescales)]))


def _quota_rows(rows: _Rows, d: _Layout, inst: Instance) -> None:
    """10. tenant quotas (DESIGN §4.2): G[k,t] ≤ Σ_{j∈k} Σ_n n·x[j,n,t] ≤ max_k, one row per
    tenant and slot that has a cap or a positive effective guarantee (solver.quotas)."""
    q = d.quotas
    if q is None:
        return
    k_idx, t_idx = np.nonzero(q.active())
    for r, (k, t) in enumerate(zip(k_idx, t_idx, strict=True)):
        sel = q.members[k][d.job_of[d.e_all]] & (d.t_all == t)
        rows.add(np.full(sel.sum(), rows.n + r), d.x_idx[sel], d.nodes_of[d.e_all[sel]]
                 .astype(float))
    lo = np.where(q.floor[k_idx, t_idx] > 0, q.floor[k_idx, t_idx], -np.inf)
    rows.close(lo, q.cap[k_idx])


ROW_BLOCKS = (_capacity_rows, _one_size_rows, _progress_rows, _kept_rows, _work_rows,
              _no_preemption_rows, _rescale_rows, _budget_rows, _quota_rows)


def _objective(d: _Layout) -> np.ndarray:
    """Progress weights on p̃, the idle tie-break −ε·n on every x and −κ·(node-slot value) on
    every rescale indicator."""
    c = np.zeros(d.n_var)
    c[:d.X] = -d.coef.eps * d.nodes_of[d.e_all]
    c[d.P0: d.P] = d.coef.progress.ravel()
    c[d.P:] = -d.coef.rescale
    return c


def _column_bounds(d: _Layout, inst: Instance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lower, upper, integer) per column: a finished job gets no nodes and no progress; kept
    at t = 0 only on the job's current size; a job in its cooldown runs on no other size in
    slot 0; x is binary."""
    X, e_all = d.X, d.e_all
    col_lo = np.zeros(d.n_var)
    col_hi = np.ones(d.n_var)
    col_hi[:X][~d.alive[d.job_of[e_all]]] = 0.0
    slot0 = (d.t_all == 0)
    at_cur = d.at_cur[e_all]
    if d.compact:
        has_cur = np.zeros(d.J, dtype=bool)
        has_cur[d.job_of[d.at_cur & d.alive[d.job_of]]] = True
        col_hi[d.K0: d.P0][::d.T] = has_cur.astype(float)
    else:
        col_hi[d.K0: d.P0][slot0] = at_cur[slot0].astype(float)
    cooling = np.array([inst.in_cooldown(job) for job in inst.jobs], dtype=bool)
    col_hi[:X][slot0 & cooling[d.job_of[e_all]] & ~at_cur] = 0.0
    col_hi[d.P0: d.P][~np.repeat(d.alive, d.T)] = 0.0
    integer = np.zeros(d.n_var, dtype=bool)
    integer[:X] = True
    return col_lo, col_hi, integer


def build(inst: Instance, *, released: set[str] | None = None,
          preemption: bool = False) -> SparseModel:
    """The model of §4 for `inst`. Jobs in `released` (or all, with `preemption`) may stop."""
    t0 = time.perf_counter()
    d = _Layout(inst, released or set(), preemption)
    rows = _Rows()
    for block in ROW_BLOCKS:
        block(rows, d, inst)
    col_lo, col_hi, integer = _column_bounds(d, inst)
    return SparseModel(c=_objective(d), A=rows.matrix(d.n_var),
                       row_lo=np.concatenate(rows.lo), row_hi=np.concatenate(rows.hi),
                       col_lo=col_lo, col_hi=col_hi, integer=integer, job_of=d.job_of,
                       nodes_of=d.nodes_of, J=d.J, T=d.T,
                       build_seconds=time.perf_counter() - t0, dominated=d.dominated,
                       chg_job=d.chg_job, chg_slot=d.chg_slot, quotas=d.quotas,
                       compact=d.compact)

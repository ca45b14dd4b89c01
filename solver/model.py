"""The window MIP of DESIGN §4, built once in a solver-neutral sparse form.

Progress is scaled per job, p̃[j,t] = p[j,t] / R_j ∈ [0, 1] (DESIGN §9: unscaled, HiGHS returned
plans up to 2× off the optimum while calling them optimal).

Variable layout (E = number of (job, allowed node count) pairs, in job order then node order;
X = E·T):
    x[e, t]    at  e·T + t              binary: job_of[e] runs on nodes_of[e] nodes in slot t
    stay[e, t] at  X + e·T + t          continuous [0, 1]: it kept that size from slot t−1
    p̃[j, t]    at  2X + j·T + t         continuous [0, 1]: share of R_j done in slot t
Rows are lo ≤ A·v ≤ hi; the objective is maximised.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from solver.evaluate import coefficients, progress_fractions
from solver.instance import Instance


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
        v[E * T: 2 * E * T] = np.minimum(x, prev).ravel()
        v[2 * E * T:] = progress_fractions(inst, nodes).ravel()
        return v


def build(inst: Instance, *, released: set[str] | None = None,
          preemption: bool = False) -> SparseModel:
    """The model of §4 for `inst`. Jobs in `released` (or all, with `preemption`) may stop."""
    t0 = time.perf_counter()
    released = released or set()
    J, T = len(inst.jobs), inst.T
    delta = inst.slot_seconds
    pairs_j, pairs_n, pairs_f = [], [], []
    dominated: dict[tuple[int, int], int] = {}
    for j, job in enumerate(inst.jobs):
        kept: list[int] = []
        for n in sorted(job.allowed):
            f_n = job.throughput[n]
            faster = [m for m in kept if job.throughput[m] >= f_n]
            if faster and n != job.current_nodes:
                # no faster than a smaller size, so never strictly better: leaving it out
                # changes no optimum and makes the model smaller
                dominated[(j, n)] = faster[0]
                continue
            kept.append(n)
            pairs_j.append(j)
            pairs_n.append(n)
            pairs_f.append(f_n)
    job_of = np.array(pairs_j, dtype=np.int64)
    nodes_of = np.array(pairs_n, dtype=np.int64)
    f = np.array(pairs_f, dtype=float)
    E = job_of.size
    X = E * T
    n_var = 2 * X + J * T

    R = np.array([job.remaining_work for job in inst.jobs], dtype=float)
    rho = np.array([min(job.rescale_seconds, delta) for job in inst.jobs], dtype=float)
    cur = np.array([job.current_nodes for job in inst.jobs], dtype=np.int64)
    alive = R > 0
    safe_R = np.where(alive, R, 1.0)
    # per pair: share of R done in a slot that starts/changes size (a) and the extra when it
    # keeps its size (b); capped at 1, which changes no integer solution since p̃ ≤ 1
    a = np.minimum(f * (delta - rho[job_of]) / safe_R[job_of], 1.0)
    b = np.minimum(f * rho[job_of] / safe_R[job_of], 1.0)

    e_all = np.repeat(np.arange(E), T)
    t_all = np.tile(np.arange(T), E)
    x_idx = e_all * T + t_all
    s_idx = X + x_idx
    rows, cols, vals, lo, hi = [], [], [], [], []
    n_rows = 0

    def add(r: np.ndarray, c: np.ndarray, v: np.ndarray) -> None:
        rows.append(r)
        cols.append(c)
        vals.append(v)

    # 1. capacity: one row per slot
    add(n_rows + t_all, x_idx, nodes_of[e_all].astype(float))
    lo.append(np.full(T, -np.inf))
    hi.append(np.array(inst.capacity, dtype=float))
    n_rows += T
    # 2. one size per job and slot; a running job that may not stop is on in slot 0
    one_row = n_rows + job_of[e_all] * T + t_all
    add(one_row, x_idx, np.ones(X))
    one_lo = np.full((J, T), -np.inf)   # x ≥ 0 already; a one-sided row stays one row
    kept_on = np.array([job.job_id not in released for job in inst.jobs], dtype=bool)
    forced = alive & (cur > 0) & kept_on
    if preemption:
        forced[:] = False
    one_lo[forced, 0] = 1.0
    lo.append(one_lo.ravel())
    hi.append(np.ones(J * T))
    n_rows += J * T
    # 3. progress: p̃[j,t] − a·x − b·stay ≤ 0
    prog_row = n_rows + job_of[e_all] * T + t_all
    add(prog_row, x_idx, -a[e_all])
    add(prog_row, s_idx, -b[e_all])
    jt = np.arange(J * T)
    add(n_rows + jt, 2 * X + jt, np.ones(J * T))
    lo.append(np.full(J * T, -np.inf))
    hi.append(np.zeros(J * T))
    n_rows += J * T
    # 4. stay ≤ x
    add(n_rows + x_idx, s_idx, np.ones(X))
    add(n_rows + x_idx, x_idx, -np.ones(X))
    lo.append(np.full(X, -np.inf))
    hi.append(np.zeros(X))
    n_rows += X
    # 5. stay[e,t] ≤ x[e,t−1] for t ≥ 1 (t = 0 is a bound below)
    if T > 1:
        e1 = np.repeat(np.arange(E), T - 1)
        t1 = np.tile(np.arange(1, T), E)
        r5 = n_rows + e1 * (T - 1) + (t1 - 1)
        add(r5, X + e1 * T + t1, np.ones(E * (T - 1)))
        add(r5, e1 * T + t1 - 1, -np.ones(E * (T - 1)))
        lo.append(np.full(E * (T - 1), -np.inf))
        hi.append(np.zeros(E * (T - 1)))
        n_rows += E * (T - 1)
    # 6. no more work than is left: Σ_t p̃ ≤ 1
    add(n_rows + np.repeat(np.arange(J), T), 2 * X + jt, np.ones(J * T))
    lo.append(np.full(J, -np.inf))
    hi.append(np.ones(J))
    n_rows += J
    # 7. no preemption: on[j,t] − on[j,t+1] − Σ_{t' ≤ t} p̃[j,t'] ≤ 0
    if T > 1:
        keep = np.ones(J, dtype=bool) if not preemption else np.zeros(J, dtype=bool)
        keep &= kept_on
        jobs_np = np.nonzero(keep)[0]
        rank = -np.ones(J, dtype=np.int64)
        rank[jobs_np] = np.arange(jobs_np.size)
        sel = keep[job_of[e_all]] & (t_all < T - 1)
        base = n_rows + rank[job_of[e_all[sel]]] * (T - 1) + t_all[sel]
        add(base, x_idx[sel], np.ones(sel.sum()))
        sel2 = keep[job_of[e_all]] & (t_all > 0)
        base2 = n_rows + rank[job_of[e_all[sel2]]] * (T - 1) + t_all[sel2] - 1
        add(base2, x_idx[sel2], -np.ones(sel2.sum()))
        # cumulative progress: p̃[j,t'] for t' ≤ t. A job that cannot have finished by the end
        # of slot t even at its fastest size has Σ p̃ < 1 there, so the row reads
        # on[t] ≤ on[t+1]; writing it so is the same for integer solutions and a far tighter
        # relaxation.
        fastest = np.zeros(J)
        np.maximum.at(fastest, job_of, f * delta)
        max_share = fastest / safe_R
        jj, tt, tp = [], [], []
        for t in range(T - 1):
            can_finish = jobs_np[(t + 1) * max_share[jobs_np] >= 1.0 - 1e-9]
            for t2 in range(t + 1):
                jj.append(can_finish)
                tt.append(np.full(can_finish.size, t))
                tp.append(np.full(can_finish.size, t2))
        if jobs_np.size:
            jj_a, tt_a, tp_a = np.concatenate(jj), np.concatenate(tt), np.concatenate(tp)
            add(n_rows + rank[jj_a] * (T - 1) + tt_a, 2 * X + jj_a * T + tp_a,
                -np.ones(jj_a.size))
        lo.append(np.full(jobs_np.size * (T - 1), -np.inf))
        hi.append(np.zeros(jobs_np.size * (T - 1)))
        n_rows += jobs_np.size * (T - 1)

    A = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(n_rows, n_var))
    coef = coefficients(inst)
    c = np.zeros(n_var)
    c[:X] = -coef.eps * nodes_of[e_all]
    c[2 * X:] = coef.progress.ravel()

    col_lo = np.zeros(n_var)
    col_hi = np.ones(n_var)
    # a finished job gets no nodes
    col_hi[:X][~alive[job_of[e_all]]] = 0.0
    # stay at t = 0 only for the job's current size
    stay0 = (t_all == 0)
    col_hi[X:2 * X][stay0] = (nodes_of[e_all[stay0]] == cur[job_of[e_all[stay0]]]).astype(float)
    col_hi[2 * X:][~np.repeat(alive, T)] = 0.0
    integer = np.zeros(n_var, dtype=bool)
    integer[:X] = True
    return SparseModel(c=c, A=A, row_lo=np.concatenate(lo), row_hi=np.concatenate(hi),
                       col_lo=col_lo, col_hi=col_hi, integer=integer, job_of=job_of,
                       nodes_of=nodes_of, J=J, T=T, build_seconds=time.perf_counter() - t0,
                       dominated=dominated)

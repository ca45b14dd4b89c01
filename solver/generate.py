"""Random but realistic window instances (running and queued jobs, concave curves, mixed sizes)
for tests and benchmarks. Same arguments, same instance."""

from __future__ import annotations

import numpy as np

from solver.instance import DEFAULT_NUM_SLOTS, DEFAULT_SLOT_SECONDS, Instance, Job, TenantQuota


def random_instance(n_jobs: int, num_slots: int = DEFAULT_NUM_SLOTS, capacity: int | None = None,
                    seed: int = 0,
                    *, slot_seconds: float = DEFAULT_SLOT_SECONDS, max_allowed: int = 6,
                    running_share: float = 0.4) -> Instance:
    """`capacity` defaults to about two thirds of what the jobs ask for, so that roughly a third
    of them queue."""
    rng = np.random.default_rng(seed)
    sizes = np.array([1, 2, 4, 8, 16])
    jobs = []
    for i in range(n_jobs):
        req = int(rng.choice(sizes, p=[0.3, 0.25, 0.2, 0.15, 0.1]))
        lo = max(1, req // int(rng.choice([1, 2, 4])))
        hi = req * int(rng.choice([1, 2, 4]))
        candidates = sorted({lo, hi, req} | {int(n) for n in sizes if lo <= n <= hi})
        if len(candidates) > max_allowed:
            keep = {lo, hi, req}
            rest = [n for n in candidates if n not in keep]
            extra = rng.choice(rest, size=max(0, max_allowed - len(keep)), replace=False)
            candidates = sorted(keep | {int(n) for n in extra})
        f1 = float(rng.lognormal(np.log(500.0), 0.8))
        serial = float(rng.uniform(0.01, 0.3))
        tp = {n: round(f1 * n / (1.0 + serial * (n - 1)), 3) for n in candidates}
        slots_needed = float(rng.lognormal(np.log(3.0), 0.9))
        total = tp[req] * slot_seconds * slots_needed * float(rng.uniform(1.0, 3.0))
        running = rng.random() < running_share
        remaining = total * float(rng.uniform(0.1, 1.0)) if running else total
        jobs.append(Job(
            job_id=f"j{i + 1}", min_nodes=lo, max_nodes=hi, requested_nodes=req,
            current_nodes=int(rng.choice(candidates)) if running else 0,
            remaining_work=round(remaining, 1), total_work=round(total, 1),
            weight=float(rng.choice([1.0, 1.0, 2.0])),
            waiting_seconds=0.0 if running else float(round(rng.exponential(1800.0))),
            rescale_seconds=float(rng.choice([15.0, 30.0, 60.0])),
            throughput=tp, allowed_nodes=candidates))
    if capacity is None:
        demand = sum(j.requested_nodes for j in jobs)
        running_min = sum(j.current_nodes for j in jobs)
        capacity = max(running_min, int(round(demand * 2 / 3)), 1)
    return Instance(jobs=jobs, capacity=[capacity] * num_slots, slot_seconds=slot_seconds,
                    num_slots=num_slots, window_start="2026-12-02T10:00:00Z")


def with_tenants(inst: Instance, n_tenants: int = 2, seed: int = 0) -> Instance:
    """`inst` (changed in place) with its jobs spread over tenants t1..tn and the default
    tenant, and random quotas (DESIGN §4.2): a max_nodes up to the largest capacity (none for
    about a quarter of tenants), a guarantee up to it for most (guarantees may together
    exceed the capacity). Same arguments, same tenants and quotas."""
    rng = np.random.default_rng(seed + 7919)
    names = [f"t{k + 1}" for k in range(n_tenants)]
    for job in inst.jobs:
        r = int(rng.integers(n_tenants + 1))
        job.tenant = names[r] if r < n_tenants else None
    top = max(inst.capacity, default=0)
    quotas = {}
    for k in names:
        cap = None if rng.random() < 0.25 else int(rng.integers(0, top + 1))
        floor = int(rng.integers(0, (top if cap is None else cap) + 1)) \
            if rng.random() < 0.7 else 0
        quotas[k] = TenantQuota(max_nodes=cap, guaranteed_nodes=floor)
    inst.quotas = quotas
    return inst

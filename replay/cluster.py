"""The machines of the faithful replay and how GPU counts become placements on them.

16 machines × 4 GPUs, as in the Pollux artifact's engine. An allocation is the list of machine
indices of a job's GPUs; its placement is the GPUs per machine in allocation order. Two rules
turn counts into allocations; both keep a job whose count is unchanged on its machines (no
restart) and place every other job anew:
- `most_free` (the artifact's baselines): jobs by count ascending, each repeatedly taking the
  machine with the most free GPUs (lowest index on ties);
- `best_fit` (our planner; the spike found it spreads jobs less): jobs by count descending,
  whole free machines per 4 GPUs, the rest on the machine with the least room that holds it.
Kept on its machines, a job stays spread over more machines than its GPUs need after the jobs
around it leave; `repack` moves such jobs (our planner, when the move pays for its restart).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

MACHINES = 16
GPUS_PER_MACHINE = 4
RESTART_SECONDS = 30.0

Placement = tuple[int, ...]
Allocation = list[int]


def packed(n: int, per: int = GPUS_PER_MACHINE) -> Placement:
    """Fewest machines for n GPUs: (4, 4, …, rest)."""
    return tuple([per] * (n // per) + ([n % per] if n % per else []))


def to_placement(alloc: Allocation) -> Placement:
    """Machine list -> GPUs per machine (runs of the same machine, in order)."""
    out: list[int] = []
    for i, m in enumerate(alloc):
        if i and m == alloc[i - 1]:
            out[-1] += 1
        else:
            out.append(1)
    return tuple(out)


def free_gpus(allocs: Mapping[str, Allocation], machines: int = MACHINES,
              per: int = GPUS_PER_MACHINE) -> list[int]:
    free = [per] * machines
    for alloc in allocs.values():
        for m in alloc:
            free[m] -= 1
    return free


def take_most_free(free: list[int], need: int) -> Allocation:
    """The artifact's rule: the machine with the most free GPUs, as many as it has, repeat."""
    alloc: Allocation = []
    while len(alloc) < need:
        m = max(range(len(free)), key=lambda i: free[i])
        if free[m] <= 0:
            raise ValueError("not enough free GPUs")
        k = min(free[m], need - len(alloc))
        alloc += [m] * k
        free[m] -= k
    return alloc


def take_best_fit(free: list[int], need: int, per: int = GPUS_PER_MACHINE) -> Allocation:
    """Whole free machines for each `per` GPUs, the rest on the fullest machine that holds it
    (most-free machines one after another when none does)."""
    alloc: Allocation = []
    while need >= per and per in free:
        m = free.index(per)
        alloc += [m] * per
        free[m] = 0
        need -= per
    while need > 0:
        fits = [m for m in range(len(free)) if free[m] >= need]
        m = (min(fits, key=lambda i: (free[i], i)) if fits
             else max(range(len(free)), key=lambda i: (free[i], -i)))
        k = min(need, free[m])
        if k <= 0:
            raise ValueError("not enough free GPUs")
        alloc += [m] * k
        free[m] -= k
        need -= k
    return alloc


PLACEMENT_RULES = {"most_free": (take_most_free, False), "best_fit": (take_best_fit, True)}


def place_counts(counts: Mapping[str, int], prev: Mapping[str, Allocation], rule: str = "most_free",
                 fixed: Mapping[str, Allocation] | None = None, machines: int = MACHINES,
                 per: int = GPUS_PER_MACHINE) -> dict[str, Allocation]:
    """GPU count per job -> allocation per job. Unchanged counts keep their machines; `fixed`
    allocations are taken as given; the rest are placed by `rule` (PLACEMENT_RULES)."""
    take, largest_first = PLACEMENT_RULES[rule]
    out = {k: list(v) for k, v in (fixed or {}).items()}
    out |= {k: list(v) for k, v in prev.items()
            if k not in out and counts.get(k, 0) == len(v) > 0}
    free = free_gpus(out, machines, per)
    for k in sorted(counts, key=lambda k: counts[k], reverse=largest_first):
        if counts[k] > 0 and k not in out:
            out[k] = take(free, counts[k])
    return out


def spread(placement: Placement, per: int = GPUS_PER_MACHINE) -> bool:
    """Whether a placement spans more machines than its GPUs need."""
    return len(placement) > len(packed(sum(placement), per))


def repack(allocs: Mapping[str, Allocation],
           worth: Callable[[str, Allocation, Allocation], bool],
           machines: int = MACHINES, per: int = GPUS_PER_MACHINE) -> dict[str, Allocation]:
    """Each spread job (largest first) moves to the best-fit allocation of the GPUs free around
    it when that spans fewer machines and `worth(job, allocation now, new allocation)`."""
    out = {k: list(v) for k, v in allocs.items()}
    for k in sorted(out, key=lambda k: (-len(out[k]), k)):
        if not spread(to_placement(out[k]), per):
            continue
        free = free_gpus({q: v for q, v in out.items() if q != k}, machines, per)
        new = take_best_fit(free, len(out[k]), per)
        if len(to_placement(new)) < len(to_placement(out[k])) and worth(k, out[k], new):
            out[k] = new
    return out

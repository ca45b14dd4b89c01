"""Window instance (DESIGN §3.3): dataclasses, JSON in and out, validation, and the one adapter
from a job's state and throughput curve to a solver `Job`."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

DEFAULT_RESCALE_SECONDS = 30.0   # seconds a start or size change costs (DESIGN §3.3 default)
DEFAULT_SLOT_SECONDS = 600.0     # a slot's length (DESIGN §3.3 example)
DEFAULT_NUM_SLOTS = 6            # slots per window
DEFAULT_GAP = 1e-3               # relative MIP gap: what column generation proves quickly
DEFAULT_TIME_LIMIT = 10.0        # seconds a decision may take unless its caller says otherwise
# the objective's defaults, chosen by the objective trials in the faithful Pollux engine
# (docs/model.md, "Objective"): progress per unit of work weighted 1/(W^(1−α)·R^α), queued time
# aged over τ seconds, κ node-slots per slot in which a running job changes size (by slot
# length: re-planning every minute or two, slots of at most SHORT_SLOT_SECONDS, the faithful
# Pollux replay measured κ = 3 best, a quarter fewer rescales at no cost in JCT; with the windowed
# replay's 5- and 10-minute slots κ = 3 cost JCT and solver time, so κ = 1 stays there), θ of the
# critical-path factor 1 + T_j/θ of running jobs (0: off; on at 1,200 s with slots of at most
# SHORT_SLOT_SECONDS, where it brought rescales under one per job and shortened mean JCT; off
# with longer slots, where it cost JCT and solver time; docs/model.md, "Defaults by slot length")
DEFAULT_PROGRESS_EXPONENT = 1.5
DEFAULT_AGING_SECONDS = 900.0
DEFAULT_RESCALE_PENALTY = 1.0        # κ, slots longer than SHORT_SLOT_SECONDS
SHORT_SLOT_SECONDS = 120.0
SHORT_SLOT_RESCALE_PENALTY = 3.0     # κ, slots of at most SHORT_SLOT_SECONDS
DEFAULT_CRITICAL_SECONDS = 0.0       # θ, slots longer than SHORT_SLOT_SECONDS (0: off)
SHORT_SLOT_CRITICAL_SECONDS = 1200.0  # θ, slots of at most SHORT_SLOT_SECONDS


def _short_slots(slot_seconds: float) -> bool:
    """Slots of at most SHORT_SLOT_SECONDS (a scheduler that re-plans every minute or two): the
    one rule that picks between the two sets of defaults above."""
    return slot_seconds <= SHORT_SLOT_SECONDS


def default_rescale_penalty(slot_seconds: float) -> float:
    """κ for an instance whose caller left it out (see the defaults above)."""
    return SHORT_SLOT_RESCALE_PENALTY if _short_slots(slot_seconds) else DEFAULT_RESCALE_PENALTY


def default_critical_seconds(slot_seconds: float) -> float:
    """θ for an instance whose caller left it out (see the defaults above)."""
    return SHORT_SLOT_CRITICAL_SECONDS if _short_slots(slot_seconds) else DEFAULT_CRITICAL_SECONDS


def candidate_sizes(lo: int, hi: int, *extra: int, per_machine: int | None = None
                    ) -> list[int]:
    """Node counts worth offering a job with range [lo, hi]: the ends, powers of two and
    their 1.5× (1, 2, 3, 4, 6, 8, 12, 16, 24, …) and any `extra` (its requested and current
    size). Keeps the model small for wide ranges without losing the sizes users ask for.
    With `per_machine` (GPUs per machine) only the sizes that pack onto such machines: its
    divisors below it, its multiples above (`lo` and `extra` are still offered)."""
    def offered(n: int) -> bool:
        return lo <= n <= hi and (per_machine is None or _packs(n, per_machine))

    sizes = {lo, *(e for e in extra if lo <= e <= hi), *(n for n in (hi,) if offered(n))}
    p = 1
    while p <= hi:
        for n in (p, p + p // 2):
            if offered(n):
                sizes.add(n)
        p *= 2
    return sorted(sizes)


def _packs(n: int, per_machine: int) -> bool:
    return per_machine % n == 0 if n < per_machine else n % per_machine == 0


@dataclass(frozen=True)
class TenantQuota:
    """A tenant's quota in force for the window (DESIGN §4.2): in every slot its jobs hold at
    most `max_nodes` (None: no cap) and, as far as they can use it, at least `guaranteed_nodes`."""
    max_nodes: int | None = None
    guaranteed_nodes: int = 0


class InvalidInstance(ValueError):
    """The instance is not usable; the message is one line naming the job and field."""


@dataclass
class Job:
    job_id: str
    min_nodes: int
    max_nodes: int
    remaining_work: float
    total_work: float
    throughput: dict[int, float]
    requested_nodes: int | None = None
    current_nodes: int = 0
    weight: float = 1.0
    waiting_seconds: float = 0.0
    rescale_seconds: float = DEFAULT_RESCALE_SECONDS
    allowed_nodes: list[int] | None = None
    seconds_since_resize: float | None = None   # since its size last changed; None = never
    tenant: str | None = None   # None: the default tenant, which has no quota (DESIGN §4.2)

    def __post_init__(self) -> None:
        if self.requested_nodes is None:
            self.requested_nodes = self.min_nodes
        if self.allowed_nodes is None:
            self.allowed_nodes = list(range(self.min_nodes, self.max_nodes + 1))

    @property
    def allowed(self) -> list[int]:
        return self.allowed_nodes or []

    def rate(self, n: int) -> float:
        return self.throughput[n] if n > 0 else 0.0


@dataclass
class Instance:
    jobs: list[Job]
    capacity: list[int]
    slot_seconds: float = DEFAULT_SLOT_SECONDS
    num_slots: int = DEFAULT_NUM_SLOTS
    discount: float = 0.9
    aging_seconds: float = DEFAULT_AGING_SECONDS
    window_start: str | None = None
    progress_exponent: float = DEFAULT_PROGRESS_EXPONENT   # α
    rescale_penalty: float | None = None    # κ (None: the default for the slot length)
    critical_seconds: float | None = None   # θ (None: the default for the slot length)
    max_rescales: int | None = None       # running jobs that may change size in slot 0
    cooldown_seconds: float | None = None  # a job resized less long ago keeps its size
    quotas: dict[str, TenantQuota] = field(default_factory=dict)   # tenant → quota (§4.2)

    def __post_init__(self) -> None:
        """κ and θ left out (None) take the defaults for the instance's slot length."""
        if self.rescale_penalty is None:
            self.rescale_penalty = default_rescale_penalty(self.slot_seconds)
        if self.critical_seconds is None:
            self.critical_seconds = default_critical_seconds(self.slot_seconds)

    @property
    def T(self) -> int:  # noqa: N802 - the model's notation
        return self.num_slots

    def in_cooldown(self, job: Job) -> bool:
        """Whether `job` must keep its current size in slot 0 (DESIGN §4.1)."""
        return (self.cooldown_seconds is not None and job.current_nodes > 0
                and job.seconds_since_resize is not None
                and job.seconds_since_resize < self.cooldown_seconds)

    # ---- JSON -----------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Instance:
        if not isinstance(data, dict):
            raise InvalidInstance("instance: expected a JSON object")
        known = {"window_start", "slot_seconds", "num_slots", "capacity", "discount",
                 "aging_seconds", "jobs", "tenant_quotas", *RULE_KEYS}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidInstance(f"instance: unknown key {unknown[0]!r}")
        for key in ("capacity", "jobs"):
            if key not in data:
                raise InvalidInstance(f"instance: missing {key!r}")
        num_slots = _int(data.get("num_slots", DEFAULT_NUM_SLOTS), "instance", "num_slots", low=1)
        cap = data["capacity"]
        if isinstance(cap, list):
            if len(cap) != num_slots:
                raise InvalidInstance(f"instance: capacity has {len(cap)} entries, "
                                      f"num_slots is {num_slots}")
            capacity = [_int(c, "instance", "capacity", low=0) for c in cap]
        else:
            capacity = [_int(cap, "instance", "capacity", low=0)] * num_slots
        if not isinstance(data["jobs"], list):
            raise InvalidInstance("instance: jobs must be a list")
        jobs = [_job(j, i) for i, j in enumerate(data["jobs"])]
        seen: set[str] = set()
        for j in jobs:
            if j.job_id in seen:
                raise InvalidInstance(f"job {j.job_id}: job_id appears twice")
            seen.add(j.job_id)
        inst = cls(jobs=jobs, capacity=capacity,
                   slot_seconds=_num(data.get("slot_seconds", DEFAULT_SLOT_SECONDS), "instance",
                                     "slot_seconds", positive=True),
                   num_slots=num_slots,
                   discount=_num(data.get("discount", 0.9), "instance", "discount",
                                 positive=True),
                   aging_seconds=_num(data.get("aging_seconds", DEFAULT_AGING_SECONDS),
                                      "instance", "aging_seconds", positive=True),
                   window_start=_window_start(data.get("window_start")),
                   quotas=_quotas(data.get("tenant_quotas")), **_rules(data))
        if inst.discount > 1:
            raise InvalidInstance(f"instance: discount must be in (0, 1], got {inst.discount}")
        return inst

    @classmethod
    def from_json(cls, text: str) -> Instance:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise InvalidInstance(f"instance: not valid JSON ({err.msg} at line {err.lineno})"
                                  ) from None
        except (ValueError, RecursionError) as err:   # a 5,000-digit number, 10⁵ nested [
            raise InvalidInstance(f"instance: not usable JSON ({str(err).splitlines()[0]})"
                                  ) from None
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        cap: int | list[int] = self.capacity
        if len(set(self.capacity)) == 1:
            cap = self.capacity[0]
        jobs = []
        for j in self.jobs:
            d = asdict(j)
            if d["tenant"] is None:   # the default tenant: no key
                del d["tenant"]
            d["throughput"] = {str(n): v for n, v in j.throughput.items()}
            jobs.append(d)
        rules = {k: getattr(self, k) for k in RULE_KEYS}
        return {"window_start": self.window_start, "slot_seconds": self.slot_seconds,
                "num_slots": self.num_slots, "capacity": cap, "discount": self.discount,
                "aging_seconds": self.aging_seconds,
                **{k: v for k, v in rules.items() if v is not None},
                **({"tenant_quotas": {t: asdict(q) for t, q in self.quotas.items()}}
                   if self.quotas else {}), "jobs": jobs}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)


def _int(v: Any, where: str, name: str, low: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int | float) or not float(v).is_integer():
        raise InvalidInstance(f"{where}: {name} must be a whole number, got {v!r}")
    if low is not None and v < low:
        raise InvalidInstance(f"{where}: {name} must be at least {low}, got {int(v)}")
    return int(v)


def _num(v: Any, where: str, name: str, positive: bool = False, nonneg: bool = False,
         high: float | None = None) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise InvalidInstance(f"{where}: {name} must be a number, got {v!r}")
    if high is not None and v > high:   # the bounds of docs/data-contracts.md
        raise InvalidInstance(f"{where}: {name} must be at most {high:g}, got {v:g}")
    if positive and v <= 0:
        raise InvalidInstance(f"{where}: {name} must be > 0, got {v}")
    if nonneg and v < 0:
        raise InvalidInstance(f"{where}: {name} must be ≥ 0, got {v}")
    return float(v)


def _optional(d: dict[str, Any], key: str, where: str) -> float | None:
    """An optional number ≥ 0 (absent or null: None)."""
    return None if d.get(key) is None else _num(d[key], where, key, nonneg=True)


RULE_KEYS = ("progress_exponent", "rescale_penalty", "critical_seconds", "max_rescales",
             "cooldown_seconds")


def _rules(data: dict[str, Any]) -> dict[str, Any]:
    """The objective's knobs and the churn budget (DESIGN §3.3, §4.1) of an instance object."""
    w = "instance"
    alpha = _num(data.get("progress_exponent", DEFAULT_PROGRESS_EXPONENT), w,
                 "progress_exponent", nonneg=True)
    if alpha > 4:
        raise InvalidInstance(f"{w}: progress_exponent must be in [0, 4], got {alpha}")
    budget = data.get("max_rescales")
    return {"progress_exponent": alpha,
            "rescale_penalty": _optional(data, "rescale_penalty", w),
            "critical_seconds": _optional(data, "critical_seconds", w),
            "max_rescales": None if budget is None else _int(budget, w, "max_rescales", low=0),
            "cooldown_seconds": _optional(data, "cooldown_seconds", w)}


def _quotas(raw: Any) -> dict[str, TenantQuota]:
    """`tenant_quotas` (DESIGN §4.2): {tenant: {max_nodes: int ≥ 0 or null, guaranteed_nodes:
    int ≥ 0}}, the guarantee at most the maximum; absent or null: no quotas."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InvalidInstance("instance: tenant_quotas must map tenants to "
                              "{max_nodes, guaranteed_nodes}")
    out = {}
    for tenant, q in raw.items():
        w = f"tenant_quotas[{tenant!r}]"
        if not isinstance(q, dict):
            raise InvalidInstance(f"{w}: expected an object with max_nodes, guaranteed_nodes")
        unknown = sorted(set(q) - {"max_nodes", "guaranteed_nodes"})
        if unknown:
            raise InvalidInstance(f"{w}: unknown key {unknown[0]!r}")
        cap = q.get("max_nodes")
        cap = None if cap is None else _int(cap, w, "max_nodes", low=0)
        floor = _int(q.get("guaranteed_nodes", 0), w, "guaranteed_nodes", low=0)
        if cap is not None and floor > cap:
            raise InvalidInstance(f"{w}: guaranteed_nodes {floor} > max_nodes {cap}; lower "
                                  "the guarantee or raise the maximum")
        out[str(tenant)] = TenantQuota(max_nodes=cap, guaranteed_nodes=floor)
    return out


def _check_sizes(w: str, requested: int, current: int, allowed: list[int]) -> None:
    """The requested size and a running job's size must be sizes the job may take."""
    if requested not in allowed:
        raise InvalidInstance(f"{w}: requested_nodes {requested} is not an allowed node count "
                              f"(allowed_nodes {allowed}); add it or change requested_nodes")
    if current > 0 and current not in allowed:
        raise InvalidInstance(f"{w}: current_nodes {current} is not an allowed node count")


def _window_start(value: Any) -> str | None:
    """An ISO 8601 time (or absent): "yesterday" is not a window start."""
    if value is None:
        return None
    try:
        datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInstance(f"instance: window_start {value!r} is not an ISO 8601 time "
                              "such as 2026-12-02T10:00:00Z") from None
    return str(value)


JOB_KEYS = {"job_id", "min_nodes", "max_nodes", "requested_nodes", "current_nodes",
            "remaining_work", "total_work", "weight", "waiting_seconds", "rescale_seconds",
            "throughput", "allowed_nodes", "seconds_since_resize", "tenant"}


def _job(d: Any, i: int) -> Job:
    if not isinstance(d, dict):
        raise InvalidInstance(f"jobs[{i}]: expected an object")
    jid = d.get("job_id")
    if not isinstance(jid, str) or not jid:
        raise InvalidInstance(f"jobs[{i}]: missing job_id")
    w = f"job {jid}"
    unknown = sorted(set(d) - JOB_KEYS)
    if unknown:
        raise InvalidInstance(f"{w}: unknown key {unknown[0]!r}")
    for key in ("min_nodes", "max_nodes", "remaining_work", "total_work", "throughput"):
        if key not in d:
            raise InvalidInstance(f"{w}: missing {key}")
    lo = _int(d["min_nodes"], w, "min_nodes", low=1)
    hi = _int(d["max_nodes"], w, "max_nodes", low=1)
    if lo > hi:
        raise InvalidInstance(f"{w}: min_nodes {lo} > max_nodes {hi}")
    req = _int(d.get("requested_nodes", lo), w, "requested_nodes")
    if not lo <= req <= hi:
        raise InvalidInstance(f"{w}: requested_nodes {req} outside [{lo}, {hi}]")
    cur = _int(d.get("current_nodes", 0), w, "current_nodes", low=0)
    rem = _num(d["remaining_work"], w, "remaining_work", nonneg=True)
    tot = _num(d["total_work"], w, "total_work", positive=True, high=1e18)
    if rem > tot * (1 + 1e-9):
        raise InvalidInstance(f"{w}: remaining_work {rem} > total_work {tot}")
    raw_tp = d["throughput"]
    if not isinstance(raw_tp, dict):
        raise InvalidInstance(f"{w}: throughput must map node counts to samples/s")
    tp: dict[int, float] = {}
    for k, v in raw_tp.items():
        try:
            n = int(k)
        except (TypeError, ValueError):
            raise InvalidInstance(f"{w}: throughput key {k!r} is not a node count") from None
        tp[n] = _num(v, w, f"throughput[{n}]", positive=True, high=1e12)
    allowed = d.get("allowed_nodes")
    if allowed is None:
        allowed = list(range(lo, hi + 1))
    else:
        if not isinstance(allowed, list) or not allowed:
            raise InvalidInstance(f"{w}: allowed_nodes must be a non-empty list")
        allowed = sorted({_int(a, w, "allowed_nodes", low=1) for a in allowed})
        bad = [a for a in allowed if not lo <= a <= hi]
        if bad:
            raise InvalidInstance(f"{w}: allowed_nodes {bad[0]} outside [{lo}, {hi}]")
    missing = [n for n in allowed if n not in tp]
    if missing:
        raise InvalidInstance(f"{w}: no throughput for allowed node count {missing[0]}")
    _check_sizes(w, req, cur, allowed)
    return Job(job_id=jid, min_nodes=lo, max_nodes=hi, requested_nodes=req, current_nodes=cur,
               remaining_work=rem, total_work=tot,
               weight=_num(d.get("weight", 1.0), w, "weight", positive=True, high=1e6),
               waiting_seconds=_num(d.get("waiting_seconds", 0.0), w, "waiting_seconds",
                                    nonneg=True),
               rescale_seconds=_num(d.get("rescale_seconds", DEFAULT_RESCALE_SECONDS), w,
                                    "rescale_seconds", nonneg=True),
               throughput=tp, allowed_nodes=allowed,
               seconds_since_resize=_optional(d, "seconds_since_resize", w),
               tenant=_tenant(d.get("tenant"), w))


def _tenant(v: Any, where: str) -> str | None:
    """A job's tenant: a non-empty string, or absent/null for the default tenant."""
    if v is None:
        return None
    if not isinstance(v, str) or not v:
        raise InvalidInstance(f"{where}: tenant must be a non-empty string or null, got {v!r}")
    return v


def job_from_state(state: Mapping[str, Any], curve: Mapping[int, float], *,
                   rescale_seconds: float = DEFAULT_RESCALE_SECONDS,
                   per_machine: int | None = None) -> Job:
    """The solver `Job` for one job's state at a window (keys job_id, min_nodes, max_nodes,
    requested_nodes, current_nodes, remaining_work, total_work, weight, waiting_seconds;
    optional seconds_since_resize, tenant) and its estimated throughput curve
    {nodes: samples/s}. It is offered the candidate sizes of its range (plus its requested and
    current size) that the curve covers with a positive rate (`per_machine`: only the sizes
    that pack onto machines of that many GPUs, `candidate_sizes`)."""
    lo, hi = state["min_nodes"], state["max_nodes"]
    allowed = [n for n in candidate_sizes(lo, hi, state["requested_nodes"],
                                          state["current_nodes"], per_machine=per_machine)
               if curve.get(n, 0) > 0]
    return Job(job_id=state["job_id"], min_nodes=lo, max_nodes=hi,
               requested_nodes=state["requested_nodes"], current_nodes=state["current_nodes"],
               remaining_work=state["remaining_work"], total_work=state["total_work"],
               weight=state["weight"], waiting_seconds=float(state["waiting_seconds"]),
               rescale_seconds=rescale_seconds, throughput={n: curve[n] for n in allowed},
               allowed_nodes=allowed, seconds_since_resize=state.get("seconds_since_resize"),
               tenant=state.get("tenant"))

"""Adapters from public traces to the three canonical feeds (DESIGN §3.1).

- Pollux workloads (`workloads*/workload-<k>.csv`) with the measured profiles: one job per row.
- The Philly trace (`traces/philly.csv`): a time slice, each job mapped to one of the six
  measured models by its GPU-time.

Both write job_events, throughput_samples, capacity and a ground-truth file `truth.json` with
each job's true throughput curve (from the measurements), which the replay engine executes
against. The logged throughput samples are what a job would report at its requested size, with
measurement noise, so the estimator must generalise as it would in production.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import numpy as np

from solver.instance import DEFAULT_RESCALE_SECONDS
from sources.errors import SourceError
from sources.feeds import CAPACITY, EVENT_COLUMNS, JOB_EVENTS, THROUGHPUT_SAMPLES, write_rows
from sources.pollux import GPUS_PER_NODE, MODELS, load_profile, packed_nodes, total_work
from sources.truth import write_truth

DEFAULT_START = datetime(2026, 1, 5, tzinfo=UTC)
SAMPLES_PER_JOB = 3
NOISE = 0.03
# the batch size each model trains at in the Pollux workloads (their most common one)
TYPICAL_BATCH = {"bert": 384, "cifar10": 2048, "deepspeech2": 320, "imagenet": 6400,
                 "ncf": 32768, "yolov3": 64}
# `--elastic-range LO,HI` as exact fractions (0.7 · 10 is 7, not 7.000000000000001)
ElasticRange = tuple[Fraction, Fraction]


def parse_elastic_range(text: str) -> ElasticRange:
    """`LO,HI` with 0 < LO ≤ 1 ≤ HI (a range around the requested size), e.g. `0.5,2`."""
    try:
        lo, hi = (Fraction(part.strip()) for part in text.split(","))
    except (ValueError, ZeroDivisionError):
        lo = hi = Fraction(-1)
    if not 0 < lo <= 1 <= hi:
        raise SourceError(f"--elastic-range {text!r}: expected LO,HI with 0 < LO ≤ 1 ≤ HI "
                          "(factors of the requested size), e.g. 0.5,2")
    return lo, hi


def elastic_bounds(requested: int, largest: int, factors: ElasticRange) -> tuple[int, int]:
    """A job's [⌈LO·req⌉, min(⌊HI·req⌋, largest measured size)] (DESIGN §6), at least 1."""
    lo, hi = factors
    top = max(1, min(math.floor(hi * requested), largest))
    return min(max(1, math.ceil(lo * requested)), top), top


def _ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _job_rows(job_id: str, submit: datetime, model: str, batch: int, replicas: int,
              traces: Path, rng: np.random.Generator, tenant: str = "",
              elastic: ElasticRange | None = None) -> tuple[dict, list[dict], dict]:
    prof = load_profile(traces, model)
    max_gpus = prof.max_gpus(batch)
    req = max(1, min(replicas, max_gpus))
    low, high = elastic_bounds(req, max_gpus, elastic) if elastic else (1, max_gpus)
    curve = prof.job_curve(batch, max_gpus)
    work = round(total_work(traces, model, batch))
    event = {c: None for c in EVENT_COLUMNS} | {
        "job_id": job_id, "event_time": _ts(submit), "event": "submitted", "min_nodes": low,
        "max_nodes": high, "requested_nodes": req, "total_work": float(work),
        "weight": 1.0, "model": model, "tenant": tenant or None}
    noise = rng.normal(0.0, NOISE, SAMPLES_PER_JOB)
    # samples name the machines their GPUs spanned, packed 4 to a machine as the profiles were
    # measured
    samples = [{"job_id": job_id, "sample_time": _ts(submit + timedelta(seconds=k)),
                "nodes": req, "throughput": round(curve[req] * (1 + noise[k]), 4),
                "machines": packed_nodes(req)}
               for k in range(SAMPLES_PER_JOB)]
    # model, batch, the raw request and where the profiles are: what the faithful replay reads
    truth = {"model": model, "batch_size": batch, "requested_gpus": replicas,
             "submit": _ts(submit),
             "profiles": str(traces.resolve()),
             "throughput": {str(n): round(v, 6) for n, v in curve.items()}}
    if elastic:  # the range the faithful replay gives the job
        truth |= {"min_gpus": low, "max_gpus": high}
    return event, samples, truth


def _write_feeds(out: Path, events: list[dict], samples: list[dict], truth: dict,
                 capacity: int, start: datetime) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = {
        JOB_EVENTS: write_rows(JOB_EVENTS, events, out / JOB_EVENTS, "csv"),
        THROUGHPUT_SAMPLES: write_rows(THROUGHPUT_SAMPLES, samples, out / THROUGHPUT_SAMPLES,
                                       "csv"),
        CAPACITY: write_rows(CAPACITY, [{"pool": "default", "effective_from": _ts(start),
                                         "nodes": capacity}], out / CAPACITY, "csv"),
    }
    written["truth"] = write_truth(out / "truth.json", truth,
                                   curve="tabulated (measured profiles)", start=_ts(start),
                                   rescale_seconds=DEFAULT_RESCALE_SECONDS,
                                   nodes_per_machine=GPUS_PER_NODE)
    return written


def import_pollux(workload: Path, traces: Path, out: Path, *, seed: int = 0,
                  start: datetime = DEFAULT_START, capacity: int = 64,
                  elastic: ElasticRange | None = None) -> dict[str, Path]:
    """One job per workload row (DESIGN §3.1 adapters); `elastic`: each job's range as factors
    of its requested size (default: 1 to its largest measured size)."""
    try:
        with workload.open() as fh:
            rows = list(csv.DictReader(fh))
    except OSError as err:
        raise SourceError(f"{workload}: cannot read ({err.strerror})") from None
    except (UnicodeDecodeError, csv.Error) as err:
        raise SourceError(f"{workload}: not a Pollux workload CSV ({err}); give a "
                          "workload-<k>.csv in UTF-8") from None
    need = {"name", "time", "application", "num_replicas", "batch_size"}
    if not rows or not need <= set(rows[0]):
        raise SourceError(f"{workload}: expected columns {', '.join(sorted(need))}")
    rng = np.random.default_rng(seed)
    events, samples, truth = [], [], {}
    for row in rows:
        model = row["application"]
        if model not in MODELS:
            raise SourceError(f"{workload}: job {row['name']}: unknown application {model!r}")
        seconds, batch, replicas = _workload_numbers(workload, row)
        submit = start + timedelta(seconds=seconds)
        ev, sm, tr = _job_rows(row["name"], submit, model, batch, replicas, traces, rng,
                               elastic=elastic)
        events.append(ev)
        samples.extend(sm)
        truth[row["name"]] = tr
    return _write_feeds(out, events, samples, truth, capacity, start)


def _workload_numbers(workload: Path, row: dict) -> tuple[float, int, int]:
    """A workload row's submit seconds (finite, ≥ 0, < 10 years), batch size and replicas
    (whole, ≥ 1); anything else is one line naming the job."""
    try:
        seconds, batch, replicas = (float(row["time"]), int(row["batch_size"]),
                                    int(row["num_replicas"]))
    except (TypeError, ValueError):
        seconds, batch, replicas = math.nan, 0, 0
    if not 0 <= seconds < 10 * 365 * 86400 or batch < 1 or replicas < 1:
        raise SourceError(f"{workload}: job {row['name']}: time must be seconds ≥ 0, batch_size "
                          "and num_replicas whole numbers ≥ 1; got "
                          f"{row['time']!r}, {row['batch_size']!r}, {row['num_replicas']!r}")
    return seconds, batch, replicas


def model_gpu_seconds(traces: Path) -> dict[str, float]:
    """Typical GPU-seconds of each model: its typical batch, trained at the GPU count where
    that batch is measured best (the fastest), times that count."""
    out = {}
    for m in MODELS:
        prof = load_profile(traces, m)
        batch = TYPICAL_BATCH[m]
        curve = prof.job_curve(batch, prof.max_gpus(batch))
        n = max(curve, key=curve.get)
        out[m] = total_work(traces, m, batch) / curve[n] * n
    return out


def nearest_model(gpu_seconds: float, typical: dict[str, float]) -> str:
    """The model whose typical GPU-time is nearest on a log scale."""
    x = math.log(max(gpu_seconds, 1.0))
    return min(typical, key=lambda m: abs(math.log(typical[m]) - x))


def import_philly(trace: Path, traces: Path, out: Path, *, start: datetime, hours: float,
                  jobs: int | None = None, seed: int = 0, capacity: int = 64,
                  elastic: ElasticRange | None = None) -> dict[str, Path]:
    """Jobs submitted in [start, start + hours) of the Philly trace, optionally `jobs` of them
    sampled at random; times are kept relative to `start`; `elastic` as in import_pollux."""
    end = start + timedelta(hours=hours)
    picked = []
    # a byte that is not UTF-8 spoils its row only (such rows are skipped like blank ones)
    with trace.open(encoding="utf-8", errors="replace") as fh:
        for row in csv.DictReader(fh):
            try:
                t = datetime.strptime(row["timestamp"], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
                gpus, gpu_time = int(float(row["num_gpus"])), float(row["gpu_time"])
            except (ValueError, TypeError, KeyError):
                continue  # the trace has a few blank timestamps
            if start <= t < end:
                picked.append((t, gpus, gpu_time, row.get("cluster", "")))
    if not picked:
        raise SourceError(f"{trace}: no jobs between {_ts(start)} and {_ts(end)}; the trace "
                          "covers 2017-10-03 to 2017-12-22")
    picked.sort()
    rng = np.random.default_rng(seed)
    if jobs is not None and jobs < len(picked):
        keep = np.sort(rng.choice(len(picked), size=jobs, replace=False))
        picked = [picked[i] for i in keep]
    typical = model_gpu_seconds(traces)
    events, samples, truth = [], [], {}
    counts: Counter[str] = Counter()
    for i, (t, gpus, gpu_time, cluster) in enumerate(picked):
        model = nearest_model(gpu_time, typical)
        counts[model] += 1
        job_id = f"philly-{i + 1:06d}"
        ev, sm, tr = _job_rows(job_id, t, model, TYPICAL_BATCH[model], max(1, gpus), traces,
                               rng, tenant=cluster, elastic=elastic)
        events.append(ev)
        samples.extend(sm)
        truth[job_id] = tr | {"philly_gpu_seconds": gpu_time}
    return _write_feeds(out, events, samples, truth, capacity, start)

"""Throughput curves: invariants on the synthetic warehouse, robustness, fallbacks."""

from __future__ import annotations

import json

import pytest

from sources.synthetic import write_logs
from warehouse.connection import connect
from warehouse.estimate import estimate
from warehouse.ingest import ingest_paths

EVENTS = ("job_id,event_time,event,nodes,min_nodes,max_nodes,requested_nodes,total_work,"
          "model\n")


def test_every_job_gets_a_valid_curve_replaced_not_appended(con, tmp_path):
    logs = tmp_path / "logs"
    write_logs(logs, 300, 4)
    ingest_paths(con, [logs])
    first = estimate(con)
    rows = con.execute("SELECT count(*) FROM throughput_curves").fetchone()[0]
    assert rows == first["curve rows"]
    # one row per job and node count in [min, max]
    expected = con.execute("SELECT sum(max_nodes - min_nodes + 1) FROM jobs").fetchone()[0]
    assert rows == expected
    missing = con.execute("SELECT count(*) FROM jobs WHERE job_id NOT IN "
                          "(SELECT job_id FROM throughput_curves)").fetchone()[0]
    assert missing == 0
    bad = con.execute("SELECT count(*) FROM throughput_curves WHERE throughput IS NULL "
                      "OR throughput <= 0 OR NOT isfinite(throughput)").fetchone()[0]
    assert bad == 0
    decreasing = con.execute("""
        SELECT count(*) FROM (SELECT throughput < lag(throughput) OVER (PARTITION BY job_id
                              ORDER BY nodes) AS down FROM throughput_curves) WHERE down
    """).fetchone()[0]
    assert decreasing == 0
    assert first["job"] > 0 and first["model"] > 0
    estimate(con)
    assert con.execute("SELECT count(*) FROM throughput_curves").fetchone()[0] == rows
    eff = con.execute("SELECT max(efficiency) FROM scaling_efficiency").fetchone()[0]
    assert 0 < eff <= 1.0 + 1e-9
    # jobs fitted from their own samples are close to the truth
    truth = json.loads((logs / "truth.json").read_text())["jobs"]
    fitted = con.execute("SELECT job_id, nodes, throughput FROM throughput_curves "
                         "WHERE source = 'job'").fetchall()
    errors = [abs(tp - truth[j]["throughput"][str(n)]) / truth[j]["throughput"][str(n)]
              for j, n, tp in fitted]
    assert sorted(errors)[len(errors) // 2] < 0.05


def test_one_absurd_sample_does_not_wreck_a_curve(con, tmp_path):
    (tmp_path / "ev.csv").write_text(EVENTS + "a,2026-12-01T00:00:00Z,submitted,,1,8,2,1e9,m\n")
    lines = ["job_id,sample_time,nodes,throughput"]
    k = 0
    for n in (1, 2, 4):
        for rep in range(3):
            k += 1
            tp = 100.0 * n / (1 + 0.1 * (n - 1))
            if n == 2 and rep == 1:
                tp *= 100  # one absurd report
            lines.append(f"a,2026-12-01T00:{k:02d}:00Z,{n},{tp}")
    (tmp_path / "tp.csv").write_text("\n".join(lines) + "\n")
    ingest_paths(con, [tmp_path])
    estimate(con)
    curve = dict(con.execute("SELECT nodes, throughput FROM throughput_curves").fetchall())
    for n in range(1, 9):
        true = 100.0 * n / (1 + 0.1 * (n - 1))
        assert abs(curve[n] - true) / true < 1e-6, (n, curve[n], true)
    assert con.execute("SELECT DISTINCT source, n_points FROM throughput_curves").fetchall() == [
        ("job", 3)]


def test_fallbacks_borrow_class_shape_then_class_curve_then_global(con, tmp_path):
    (tmp_path / "ev.csv").write_text(
        EVENTS
        + "fit,2026-12-01T00:00:00Z,submitted,,1,4,1,1e9,res\n"
        + "one,2026-12-01T00:00:00Z,submitted,,1,4,1,1e9,res\n"
        + "none,2026-12-01T00:00:00Z,submitted,,1,4,1,1e9,res\n"
        + "orphan,2026-12-01T00:00:00Z,submitted,,1,4,1,1e9,\n")
    (tmp_path / "tp.csv").write_text(
        "job_id,sample_time,nodes,throughput\n"
        "fit,2026-12-01T00:01:00Z,1,100\n"
        "fit,2026-12-01T00:02:00Z,2,160\n"       # serial fraction 0.25
        "one,2026-12-01T00:03:00Z,2,320\n")      # twice as fast as 'fit' at 2 nodes
    ingest_paths(con, [tmp_path])
    estimate(con)
    got = {(j, n): (round(tp, 6), src) for j, n, tp, src in con.execute(
        "SELECT job_id, nodes, throughput, source FROM throughput_curves").fetchall()}
    shape = {n: n / (1 + 0.25 * (n - 1)) for n in range(1, 5)}
    for n in range(1, 5):
        assert got[("fit", n)] == (round(100 * shape[n], 6), "job")
        assert got[("one", n)] == (round(200 * shape[n], 6), "model")
        # the class curve: median single-node throughput of the class (100 and 200)
        assert got[("none", n)] == (round(150 * shape[n], 6), "model")
        assert got[("orphan", n)][1] == "global"


def test_curve_goes_through_measured_points_and_respects_a_slowdown(con, tmp_path):
    # scales well on one machine (1, 2, 4 nodes), then slows down when it spans two (8)
    (tmp_path / "ev.csv").write_text(EVENTS + "a,2026-12-01T00:00:00Z,submitted,,1,12,4,1e9,m\n")
    measured = {1: 100.0, 2: 190.0, 4: 350.0, 8: 120.0}
    (tmp_path / "tp.csv").write_text("job_id,sample_time,nodes,throughput\n" + "".join(
        f"a,2026-12-01T00:0{k}:00Z,{n},{tp}\n" for k, (n, tp) in enumerate(measured.items())))
    ingest_paths(con, [tmp_path])
    estimate(con)
    curve = dict(con.execute("SELECT nodes, throughput FROM throughput_curves").fetchall())
    for n in (1, 2, 4):
        assert abs(curve[n] - measured[n]) < 1e-9
    # no size past the slowdown is planned faster than the best measured one
    assert all(abs(curve[n] - 350.0) < 1e-9 for n in range(5, 13)), curve


def test_past_its_measured_sizes_a_job_scales_as_its_class_measured(con, tmp_path):
    # 'big' of class m ran at 4 and 8 nodes and slowed down; 'small' has only run at 4
    (tmp_path / "ev.csv").write_text(
        EVENTS + "big,2026-12-01T00:00:00Z,submitted,,1,8,8,1e9,m\n"
        + "small,2026-12-01T00:00:00Z,submitted,,1,8,4,1e9,m\n"
        + "other,2026-12-01T00:00:00Z,submitted,,1,8,4,1e9,o\n")
    (tmp_path / "tp.csv").write_text(
        "job_id,sample_time,nodes,throughput\n"
        "big,2026-12-01T00:01:00Z,4,400\n"
        "big,2026-12-01T00:02:00Z,8,100\n"
        "small,2026-12-01T00:03:00Z,4,200\n"
        "other,2026-12-01T00:04:00Z,4,200\n")
    ingest_paths(con, [tmp_path])
    estimate(con)
    got = {(j, n): tp for j, n, tp in con.execute(
        "SELECT job_id, nodes, throughput FROM throughput_curves").fetchall()}
    assert abs(got[("small", 8)] - 200.0) < 1e-9      # the class's slowdown: no gain past 4
    assert got[("other", 8)] > 250.0                   # another class: the usual curve


def _samples(rows: list[tuple]) -> str:
    """CSV of (job, nodes, throughput, machines) samples, a minute apart."""
    return "job_id,sample_time,nodes,throughput,machines\n" + "".join(
        f"{j},2026-12-01T{k // 60:02d}:{k % 60:02d}:00Z,{n},{tp},{'' if m is None else m}\n"
        for k, (j, n, tp, m) in enumerate(rows))


def test_past_one_machine_a_job_runs_at_the_per_node_rate_it_showed_across_machines(
        con, tmp_path):
    # 4 nodes per machine (the largest size seen on one machine). 'a' scales well on one machine
    # and measured 2 nodes over 2 machines at 60 per node, 4 over 2 machines at 50 per node
    (tmp_path / "ev.csv").write_text(
        EVENTS + "a,2026-12-01T00:00:00Z,submitted,,1,16,4,1e9,m\n")
    (tmp_path / "tp.csv").write_text(_samples([
        ("a", 1, 100.0, 1), ("a", 2, 195.0, 1), ("a", 4, 380.0, 1),
        ("a", 2, 120.0, 2), ("a", 4, 200.0, 2), ("a", 4, 200.0, 2),
        ("a", 4, 20000.0, 2)]))     # one absurd report among three does not move the median
    ingest_paths(con, [tmp_path])
    estimate(con)
    curve = dict(con.execute("SELECT nodes, throughput FROM throughput_curves").fetchall())
    for n, tp in ((1, 100.0), (2, 195.0), (4, 380.0)):   # through the one-machine medians
        assert abs(curve[n] - tp) < 1e-9
    # 8 nodes over 2 machines at 50 per node is 400; 5 to 7 would be below the 380 of 4 nodes
    # on one machine, which a never-decreasing curve keeps
    assert all(abs(curve[n] - 380.0) < 1e-9 for n in (5, 6, 7)), curve
    for n in range(8, 17):
        assert abs(curve[n] - 50.0 * n) < 1e-9, (n, curve[n])


def test_without_its_own_cross_machine_samples_a_job_takes_its_class_efficiency(con, tmp_path):
    # 'seen' fits f(1) = 100 on one machine and runs at 80 per node across machines: efficiency
    # 0.8. 'unseen' (same class, f(1) = 200) never crossed machines; 'other' is another class.
    (tmp_path / "ev.csv").write_text(
        EVENTS + "seen,2026-12-01T00:00:00Z,submitted,,1,8,4,1e9,m\n"
        + "unseen,2026-12-01T00:00:00Z,submitted,,1,8,4,1e9,m\n"
        + "other,2026-12-01T00:00:00Z,submitted,,1,8,4,1e9,o\n")
    (tmp_path / "tp.csv").write_text(_samples([
        ("seen", 1, 100.0, 1), ("seen", 2, 200.0, 1), ("seen", 4, 400.0, 1),
        ("seen", 8, 640.0, 2),
        ("unseen", 1, 200.0, 1), ("unseen", 2, 400.0, 1), ("unseen", 4, 800.0, 1),
        ("other", 1, 200.0, None), ("other", 2, 400.0, None), ("other", 4, 800.0, None)]))
    ingest_paths(con, [tmp_path])
    estimate(con)
    got = {(j, n): tp for j, n, tp in con.execute(
        "SELECT job_id, nodes, throughput FROM throughput_curves").fetchall()}
    assert abs(got[("seen", 8)] - 640.0) < 1e-9
    assert abs(got[("unseen", 8)] - 8 * 0.8 * 200.0) < 1e-6
    assert abs(got[("unseen", 4)] - 800.0) < 1e-9
    assert abs(got[("other", 8)] - 1600.0) < 1e-6          # no class evidence: linear fit


def test_where_a_node_is_a_whole_machine_the_machine_count_changes_nothing(tmp_path):
    # 'b' of the same class slowed down from 4 to 8 nodes: the class ratio 'a' goes by past 4
    rows = [("a", 1, 100.0, 1), ("a", 2, 190.0, 2), ("a", 4, 350.0, 4), ("a", 4, 330.0, 4),
            ("b", 4, 400.0, 4), ("b", 8, 100.0, 8)]
    curves = []
    for machines in (True, False):
        logs = tmp_path / str(machines)
        logs.mkdir()
        (logs / "ev.csv").write_text(
            EVENTS + "a,2026-12-01T00:00:00Z,submitted,,1,8,4,1e9,m\n"
            + "b,2026-12-01T00:00:00Z,submitted,,1,8,4,1e9,m\n")
        (logs / "tp.csv").write_text(_samples(
            [(j, n, tp, m if machines else None) for j, n, tp, m in rows]))
        con = connect(tmp_path / f"{machines}.duckdb")
        ingest_paths(con, [logs])
        estimate(con)
        curves.append(con.execute(
            "SELECT job_id, nodes, throughput FROM throughput_curves ORDER BY 1, 2").fetchall())
        con.close()
    assert len(curves[0]) == 16 and curves[0] == curves[1]


def test_past_its_measured_sizes_a_job_takes_the_lower_of_its_own_rate_and_its_class(
        con, tmp_path):
    # 'a' ran 2 nodes over 2 machines at 90 per node: its own rate says 720 on 8 nodes. 'b' of
    # the same class went from 400 on 4 nodes to 480 on 8 (two machines): ×1.2, so 480 for 'a'.
    (tmp_path / "ev.csv").write_text(
        EVENTS + "a,2026-12-01T00:00:00Z,submitted,,1,16,4,1e9,m\n"
        + "b,2026-12-01T00:00:00Z,submitted,,1,16,4,1e9,m\n")
    (tmp_path / "tp.csv").write_text(_samples([
        ("a", 1, 100.0, 1), ("a", 2, 200.0, 1), ("a", 4, 400.0, 1), ("a", 2, 180.0, 2),
        ("b", 4, 400.0, 1), ("b", 8, 480.0, 2)]))
    ingest_paths(con, [tmp_path])
    estimate(con)
    got = {(j, n): tp for j, n, tp in con.execute(
        "SELECT job_id, nodes, throughput FROM throughput_curves").fetchall()}
    assert abs(got[("a", 8)] - 480.0) < 1e-9
    # past the class's largest size, continued at the job's own rate: 480 × 16 / 8
    assert abs(got[("a", 16)] - 960.0) < 1e-9
    # where the class measured more than the job's own rate allows, the own rate holds
    assert abs(got[("b", 16)] - 480.0 * 16 / 8) < 1e-9


def test_in_memory_fit_equals_the_warehouse_fit_and_unsized_jobs_inform_their_class(
        con, tmp_path):
    """The replay's path (`estimate_arrow` over Arrow tables) is the warehouse's SQL: the same
    curves. A job given without sizes gets no curve yet still counts for its model class, so
    the sized jobs' curves do not change (up to summation order)."""
    import pyarrow as pa

    from warehouse.estimate import JOBS_SCHEMA, SAMPLES_SCHEMA, estimate_arrow

    logs = tmp_path / "logs"
    write_logs(logs, 120, 4)
    ingest_paths(con, [logs])
    estimate(con)
    stored = con.execute("SELECT job_id, nodes, throughput FROM throughput_curves").fetchall()
    jobs = con.sql("SELECT job_id, model, min_nodes, max_nodes FROM est_jobs "
                       "ORDER BY job_id").to_arrow_table().cast(JOBS_SCHEMA)
    samples = con.sql("SELECT job_id, nodes, machines, throughput FROM est_samples"
                          ).to_arrow_table().cast(SAMPLES_SCHEMA)
    everyone = estimate_arrow(jobs, samples)
    fitted = sorted((j, n, tp) for j, c in everyone.items() for n, tp in c.items())
    assert [r[:2] for r in fitted] == [r[:2] for r in sorted(stored)]
    # equal up to the order DuckDB sums the rows in
    assert [r[2] for r in fitted] == pytest.approx([r[2] for r in sorted(stored)], rel=1e-12)
    ids = jobs.column("job_id").to_pylist()
    keep = [i % 3 == 0 for i in range(len(ids))]
    unsized = jobs.set_column(2, "min_nodes", pa.array(
        [v if k else None for v, k in zip(jobs.column(2).to_pylist(), keep, strict=True)],
        pa.int32())).set_column(3, "max_nodes", pa.array(
            [v if k else None for v, k in zip(jobs.column(3).to_pylist(), keep, strict=True)],
            pa.int32()))
    some = estimate_arrow(unsized, samples)
    expected = {j: everyone[j] for j, k in zip(ids, keep, strict=True) if k}
    assert {j: sorted(c) for j, c in some.items()} == {j: sorted(c) for j, c in expected.items()}
    # the class sums run over the same rows in another order: equal to the last few bits
    for j, curve in expected.items():
        assert some[j] == pytest.approx(curve, rel=1e-12)
    assert {"job", "model"} <= {s for s, in con.execute("SELECT DISTINCT source FROM "
                                                        "throughput_curves").fetchall()}

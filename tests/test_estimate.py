"""Throughput curves: invariants on the synthetic warehouse, robustness, fallbacks."""

from __future__ import annotations

import json

from warehouse.estimate import estimate
from warehouse.ingest import ingest_paths
from warehouse.synthetic import write_logs

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

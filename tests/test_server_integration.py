"""The deployment of docker-compose.yml, natively on loopback: a real PostgreSQL, `prefect
server start` on it, the `pipeline` deployment served and run once through the server."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

from sources.synthetic import write_logs

PG_BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
pytestmark = pytest.mark.skipif(not PG_BIN, reason="PostgreSQL server binaries are absent "
                                "(make test installs the Debian package)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_pg(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    """Run a PostgreSQL command; as root, through the postgres user (the server refuses root)."""
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def wait_for(url: str, seconds: float) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(1)
    raise TimeoutError(url)


@pytest.fixture
def postgres():
    # pytest's tmp folders are private to root; the postgres user needs its own
    base = Path(tempfile.mkdtemp(prefix="etplan-pg-"))
    data, sock = base / "data", base / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(base, "postgres")
        shutil.chown(sock, "postgres")
    bin_dir = PG_BIN[-1]
    r = as_pg([f"{bin_dir}/initdb", "-D", str(data), "--auth=trust", "-U", "postgres"])
    assert r.returncode == 0, r.stderr
    port = free_port()
    r = as_pg([f"{bin_dir}/pg_ctl", "-D", str(data), "-l", str(base / "log"), "-w", "start",
               "-o", f"-p {port} -k {sock} -c listen_addresses=127.0.0.1"])
    assert r.returncode == 0, r.stderr + (base / "log").read_text()
    try:
        r = as_pg([f"{bin_dir}/createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
                   "prefect"])
        assert r.returncode == 0, r.stderr
        yield f"postgresql+asyncpg://postgres@127.0.0.1:{port}/prefect"
    finally:
        as_pg([f"{bin_dir}/pg_ctl", "-D", str(data), "-m", "fast", "stop"])
        shutil.rmtree(base, ignore_errors=True)


def test_deployment_runs_through_prefect_server_on_postgres(postgres, tmp_path):
    logs = tmp_path / "logs"
    write_logs(logs, 40, 2)
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"),
           "PREFECT_API_DATABASE_CONNECTION_URL": postgres,
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_API_URL": api}
    prefect = str(Path(sys.executable).with_name("prefect"))
    server_log = (tmp_path / "server.log").open("w")
    runner_log = (tmp_path / "runner.log").open("w")
    server = subprocess.Popen([prefect, "server", "start", "--host", "127.0.0.1", "--port",
                               str(port)], env=env, stdout=subprocess.DEVNULL,
                              stderr=server_log)
    runner = None
    try:
        wait_for(f"{api}/health", 180)
        outputs, wh = tmp_path / "out", tmp_path / "w.duckdb"
        runner = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
            from flows.pipeline import pipeline_flow
            pipeline_flow.serve(name="it", parameters={{
                "paths": [{str(logs)!r}], "warehouse": {str(wh)!r},
                "outputs": {str(outputs)!r}, "run_id": "it", "time_limit": 5.0}})
        """)], env=env, stdout=subprocess.DEVNULL, stderr=runner_log)
        script = textwrap.dedent("""
            import sys, time
            from prefect.deployments import run_deployment
            for _ in range(60):
                try:
                    run = run_deployment("etplan-pipeline/it", timeout=240)
                    break
                except Exception:   # the runner has not registered the deployment yet
                    time.sleep(2)
            print(run.state.type.value)
        """)
        r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, timeout=400)
        assert r.stdout.strip().endswith("COMPLETED"), (
            r.stdout + r.stderr + (tmp_path / "runner.log").read_text()[-3000:])
        plans = list((outputs / "plans" / "run_id=it").glob("*/part-0.parquet"))
        assert len(plans) == 1
        import duckdb

        assert duckdb.sql(f"SELECT count(*) FROM read_parquet('{plans[0]}')").fetchall()[0][0] > 0
        # the server kept the run in PostgreSQL
        pg_port = postgres.rsplit(":", 1)[1].split("/")[0]
        q = as_pg([f"{PG_BIN[-1]}/psql", "-h", "127.0.0.1", "-p", pg_port, "-U", "postgres",
                   "-d", "prefect", "-tAc",
                   "SELECT count(*) FROM flow_run WHERE state_type = 'COMPLETED'"])
        assert q.returncode == 0 and int(q.stdout.strip()) >= 1, q.stderr
    finally:
        if runner:
            runner.terminate()
            runner.wait(30)
        server.terminate()
        server.wait(60)
        server_log.close()
        runner_log.close()

"""The deployments, natively on loopback: prefect.yaml's deployment registered with `prefect
deploy --all` and run by a real `prefect worker` (as docker-compose.yml does), and a real
PostgreSQL under `prefect server start` with the pipeline served and run once through it."""

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

REPO = Path(__file__).resolve().parent.parent
PG_BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
needs_pg = pytest.mark.skipif(not PG_BIN, reason="PostgreSQL server binaries are absent "
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
def local_server(tmp_path):
    """`prefect server start` on SQLite in a temporary PREFECT_HOME: the environment to use."""
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "PREFECT_API_URL": api,
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "ETPLAN_HOME": str(REPO)}
    with (tmp_path / "server.log").open("w") as log:
        server = subprocess.Popen([str(Path(sys.executable).with_name("prefect")), "server",
                                   "start", "--host", "127.0.0.1", "--port", str(port)],
                                  env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        wait_for(f"{api}/health", 180)
        yield env
    finally:
        server.terminate()
        server.wait(60)


def test_prefect_yaml_deploys_and_a_worker_runs_it(local_server, tmp_path):
    env, prefect = local_server, str(Path(sys.executable).with_name("prefect"))
    write_logs(tmp_path / "logs", 30, 2)
    for cmd in (["work-pool", "create", "etplan", "--type", "process"],
                ["--no-prompt", "deploy", "--all"]):
        r = subprocess.run([prefect, *cmd], cwd=REPO, env=env, capture_output=True, text=True,
                           timeout=180)
        assert r.returncode == 0, r.stdout + r.stderr
    script = textwrap.dedent(f"""
        import asyncio
        from prefect.client.orchestration import get_client
        from prefect.deployments import run_deployment

        run = run_deployment("etplan-pipeline/etplan-pipeline", timeout=0, parameters={{
            "paths": [{str(tmp_path / "logs")!r}], "warehouse": {str(tmp_path / "w.duckdb")!r},
            "outputs": {str(tmp_path / "out")!r}, "run_id": "it", "time_limit": 5.0}})

        async def limit():
            async with get_client() as c:
                d = await c.read_deployment_by_name("etplan-pipeline/etplan-pipeline")
                return d.global_concurrency_limit.limit
        print(run.id, asyncio.run(limit()))
    """)
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    run_id, limit = r.stdout.split()
    assert limit == "1"
    with (tmp_path / "worker.log").open("w") as log:
        worker = subprocess.Popen([prefect, "worker", "start", "--pool", "etplan"], env=env,
                                  cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    try:
        state = wait_for_state(env, run_id, 240)
    finally:
        stop(worker)
    assert state == "COMPLETED", (tmp_path / "worker.log").read_text()[-3000:]
    assert list((tmp_path / "out" / "plans" / "run_id=it").glob("*/part-0.parquet"))


def stop(worker: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after 60 s: a worker stopping picks up the runs already due, and
    prefect.yaml's schedule makes one every 10 minutes (a clean-clone run hit that boundary)."""
    worker.terminate()
    try:
        worker.wait(60)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait(30)


def wait_for_state(env: dict, run_id: str, seconds: float) -> str:
    """The flow run's final state type, polled through the API."""
    script = textwrap.dedent(f"""
        import time
        from prefect.client.orchestration import get_client
        with get_client(sync_client=True) as c:
            deadline = time.time() + {seconds}
            while time.time() < deadline:
                state = c.read_flow_run({run_id!r}).state
                if state and state.is_final():
                    break
                time.sleep(2)
        print(state.type.value if state else "NONE")
    """)
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                       timeout=seconds + 60)
    return r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr[-2000:]


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


@needs_pg
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

"""The Prefect API that `etplan serve` schedules on: the one PREFECT_API_URL names, or else a
local `prefect server start` of its own (a subprocess on a free loopback port, with the
project-local PREFECT_HOME), stopped when serve stops. Prefect's ephemeral API cannot run a
schedule, so serve never falls back to it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from warehouse.errors import EtplanError

STARTUP_SECONDS = 180.0     # a first start migrates the database and can be slow


def configured_api() -> str | None:
    """PREFECT_API_URL from the environment or the active Prefect profile, if any."""
    from prefect.settings import PREFECT_API_URL

    return os.environ.get("PREFECT_API_URL") or PREFECT_API_URL.value() or None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(api: str) -> bool:
    try:
        with urllib.request.urlopen(f"{api}/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def local_server(log: Path) -> Iterator[str]:
    """`prefect server start` on a free loopback port; yields its API URL; stops it after.
    It runs in its own session, so Ctrl-C reaches only etplan, which then stops it."""
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    log.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    env.pop("PREFECT_API_URL", None)
    with log.open("ab") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host",
                                 "127.0.0.1", "--port", str(port)], env=env,
                                stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _healthy(api):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise EtplanError(f"the local Prefect server did not start (see {log}); "
                                  "or run `prefect server start` and set PREFECT_API_URL")
            time.sleep(0.5)
        yield api
    finally:
        _stop(proc)


@contextmanager
def prefect_api(home: Path, announce) -> Iterator[str]:
    """The configured API, or a local server under `home` (PREFECT_HOME) for as long as the
    caller needs it. SIGTERM ends the caller like Ctrl-C, so the server is always stopped."""
    api = configured_api()
    if api:
        announce(f"Prefect API: {api} (PREFECT_API_URL)")
        yield api
        return
    from prefect.settings import PREFECT_API_URL, temporary_settings

    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        with local_server(home / "server.log") as api:
            announce(f"Prefect API: {api} (a local server; its log: {home / 'server.log'})")
            os.environ["PREFECT_API_URL"] = api
            try:
                with temporary_settings(updates={PREFECT_API_URL: api}):
                    try:
                        yield api
                    finally:   # the last run logs reach the server before it stops
                        from prefect.logging.handlers import APILogWorker

                        APILogWorker.drain_all(timeout=5)
            finally:
                os.environ.pop("PREFECT_API_URL", None)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt

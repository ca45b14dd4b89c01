from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# Prefect's state for this test session only (never ~/.prefect nor the project's .prefect/);
# set before anything imports Prefect, and inherited by every `etplan` the tests run
os.environ["PREFECT_HOME"] = tempfile.mkdtemp(prefix="etplan-prefect-home-")
os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
os.environ["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"] = "120"
os.environ.pop("PREFECT_API_URL", None)

from warehouse.connection import connect  # noqa: E402

# property tests draw the same examples on every run (CI is repeatable); to explore new
# examples run with HYPOTHESIS_PROFILE=explore (and more of them)
settings.register_profile("repeatable", derandomize=True, print_blob=True)
settings.register_profile("explore", max_examples=1000, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture
def con(tmp_path):
    c = connect(tmp_path / "wh.duckdb")
    yield c
    c.close()


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None
            ) -> subprocess.CompletedProcess:
    """Run the `etplan` console script as a user would."""
    exe = Path(sys.executable).with_name("etplan")
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    return subprocess.run([str(exe), *args], capture_output=True, text=True, cwd=cwd,
                          env=full_env, timeout=300)


POLLUX = SHARED_DATA / "pollux"
needs_pollux = pytest.mark.skipif(not (POLLUX / "traces" / "cifar10").is_dir(),
                                  reason="../shared/data/pollux is absent")


@pytest.fixture(scope="session")
def prefect_harness():
    # conftest.py has set a temporary PREFECT_HOME
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield

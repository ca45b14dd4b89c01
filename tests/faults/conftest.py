from __future__ import annotations

import pytest

from flows.usecases.data import generate_logs, ingest


@pytest.fixture(scope="module")
def small_logs(tmp_path_factory):
    """A small synthetic trace (CSV) shared by a module's tests."""
    out = tmp_path_factory.mktemp("logs")
    generate_logs(out, jobs=20, seed=3)
    return out


@pytest.fixture
def loaded(tmp_path, small_logs):
    """A warehouse with the small trace ingested."""
    wh = tmp_path / "wh.duckdb"
    ingest([small_logs], warehouse=wh)
    return wh


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a crash or kill trial (together under 3 minutes)")

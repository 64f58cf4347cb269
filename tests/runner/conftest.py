"""Fixtures of the runner tests: the smoke dataset and the API keys the batch tests use."""

from __future__ import annotations

from pathlib import Path

import pytest
from judges.smoke_data import write_smoke_dataset
from runner.batch_runs import KEYS, SECRET


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Path:
    return write_smoke_dataset(tmp_path_factory.mktemp("ds") / "smoke", configs=("task_c",))


@pytest.fixture
def keys(monkeypatch):
    """Every provider's key set to the one secret the tests look for in what is printed."""
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    for name in KEYS:
        monkeypatch.setenv(name, SECRET)

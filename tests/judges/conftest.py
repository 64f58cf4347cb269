"""One small smoke dataset for the HTTP-judge tests that run ``eval`` end to end (built once
per session: they only read it)."""

from __future__ import annotations

import pytest
from smoke_data import write_smoke_dataset


@pytest.fixture(scope="session")
def api_smoke(tmp_path_factory):
    return write_smoke_dataset(tmp_path_factory.mktemp("api-ds") / "smoke")

"""A real smoke build (task_c and task_d: Full / NoCue / CF groups under every probe) and a
scripted judge whose answers mix right, wrong, accepted-CF and unparseable ones, shared by the
framework-bridge tests."""

from __future__ import annotations

import hashlib

import pytest
from bridge_helpers import built


@pytest.fixture(scope="session")
def smoke_build(tmp_path_factory):
    return built(tmp_path_factory, "bridge", "--profile", "smoke", "--configs", "task_c,task_d")


def scripted_answer(uid: str, audit) -> str:
    """A deterministic answer for one row: mostly right, some wrong, some CF accepted, some
    that do not parse; in the task's own verdict words."""
    success, failure = ("Yes", "No") if audit["task"] == "C" else ("Success", "Fail")
    h = int(hashlib.sha256(uid.encode()).hexdigest(), 16) % 10
    if h == 0:
        return "I cannot tell from these frames."
    if h == 1:
        return failure if audit["label"] == 1 else success
    if audit["variant"] == "cf" and h < 5:
        return f"{success}."
    return success if audit["label"] == 1 else failure


@pytest.fixture
def answer():
    return scripted_answer

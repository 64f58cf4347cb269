"""A real smoke build (every smoke config: task_c and task_d with Full / NoCue / CF groups under
every probe, the controlled analyses too) and a scripted judge whose answers mix right, wrong,
accepted-CF and unparseable ones, shared by the framework-bridge tests."""

from __future__ import annotations

import hashlib

import pytest


@pytest.fixture(scope="session")
def smoke_build(smoke_build):
    """The session's smoke build (tests/conftest.py: every smoke config, read-only), as its
    folder: the bridges read task_c, task_d, oracle_state and prompt_ablation from it."""
    return smoke_build.out


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

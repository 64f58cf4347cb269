"""``gridwm-judge cache``: lists this package's Arrow copies in the datasets cache,
clears them after asking (``--yes`` does not ask), and leaves alone a copy a running command
holds. The session's cache is the test suite's own (``tests/conftest.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gridwm_judge.dataset.export import build_dataset
from gridwm_judge.dataset_io import load_task, package_cache_root


def test_the_suite_never_touches_the_users_cache():
    home_cache = Path.home() / ".cache" / "huggingface"
    assert not package_cache_root().is_relative_to(home_cache)
    assert os.environ["HF_DATASETS_CACHE"] in str(package_cache_root())


def _cache(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gridwm_judge", "cache", *args],
                          capture_output=True, text=True, input=stdin, timeout=120)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return build_dataset(tmp_path_factory.mktemp("c") / "gwj", "smoke", num_proc=1,
                         configs=["task_b", "task_e"], quiet=True).out


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    """A cache of this test's own (the session's holds other tests' copies), for this process
    and the commands it starts."""
    import datasets

    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_list_then_clear_leaves_a_held_copy(smoke, own_cache):
    load_task(str(smoke), "task_b")          # this process holds its copy from now on
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from gridwm_judge.dataset_io import load_task
        load_task({str(smoke)!r}, "task_e")
        print("held", flush=True)
        sys.stdin.read()
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        shown = _cache()
        assert shown.returncode == 0, shown.stderr
        assert "2 cached copies" in shown.stdout and "gwj/task_b" in shown.stdout
        assert shown.stdout.count("(in use)") == 2
        asked = _cache("--clear")            # not a terminal: it will not delete unasked
        assert asked.returncode == 2 and "pass --yes" in asked.stderr
        holder.stdin.close()
        holder.wait(timeout=60)
        cleared = _cache("--clear", "--yes")
        assert cleared.returncode == 0, cleared.stderr
        # the task_e copy's holder has exited; this process still holds task_b's
        assert "deleted 1" in cleared.stdout and "left 1 in use" in cleared.stdout
        assert package_cache_root().is_relative_to(own_cache)
        left = [p for p in package_cache_root().iterdir() if p.is_dir()]
        assert len(left) == 1 and "task_b" in _cache().stdout
    finally:
        holder.kill()

"""Each test session gets its own Hugging Face cache and temporary folder (``pytest``'s
``tmp_path`` folders included), removed when the session passes: the suite never writes into
the user's ``~/.cache/huggingface`` nor leaves files in the system temp folder. A failed session
keeps the folder and says where. Set here, before any test module imports ``datasets``, and
inherited by the commands tests run as subprocesses.

Builds that several modules read are made once per session here; they are read-only: a test
that writes must write elsewhere (its own ``tmp_path``)."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

import pytest

SESSION_ROOT = Path(tempfile.mkdtemp(prefix="gwj-tests-"))
for _name, _sub in (("HF_HOME", "hf"), ("HF_DATASETS_CACHE", "hf/datasets"), ("TMPDIR", "tmp")):
    (SESSION_ROOT / _sub).mkdir(parents=True, exist_ok=True)
    os.environ[_name] = str(SESSION_ROOT / _sub)
tempfile.tempdir = os.environ["TMPDIR"]

# The Ctrl-C tests send SIGINT to commands run as subprocesses. A suite started in the
# background by a non-interactive shell (`cmd &`) inherits SIGINT ignored, and an ignored
# signal stays ignored across exec, so those commands would never see it: handle it here
# (a handler is reset to the default on exec), as a suite started from a terminal does.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_sessionfinish(session, exitstatus):
    if exitstatus == 0:
        shutil.rmtree(SESSION_ROOT, ignore_errors=True)
    else:
        print(f"\ntest caches and temporary folders kept for a look: {SESSION_ROOT}")


@pytest.fixture(scope="session")
def miniworld_smoke(tmp_path_factory):
    """The ``miniworld_smoke`` build (every MiniWorld config, 2 processes): the suite's
    slowest small build (real MiniWorld, headless), read by the dataset, report and
    integration modules. Returns the build's report (``.out`` is the folder)."""
    pytest.importorskip("pyglet", reason="needs the 3d extra")
    from gridwm_judge.dataset.export import build_dataset

    return build_dataset(tmp_path_factory.mktemp("mw") / "smoke", "miniworld_smoke", num_proc=2)


class SmokeBuild(NamedTuple):
    out: Path
    report: Any  # the build's BuildReport
    png_encodes: int  # images PNG-encoded while it ran (PngCache.encodes, this process)


@pytest.fixture(scope="session")
def smoke_build(tmp_path_factory) -> SmokeBuild:
    """The ``smoke`` build (every config, one process, so every encode is counted here), read
    by the round-trip and encode-once modules."""
    from gridwm_judge.dataset.export import build_dataset
    from gridwm_judge.dataset.png_store import PngCache

    before = PngCache.encodes
    report = build_dataset(tmp_path_factory.mktemp("build") / "gwj", "smoke", num_proc=1)
    return SmokeBuild(report.out, report, PngCache.encodes - before)


class QuickstartRun(NamedTuple):
    result: Any  # the run's QuickstartResult
    printed: str  # what `gridwm-judge quickstart` printed on stdout
    code: int  # the command's exit status


@pytest.fixture(scope="session")
def quickstart_run(tmp_path_factory) -> QuickstartRun:
    """One real ``gridwm-judge quickstart --out <new folder>`` (the default profile, the nine
    baseline judges, 2000 resamples) through the CLI, exactly as a user runs it: the README's
    quoted figures, the CLI end-to-end test and the report tests all read it (the suite's
    costliest pipeline, run once). ``run_quickstart`` is wrapped only to keep the result it
    returns; its arguments and work are the command's own."""
    import contextlib
    import io

    from gridwm_judge import cli, quickstart

    out = tmp_path_factory.mktemp("quickstart") / "qs"
    real, results = quickstart.run_quickstart, []

    def recording(*args, **kwargs):
        results.append(real(*args, **kwargs))
        return results[-1]

    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(printed):
        mp.setattr(quickstart, "run_quickstart", recording)
        code = cli.main(["quickstart", "--out", str(out)])
    [result] = results
    return QuickstartRun(result, printed.getvalue(), code)

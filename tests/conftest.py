"""Each test session gets its own Hugging Face cache and temporary folder (``pytest``'s
``tmp_path`` folders included), removed when the session passes: the suite never writes into
the user's ``~/.cache/huggingface`` nor leaves files in the system temp folder. A failed session
keeps the folder and says where. Set here, before any test module imports ``datasets``, and
inherited by the commands tests run as subprocesses."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

SESSION_ROOT = Path(tempfile.mkdtemp(prefix="gwj-tests-"))
for _name, _sub in (("HF_HOME", "hf"), ("HF_DATASETS_CACHE", "hf/datasets"), ("TMPDIR", "tmp")):
    (SESSION_ROOT / _sub).mkdir(parents=True, exist_ok=True)
    os.environ[_name] = str(SESSION_ROOT / _sub)
tempfile.tempdir = os.environ["TMPDIR"]


def pytest_sessionfinish(session, exitstatus):
    if exitstatus == 0:
        shutil.rmtree(SESSION_ROOT, ignore_errors=True)
    else:
        print(f"\ntest caches and temporary folders kept for a look: {SESSION_ROOT}")

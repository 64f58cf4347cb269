"""The build's shortcut ceilings do not depend on how many processes answer them."""

from __future__ import annotations

import json

from gridwm_judge.dataset import ceilings
from gridwm_judge.dataset.export import build_dataset


def test_ceilings_across_processes_equal_one_process(tmp_path):
    report = build_dataset(tmp_path / "gwj", "smoke", num_proc=2,
                           configs=["task_a", "task_c", "oracle_state"])
    one = ceilings.measure(report.out, report.configs, num_proc=1)
    assert set(one) == {"task_a", "task_c", "oracle_state"}
    assert ceilings.measure(report.out, report.configs, num_proc=2) == one
    written = json.loads((report.out / "validation.json").read_text())["shortcut_ceilings"]
    assert written == json.loads(json.dumps(one))   # what the build wrote with 2 processes
    assert report.ceilings_seconds > 0

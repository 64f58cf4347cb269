"""The config -> task module table covers every config of the schema, and nothing else."""

import pytest

from gridwm_judge.task_table import BUILT_CONFIGS
from gridwm_judge.tasks import TASK_MODULES, task_module


def test_every_config_has_its_module():
    assert tuple(TASK_MODULES) == BUILT_CONFIGS
    for config in BUILT_CONFIGS:
        assert task_module(config).__name__ == f"gridwm_judge.tasks.{config}"
        assert callable(task_module(config).build_rows)


def test_unknown_config_lists_the_valid_ones():
    with pytest.raises(ValueError, match="unknown config 'task_f'; expected one of task_a, "):
        task_module("task_f")

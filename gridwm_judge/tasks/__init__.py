"""Task modules: one per task, each turning validated trajectory groups into dataset rows.

Every module exposes ``build_rows(groups, *, n_items=None, seed, **options) -> list[dict]``
returning dicts with exactly the columns of :data:`gridwm_judge.schema.COLUMNS`. Groups are
read through the world seam (``gridwm_judge.world``); options include ``world=`` for the
builders that are not MiniGrid-only (all but Task B).
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import import_module
from types import ModuleType
from typing import Any

from gridwm_judge.task_table import BUILT_CONFIGS, task_spec

TASK_MODULES: dict[str, ModuleType] = {
    config: import_module(f"gridwm_judge.tasks.{config}") for config in BUILT_CONFIGS}
"""config name -> the module that builds its rows: ``gridwm_judge.tasks.<config>`` for every
config the task table says is built (a new config's module is found by its name)."""

NOCUE_CONFIGS: tuple[str, ...] = tuple(c for c in BUILT_CONFIGS if task_spec(c).matched)
"""Configs whose rows can show a NoCue variant (their recipe pairs matched variants): their
``build_rows`` take ``nocue_style=`` (``schema.NOCUE_STYLES``) and record it in the
``nocue_style`` column."""


def task_module(config: str) -> ModuleType:
    """The module implementing ``config`` (``task_a`` ... ``task_e``, ``miniworld_c``, ...)."""
    if config not in TASK_MODULES:
        raise ValueError(f"unknown config {config!r}; expected one of {', '.join(TASK_MODULES)}")
    return TASK_MODULES[config]


def build_rows(config: str, groups: Sequence[Any], *, n_items: int | None = None, seed: int,
               **options: Any) -> list[dict]:
    """Rows of ``config`` built from ``groups`` (dispatches to the task module)."""
    return list(task_module(config).build_rows(groups, n_items=n_items, seed=seed, **options))


__all__ = ["NOCUE_CONFIGS", "TASK_MODULES", "build_rows", "task_module"]

"""Task modules: one per task, each turning validated trajectory groups into dataset rows.

Every module exposes ``build_rows(groups, *, n_items=None, seed, **options) -> list[dict]``
returning dicts with exactly the columns of :data:`gridwm_judge.schema.COLUMNS`. Groups are
read through the world seam (``gridwm_judge.world``); options include ``world=`` for the
builders that are not MiniGrid-only (all but Task B).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

from gridwm_judge.tasks import (
    miniworld_a,
    miniworld_c,
    miniworld_c_hard,
    miniworld_d,
    oracle_state,
    prompt_ablation,
    task_a,
    task_b,
    task_c,
    task_c_hard,
    task_d,
    task_e,
)

TASK_MODULES: dict[str, ModuleType] = {
    "task_a": task_a,
    "task_b": task_b,
    "task_c": task_c,
    "task_d": task_d,
    "task_e": task_e,
    "task_c_hard": task_c_hard,
    "miniworld_a": miniworld_a,
    "miniworld_c": miniworld_c,
    "miniworld_d": miniworld_d,
    "miniworld_c_hard": miniworld_c_hard,
    "prompt_ablation": prompt_ablation,
    "oracle_state": oracle_state,
}
"""config name (``task_table.CONFIGS``) -> the module that builds its rows."""

NOCUE_CONFIGS: tuple[str, ...] = (
    "task_c", "task_c_hard", "task_d", "miniworld_c", "miniworld_d", "miniworld_c_hard",
    "prompt_ablation", "oracle_state",
)
"""Configs whose rows can show a NoCue variant: their ``build_rows`` take ``nocue_style=``
(``schema.NOCUE_STYLES``) and record it in the ``nocue_style`` column."""


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

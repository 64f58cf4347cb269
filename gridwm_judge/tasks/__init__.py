"""Task modules: one per task, each turning validated trajectory groups into dataset rows.

Every module exposes ``build_rows(groups, *, n_items=None, seed, **options) -> list[dict]``
returning dicts with exactly the columns of :data:`gridwm_judge.schema.COLUMNS`. Modules are
imported lazily so that importing the package stays cheap and one task's heavy imports do not
slow the others.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from gridwm_judge.schema import CONFIGS

TASK_MODULES = {config: f"gridwm_judge.tasks.{config}" for config in CONFIGS}


def task_module(config: str):
    """The module implementing ``config`` (``task_a`` ... ``task_e``)."""
    if config not in TASK_MODULES:
        raise ValueError(f"unknown config {config!r}; expected one of {', '.join(TASK_MODULES)}")
    return importlib.import_module(TASK_MODULES[config])


def build_rows(config: str, groups: Sequence[Any], *, n_items: int | None = None, seed: int,
               **options: Any) -> list[dict]:
    """Rows of ``config`` built from ``groups`` (dispatches to the task module)."""
    return list(task_module(config).build_rows(groups, n_items=n_items, seed=seed, **options))


__all__ = ["TASK_MODULES", "build_rows", "task_module"]

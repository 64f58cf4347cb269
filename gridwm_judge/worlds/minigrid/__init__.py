"""MiniGrid world: env cards (one spec per family), planner, Full/NoCue/CF groups, validator
gates.

The simulator is the single source of truth for states, actions, events and outcomes; it
knows nothing of images, prompts or judges. Everything it records is JSON-safe, and every
group can be replayed with plain ``gymnasium`` + ``minigrid`` from its audit record.

Importing this package imports neither minigrid nor gymnasium (the task table reads the cards
cheaply); the names below load their module on first use.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "read_groups_jsonl": "audit", "write_groups_jsonl": "audit",
    "CORE_FAMILIES": "cards", "ENV_CARDS": "cards", "FAMILIES": "cards",
    "TASK_E_FAMILIES": "cards", "EnvCard": "cards", "env_short": "cards", "family_of": "cards",
    "get_card": "cards", "GATES": "gates", "build_group": "generate",
    "generate_groups": "generate", "first_pickup": "holding", "identity_label": "holding",
    "status_at": "holding", "OPS": "interventions", "apply_intervention": "interventions",
    "replay_envs": "interventions", "PlanError": "planner", "ACTION_NAMES": "records",
    "TrajectoryGroup": "records",
}
_CORE = {"GenerationResult": "records", "Rollout": "records"}
__all__ = sorted({**_EXPORTS, **_CORE})  # pyright: ignore[reportUnsupportedDunderAll]


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    if name in _CORE:
        return getattr(importlib.import_module(f"gridwm_judge.worlds.core.{_CORE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

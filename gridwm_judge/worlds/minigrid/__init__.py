"""MiniGrid world: env cards, planner, Full/NoCue/CF groups, validator gates.

The simulator is the single source of truth for states, actions, events and outcomes; it
knows nothing of images, prompts or judges. Everything it records is JSON-safe, and every
group can be replayed with plain ``gymnasium`` + ``minigrid`` from its audit record.
"""

from gridwm_judge.worlds.core.records import GenerationResult, Rollout
from gridwm_judge.worlds.minigrid.audit import read_groups_jsonl, write_groups_jsonl
from gridwm_judge.worlds.minigrid.cards import (
    CORE_FAMILIES,
    ENV_CARDS,
    FAMILIES,
    TASK_E_FAMILIES,
    EnvCard,
    env_short,
    family_of,
    get_card,
)
from gridwm_judge.worlds.minigrid.gates import GATES
from gridwm_judge.worlds.minigrid.generate import build_group, generate_groups
from gridwm_judge.worlds.minigrid.holding import first_pickup, identity_label, status_at
from gridwm_judge.worlds.minigrid.interventions import OPS, apply_intervention, replay_envs
from gridwm_judge.worlds.minigrid.planner import PlanError
from gridwm_judge.worlds.minigrid.records import ACTION_NAMES, TrajectoryGroup

__all__ = [
    "ACTION_NAMES",
    "CORE_FAMILIES",
    "ENV_CARDS",
    "FAMILIES",
    "GATES",
    "OPS",
    "TASK_E_FAMILIES",
    "EnvCard",
    "GenerationResult",
    "PlanError",
    "Rollout",
    "TrajectoryGroup",
    "apply_intervention",
    "build_group",
    "env_short",
    "family_of",
    "first_pickup",
    "generate_groups",
    "get_card",
    "identity_label",
    "read_groups_jsonl",
    "replay_envs",
    "status_at",
    "write_groups_jsonl",
]

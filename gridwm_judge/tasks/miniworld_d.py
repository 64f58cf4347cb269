"""MiniWorld Task D (config ``miniworld_d``, task ``MD``): reference-aided Task D on MiniWorld.

The rows are Task D's (:mod:`gridwm_judge.tasks.task_d`: a successful Full reference from
another seed, then the query's Full / NoCue / CF storyboard, under the four conditions), built
from MiniWorld groups with first-person frames and renamed to their own task (``task`` "MD",
uids and item ids ``MD.<group_id>...``). The prompt states the goal
(:func:`gridwm_judge.prompts.miniworld_d_prompt`): one env id can hold different missions
(Sign asks for the box or the key), so groups are batched by (family, env id, mission) and a
query's reference always had the same mission.
"""

from __future__ import annotations

from collections.abc import Sequence

from gridwm_judge.prompts import miniworld_d_prompt
from gridwm_judge.render import DEFAULT_NOCUE_STYLE
from gridwm_judge.schema import VARIANTS
from gridwm_judge.tasks import task_d
from gridwm_judge.tasks.miniworld_c import default_world, rename
from gridwm_judge.tasks.rows import counted_rows
from gridwm_judge.world import Group, World

TASK = "MD"


def mission_batches(groups: Sequence[Group]) -> list[list[Group]]:
    """Groups split by (family, env id, mission), in order of first appearance."""
    batches: dict[tuple[str, str, str], list[Group]] = {}
    for g in groups:
        batches.setdefault((g.family, g.env_id, g.mission), []).append(g)
    return list(batches.values())


def build_rows(
    groups: Sequence[Group],
    *,
    n_items: int | None = None,
    seed: int = 0,
    conditions: Sequence[str] = tuple(task_d.CONDITIONS),
    variants: Sequence[str] = VARIANTS,
    max_frames: int | None = None,
    world: World | None = None,
    nocue_style: str = DEFAULT_NOCUE_STYLE,
) -> list[dict]:
    """MiniWorld Task D rows (order: mission batch, query group, variant, condition)."""
    world = world or default_world()
    missions = {g.group_id: g.mission for g in groups}
    rows: list[dict] = []
    for batch in mission_batches(groups):
        rows += task_d.build_rows(batch, seed=seed, conditions=conditions, variants=variants,
                                  max_frames=max_frames, world=world,
                                  nocue_style=nocue_style)
    for row in rows:
        rename(row, "D", TASK)
        row["prompt"] = miniworld_d_prompt(missions[row["group_id"]], row["framing"])
    return counted_rows(TASK, groups, rows, n_items)


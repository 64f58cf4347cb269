"""MiniWorld Task C (config ``miniworld_c``, task ``MC``): Task C's storyboards on MiniWorld.

The rows are Task C's (:mod:`gridwm_judge.tasks.task_c`: Full / NoCue / CF under the temporal x
visual grid and the three framings, composite and split), built from MiniWorld groups with
first-person frames, then renamed to their own task so scoring and reports keep them apart
from MiniGrid's: ``task`` "MC", uids and item ids ``MC.<group_id>...``, and the prompt says the
panels are first-person 3D views (:func:`gridwm_judge.prompts.miniworld_c_prompt`; it depends
on the group and presentation only, so a group's Full, NoCue and CF prompts stay identical).
"""

from __future__ import annotations

from collections.abc import Sequence

from gridwm_judge.prompts import miniworld_c_prompt
from gridwm_judge.tasks import task_c
from gridwm_judge.tasks.miniworld_view import StoryboardView
from gridwm_judge.tasks.rows import counted_rows, rename
from gridwm_judge.world import Group, World
from gridwm_judge.worlds.miniworld.cards import FAMILIES
from gridwm_judge.worlds.miniworld.render import VIEW_SIZE as _VIEW_SIZE

TASK = "MC"


VIEW_SIZE = _VIEW_SIZE
"""First-person frame size of MiniWorld storyboards (the world's default view, 160x120): Sign's
controller reads the sign from a pose where its word is legible at this size. 224x168 would
double the build time and the Parquet size (1.5 GB for the ``miniworld`` profile)."""


def default_world() -> World:
    """The first-person MiniWorld view, rendering only the frames a storyboard shows."""
    return StoryboardView(size=VIEW_SIZE)


def miniworld_families() -> tuple[str, ...]:
    return FAMILIES


def build_rows(
    groups: Sequence[Group], *, n_items: int | None = None, world: World | None = None, **options
) -> list[dict]:
    """MiniWorld Task C rows: ``options`` (seed, probe sets, representations, variants, frames)
    and the row order are :func:`task_c.build_rows`'s."""
    rows = task_c.build_rows(groups, world=world or default_world(),
                             families=miniworld_families(), **options)
    missions = {g.group_id: g.mission for g in groups}
    for row in rows:
        rename(row, "C", TASK)
        n_split = len(row["images"]) if row["representation"] == "split" else 0
        row["prompt"] = miniworld_c_prompt(missions[row["group_id"]], row["framing"],
                                           reversed_order=row["temporal"] == "rev",
                                           n_split=n_split)
    return counted_rows(TASK, groups, rows, n_items)


rows_per_group = task_c.rows_per_group

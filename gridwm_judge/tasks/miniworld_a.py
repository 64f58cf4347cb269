"""MiniWorld Task A (config ``miniworld_a``, task ``MA``): action-conditioned next view.

Questions, candidates, gold letters and the orig / shuffle / mask action conditions are Task
A's (:mod:`gridwm_judge.tasks.task_a`) on first-person frames: the true next view and three hard
negatives, preferably other steps of the same trajectory. The panel is then redrawn as the
paper's MiniWorld items have it: the current state is the first-person view with the top-down
map below it, the candidates are first-person views only (a map would give the answer away by
the agent's drawn pose). Rows are renamed to their own task (``MA``, uids ``MA.<group_id>...``)
and the prompt says what the pictures are (:data:`gridwm_judge.prompts.MINIWORLD_A`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from gridwm_judge.prompts import MINIWORLD_A
from gridwm_judge.render import choice_panel
from gridwm_judge.schema import ACTION_CONDITIONS
from gridwm_judge.seeds import SAMPLING_SEED
from gridwm_judge.tasks import task_a
from gridwm_judge.tasks.miniworld_c import VIEW_SIZE, rename
from gridwm_judge.tasks.miniworld_view import StoryboardView
from gridwm_judge.world import Group

TASK = "MA"
MAP_SIZE = (VIEW_SIZE[0], VIEW_SIZE[0])


def shown_action(prompt: str) -> str:
    """The action Task A's prompt shows (its first line is ``Action: X.``)."""
    first = prompt.split("\n", 1)[0]
    if not (first.startswith("Action: ") and first.endswith(".")):
        raise ValueError(f"Task A prompt does not open with 'Action: X.': {first!r}")
    return first[len("Action: "):-1]


def build_rows(
    groups: Sequence[Group],
    *,
    n_items: int | None = None,
    seed: int = SAMPLING_SEED,
    action_conditions: Sequence[str] = ACTION_CONDITIONS,
) -> list[dict]:
    """3 rows (one per action condition) per question, as :func:`task_a.build_rows`."""
    view = StoryboardView(size=VIEW_SIZE)
    with_map = StoryboardView(size=VIEW_SIZE, top_size=MAP_SIZE)
    rows = task_a.build_rows(groups, n_items=n_items, seed=seed,
                             action_conditions=action_conditions, world=view)
    by_id = {g.group_id: g for g in groups}
    panels: dict[str, object] = {}
    for row in rows:
        action = shown_action(row["prompt"])
        rename(row, "A", TASK)
        if row["item_id"] not in panels:
            order = json.loads(row["candidate_order"])
            current = with_map.frames(by_id[row["group_id"]], "full")[row["checkpoint"]]
            cands = [view.frames(by_id[c["group_id"]], "full")[c["t"]] for c in order]
            if not np.array_equal(current[:VIEW_SIZE[1]],
                                  view.frames(by_id[row["group_id"]], "full")[row["checkpoint"]]):
                raise RuntimeError(f"{row['uid']}: the current view differs from Task A's")
            panels[row["item_id"]] = choice_panel(current, cands)
        row["images"] = [panels[row["item_id"]]]
        row["prompt"] = MINIWORLD_A.format(action=action)
    return rows

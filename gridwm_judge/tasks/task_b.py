"""Task B: single-frame structured perception, gold JSON read from the simulator.

One row = one full-grid top-down frame of a group's Full rollout at checkpoint ``t``. The
gold answer (``json.dumps(..., sort_keys=True)``) is::

    {"agent": {"pos": [x, y], "dir": "right"|"down"|"left"|"up", "carrying": null | "key_yellow"},
     "front_cell": {"type": str, "color": str | null, "state": "open"|"closed"|"locked"|null},
     "visible_objects": [{"type": str, "color": str, "pos": [x, y]}, ...]}

Coordinates: x = column, y = row, 0-based from the top-left cell of the full grid including
the outer wall. ``dir`` is MiniGrid's agent_dir (0 right, 1 down, 2 left, 3 up).
``front_cell`` is the cell the agent faces (type "empty" with null colour when nothing is
there; walls count as "wall"). ``visible_objects`` lists every non-wall object drawn in the
frame (the full grid is drawn, so all of them, including the one the agent stands on) except
the front cell, sorted by (y, x). The carried object is drawn as a badge on the agent's tile
and reported in ``agent.carrying``, not among the objects.

Checkpoints: each group's Full trajectory is cut into ``k`` equal strata (``k`` = items per
group) and one state is drawn per stratum from a generator seeded by (seed, group), redrawn
when it repeats an agent pose already chosen in the group, so the pose varies across items
(the paper's release had a constant pose, which made position free). Items are taken
round-robin over groups until ``n_items``.

MiniGrid only: the gold is read from the replayed MiniGrid env and the frame is its full
grid, so this builder takes ``worlds.minigrid.TrajectoryGroup`` rather than the world protocol.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from PIL import Image

from gridwm_judge.prompts import TASK_B
from gridwm_judge.render import MINIGRID, GridPainter, rng_from_key, tile_size_for
from gridwm_judge.seeds import SAMPLING_SEED
from gridwm_judge.tasks.rows import checkpoint_row
from gridwm_judge.world import checked_groups
from gridwm_judge.worlds.minigrid.grid import door_state, objects
from gridwm_judge.worlds.minigrid.holding import identity_label
from gridwm_judge.worlds.minigrid.interventions import replay_envs
from gridwm_judge.worlds.minigrid.records import TrajectoryGroup

DIR_NAMES = ("right", "down", "left", "up")
_REDRAWS = 16


def gold_state(env) -> dict[str, Any]:
    """The Task B gold dict of the unwrapped ``env``'s current state."""
    ax, ay = int(env.agent_pos[0]), int(env.agent_pos[1])
    fx, fy = (int(v) for v in env.front_pos)
    carrying = env.carrying
    front = env.grid.get(fx, fy)
    if front is None:
        front_cell = {"type": "empty", "color": None, "state": None}
    else:
        front_cell = {"type": front.type, "color": front.color, "state": door_state(front)}
    shown = [{"type": obj.type, "color": obj.color, "pos": [x, y]}
             for (x, y), obj in objects(env.grid) if obj.type != "wall" and (x, y) != (fx, fy)]
    shown.sort(key=lambda o: (o["pos"][1], o["pos"][0]))
    return {
        "agent": {
            "pos": [ax, ay],
            "dir": DIR_NAMES[int(env.agent_dir)],
            "carrying": None if carrying is None else identity_label(
                {"type": carrying.type, "color": carrying.color}),
        },
        "front_cell": front_cell,
        "visible_objects": shown,
    }


def checkpoints(group: TrajectoryGroup, k: int, seed: int) -> list[int]:
    """``k`` state indices of ``group``'s Full rollout, one per stratum, poses distinct."""
    states = group.full.states
    n = len(states)
    rng = rng_from_key(f"{seed}|B|{group.group_id}", "checkpoints")
    chosen: list[int] = []
    poses: set[tuple] = set()
    for s in range(min(k, n)):
        lo, hi = (s * n) // k, max((s + 1) * n // k, (s * n) // k + 1)
        t = int(rng.integers(lo, hi))
        for _ in range(_REDRAWS):
            pose = (*states[t]["agent_pos"], states[t]["agent_dir"])
            if pose not in poses and t not in chosen:
                break
            t = int(rng.integers(lo, hi))
        if t in chosen:
            continue
        chosen.append(t)
        poses.add((*states[t]["agent_pos"], states[t]["agent_dir"]))
    return chosen


def build_rows(
    groups: Sequence[TrajectoryGroup],
    *,
    n_items: int | None = None,
    seed: int = SAMPLING_SEED,
) -> list[dict]:
    """``n_items`` rows (default 2 per group), round-robin over ``groups``."""
    groups = checked_groups(groups, MINIGRID, "Task B")
    if n_items is None:
        n_items = 2 * len(groups)
    if n_items < 0:
        raise ValueError(f"n_items must be >= 0, got {n_items}")
    per_group = max(1, math.ceil(n_items / len(groups)))
    picks = [checkpoints(g, per_group, seed) for g in groups]
    order = [(gi, p[d]) for d in range(per_group) for gi, p in enumerate(picks) if d < len(p)]
    if len(order) < n_items:
        raise ValueError(
            f"Task B: {len(groups)} groups offer {len(order)} checkpoints; "
            f"cannot make n_items={n_items}"
        )
    wanted: dict[int, list[int]] = {}
    for gi, t in order[:n_items]:
        wanted.setdefault(gi, []).append(t)
    rows: list[dict] = []
    for gi in sorted(wanted):
        g = groups[gi]
        ts = set(wanted[gi])
        frames, golds, painter = {}, {}, None
        # One replay paints only the chosen states and reads their gold from the same env.
        for t, env in enumerate(replay_envs(g.env_id, g.seed, g.actions)):
            if t in ts:
                if painter is None:
                    painter = GridPainter(tile_size_for(env.grid.width, env.grid.height))
                frames[t], golds[t] = painter.paint(env), gold_state(env)
        for t in sorted(ts):
            rows.append(checkpoint_row(
                g, "B", t,
                prompt=TASK_B,
                images=[Image.fromarray(frames[t])],
                answer=json.dumps(golds[t], sort_keys=True),
                visual="clean",
                question="perception",
                frame_indices=json.dumps([t]),
            ))
    return rows

"""Task E: prefix state tracking on UnlockPickup / BlockedUnlockPickup.

A row shows a prefix storyboard of a group's Full rollout: event-anchored keyframes from frame
0 to a checkpoint ``t_c`` that lies strictly before the terminal frame, at or after the first
pickup (so the tracked object has been picked up within the shown prefix), ``t_c`` always the
last panel. Two questions, gold read from the simulator's pickup / drop events
(``gridwm_judge.worlds.minigrid.holding``):

- ``identity``: the first object the agent picked up, label ``<type>_<color>`` (MiniGrid type
  and colour names, e.g. ``key_yellow``, ``ball_green``, ``box_purple``);
- ``status``: that object's status at ``t_c``: ``holding`` (picked up, not dropped since),
  ``dropped`` (on the floor at ``t_c``), ``reacquired_and_holding`` (dropped earlier and held
  again at ``t_c``).

The answer is ``json.dumps({"answer": label})``. Selection: identity checkpoints are drawn
round-robin over groups (each group's eligible checkpoints in a seeded order); status
checkpoints are pooled by status and the status quota is split as evenly as the pools allow,
so all three statuses occur whenever the groups contain them. ``n_identity`` defaults to the
paper's share (136 of 325). uid ``E.{family}.{group_id}.t{t:03d}.{question}``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gridwm_judge.prompts import TASK_E
from gridwm_judge.render import MINIGRID, composite, keyframes, panel_size, rng_from_key, scaled
from gridwm_judge.schema import E_QUESTIONS, E_STATUSES
from gridwm_judge.seeds import SAMPLING_SEED
from gridwm_judge.tasks.rows import checkpoint_row, part_of
from gridwm_judge.world import Group, World, checked_groups
from gridwm_judge.worlds.minigrid.holding import first_pickup, identity_label, status_at

PAPER_SHARE = (136, 325)
"""Identity questions in the paper's base release: 136 of 325."""


def eligible(group: Group) -> list[tuple[int, str]]:
    """(t_c, status) for every checkpoint from the first pickup to the frame before terminal."""
    first = first_pickup(group.full)
    if first is None:
        return []
    out = []
    for t in range(int(first["t"]), len(group.full.states) - 1):
        status = status_at(group.full, t)
        assert status is not None  # every state from the first pickup on has one
        out.append((t, status))
    return out


def _round_robin(queues: list[list[tuple[int, int]]], n: int) -> list[tuple[int, int]]:
    out, depth = [], 0
    while len(out) < n and any(depth < len(q) for q in queues):
        for q in queues:
            if depth < len(q) and len(out) < n:
                out.append(q[depth])
        depth += 1
    return out


def _quotas(n: int, available: dict[str, int]) -> dict[str, int]:
    """Split n over statuses as evenly as the availability allows (water filling)."""
    quota = {s: 0 for s in available}
    left = n
    while left > 0:
        open_ = [s for s in E_STATUSES if s in available and quota[s] < available[s]]
        if not open_:
            break
        for s in open_:
            if left == 0:
                break
            quota[s] += 1
            left -= 1
    return quota


def select(groups: Sequence[Group], n_identity: int, n_status: int, seed: int):
    """[(group index, t_c, question)] for the requested counts, or a ValueError."""
    id_queues, status_queues = [], {s: [] for s in E_STATUSES}
    for gi, g in enumerate(groups):
        cps = eligible(g)
        rng = rng_from_key(f"{seed}|E|{g.group_id}", "checkpoints")
        order = [cps[k] for k in rng.permutation(len(cps))]
        id_queues.append([(gi, t) for t, _ in order])
        for s in E_STATUSES:
            status_queues[s].append([(gi, t) for t, st in order if st == s])
    identity = _round_robin(id_queues, n_identity)
    avail = {s: sum(len(q) for q in qs) for s, qs in status_queues.items()}
    quota = _quotas(n_status, avail)
    status = [p for s in E_STATUSES for p in _round_robin(status_queues[s], quota[s])]
    if len(identity) < n_identity or len(status) < n_status:
        raise ValueError(
            f"Task E: {len(groups)} groups offer {sum(len(q) for q in id_queues)} identity and "
            f"{sum(avail.values())} status checkpoints {avail}; cannot make "
            f"{n_identity} identity + {n_status} status items"
        )
    return [(gi, t, "identity") for gi, t in identity] + [(gi, t, "status") for gi, t in status]


def build_rows(
    groups: Sequence[Group],
    *,
    n_items: int | None = None,
    seed: int = SAMPLING_SEED,
    n_identity: int | None = None,
    max_frames: int = 8,
    world: World = MINIGRID,
    part: tuple[int, int] = (0, 1),
) -> list[dict]:
    """``n_items`` rows (identity + status); default: every eligible checkpoint, both questions.

    Frames come from ``world`` (default MiniGrid); the gold from the groups' pickup / drop events.
    ``part`` (k, n): only the rows of the k-th of n contiguous slices of the questions
    (:func:`part_of`).
    """
    groups = checked_groups(groups, world, "Task E")
    if n_items is None:
        total = sum(len(eligible(g)) for g in groups)
        n_items, n_identity = 2 * total, total
    if n_identity is None:
        n_identity = round(n_items * PAPER_SHARE[0] / PAPER_SHARE[1])
    if not 0 <= n_identity <= n_items:
        raise ValueError(f"n_identity={n_identity} must lie in 0..n_items={n_items}")
    chosen = select(groups, n_identity, n_items - n_identity, seed)
    rows: list[dict] = []
    boards: dict[tuple[int, int], tuple[Any, tuple[int, ...]]] = {}
    panels: dict[tuple, Any] = {}  # (group, state, size) -> scaled frame, shared by boards
    ordered = sorted(chosen, key=lambda c: (c[0], c[1], E_QUESTIONS.index(c[2])))
    for gi, t, question in part_of(ordered, part):
        g = groups[gi]
        if (gi, t) not in boards:
            idx = keyframes(g, max_frames, end=t)
            frames = world.frames(g, "full")
            size = panel_size(frames[0].shape[1], frames[0].shape[0], len(idx))
            for i in idx:
                if (gi, i, size) not in panels:
                    panels[(gi, i, size)] = scaled(frames[i], size)
            boards[(gi, t)] = (composite([panels[(gi, i, size)] for i in idx]), idx)
        image, idx = boards[(gi, t)]
        if question == "identity":
            first = first_pickup(g.full)
            assert first is not None  # only groups with a pickup have checkpoints
            label = identity_label(first["obj"])
        else:
            label = status_at(g.full, t)
        rows.append(checkpoint_row(
            g, "E", t, question,
            prompt=TASK_E[question],
            images=[image],
            answer=json.dumps({"answer": label}),
            temporal="orig",
            visual="clean",
            representation="composite",
            question=question,
            frame_indices=json.dumps(list(idx)),
        ))
    return rows

"""Task A: action-conditioned next state (C2), four candidate next frames in one panel.

A question is one transition t -> t+1 of a group's Full rollout whose frames differ (no-op
transitions, e.g. turning into nothing or toggling a wall, are excluded). The panel shows the
current frame on the left and four lettered candidates on the right: the true next frame and
three hard negatives, preferably other timesteps of the same trajectory (nearest in time
first, a seeded pick among the closest), else frames of other groups (same frame size
first, then same env id, then same family; each group's frame at the same step first, then
the steps next to it). No candidate is pixel-identical
to another candidate, and no distractor to the current frame (such a frame is skipped and the
next time step or group drawn): a "least change" rule would discard it without reading the
action. The gold never equals the current frame either, since no-op transitions are not
asked: there the unchanged frame would be the answer and a "no change" rule would find it
by pixels alone. Gold letters are balanced over the selected questions and
within each family (:func:`balanced_gold_slots`): every letter is gold for n/4 questions (+-1)
of the config and of each family.

Each question becomes three rows sharing the same panel: ``orig`` (the true action),
``shuffle`` (a different action of MiniGrid's action space, seeded by the question) and
``mask`` (``Action: unknown``). Questions are drawn round-robin over the groups in the order
given (each group's transitions in a seeded order), so ``n_items`` questions spread evenly.

uid ``A.{family}.{group_id}.q{t:03d}.{action_condition}`` where ``t`` is the current state's
index; ``item_id`` drops the condition.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gridwm_judge.prompts import TASK_A, TASK_A_MASKED_ACTION
from gridwm_judge.render import MINIGRID, choice_panel, rng_from_key
from gridwm_judge.schema import ACTION_CONDITIONS
from gridwm_judge.seeds import SAMPLING_SEED
from gridwm_judge.tasks.rows import base_row, part_of
from gridwm_judge.world import Group, World, checked_groups

LETTERS = ("A", "B", "C", "D")
NEAREST_POOL = 5
"""Same-trajectory negatives are drawn from this many distinct frames nearest in time."""


def frame_digest(frame: np.ndarray) -> bytes:
    """A frame's pixels as a short key: candidate frames that look alike share it."""
    return hashlib.blake2b(np.ascontiguousarray(frame).tobytes(), digest_size=16).digest()


@dataclass(frozen=True)
class Candidate:
    group_index: int
    t: int
    source: str  # gold / same_trajectory / other_trajectory


class _Frames:
    """Frame digests of every group's Full rollout (frames themselves come from the world's
    render cache on demand, so memory stays bounded however many groups there are)."""

    def __init__(self, groups: Sequence[Group], world: World):
        self.groups = groups
        self.world = world
        self.digests = []
        self.transitions = []
        self.shapes = []  # frame shape per group (frames are cropped per group)
        for g in groups:
            frames = self.frames(len(self.digests))
            self.digests.append([frame_digest(f) for f in frames])
            self.transitions.append(transitions(g, frames))
            self.shapes.append(frames[0].shape)

    def frames(self, gi: int) -> Sequence[np.ndarray]:
        return self.world.frames(self.groups[gi], "full")

    def frame(self, gi: int, t: int) -> np.ndarray:
        return self.frames(gi)[t]


def transitions(group: Group, frames: Sequence[np.ndarray]) -> list[int]:
    """Indices t whose transition t -> t+1 changes the picture (no-ops excluded)."""
    states = group.full.states
    return [
        t for t in range(len(frames) - 1)
        if states[t] != states[t + 1] and not np.array_equal(frames[t], frames[t + 1])
    ]


def _negatives(gi: int, t: int, groups, fr: _Frames, rng: np.random.Generator) -> list[Candidate]:
    # Neither the gold nor the current frame may be a distractor: a candidate equal to the
    # current frame is the wrong answer a "pick the frame that changed least, ignore the
    # action" rule can discard without reading the action.
    excluded = {fr.digests[gi][t + 1], fr.digests[gi][t]}
    taken = set(excluded)
    near: list[int] = []
    for s in sorted(range(len(fr.digests[gi])), key=lambda s: (abs(s - (t + 1)), s)):
        d = fr.digests[gi][s]
        if s != t + 1 and d not in taken:
            taken.add(d)
            near.append(s)
        if len(near) == NEAREST_POOL:
            break
    picks = sorted(rng.choice(len(near), size=min(3, len(near)), replace=False).tolist())
    out = [Candidate(gi, near[k], "same_trajectory") for k in picks]
    if len(out) < 3:
        g = groups[gi]
        # A frame of another size would stand out by its shape alone: same shape first, then
        # same env id, then same family; within that, each group's frame at step t+1 (or its
        # last) before the steps next to it, so a skipped frame is replaced by a neighbouring
        # step of a group like the question's rather than by a frame of another shape.

        def preference(h: int, s: int) -> tuple:
            s0 = min(t + 1, len(fr.digests[h]) - 1)
            return (fr.shapes[h] != fr.shapes[gi], groups[h].env_id != g.env_id,
                    groups[h].family != g.family, abs(s - s0), h, s)

        others = sorted(
            ((h, s) for h in range(len(groups)) if h != gi for s in range(len(fr.digests[h]))),
            key=lambda hs: preference(*hs),
        )
        taken = excluded | {fr.digests[c.group_index][c.t] for c in out}
        for h, s in others:
            d = fr.digests[h][s]
            if d not in taken:
                taken.add(d)
                out.append(Candidate(h, s, "other_trajectory"))
            if len(out) == 3:
                break
    return out


def _select(groups, fr: _Frames, n_items: int | None, seed: int) -> list[tuple[int, int]]:
    queues = []
    for gi, g in enumerate(groups):
        ts = fr.transitions[gi]
        order = rng_from_key(f"{seed}|A|{g.group_id}", "order").permutation(len(ts))
        queues.append([ts[k] for k in order])
    available = sum(len(q) for q in queues)
    if n_items is None:
        n_items = available
    if n_items < 0 or n_items > available:
        raise ValueError(
            f"Task A: {len(groups)} groups offer {available} non-trivial transitions; "
            f"cannot make n_items={n_items}"
        )
    chosen: list[tuple[int, int]] = []
    depth = 0
    while len(chosen) < n_items:
        for gi, q in enumerate(queues):
            if depth < len(q) and len(chosen) < n_items:
                chosen.append((gi, q[depth]))
        depth += 1
    return chosen


def check_action_conditions(action_conditions: Sequence[str]) -> None:
    bad = [c for c in action_conditions if c not in ACTION_CONDITIONS]
    if bad or not action_conditions:
        raise ValueError(
            f"bad action_conditions {bad or list(action_conditions)!r}; "
            f"expected a non-empty subset of {', '.join(ACTION_CONDITIONS)}"
        )


def balanced_gold_slots(strata: Sequence[str], seed: int) -> np.ndarray:
    """The gold letter's position per question (``strata``: each question's family): each of
    the four equally often (up to one) within every family and overall, in a seeded order, so
    no letter is a better guess than another, for the whole config or any family of it.

    The cycle A, B, C, D runs on from one family to the next (families in sorted order), so
    the families' remainders fall on different letters; each family's share is then permuted.
    """
    rng = np.random.default_rng(seed)
    slots = np.empty(len(strata), dtype=np.int64)
    start = 0
    for family in sorted(set(strata)):
        idx = [i for i, s in enumerate(strata) if s == family]
        cycle = np.arange(start, start + len(idx)) % 4
        slots[idx] = cycle[rng.permutation(len(idx))]
        start += len(idx)
    return slots


def build_rows(
    groups: Sequence[Group],
    *,
    n_items: int | None = None,
    seed: int = SAMPLING_SEED,
    action_conditions: Sequence[str] = ACTION_CONDITIONS,
    world: World = MINIGRID,
    part: tuple[int, int] = (0, 1),
) -> list[dict]:
    """3 rows (one per action condition) for each of ``n_items`` questions (all when None).

    Frames and the action vocabulary come from ``world`` (default MiniGrid). ``part`` (k, n):
    only the rows of the k-th of n contiguous slices of the questions (:func:`part_of`).
    """
    check_action_conditions(action_conditions)
    groups = checked_groups(groups, world, "Task A")
    fr = _Frames(groups, world)
    chosen = _select(groups, fr, n_items, seed)
    gold_slots = balanced_gold_slots([groups[gi].family for gi, _ in chosen], seed)
    rows: list[dict] = []
    # Questions are built group by group (so each group's frames are rendered once); the
    # gold letter stays tied to the question's place in the selection order.
    for (gi, t), slot in part_of(sorted(zip(chosen, gold_slots.tolist(), strict=True)), part):
        g = groups[gi]
        key = f"{seed}|A|{g.group_id}|{t}"
        negs = _negatives(gi, t, groups, fr, rng_from_key(key, "negatives"))
        if len(negs) < 3:
            raise ValueError(f"Task A: no 3 distinct negatives for {g.group_id} t={t}")
        cands = list(negs)
        cands.insert(slot, Candidate(gi, t + 1, "gold"))
        panel = choice_panel(fr.frame(gi, t), [fr.frame(c.group_index, c.t) for c in cands])
        action = g.action_names[t]
        others = [a for a in world.action_names if a != action]
        shuffled = others[int(rng_from_key(key, "shuffle").integers(len(others)))]
        shown_action = {"orig": action, "shuffle": shuffled, "mask": TASK_A_MASKED_ACTION}
        order = [
            {"letter": LETTERS[k], "group_id": groups[c.group_index].group_id, "t": c.t,
             "source": c.source, "gold": c.source == "gold"}
            for k, c in enumerate(cands)
        ]
        item_id = f"A.{g.group_id}.q{t:03d}"
        for cond in action_conditions:
            row = base_row(g)
            row.update(
                uid=f"{item_id}.{cond}",
                task="A",
                item_id=item_id,
                prompt=TASK_A.format(action=shown_action[cond]),
                images=[panel],
                answer=LETTERS[slot],
                visual="clean",
                action_condition=cond,
                action=action,
                candidate_order=json.dumps(order, sort_keys=True),
                frame_indices=json.dumps([t] + [c.t for c in cands]),
                checkpoint=int(t),
            )
            rows.append(row)
    return rows

"""How MiniGrid's NoCue hides its targets in the pictures, and what that costs Full and CF.

NoCue's mask spec (``worlds.minigrid.nocue.build_mask``, the ``mask`` of the group's NoCue
rollout) says *which* target tiles are hidden in *which* frames. A NoCue style says *how*
(``--nocue-style``):

- ``occlude`` (the paper's style, kept to rebuild its items): an opaque grey square on every
  masked tile; Full and CF carry no mark. A mark only NoCue shows predicts NoCue's label.
- ``clean`` (the default): no mark that only one variant shows. Per target type
  (:data:`TARGET_RULE`): a key, ball or box (and the goal, a floor-like tile) is **erased**,
  drawn exactly as the empty floor tile would be (agent untouched), so it is simply absent.
  A door, wall or lava cell cannot be erased without changing the world's shape (a hole in a
  wall, a gap with no lava), so its mark is **balanced**: NoCue keeps the grey square on the
  target, and Full and CF get the same squares (same count and arrangement, the target pattern
  translated) on wall cells away from every target, in the same frames. Every variant of a
  group then shows the same kind of mark in the same frames.

Everything here is symbolic (cells and frame indices); ``render.frames`` paints it and
``tasks.oracle_state`` tells it in its state tables. The decoy cells are fixed per group: the
translation is drawn from the group's identity among the valid ones.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from gridwm_judge.render.probes import rng_from_key
from gridwm_judge.schema import DEFAULT_NOCUE_STYLE, NOCUE_STYLES
from gridwm_judge.world import Group, rollout_of
from gridwm_judge.worlds.minigrid.grid import objects
from gridwm_judge.worlds.minigrid.interventions import replay_envs

__all__ = ["BALANCE", "DEFAULT_NOCUE_STYLE", "ERASE", "TARGET_RULE", "FrameMark", "check_style",
           "mark_spec", "marks_by_frame", "rule_of", "style_rules", "variant_marks"]

ERASE, BALANCE = "erase", "balance"
TARGET_RULE: dict[str, str] = {
    "key": ERASE, "ball": ERASE, "box": ERASE, "goal": ERASE,
    "door": BALANCE, "wall": BALANCE, "lava": BALANCE,
}
"""NoCue target type -> how the ``clean`` style hides it (the card states this table)."""
TARGET_REASON: dict[str, str] = {
    ERASE: "drawn exactly as MiniGrid's empty floor tile (the object is simply absent; the "
           "agent is untouched)",
    BALANCE: "erasing would change the world's shape, so NoCue keeps a grey square on the "
             "target and its Full and CF twins carry the same squares on wall cells away "
             "from the target, in the same frames",
}

Cell = tuple[int, int]


@dataclass(frozen=True)
class FrameMark:
    """What one frame draws over the world: ``erase`` cells are drawn as empty floor,
    ``occlude`` cells are covered by the opaque grey square."""

    t: int
    erase: tuple[Cell, ...] = ()
    occlude: tuple[Cell, ...] = ()


def check_style(style: str) -> str:
    """``style`` itself; an unknown one is a ValueError listing the valid ones."""
    if style not in NOCUE_STYLES:
        raise ValueError(f"unknown NoCue style {style!r}; expected one of "
                         f"{', '.join(NOCUE_STYLES)}")
    return style


def rule_of(target_type: str) -> str:
    """:data:`TARGET_RULE` of a target type; an unknown type is a ValueError."""
    if target_type not in TARGET_RULE:
        raise ValueError(f"no NoCue rule for target type {target_type!r}; expected one of "
                         f"{', '.join(TARGET_RULE)}")
    return TARGET_RULE[target_type]


def _cells(tiles: Iterable[Iterable[int]]) -> tuple[Cell, ...]:
    return tuple(sorted(((int(x), int(y)) for x, y in tiles), key=lambda c: (c[1], c[0])))


def _split(group: Group) -> tuple[tuple[int, tuple[Cell, ...], tuple[Cell, ...]], ...]:
    """Per NoCue mask entry: (t, cells to erase, cells to occlude) by :data:`TARGET_RULE`."""
    out = []
    for entry in group.nocue.mask:
        t = int(entry["t"])
        types = {(int(o["pos"][0]), int(o["pos"][1])): o["type"]
                 for o in group.nocue.states[t]["objects"]}
        erase, occlude = [], []
        for cell in _cells(entry["tiles"]):
            if cell not in types:
                raise ValueError(f"{group.group_id}: NoCue mask tile {cell} at t={t} holds "
                                 "no object")
            (erase if rule_of(types[cell]) == ERASE else occlude).append(cell)
        out.append((t, tuple(erase), tuple(occlude)))
    return tuple(out)


def _walls(group: Group, variant: str) -> frozenset[Cell]:
    intervention = json.dumps(list(rollout_of(group, variant).intervention), sort_keys=True)
    return _reset_walls(group.env_id, int(group.seed), intervention)


@lru_cache(maxsize=1024)
def _reset_walls(env_id: str, seed: int, intervention: str) -> frozenset[Cell]:
    """The wall cells of the grid after reset(seed) and the intervention (JSON)."""
    env = next(iter(replay_envs(env_id, seed, (), json.loads(intervention))))
    return frozenset((int(x), int(y)) for (x, y), o in objects(env.grid) if o.type == "wall")


def _decoy_shift(group: Group, pattern: tuple[Cell, ...]) -> Cell:
    """The translation that moves ``pattern`` (the balanced target cells) onto decoy cells.

    Valid: every moved cell is a wall in the reset grid of Full and of CF (after its
    intervention; walls never move), so it covers no agent, object, door, goal or lava, and
    is not next to a target cell (8-neighbourhood); when no translation keeps that distance,
    cells merely off the targets are allowed. One valid translation is drawn from the group's
    identity; none at all is a ValueError naming the group.
    """
    walls = _walls(group, "full") & _walls(group, "cf")
    targets = {tuple(p) for e in group.nocue.mask for p in e["tiles"]}
    near = {(x + dx, y + dy) for x, y in targets for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
    xs = [x for x, _ in walls]
    ys = [y for _, y in walls]
    shifts = [(dx, dy) for dx in range(min(xs) - max(x for x, _ in pattern),
                                       max(xs) - min(x for x, _ in pattern) + 1)
              for dy in range(min(ys) - max(y for _, y in pattern),
                              max(ys) - min(y for _, y in pattern) + 1)
              if (dx, dy) != (0, 0)]
    for banned in (near, targets):
        ok = [s for s in shifts
              if all((x + s[0], y + s[1]) in walls and (x + s[0], y + s[1]) not in banned
                     for x, y in pattern)]
        if ok:
            i = int(rng_from_key(group.group_id, "nocue-decoy").integers(len(ok)))
            return ok[i]
    raise ValueError(f"{group.group_id}: no wall cells can carry NoCue's balanced mark "
                     f"{list(pattern)} in Full and CF")


def variant_marks(group: Group, variant: str, style: str | None) -> tuple[FrameMark, ...]:
    """The marks ``variant``'s frames draw under ``style`` (None: none at all, the
    simulator's own frames), one :class:`FrameMark` per marked frame, by frame index."""
    rollout_of(group, variant)  # an unknown variant is an error here too
    if style is None:
        return ()
    check_style(style)
    if style == "occlude":
        if variant != "nocue":
            return ()
        return tuple(FrameMark(int(e["t"]), occlude=_cells(e["tiles"]))
                     for e in group.nocue.mask)
    split = _split(group)
    if variant == "nocue":
        return tuple(FrameMark(t, erase, occlude) for t, erase, occlude in split
                     if erase or occlude)
    pattern = _cells({c for _, _, occlude in split for c in occlude})
    if not pattern:
        return ()
    dx, dy = _decoy_shift(group, pattern)
    n = len(rollout_of(group, variant).states)
    return tuple(FrameMark(t, occlude=_cells((x + dx, y + dy) for x, y in occlude))
                 for t, _, occlude in split if occlude and t < n)


def marks_by_frame(marks: Iterable[FrameMark]) -> dict[int, FrameMark]:
    """``marks`` keyed by frame index."""
    return {m.t: m for m in marks}


def mark_spec(marks: Iterable[FrameMark], style: str | None) -> list[dict]:
    """The ``mask`` audit value of a row: under ``occlude`` NoCue's mask spec as the
    simulator records it (``{"t", "tiles"}``); under ``clean`` each marked frame's
    ``{"t", "erase", "occlude"}`` cells (Full and CF: the balancing squares)."""
    if style == "occlude":
        return [{"t": m.t, "tiles": [list(c) for c in m.occlude]} for m in marks]
    return [{"t": m.t, "erase": [list(c) for c in m.erase],
             "occlude": [list(c) for c in m.occlude]} for m in marks]


def style_rules() -> Mapping[str, str]:
    """The ``clean`` rules in words, keyed by the target types each applies to ("key, ball,
    box, goal"), from :data:`TARGET_RULE` (for the dataset card)."""
    return {", ".join(t for t, r in TARGET_RULE.items() if r == rule): f"{rule}d, "
            f"{TARGET_REASON[rule]}" for rule in dict.fromkeys(TARGET_RULE.values())}

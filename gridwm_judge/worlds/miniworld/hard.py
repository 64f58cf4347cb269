"""Hard counterfactuals of the MiniWorld families: the target stays in the world and
is seen along the CF's walk, so no rule that reads a first frame or what never appears can
tell the CF from Full; only where things are and what the agent does with them can.

Full and NoCue are built exactly as for the paper's CF (``variants.build_group``); only the CF
op and two extra gates differ:

- TMaze: the box moves to the *other* arm, to the floor point from which the walk sees it in
  the most frames (through the opening at the junction); the same actions turn into the empty
  arm and end facing a wall.
- FourRooms: the box moves to another room, to the floor point off the walk's path (farther
  than touching + ``APPROACH``) seen in the most frames (through a doorway or across its own
  room); the same walk ends where the box was, in front of nothing.
- PutNext: the yellow box moves off the carrying path (out of reach) to the point seen in the
  most frames; the red box is picked up, carried and dropped at the same spot, next to nothing.
- Sign: the paper CF's swap (the target with the same-shape object of another colour away from
  the walk) already keeps the first frame's objects and colours; the hard CF takes, of the
  swaps the walk never comes near, the one whose target is seen in the most frames, and gate
  H2 rejects a seed whose swapped target is never seen.

Gates beyond the paper's (``gates.GATES``): H1 the CF's first state holds the same multiset of
(kind, colour) entities as Full's; H2 the target covers at least the card's ``see_area`` (and
``MIN_AREA``) of at least one CF first-person frame, measured like the NoCue areas
(``render.entity_area`` at MiniWorld's 80x60 observation size, occlusion included). A seed
with no such op is rejected under the pseudo-gate "cf_op" with the reason, and the next drawn.

A storyboard shows only some frames (``render.keyframes``: Full's event frames, the same
indices for a CF as long as Full). ``shown`` (a function of the group) names them: the op choice
then ranks placements by sightings in those frames first, and H2 asks for one there. Without it
(the default) any frame of the CF's walk counts; this world does not import the render layer.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Callable, Iterable

import numpy as np

from gridwm_judge.worlds.core.draw import (
    HARD_SUFFIX,
    ExtraGate,
    SeedOutcome,
    extra_outcome,
    gate_outcome,
)
from gridwm_judge.worlds.core.records import GenerationResult
from gridwm_judge.worlds.miniworld.backend import reset_env, without_observations
from gridwm_judge.worlds.miniworld.cards import WorldCard
from gridwm_judge.worlds.miniworld.counterfactual import NoCounterfactual, _clearance, _path
from gridwm_judge.worlds.miniworld.gates import GATES, run_gates
from gridwm_judge.worlds.miniworld.outcome import outcome_views
from gridwm_judge.worlds.miniworld.planner import is_free
from gridwm_judge.worlds.miniworld.records import MiniWorldGroup
from gridwm_judge.worlds.miniworld.render import entity_area
from gridwm_judge.worlds.miniworld.states import APPROACH, MIN_AREA
from gridwm_judge.worlds.miniworld.variants import SeedRejected, build_group, pooled_draw

HARD_GATES: tuple[str, ...] = ("H1", "H2")
ALL_GATES: tuple[str, ...] = GATES + HARD_GATES
"""The gates a hard group passes, in report order."""

HARD_CF: dict[str, str] = {
    "tmaze": "move the box into the other arm, where the walk sees it through the junction; "
             "the same actions turn into the empty arm",
    "fourrooms": "move the box into another room, off the walk's path, where the walk sees it "
                 "(through a doorway or across the room); the same walk ends in front of "
                 "nothing",
    "putnext": "move the yellow box off the carrying path (out of reach) where the walk sees "
               "it; the red box is dropped next to nothing",
    "sign": "the paper CF's swap (target <-> same-shape object of another colour away from the "
            "walk), kept only where the swapped target is seen; the walk touches the wrong "
            "colour",
}
"""The hard CF of each family and why it fails (one line each, for the config's card)."""

TMAZE_ARMS_X, TMAZE_HALL_HALF = 8.0, 2.0
"""TMaze's layout (miniworld ``TMaze._gen_world``): the arms' room starts at x = 8 and the
hallway spans |z| <= 2, so the other arm is x >= 8 and |z| past 2 on the side the box is not."""

FOURROOMS_ROOMS = 4
"""FourRooms adds its four rooms first; ``connect_rooms`` then appends the doorway passages
between them as rooms of their own (a box there would block a doorway)."""

MOVE_GRID = {"tmaze": 0.5, "fourrooms": 1.0, "putnext": 1.0}
"""Spacing (m) of the floor points tried for a moved target: every point is replayed and
rendered, so the open rooms use a coarser grid than TMaze's narrow arm."""


def see_threshold(card: WorldCard) -> float:
    return max(card.see_area, MIN_AREA)


def first_objects(run) -> Counter:
    """(kind, colour) of every entity but the agent in ``run``'s first state."""
    return Counter((e["kind"], e["color"]) for e in run.states[0]["entities"]
                   if e["kind"] != "agent")


def target_areas(card: WorldCard, env_kwargs: dict, seed: int, actions, ops,
                 index: int) -> dict[int, float]:
    """Frame -> share of the first-person view (80x60) entity ``index`` covers, for every
    frame where it covers any, replaying ``actions`` after ``ops`` until the episode ends."""
    env, u = reset_env(card.env_id, env_kwargs, seed, ops, card.settable_attrs, card.step_limit)
    out: dict[int, float] = {}

    def look(t: int) -> None:
        a = entity_area(u, index)
        if a > 0:
            out[t] = round(a, 6)

    look(0)
    for t, a in enumerate(actions, 1):
        with without_observations(u):
            _, _, term, trunc, _ = env.step(int(a))
        look(t)
        if term or trunc:
            break
    return out


def sightings_all(card: WorldCard, env_kwargs: dict, seed: int, run, index: int
                  ) -> dict[int, float]:
    """``target_areas`` of ``run``'s own frames (its intervention applied)."""
    return target_areas(card, env_kwargs, seed, run.actions[:len(run.states) - 1],
                        run.intervention, index)


def sightings(card: WorldCard, env_kwargs: dict, seed: int, run, index: int) -> dict[int, float]:
    """Frames of ``run`` (its intervention applied) where entity ``index`` counts as seen."""
    thr = see_threshold(card)
    return {t: a for t, a in sightings_all(card, env_kwargs, seed, run, index).items()
            if a >= thr}


def _region(family: str, u, ent, x: float, z: float) -> bool:
    """Whether (x, z) is where the family's hard CF may put the target."""
    if family == "tmaze":   # the other arm, past the hallway's side walls
        return (x >= TMAZE_ARMS_X and z * float(ent.pos[2]) < 0
                and abs(z) >= TMAZE_HALL_HALF + ent.radius)
    if family == "fourrooms":   # another of the four rooms, not a doorway between two
        rooms = u.rooms[:FOURROOMS_ROOMS]
        here = [r for r in rooms if r.point_inside(np.array([x, 0.0, z]))]
        home = [r for r in rooms if r.point_inside(ent.pos)]
        return bool(here) and here[0] is not (home[0] if home else None)
    return True


def _move_candidates(card: WorldCard, u, roles: dict[str, int], full) -> list[dict]:
    i = roles["target"]
    ent = u.entities[i]
    pts = _path(full, card.family == "putnext")
    need = ent.radius + u.agent.radius + APPROACH
    step = MOVE_GRID[card.family]
    out = []
    k = 1
    while u.min_x + k * step < u.max_x:
        x = round(u.min_x + k * step, 4)
        j = 1
        while u.min_z + j * step < u.max_z:
            z = round(u.min_z + j * step, 4)
            j += 1
            if not _region(card.family, u, ent, x, z):
                continue
            if not is_free(u, x, z, ent.radius + 0.05, ignore=(ent,)):
                continue
            c = _clearance((x, z), pts)
            if c >= need:
                out.append({"ops": [{"op": "move_entity", "index": i,
                                     "pos": [float(x), 0.0, float(z)]}], "clearance": c})
        k += 1
    return out


def _swap_candidates(card: WorldCard, u, roles: dict[str, int], full) -> list[dict]:
    i = roles["target"]
    pts = _path(full, False)[:-1]
    s0 = full.states[0]["entities"]
    out = []
    for j, e in enumerate(s0):
        if e["kind"] != s0[i]["kind"] or j == i:
            continue
        c = _clearance(tuple(e["pos"][::2]), pts)
        if c >= e["radius"] + u.agent.radius + 1.1 * u.max_forward_step:
            out.append({"ops": [{"op": "swap_entities", "a": i, "b": j}], "clearance": c})
    return out


FULL_SIDE = ("D5", "E1", "N1", "V1")
"""Gates that Full and NoCue alone can fail (V1 on Full's last frame): checked before the CF
search, which replays and renders every placement, so a seed they reject costs no search."""


class FullSideRejected(SeedRejected):
    """Full / NoCue fail gates before any CF is chosen; ``reasons``: gate -> reason."""

    def __init__(self, reasons: dict[str, str]):
        super().__init__(next(iter(reasons)), "; ".join(reasons.values()))
        self.reasons = reasons


def _full_side_gates(card: WorldCard, draft: MiniWorldGroup) -> None:
    """Raise FullSideRejected naming every gate of ``FULL_SIDE`` that Full / NoCue fail, with
    the reasons the gates give (V1: Full's last frame only; the CF's is checked later)."""
    full_only = dataclasses.replace(card, cf_shows=())
    views = outcome_views(full_only, draft.roles, draft.env_kwargs, draft.seed, draft.full,
                          draft.full)
    ok, why = run_gates(full_only, draft.roles, draft.full, draft.nocue, draft.full, views)
    failed = {g: why[g] for g in FULL_SIDE if not ok[g]}
    if failed:
        raise FullSideRejected(failed)


Shown = Callable[[MiniWorldGroup], Iterable[int]]
"""The CF frames a judge is shown, e.g. ``lambda g: render.keyframes.keyframes(g, variant="cf")``
(the storyboard's); None: every frame of the rollout."""


def _count(areas: dict[int, float], thr: float, frames=None) -> int:
    return sum(a >= thr and (frames is None or t in frames) for t, a in areas.items())


def hard_cf_ops(card: WorldCard, u, draft: MiniWorldGroup, shown: Shown | None = None
                ) -> list[dict]:
    """The hard CF's ops for ``draft`` (Full and NoCue built, Full in the CF's place; ``u`` the
    freshly reset env): of the family's candidate ops, the one whose target is seen in the most
    shown frames (``shown(draft)``: a CF as long as Full shows the same frames), then in the
    most frames of the walk, then the one farthest from the walk (then the first tried);
    NoCounterfactual when there is no candidate or none shows the target."""
    roles, full = draft.roles, draft.full
    _full_side_gates(card, draft)
    if card.family == "sign":
        cands = _swap_candidates(card, u, roles, full)
    elif card.family in MOVE_GRID:
        cands = _move_candidates(card, u, roles, full)
    else:
        raise ValueError(f"unknown MiniWorld family {card.family!r}")
    if not cands:
        raise NoCounterfactual("no free floor point (or swap) keeps the target off the walk")
    thr = see_threshold(card)
    frames = None if shown is None else set(shown(draft))
    best, best_key = None, None
    for c in cands:
        areas = target_areas(card, draft.env_kwargs, draft.seed, full.actions, c["ops"],
                             roles["target"])
        key = (_count(areas, thr, frames), _count(areas, thr), c["clearance"])
        if best_key is None or key > best_key:
            best, best_key = c, key
    if best is None or best_key is None or best_key[0] == 0:
        where = "a frame" if frames is None else f"a shown frame {sorted(frames)}"
        raise NoCounterfactual(f"the target is seen (>= {thr:.1%} of {where}) from none of "
                               f"{len(cands)} placements off the walk")
    return best["ops"]


def h1_reason(full, cf) -> str | None:
    a, b = first_objects(full), first_objects(cf)
    if a == b:
        return None
    return (f"CF's first state holds {sorted((b - a).elements())} instead of "
            f"{sorted((a - b).elements())}")


def h2_reason(card: WorldCard, group: MiniWorldGroup, shown: Shown | None = None) -> str | None:
    """None when the target covers the see share of a CF frame (of a shown one, with
    ``shown``); otherwise how much of it shows at most."""
    cf, i = group.cf, group.roles["target"]
    areas = sightings_all(card, group.env_kwargs, group.seed, cf, i)
    frames = None if shown is None else set(shown(group))
    if frames is not None:
        areas = {t: a for t, a in areas.items() if t in frames}
    thr = see_threshold(card)
    if _count(areas, thr):
        return None
    e = cf.states[0]["entities"][i]
    most = max(areas.items(), key=lambda ta: (ta[1], -ta[0]), default=None)
    where = "no pixel" if most is None else f"{most[1]:.2%} at most (t={most[0]})"
    scope = "" if frames is None else f" shown frames {sorted(frames)}"
    return (f"the {e['color']} {e['kind']} (target) is never seen in the CF's{scope}: "
            f"{where} < {thr:.1%}")


def hard_gates(card: WorldCard, group: MiniWorldGroup, shown: Shown | None = None
               ) -> tuple[dict[str, bool], dict[str, str]]:
    """(H1, H2 -> passed, gate -> reason for each failed gate)."""
    why = {"H1": h1_reason(group.full, group.cf), "H2": h2_reason(card, group, shown)}
    return ({g: r is None for g, r in why.items()},
            {g: r for g, r in why.items() if r is not None})


def build_hard_group(family: str, seed: int, shown: Shown | None = None, choose_cf=None
                     ) -> MiniWorldGroup:
    """The group whose CF is the hard one, with the paper's gates and H1 / H2 (group id
    suffixed ``HARD_SUFFIX``: its CF differs from the paper group's); ``choose_cf``
    (``variants.build_group``'s) replaces the op choice, e.g. to plant a static CF."""
    choose = choose_cf or functools.partial(hard_cf_ops, shown=shown)
    group = build_group(family, seed, choose_cf=choose,
                        extra_gates=functools.partial(hard_gates, shown=shown))
    return dataclasses.replace(group, group_id=group.group_id + HARD_SUFFIX)


def try_hard_seed(family: str, seed: int, shown: Shown | None = None, choose_cf=None
                  ) -> SeedOutcome:
    """(group, (), {}) when every gate passes, else (None, failed gates, gate -> reason)."""
    try:
        group = build_hard_group(family, seed, shown, choose_cf)
    except FullSideRejected as exc:
        return None, tuple(exc.reasons), dict(exc.reasons)
    except SeedRejected as exc:
        return None, (exc.gate,), {exc.gate: str(exc)}
    return gate_outcome(group, ALL_GATES)


def _try_seed(family: str, shown: Shown | None, extra_gate: ExtraGate | None, seed: int
              ) -> SeedOutcome:
    return extra_outcome(try_hard_seed(family, seed, shown), extra_gate)


def generate_hard_groups(family: str, n: int, seed: int, shown: Shown | None = None,
                         extra_gate: ExtraGate | None = None, num_proc: int = 1,
                         executor=None) -> GenerationResult:
    """Exactly ``n`` groups with a hard CF from consecutive seeds ``seed, seed + 1, ...``, with
    the rejected seeds and their reasons; Full and NoCue as ``variants.generate_groups``'s.
    ``shown``: the CF frames a judge sees (H2 then asks the target to be seen in one of them);
    None: any frame of the CF's walk. ``extra_gate`` (``worlds.core.draw.ExtraGate``, e.g. the
    dataset layer's static-cue gate) runs on a group that passed every gate here. The same
    groups whether drawn here or in ``num_proc`` workers (``variants.pooled_draw``)."""
    return pooled_draw(family, n, seed, functools.partial(_try_seed, family, shown, extra_gate),
                       num_proc, executor)

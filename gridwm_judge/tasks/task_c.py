"""Task C: presentation invariance (C1) and representation exchangeability (C3).

A judge sees a storyboard of one trajectory and the mission, and answers Yes/No. Per group and
variant (full / nocue / cf) the rows come in probe sets:

- ``grid``: temporal (orig / rev) x visual (clean / noisy / style) at the neutral framing;
- ``framing``: neutral / positive / negative framing at orig, clean;
- ``baseline``: only orig, clean, neutral (the scale-2 presentation).

Each row exists once per representation: ``composite`` (one storyboard image) and ``split``
(the same keyframes as separate numbered images). The base set (18 groups, grid + framing)
has 27 rows per group and representation: 486 per representation, 972 in all.

Why the matched rows are comparable: the keyframe indices come from the group (shared by all
variants), a variant whose rollout is shorter maps indices past its end to its terminal
frame (so the number of images, and hence the prompt, never changes), and visual probes are
applied to the keyframes themselves, seeded by group and state index but not by variant,
before the storyboard is laid out. So a Full row and its CF row differ only in the world they
show (gate D3: identical prompts), the reversed storyboard shows the very same noisy or styled
frames in the other order, and composite and split show the same perturbed frames: each probe
changes one factor. Style uses one set of factors per group (a consistent look); noise is
drawn per frame. No sampling happens here; ``seed`` is accepted for the common
``build_rows`` signature. Frames come from the ``world`` given (default MiniGrid, drawing NoCue
in ``nocue_style``: see ``render.nocue_style``; rows record the style), so any world whose groups
satisfy ``gridwm_judge.world.Group`` gets the same presentations.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from PIL import Image

from gridwm_judge.prompts import task_c_prompt
from gridwm_judge.render import (
    DEFAULT_NOCUE_STYLE,
    apply_visual,
    composite,
    keyframes,
    minigrid_world,
    select_keyframes,
    split,
)
from gridwm_judge.render.nocue_style import check_style
from gridwm_judge.schema import FRAMING, REPRESENTATIONS, TEMPORAL, VARIANTS, VISUAL
from gridwm_judge.tasks.rows import counted_rows, variant_row
from gridwm_judge.world import Group, World, check_world, rollout_of

TASK_C_FAMILIES: tuple[str, ...] = ("keycorridor", "multiroom", "redbluedoor")
"""MiniGrid's env families of Task C (the paper's)."""

PROBE_SETS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "grid": tuple((t, v, "neutral") for t in TEMPORAL for v in VISUAL),
    "framing": tuple(("orig", "clean", f) for f in FRAMING),
    "baseline": (("orig", "clean", "neutral"),),
}
"""probe set -> (temporal, visual, framing) presentations, in row order."""

ANSWERS = {1: "Yes", 0: "No"}


def shown_indices(keyframes: Sequence[int], n_states: int,
                  events: Sequence[Mapping[str, Any]] = ()) -> tuple[int, ...]:
    """Keyframe indices for a variant with ``n_states`` states (``events``: its own).

    Indices past the variant's end map to its terminal state and the last shown frame is always
    its terminal frame; the count never changes, so matched variants keep identical prompts.
    Where that would show a frame twice (a variant that ends well before Full's last keyframe,
    as RedBlueDoor's hard CF does when the blue door opens first), a repeated terminal frame
    would tell that the episode ended early: the variant then shows as many keyframes chosen
    over its own episode (anchored on its own events). Only a variant with fewer states than
    keyframes still repeats its terminal frame; the hard configs' static-cue gate rejects it.
    """
    if not keyframes:
        raise ValueError("empty keyframe list")
    last = n_states - 1
    idx = [min(int(i), last) for i in keyframes]
    idx[-1] = last
    if len(set(idx)) == len(idx):
        return tuple(idx)
    own = list(select_keyframes(n_states, events, max_frames=max(2, len(idx))))[: len(idx)]
    own += [last] * (len(idx) - len(own))
    return tuple(own)


class Storyboards:
    """The rendered keyframes of one group and the images composed from them.

    Images are built once per (variant, temporal, visual, representation) and the same PIL
    objects are returned to every row that shows them, so the builder encodes each distinct
    image once.
    """

    def __init__(self, group: Group, *, world: World | None = None,
                 max_frames: int | None = None) -> None:
        """``world`` renders ``group`` (default: MiniGrid, NoCue in the default style)."""
        world = world if world is not None else minigrid_world(DEFAULT_NOCUE_STYLE)
        check_world(group, world)
        self.group = group
        self.world = world
        shown = keyframes(group) if max_frames is None else keyframes(group, max_frames)
        self.keyframes = tuple(int(i) for i in shown)
        self._frames: dict[str, list] = {}
        self._panels: dict[tuple[str, str], list] = {}
        self._images: dict[tuple[str, str, str, str], list] = {}

    def indices(self, variant: str) -> tuple[int, ...]:
        """State indices shown for ``variant``, in chronological order."""
        rollout = rollout_of(self.group, variant)
        return shown_indices(self.keyframes, len(rollout.states), rollout.events)

    def frames(self, variant: str) -> list:
        """Chronological keyframe arrays of ``variant`` (NoCue masks applied by the renderer)."""
        if variant not in self._frames:
            frames = self.world.frames(self.group, variant)
            self._frames[variant] = [frames[i] for i in self.indices(variant)]
        return self._frames[variant]

    def panels(self, variant: str, visual: str) -> list:
        """Chronological keyframes of ``variant`` under the visual probe ``visual``."""
        key = (variant, visual)
        if key not in self._panels:
            frames = self.frames(variant)
            if visual == "clean":
                self._panels[key] = frames
            else:
                self._panels[key] = [
                    apply_visual(Image.fromarray(f), visual, visual_key(self.group.group_id,
                                                                        visual, t))
                    for f, t in zip(frames, self.indices(variant), strict=True)
                ]
        return self._panels[key]

    def images(self, variant: str, temporal: str, visual: str, representation: str) -> list:
        """The model-facing images of one presentation, in shown order."""
        key = (variant, temporal, visual, representation)
        if key not in self._images:
            panels = self.panels(variant, visual)
            if temporal == "rev":
                panels = panels[::-1]
            elif temporal != "orig":
                raise ValueError(
                    f"unknown temporal {temporal!r}; expected one of {', '.join(TEMPORAL)}"
                )
            if representation == "composite":
                images = [composite(panels)]
            elif representation == "split":
                images = list(split(panels))
            else:
                raise ValueError(
                    f"unknown representation {representation!r}; expected one of "
                    f"{', '.join(REPRESENTATIONS)}"
                )
            self._images[key] = images
        return self._images[key]

    def shown(self, variant: str, temporal: str) -> list[int]:
        """State indices in shown order."""
        idx = list(self.indices(variant))
        return idx[::-1] if temporal == "rev" else idx


def visual_key(group_id: str, visual: str, t: int) -> str:
    """Seed key of a visual probe: one per group for style, one per frame for noise."""
    return f"{group_id}|{visual}" if visual == "style" else f"{group_id}|{visual}|t{t:03d}"


def nocue_setup(nocue_style: str, variants: Sequence[str], world: World | None
                ) -> tuple[World, str | None]:
    """The world that renders rows of ``variants`` and the NoCue style they record: with a
    NoCue variant, ``nocue_style`` (MiniGrid: ``minigrid_world(nocue_style)`` unless ``world``
    is given); without one, None: no NoCue mark to balance, so MiniGrid draws none."""
    style = check_style(nocue_style) if "nocue" in variants else None
    return (world if world is not None else minigrid_world(style)), style


def check_choices(name: str, values: Iterable[str], valid: Iterable[str]) -> tuple[str, ...]:
    """``values`` as a tuple; an empty or unknown choice is an error listing the valid ones."""
    values, valid = tuple(values), tuple(valid)
    bad = [v for v in values if v not in valid]
    if bad or not values:
        raise ValueError(
            f"bad {name} {bad or values!r}; expected a non-empty subset of {', '.join(valid)}"
        )
    return values


def build_rows(
    groups: Sequence[Group],
    *,
    n_items: int | None = None,
    seed: int = 0,
    probe_sets: Sequence[str] = ("grid", "framing"),
    representations: Sequence[str] = REPRESENTATIONS,
    variants: Sequence[str] = VARIANTS,
    max_frames: int | None = None,
    world: World | None = None,
    families: Sequence[str] = TASK_C_FAMILIES,
    nocue_style: str = DEFAULT_NOCUE_STYLE,
    probed: Collection[str] | None = None,
) -> list[dict]:
    """Task C rows for ``groups`` (order: group, variant, representation, probe set, presentation).

    ``n_items``, when given, must equal the number of rows the groups produce (a profile check).
    ``world`` renders the groups (default MiniGrid in ``nocue_style``, see
    :func:`nocue_setup`); ``families`` are the env families allowed. ``probed``, when given,
    names the group ids shown under ``probe_sets``; every other group is shown at the neutral
    presentation only (probe set ``baseline``): a profile sized for comparing judges probes a
    base-sized subset (``TaskPlan.probed_per_env``).
    """
    probe_sets = check_choices("probe_sets", probe_sets, PROBE_SETS)
    representations = check_choices("representations", representations, REPRESENTATIONS)
    variants = check_choices("variants", variants, VARIANTS)
    world, style = nocue_setup(nocue_style, variants, world)
    rows: list[dict] = []
    for group in groups:
        if group.family not in families:
            raise ValueError(
                f"Task C has no family {group.family!r}; expected one of {', '.join(families)}"
            )
        boards = Storyboards(group, world=world, max_frames=max_frames)
        shown_under = (probe_sets if probed is None or group.group_id in probed
                       else ("baseline",))
        for variant in variants:
            base = variant_row(group, variant, style)
            label = base["label"]
            item_id = f"C.{group.group_id}.{variant}"
            for representation in representations:
                for probe_set in shown_under:
                    for temporal, visual, framing in PROBE_SETS[probe_set]:
                        images = boards.images(variant, temporal, visual, representation)
                        prompt = task_c_prompt(
                            group.mission, framing, reversed_order=temporal == "rev",
                            n_split=len(images) if representation == "split" else 0,
                        )
                        row = dict(base)
                        row.update(
                            uid=f"{item_id}.{probe_set}.{temporal}.{visual}.{framing}.{representation}",
                            task="C", item_id=item_id, prompt=prompt, images=images,
                            answer=ANSWERS[label], temporal=temporal, visual=visual,
                            framing=framing, representation=representation,
                            probe_family=probe_set,
                            frame_indices=json.dumps(boards.shown(variant, temporal)),
                        )
                        rows.append(row)
    return counted_rows("Task C", groups, rows, n_items)


def rows_per_group(probe_sets: Sequence[str] = ("grid", "framing"),
                   representations: Sequence[str] = REPRESENTATIONS,
                   variants: Sequence[str] = VARIANTS) -> int:
    """How many rows one group yields (used by profiles to check their counts)."""
    per_variant = sum(len(PROBE_SETS[p]) for p in probe_sets) * len(representations)
    return per_variant * len(variants)

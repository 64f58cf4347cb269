"""Task D: causal sensitivity (C4), reference-aided.

The judge sees two composite storyboards, in this order: (1) a successful Full reference
trajectory from another seed of the same env, (2) the query trajectory (full / nocue / cf), and
answers Success or Fail. Conditions: ``clean-neutral`` (baseline), ``clean-positive`` and
``clean-negative`` (framing preamble), ``style-neutral`` (style probe applied to both images).

Groups are taken in batches of one env (``(family, env_id)``, in order of first appearance):
the first group of a batch is the reference and the others are its queries. The base set has
6 families x (1 reference + 2 queries) -> 2 x 3 variants x 4 conditions = 24 rows per family,
144 in all. ``frame_indices`` holds ``[reference indices, query indices]``. No sampling
happens here; ``seed`` is accepted for the common ``build_rows`` signature.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from gridwm_judge.prompts import task_d_prompt
from gridwm_judge.render import DEFAULT_NOCUE_STYLE
from gridwm_judge.schema import VARIANTS
from gridwm_judge.tasks.rows import counted_rows, variant_row
from gridwm_judge.tasks.task_c import Storyboards, check_choices, nocue_setup
from gridwm_judge.world import Group, World

CONDITIONS: dict[str, tuple[str, str, str]] = {
    "clean-neutral": ("clean", "neutral", "baseline"),
    "clean-positive": ("clean", "positive", "framing"),
    "clean-negative": ("clean", "negative", "framing"),
    "style-neutral": ("style", "neutral", "visual"),
}
"""condition -> (visual, framing, probe set); the probe set fills the ``probe_family`` column."""

ANSWERS = {1: "Success", 0: "Fail"}


def env_batches(groups: Sequence[Group]) -> list[tuple[Group, tuple[Group, ...]]]:
    """``[(reference, queries), ...]`` per (family, env_id), in order of first appearance."""
    batches: dict[tuple[str, str], list[Group]] = {}
    for group in groups:
        batches.setdefault((group.family, group.env_id), []).append(group)
    out = []
    for (family, env_id), members in batches.items():
        reference, queries = members[0], tuple(members[1:])
        if not queries:
            raise ValueError(f"Task D: env {env_id} ({family}) has a reference but no query group")
        if not reference.full.success:
            raise ValueError(f"Task D: reference {reference.group_id} does not succeed")
        out.append((reference, queries))
    return out


def build_rows(
    groups: Sequence[Group],
    *,
    n_items: int | None = None,
    seed: int = 0,
    conditions: Sequence[str] = tuple(CONDITIONS),
    variants: Sequence[str] = VARIANTS,
    max_frames: int | None = None,
    world: World | None = None,
    nocue_style: str = DEFAULT_NOCUE_STYLE,
) -> list[dict]:
    """Task D rows (order: env batch, query group, variant, condition).

    ``n_items``, when given, must equal the number of rows the groups produce (a profile check).
    ``world`` renders the groups (default MiniGrid in ``nocue_style``; see
    ``task_c.nocue_setup``).
    """
    conditions = check_choices("conditions", conditions, CONDITIONS)
    variants = check_choices("variants", variants, VARIANTS)
    world, style = nocue_setup(nocue_style, variants, world)
    rows: list[dict] = []
    for reference, queries in env_batches(groups):
        ref_boards = Storyboards(reference, world=world, max_frames=max_frames)
        ref_shown = ref_boards.shown("full", "orig")
        for query in queries:
            boards = Storyboards(query, world=world, max_frames=max_frames)
            for variant in variants:
                base = variant_row(query, variant, style)
                item_id = f"D.{query.group_id}.{variant}"
                for condition in conditions:
                    visual, framing, probe_set = CONDITIONS[condition]
                    images = (ref_boards.images("full", "orig", visual, "composite")
                              + boards.images(variant, "orig", visual, "composite"))
                    row = dict(base)
                    row.update(
                        uid=f"{item_id}.{condition}", task="D", item_id=item_id,
                        prompt=task_d_prompt(framing), images=images,
                        answer=ANSWERS[base["label"]], temporal="orig", visual=visual,
                        framing=framing, representation="composite", probe_family=probe_set,
                        frame_indices=json.dumps([ref_shown, boards.shown(variant, "orig")]),
                        reference_group_id=reference.group_id,
                    )
                    rows.append(row)
    return counted_rows("Task D", groups, rows, n_items)

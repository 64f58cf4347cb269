"""The columns every task's rows share, filled from a trajectory group (and one variant).

A row starts as every schema column blank ("" for strings, -1 for integers) plus the group's
audit columns; each task then fills its own columns.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeVar

from gridwm_judge.prompts import PROMPT_VERSION
from gridwm_judge.render import MINIGRID, mark_spec, variant_marks
from gridwm_judge.schema import COLUMNS
from gridwm_judge.world import Group, rollout_of
from gridwm_judge.worlds.core.draw import HARD_SUFFIX

T = TypeVar("T")


def part_of(items: Sequence[T], part: tuple[int, int]) -> Sequence[T]:
    """The ``k``-th of ``n`` contiguous, near-equal slices of ``items`` (``part`` = (k, n)).

    A task that samples its questions across all its groups (A, E) makes the same selection in
    every part and renders only its own slice, so several workers share the rendering and the
    parts, in order, are the whole task's rows."""
    k, n = part
    if not (isinstance(k, int) and isinstance(n, int) and 0 <= k < n):
        raise ValueError(f"part must be (k, n) with 0 <= k < n, got {part!r}")
    return items[len(items) * k // n: len(items) * (k + 1) // n]


def base_row(group: Group) -> dict[str, Any]:
    """A row with every schema column blank ("" / -1) except the group's audit columns."""
    row = {name: (-1 if dtype == "int64" else "") for name, (dtype, _) in COLUMNS.items()}
    row.update(
        family=group.family,
        env_id=group.env_id,
        group_id=group.group_id,
        seed=int(group.seed),
        intervention="[]",
        mask="[]",
        validators=json.dumps({str(k): bool(v) for k, v in dict(group.validators).items()},
                              sort_keys=True),
        prompt_version=PROMPT_VERSION,
    )
    return row


def variant_row(group: Group, variant: str, nocue_style: str | None = None) -> dict[str, Any]:
    """``base_row`` plus the columns of one variant: label, variant, CF ops, the marks its
    frames draw (``mask``) and the build's ``nocue_style`` (None: the config shows no NoCue
    row, '' in the column). MiniGrid's ``clean`` marks are ``render.nocue_style``'s cells;
    otherwise the mask is NoCue's recorded spec (MiniWorld hides its entity the same way
    under both styles)."""
    ro = rollout_of(group, variant)
    mask = list(ro.mask) if variant == "nocue" else []
    if nocue_style == "clean" and group.world == MINIGRID.name:
        mask = mark_spec(variant_marks(group, variant, nocue_style), nocue_style)
    row = base_row(group)
    row.update(
        label=int(bool(ro.success)),
        variant=variant,
        intervention=json.dumps(list(ro.intervention) if variant == "cf" else [],
                                sort_keys=True),
        mask=json.dumps(mask, sort_keys=True),
        nocue_style=nocue_style or "",
    )
    return row


def checkpoint_row(group: Group, task: str, t: int, *uid_tail: str, **columns: Any) -> dict:
    """``base_row`` of a question about state ``t`` that is asked once (Tasks B and E): uid
    ``<task>.<group_id>.t<t>[.<tail>...]`` and item id alike; ``columns`` fill the task's own."""
    uid = ".".join((task, group.group_id, f"t{t:03d}", *uid_tail))
    row = base_row(group)
    row.update(uid=uid, task=task, item_id=uid, checkpoint=int(t), **columns)
    return row


def counted_rows(task: str, groups: Sequence[Any], rows: list[dict], n_items: int | None
                 ) -> list[dict]:
    """``rows``, after checking a profile's expected count (``n_items``, when given): a plan
    whose groups give another number is a ValueError naming both."""
    if n_items is not None and n_items != len(rows):
        raise ValueError(f"{task}: {len(groups)} groups give {len(rows)} rows, "
                         f"not n_items={n_items}")
    return rows


def rename(row: dict, source: str, task: str) -> dict:
    """``row`` of task ``source`` re-labelled as ``task``: its uid and item id prefix too."""
    for key in ("uid", "item_id"):
        if not row[key].startswith(f"{source}."):
            raise ValueError(f"{source} row {row['uid']!r}: {key} does not start with {source}.")
        row[key] = f"{task}.{row[key][len(source) + 1:]}"
    row["task"] = task
    return row


def require_hard(config: str, groups: Sequence[Group]) -> None:
    """Refuse groups drawn with the paper's counterfactual for a hard-CF config (their ids
    lack ``worlds.core.draw.HARD_SUFFIX``)."""
    bad = [g.group_id for g in groups if not g.group_id.endswith(HARD_SUFFIX)]
    if bad:
        raise ValueError(f"{config} needs hard-CF groups (ids ending {HARD_SUFFIX}), got "
                         f"{bad[0]!r}")

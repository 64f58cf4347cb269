"""Event-anchored keyframe selection for storyboards.

Indices come from the Full rollout's simulator events, so every variant of a group shows the
same frame indices (a CF that ends early is clipped and ends on its own terminal frame). The
first frame and the last frame are always kept; then interaction events (pickup, drop, door
open/unlock/close, gap crossing, lava, goal reached, Memory choice), then first sightings
(object seen, goal visible), earliest first within a tier; remaining slots are filled with the
frame farthest from those already chosen, so the storyboard also shows the path between events.

A NoCue variant differs from Full only in its masked frames, so a storyboard that shows none of
them would make NoCue a copy of Full: when the event anchors leave every masked frame out, the
masked frame where the hidden entity is largest is kept right after the first and last frames.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gridwm_judge.world import Group, rollout_of

DEFAULT_MAX_FRAMES = 8

EVENT_TIERS: dict[str, int] = {
    "terminal": 0,
    "pickup": 1,
    "drop": 1,
    "open": 1,
    "unlock": 1,
    "close": 1,
    "cross_gap": 1,
    "enter_lava": 1,
    "reach_goal": 1,
    "choose": 1,
    "see": 2,
    "goal_visible": 2,
}
"""Priority tier of each simulator event type (lower first); unknown types rank last."""


def select_keyframes(
    n_states: int,
    events: Sequence[Mapping[str, Any]],
    max_frames: int = DEFAULT_MAX_FRAMES,
    end: int | None = None,
    required: Sequence[int] = (),
) -> tuple[int, ...]:
    """Sorted indices into 0..``end`` (default the last state) anchored on ``events``; the
    ``required`` indices (inside that range) are kept before any event."""
    if n_states < 1:
        raise ValueError("a rollout needs at least one state")
    if max_frames < 2:
        raise ValueError(f"max_frames must be >= 2, got {max_frames}")
    last = n_states - 1 if end is None else int(end)
    if not 0 <= last < n_states:
        raise ValueError(f"end={end} outside 0..{n_states - 1}")
    chosen = {0, last}
    for t in required:
        if not 0 <= int(t) <= last:
            raise ValueError(f"required frame {t} outside 0..{last}")
        chosen.add(int(t))
    if len(chosen) > max_frames:
        raise ValueError(f"{len(chosen)} frames (first, last and required {tuple(required)}) "
                         f"exceed max_frames={max_frames}")
    anchors = sorted(
        {(EVENT_TIERS.get(e["type"], 9), int(e["t"])) for e in events if 0 <= int(e["t"]) <= last}
    )
    for _, t in anchors:
        if len(chosen) >= max_frames:
            break
        chosen.add(t)
    budget = min(max_frames, last + 1)
    while len(chosen) < budget:
        ordered = sorted(chosen)
        # Largest gap first (earliest on ties), then its midpoint.
        gap, lo = max((b - a, -a) for a, b in zip(ordered, ordered[1:], strict=False))
        chosen.add(-lo + gap // 2)
    return tuple(sorted(chosen))


def keyframes(
    group: Group,
    max_frames: int = DEFAULT_MAX_FRAMES,
    *,
    variant: str = "full",
    end: int | None = None,
) -> tuple[int, ...]:
    """Keyframe indices of ``group`` for ``variant``; ``end`` cuts a prefix (Task E).

    The indices are computed on the Full rollout, so Full, NoCue and a same-length CF get
    identical indices; a shorter CF keeps those before its terminal frame and ends on it.
    """
    full = group.full
    idx = select_keyframes(len(full.states), full.events, max_frames, end)
    masked = _masked_frame(group, idx, idx[-1])
    if masked is not None:
        idx = select_keyframes(len(full.states), full.events, max_frames, end, (masked,))
    if variant == "full":
        return idx
    n = len(rollout_of(group, variant).states)
    if end is not None and end < n:
        return idx
    clipped = {i for i in idx if i < n - 1} | {n - 1}
    return tuple(sorted(clipped))


def _masked_frame(group: Group, shown: Sequence[int], last: int) -> int | None:
    """NoCue's masked frame with the largest hidden area up to ``last``, when ``shown`` holds
    none of its masked frames; else None (also when nothing is masked)."""
    mask = [m for m in group.nocue.mask if int(m["t"]) <= last]
    if not mask or any(int(m["t"]) in shown for m in mask):
        return None
    return int(max(mask, key=lambda m: (m.get("area", 0.0), -int(m["t"])))["t"])

"""Shortcut reference judges: rules that read only what a judge sees (the prompt and the images,
never an audit column) but never follow the trajectory. A judge's score means little where one
of them scores as well (DESIGN.md, "Every item type has a shortcut reference").

- ``first-frame``: Fail when the task's target is not visible in the judged storyboard's
  first frame (in time order), else Success: it passes counterfactuals that remove the target
  before the rollout.
- ``last-frame``: Success when the target is visible where the trajectory ends, else Fail. In
  MiniGrid, target-coloured pixels on or next to the agent in the last frame (the agent on the
  goal, facing the opened door, carrying the object); in MiniWorld, the target colour covering
  at least ``LAST_FRAME_AREA`` of the last first-person view.
- ``mask-artifact``: Success when any frame shows a NoCue mark (MiniGrid's light-grey fog
  square, ``pixels.fog_marks``), else the last-frame rule. MiniWorld's NoCue draws the frame
  without the entity and leaves no mark, so there it is the last-frame rule.
- ``least-change`` (Task A and MA): the candidate closest to the current frame, ignoring the
  action (``baseline.least_changed_candidate``).

The target is the last object the prompt's mission names (``pick up the blue ball`` -> a blue
ball, ``open the red door then the blue door`` -> the blue door; a goal is green). A
reference-aided MiniGrid item states no mission: its target is the colour on or next to the
agent where the reference storyboard ends. A target whose colour cannot be told from walls and
floors (grey, or none named: Memory's, Sign's) is unknown; then both rules answer Success (they
see no evidence of failure). Verdict rules answer C, D, their MiniWorld configs and the
controls' pixel arms (rows with images) and the hard-CF config CH; ``least-change`` answers
A and MA.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gridwm_judge.judges import pixels
from gridwm_judge.task_table import TaskSpec

NAMES = ("first-frame", "last-frame", "mask-artifact", "least-change")
MINIGRID_SEE = 0.0005
"""Share of a MiniGrid frame the target's colour must cover to count as visible (a key at the
smallest tile size covers about twice this)."""
MINIWORLD_SEE = 0.005
"""Share of a first-person view the target's colour must cover to count as seen (the MiniWorld
cards' ``see_area``)."""
LAST_FRAME_AREA = 0.01
"""Share of the last first-person view the target must cover where a MiniWorld trajectory ends
(twice the "see" share, as the builder's gate V1 asks of a reached object)."""
NEAR_SHARE = 0.1
"""Target-coloured pixels on or next to MiniGrid's agent (``pixels.around``), as a share of
the agent's own pixels, for the last-frame rule: an opened door's thin outline is about a
fifth, the goal under the agent several times the agent."""

_COLOURS = ("red", "green", "blue", "purple", "yellow", "grey")
_KINDS = ("goal", "key", "ball", "box", "door", "lava")
_TARGET = re.compile(rf"(?:\b({'|'.join(_COLOURS)})\s+)?\b({'|'.join(_KINDS)})s?\b")
_MISSION = re.compile(r"Task goal:\s*(.+)")


def answers(name: str, spec: TaskSpec) -> bool:
    """Whether shortcut ``name`` has a rule for task ``spec``: least-change answers choice
    tasks, the others verdict tasks (read from the task table's entry, so a new config with
    such an answer is answered with no change here)."""
    return spec.choice if name == "least-change" else spec.verdict


@dataclass(frozen=True)
class Target:
    """What a rule looks for: a colour class (``pixels.HUES``) or None when unknown."""

    colour: str | None
    kind: str | None = None


def mission_target(mission: str) -> Target:
    """The last object a mission names, with its colour; a goal is green, an unnamed or grey
    colour is unknown (None)."""
    found = _TARGET.findall(mission.lower())
    if not found:
        return Target(None)
    colour, kind = found[-1]
    if kind == "goal" and not colour:
        colour = "green"
    if kind == "lava":
        colour = "orange"
    return Target(colour if colour in pixels.HUES else None, kind)


def stated_target(prompt: str) -> Target | None:
    """The target of the mission a prompt states (``Task goal: ...``); None when it states
    none (MiniGrid's reference-aided items)."""
    m = _MISSION.search(prompt)
    return mission_target(m.group(1)) if m else None


def reference_target(frames: Sequence[np.ndarray]) -> Target:
    """A MiniGrid reference storyboard's target: the colour covering most of the agent's
    neighbourhood in its last frame (the agent's own red left out); unknown if none."""
    if not frames:
        return Target(None)
    last = frames[-1]
    box = pixels.agent_box(last)
    if box is None:
        return Target(None)
    window = pixels.around(last, box)
    counts = {}
    for colour in pixels.HUES:
        mask = pixels.colour_mask(last[window], colour)
        if colour == "red":
            mask = _without(mask, window, box)
        counts[colour] = int(mask.sum())
    best = max(counts, key=counts.__getitem__)
    return Target(best if counts[best] > 0 else None)


def _without(mask: np.ndarray, window, box) -> np.ndarray:
    """``mask`` (over ``window``) with the pixels inside the agent's ``box`` cleared."""
    out = mask.copy()
    r0, c0 = box[0].start - window[0].start, box[1].start - window[1].start
    out[r0:r0 + box[0].stop - box[0].start, c0:c0 + box[1].stop - box[1].start] = False
    return out


def visible(frame: np.ndarray, colour: str, world: str) -> bool:
    """Whether the target's ``colour`` covers enough of ``frame`` to be seen (MiniGrid's agent
    is left out of red)."""
    mask = pixels.colour_mask(frame, colour)
    if world == "minigrid" and colour == "red":
        box = pixels.agent_box(frame)
        if box is not None:
            mask = mask.copy()
            mask[box] = False
    share = MINIGRID_SEE if world == "minigrid" else MINIWORLD_SEE
    return bool(mask.mean() >= share)


def ends_at(frame: np.ndarray, colour: str, world: str) -> bool:
    """Whether the trajectory ends at the target of ``colour``: MiniGrid, that colour on or
    next to the agent; MiniWorld, that colour over ``LAST_FRAME_AREA`` of the view."""
    mask = pixels.colour_mask(frame, colour)
    if world != "minigrid":
        return bool(mask.mean() >= LAST_FRAME_AREA)
    box = pixels.agent_box(frame)
    if box is None:
        return False
    window = pixels.around(frame, box)
    near = mask[window]
    if colour == "red":
        near = _without(near, window, box)
    agent = pixels.colour_mask(frame[box], "red").sum()
    return bool(near.sum() >= NEAR_SHARE * agent)


def verdict(name: str, world: str, frames: Sequence[np.ndarray], target: Target | None
            ) -> bool:
    """Shortcut ``name``'s verdict (True: success) on the judged storyboard's ``frames`` in
    time order."""
    if name == "mask-artifact" and world == "minigrid" and any(
            pixels.fog_marks(f) for f in frames):
        return True
    if target is None or target.colour is None or not len(frames):
        return True
    if name == "first-frame":
        return visible(frames[0], target.colour, world)
    return ends_at(frames[-1], target.colour, world)

"""The shortcut judges read the release's combined reference + query image.

The release draws each storyboard as a gutterless montage of 224-px agent-view panels (7 x 7
tiles of 32 px, empty cells black) and stacks the reference above the query on one canvas
(width = the wider storyboard + 48, height = both + 204: its layout records). The images here
follow that layout with MiniGrid's own tile renderer; the canvas's bands (white, 24-px
margins, a caption above each storyboard) are this test's assumption, the release's code for
them not being public.
"""

from __future__ import annotations

import numpy as np
import pytest
from release_copy import combined, montage

from gridwm_judge.judges.base import JudgeOptions, JudgeRequest
from gridwm_judge.judges.baseline import BaselineJudge, query_frames, reference_frames
from gridwm_judge.judges.pixels import RELEASE_PANEL, montage_panels

pytest.importorskip("minigrid")
from minigrid.core.grid import Grid  # noqa: E402
from minigrid.core.world_object import Goal, Wall  # noqa: E402

PROMPT = ("Below are two storyboard trajectories from the same MiniGrid environment.\n\n"
          "Reference trajectory:\nThis trajectory is a known successful example of completing "
          "the task in this environment.\n\nQuery trajectory:\nDetermine whether this trajectory "
          "also completes the same task goal as the reference trajectory.\n\nAnswer with ONLY: "
          "Success or Fail.")


def agent_view(step: int, goal_ahead: bool) -> np.ndarray:
    """A 7 x 7 agent view (the agent at the bottom middle, facing up): walls on the sides,
    a goal in front of it when ``goal_ahead``; ``step`` moves a wall so frames differ."""
    tiles = np.zeros((224, 224, 3), dtype=np.uint8)
    for row in range(7):
        for col in range(7):
            obj = None
            if col in (0, 6) or (row == 0 and col == step % 5 + 1):
                obj = Wall()
            if goal_ahead and (row, col) == (5, 3):
                obj = Goal()
            agent = 3 if (row, col) == (6, 3) else None
            tile = Grid.render_tile(obj, agent_dir=agent, highlight=False, tile_size=32)
            tiles[row * 32:(row + 1) * 32, col * 32:(col + 1) * 32] = tile.astype(np.uint8)
    return tiles


def test_montage_panels_drop_empty_cells():
    frames = [agent_view(k, False) for k in range(14)]
    cut = montage_panels(montage(frames))
    assert len(cut) == 14 and all((a == b).all() for a, b in zip(cut, frames, strict=True))
    assert len(montage_panels(frames[0])) == 1   # one frame is one panel
    odd = np.zeros((300, 400, 3), dtype=np.uint8)
    assert len(montage_panels(odd)) == 1   # no grid of release panels: left whole


def test_reference_and_query_are_found_in_the_combined_image():
    ref = [agent_view(k, k == 11) for k in range(12)]
    query = [agent_view(k + 3, False) for k in range(14)]
    image = combined(montage(ref), montage(query))
    got_ref = reference_frames("reference_aided", PROMPT, [image], montage=RELEASE_PANEL)
    got_query = query_frames("reference_aided", PROMPT, [image], montage=RELEASE_PANEL)
    assert len(got_ref) == 12 and len(got_query) == 14
    assert all((a == b).all() for a, b in zip(got_ref, ref, strict=True))
    assert all((a == b).all() for a, b in zip(got_query, query, strict=True))


@pytest.mark.parametrize("query_reaches_goal, want", [(True, "Success"), (False, "Fail")])
def test_last_frame_shortcut_on_a_release_item(query_reaches_goal, want):
    """The reference ends at the goal (its target: green); the last-frame rule accepts a
    query whose last panel shows the goal before the agent, and only then."""
    ref = [agent_view(k, k == 11) for k in range(12)]
    query = [agent_view(k, query_reaches_goal and k == 13) for k in range(14)]
    image = combined(montage(ref), montage(query))
    judge = BaselineJudge("last-frame", JudgeOptions(), "baseline:last-frame")
    assert judge.answer(JudgeRequest("RDR.x", "RDR", PROMPT, [image], 256)) == want
    first = BaselineJudge("first-frame", JudgeOptions(), "baseline:first-frame")
    assert first.answer(JudgeRequest("RDR.x", "RDR", PROMPT, [image], 256)) == "Fail"

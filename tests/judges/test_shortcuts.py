"""The shortcut judges on hand-made frames: each must say Fail on one and Success on another.

Frames are MiniGrid's own renderings of a small empty room with the objects placed by hand
(``Grid.render``), the MiniWorld-like ones plain arrays of a lit red box colour; requests are
built as the dataset's items are (split images, the prompts' own sentences).
"""

from __future__ import annotations

import numpy as np
import pytest
from minigrid.core.grid import Grid
from minigrid.core.world_object import Ball, Goal, Wall

from gridwm_judge.judges.base import JudgeOptions, JudgeRequest
from gridwm_judge.judges.baseline import BaselineJudge
from gridwm_judge.judges.shortcuts import Target, mission_target
from gridwm_judge.prompts import task_c_prompt, task_d_prompt
from gridwm_judge.render.painter import paint_fog

TILE = 16


def frame(agent, direction=0, objects=(), fog=()):
    """A 6x6 walled room rendered by MiniGrid, ``objects`` as ((x, y), WorldObj)."""
    grid = Grid(6, 6)
    grid.wall_rect(0, 0, 6, 6)
    for (x, y), obj in objects:
        grid.set(x, y, obj)
    img = grid.render(TILE, agent_pos=agent, agent_dir=direction)
    return paint_fog(np.array(img), fog, TILE)


def judge(name):
    return BaselineJudge(name, JudgeOptions(), f"baseline:{name}")


def ask_c(name, frames, mission, *, reversed_order=False):
    prompt = task_c_prompt(mission, "neutral", reversed_order=reversed_order,
                           n_split=len(frames))
    shown = frames[::-1] if reversed_order else frames
    req = JudgeRequest("C.x", "C", prompt, list(shown), 256)
    return judge(name).answer(req)


GOAL = ((4, 4), Goal())
BLUE_BALL = ((3, 1), Ball("blue"))


def test_mission_target_is_the_last_object_named():
    assert mission_target("open the red door then the blue door") == Target("blue", "door")
    assert mission_target("use the key to open the door and then get to the goal") == Target(
        "green", "goal")
    assert mission_target("pick up the purple box") == Target("purple", "box")
    assert mission_target("put the red box next to the yellow box") == Target("yellow", "box")
    assert mission_target("pick up the grey ball").colour is None  # grey: walls look alike
    assert mission_target("go to the matching object at the end of the hallway").colour is None


def test_first_frame_fails_when_the_target_is_absent_at_the_start():
    start_with, start_without = frame((1, 1), 0, [BLUE_BALL]), frame((1, 1), 0)
    end = frame((2, 1), 0, [BLUE_BALL])
    assert ask_c("first-frame", [start_with, end], "pick up the blue ball") == "Yes"
    assert ask_c("first-frame", [start_without, end], "pick up the blue ball") == "No"


def test_last_frame_reads_where_the_trajectory_ends():
    start = frame((1, 1), 0, [GOAL])
    on_goal = frame((4, 4), 0, [GOAL])  # the agent stands on the goal
    elsewhere = frame((1, 4), 3, [GOAL])
    assert ask_c("last-frame", [start, on_goal], "get to the goal") == "Yes"
    assert ask_c("last-frame", [start, elsewhere], "get to the goal") == "No"
    # reversed storyboards are read in time order: the first shown frame is the end
    assert ask_c("last-frame", [start, on_goal], "get to the goal",
                 reversed_order=True) == "Yes"
    assert ask_c("last-frame", [on_goal, start], "get to the goal",
                 reversed_order=True) == "No"


def test_last_frame_sees_an_opened_door_the_agent_faces():
    from minigrid.core.world_object import Door

    opened = Door("blue", is_open=True)
    facing = frame((3, 2), 0, [((4, 2), opened)])
    away = frame((1, 4), 3, [((4, 2), opened)])
    mission = "open the red door then the blue door"
    assert ask_c("last-frame", [away, facing], mission) == "Yes"
    assert ask_c("last-frame", [facing, away], mission) == "No"


def test_mask_artifact_says_success_on_a_fog_square_else_reads_the_last_frame():
    start = frame((1, 1), 0, [GOAL])
    masked = frame((1, 1), 0, [GOAL], fog=[(4, 4)])
    elsewhere = frame((1, 4), 3, [GOAL])
    assert ask_c("mask-artifact", [masked, elsewhere], "get to the goal") == "Yes"
    assert ask_c("mask-artifact", [start, elsewhere], "get to the goal") == "No"


def test_a_grey_wall_is_not_a_mark():
    walls = frame((1, 1), 0, [((3, 3), Wall()), GOAL])
    assert ask_c("mask-artifact", [walls, walls], "get to the goal") == "No"


def test_reference_aided_items_take_the_target_from_the_reference():
    reference = [frame((1, 1), 0, [GOAL]), frame((4, 4), 0, [GOAL])]
    query_ok = [frame((1, 1), 0, [GOAL]), frame((2, 2), 0, [GOAL])]
    query_no_goal = [frame((1, 1), 0), frame((2, 2), 0)]
    for query, word in ((query_ok, "Success"), (query_no_goal, "Fail")):
        prompt = task_d_prompt("neutral", n_split_reference=2, n_split_query=2)
        req = JudgeRequest("D.x", "D", prompt, reference + query, 256)
        assert judge("first-frame").answer(req) == word


def test_miniworld_last_frame_wants_the_target_over_one_percent_of_the_view():
    view = np.full((120, 160, 3), 128, np.uint8)
    near = view.copy()
    near[80:120, 40:120] = (200, 10, 10)  # a lit red box filling the bottom of the view
    far = view.copy()
    far[60:64, 78:82] = (200, 10, 10)  # 16 pixels: 0.08% of the view
    prompt = ("Below is a storyboard from one MiniWorld trajectory.\n"
              "The storyboard is given as 2 separate images, numbered in the order shown.\n"
              "Task goal: go to the red box\nDid the trajectory satisfy this goal? "
              "Answer with ONLY: Yes or No.")
    for last, word in ((near, "Yes"), (far, "No")):
        req = JudgeRequest("MC.x", "MC", prompt, [view, last], 256)
        assert judge("last-frame").answer(req) == word


def test_least_change_picks_the_candidate_closest_to_the_current_frame():
    current = frame((2, 2), 0, [GOAL])
    moved = [frame((3, 2), 0, [GOAL]), frame((2, 3), 1, [GOAL]), frame((4, 1), 3, [GOAL])]
    for slot in range(4):
        candidates = list(moved)
        candidates.insert(slot, frame((2, 2), 1, [GOAL]))  # only the heading changed
        req = JudgeRequest("A.x", "A", "Action: turn right.", [current, *candidates], 512)
        assert judge("least-change").answer(req) == "ABCD"[slot]


@pytest.mark.parametrize("name", ["first-frame", "last-frame", "mask-artifact"])
def test_verdict_shortcuts_refuse_tasks_without_a_rule(name):
    req = JudgeRequest("B.x", "B", "describe", [frame((1, 1))], 2048)
    out = list(judge(name).judge([req]))
    assert out[0].status == "error" and "no rule for task B" in out[0].error



def test_a_closed_red_door_is_not_taken_for_the_agent():
    """A closed red door is a red blob larger than the agent and half-filling its box; the
    last-frame rule must still find the agent (on the goal) beside it."""
    from minigrid.core.world_object import Door

    from gridwm_judge.judges import pixels

    door = ((4, 3), Door("red", is_open=False))
    on_goal = frame((4, 4), 0, [GOAL, door])
    box = pixels.agent_box(on_goal)
    assert box is not None and box[0].start >= 4 * TILE and box[1].start >= 4 * TILE
    assert ask_c("last-frame", [frame((1, 1), 0, [GOAL, door]), on_goal],
                 "get to the goal") == "Yes"


def test_a_red_target_is_told_from_the_red_agent():
    red_ball = ((3, 1), Ball("red"))
    start_with, start_without = frame((1, 4), 0, [red_ball]), frame((1, 4), 0)
    holding = frame((2, 1), 0)
    assert ask_c("first-frame", [start_with, holding], "pick up the red ball") == "Yes"
    assert ask_c("first-frame", [start_without, holding], "pick up the red ball") == "No"

"""Task B: gold JSON agrees with the simulator's states, poses vary, rows are deterministic."""

from __future__ import annotations

import collections
import hashlib
import io
import json

import numpy as np
import pytest
from PIL import Image

from gridwm_judge.prompts import TASK_B
from gridwm_judge.render import tile_size_for
from gridwm_judge.render.tiles import classify_frame, palette
from gridwm_judge.schema import COLUMNS
from gridwm_judge.tasks.task_b import DIR_NAMES, build_rows
from gridwm_judge.worlds.minigrid import generate_groups, replay_envs


@pytest.fixture(scope="module")
def groups():
    fams = ("doorkey", "keycorridor", "redbluedoor")
    return [g for f in fams for g in generate_groups(f, 2, 830000).groups]


@pytest.fixture(scope="module")
def rows(groups):
    return build_rows(groups, n_items=12, seed=42)


def _png_hash(img):
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return hashlib.sha256(buf.getvalue()).hexdigest()


def test_counts_schema_prompt(rows):
    assert len(rows) == 12 and len({r["uid"] for r in rows}) == 12
    assert set(collections.Counter(r["group_id"] for r in rows).values()) == {2}
    for r in rows:
        assert set(r) == set(COLUMNS)
        assert r["prompt"] == TASK_B and r["task"] == "B" and r["question"] == "perception"
        assert r["uid"] == r["item_id"] == f"B.{r['group_id']}.t{r['checkpoint']:03d}"
        assert json.loads(r["frame_indices"]) == [r["checkpoint"]]
        assert len(r["images"]) == 1 and isinstance(r["images"][0], Image.Image)
        assert r["answer"] == json.dumps(json.loads(r["answer"]), sort_keys=True)


def test_gold_matches_simulator_state(groups, rows):
    by_id = {g.group_id: g for g in groups}
    for r in rows:
        gold = json.loads(r["answer"])
        state = by_id[r["group_id"]].full.states[r["checkpoint"]]
        assert gold["agent"]["pos"] == state["agent_pos"]
        assert gold["agent"]["dir"] == DIR_NAMES[state["agent_dir"]]
        held = state["carrying"]
        assert gold["agent"]["carrying"] == (None if held is None
                                             else f"{held['type']}_{held['color']}")
        x, y = state["agent_pos"]
        dx, dy = ((1, 0), (0, 1), (-1, 0), (0, -1))[state["agent_dir"]]
        front = [o for o in state["objects"] if o["pos"] == [x + dx, y + dy]]
        others = [{"type": o["type"], "color": o["color"], "pos": o["pos"]}
                  for o in state["objects"] if o["pos"] != [x + dx, y + dy]]
        assert gold["visible_objects"] == others
        if front:
            assert gold["front_cell"] == {k: front[0][k] for k in ("type", "color", "state")}
        else:
            assert gold["front_cell"]["type"] in ("empty", "wall")


def test_frame_shows_the_gold_state(groups, rows):
    """The image's tiles classify to the gold: agent pose, objects (and the carried badge)."""
    by_id = {g.group_id: g for g in groups}
    for r in rows[:4]:
        gold = json.loads(r["answer"])
        g = by_id[r["group_id"]]
        env = next(iter(replay_envs(g.env_id, g.seed, ())))
        tile = tile_size_for(env.grid.width, env.grid.height)
        labels = classify_frame(np.asarray(r["images"][0]), tile, palette(env))
        x, y = gold["agent"]["pos"]
        agent = f"|agent{DIR_NAMES.index(gold['agent']['dir'])}"
        if gold["agent"]["carrying"]:
            agent += "+" + gold["agent"]["carrying"]
        assert labels[y, x].endswith(agent)
        for o in gold["visible_objects"]:
            if tuple(o["pos"]) != (x, y):
                assert labels[o["pos"][1], o["pos"][0]].startswith(f"{o['type']}:{o['color']}")


def test_pose_varies(rows):
    agents = [json.loads(r["answer"])["agent"] for r in rows]
    poses = [(tuple(a["pos"]), a["dir"]) for a in agents]
    assert len(set(poses)) >= 0.8 * len(poses)
    by_group = collections.defaultdict(set)
    for r, p in zip(rows, poses, strict=True):
        by_group[r["group_id"]].add(p)
    assert all(len(v) == 2 for v in by_group.values())
    assert len({r["checkpoint"] for r in rows}) > 3


def test_deterministic_and_errors(groups, rows):
    again = build_rows(groups, n_items=12, seed=42)
    assert [(r["uid"], r["answer"], _png_hash(r["images"][0])) for r in again] == [
        (r["uid"], r["answer"], _png_hash(r["images"][0])) for r in rows]
    assert len(build_rows(groups[:2], n_items=3, seed=42)) == 3
    with pytest.raises(ValueError, match="cannot make n_items=5000"):
        build_rows(groups, n_items=5000, seed=42)

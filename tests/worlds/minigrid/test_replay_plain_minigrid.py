"""Audit records replay with nothing but gymnasium + minigrid (no project simulator import).

The records are produced by the CLI in a subprocess; this module writes its own small
interpreter for the documented intervention ops and checks: Full succeeds, CF fails for
the recorded reason without truncation, NoCue equals Full.
"""

import json
import subprocess
import sys

import gymnasium as gym
import minigrid  # noqa: F401  (registers the envs)
import pytest
from minigrid.core.constants import COLOR_TO_IDX, OBJECT_TO_IDX
from minigrid.core.world_object import WorldObj

FAMILIES = ("doorkey", "keycorridor", "redbluedoor", "lavagap", "memory", "multiroom",
            "unlockpickup", "blockedunlockpickup")


def apply_ops(env, ops):
    """Plain interpreter of the op vocabulary docs/dataset.md describes."""
    grid = env.grid
    for op in ops:
        if op["op"] == "remove":
            grid.set(*op["pos"], None)
        elif op["op"] == "move":
            obj = grid.get(*op["from"])
            assert obj is not None and grid.get(*op["to"]) is None
            grid.set(*op["from"], None)
            grid.set(*op["to"], obj)
        elif op["op"] == "swap":
            a, b = grid.get(*op["a"]), grid.get(*op["b"])
            grid.set(*op["a"], b)
            grid.set(*op["b"], a)
        elif op["op"] == "place":
            o = op["obj"]
            grid.set(*op["pos"], WorldObj.decode(OBJECT_TO_IDX[o["type"]],
                                                 COLOR_TO_IDX[o["color"]], o["state"]))
        elif op["op"] == "set":
            setattr(env, op["attr"], tuple(op["value"]))
        else:
            raise AssertionError(f"unknown op {op}")


def replay(record, ops=()):
    env = gym.make(record["env_id"])
    env.reset(seed=record["seed"])
    apply_ops(env.unwrapped, ops)
    reward, terminated, truncated, steps = 0.0, False, False, 0
    for a in record["actions"]:
        _, reward, terminated, truncated, _ = env.step(a)
        steps += 1
        if terminated or truncated:
            break
    pos = [int(v) for v in env.unwrapped.agent_pos]
    env.close()
    return {"success": bool(terminated and not truncated and reward > 0), "reward": float(reward),
            "terminated": bool(terminated), "truncated": bool(truncated), "steps": steps,
            "pos": pos}


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    out = tmp_path_factory.mktemp("audit") / "groups.jsonl"
    subprocess.run([sys.executable, "-m", "gridwm_judge", "groups", "--family", "all", "--n", "2",
                    "--seed", "830000", "--out", str(out)], check=True, capture_output=True)
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_records_cover_every_family(records):
    assert sorted({r["family"] for r in records}) == sorted(FAMILIES)
    assert len(records) == 2 * len(FAMILIES)


@pytest.mark.parametrize("family", FAMILIES)
def test_replay_full_succeeds_cf_fails_nocue_equals_full(records, family):
    for rec in (r for r in records if r["family"] == family):
        v = rec["variants"]
        full = replay(rec)
        assert full["success"], rec["group_id"]
        for key in ("success", "terminated", "truncated", "steps"):
            assert full[key] == v["full"][key] == v["nocue"][key], (rec["group_id"], key)
        assert full["reward"] == pytest.approx(v["full"]["reward"])
        assert full["pos"] == v["full"]["states"][-1]["agent_pos"]
        cf = replay(rec, v["cf"]["intervention"])
        assert not cf["success"] and not cf["truncated"], rec["group_id"]
        assert cf["steps"] == v["cf"]["steps"]
        assert cf["pos"] == v["cf"]["states"][-1]["agent_pos"]
        assert v["cf"]["intervention"], "CF must declare its intervention"

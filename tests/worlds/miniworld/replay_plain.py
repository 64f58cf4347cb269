"""Replay MiniWorld audit records with nothing but gymnasium and miniworld (the snippet in
docs/miniworld.md).

Usage: python replay_plain.py groups.jsonl  -> prints one line per group and variant.
"""

import json
import sys

import pyglet

pyglet.options["headless"] = True  # before importing miniworld: render through EGL

import gymnasium as gym  # noqa: E402
import miniworld  # noqa: E402,F401  (registers the MiniWorld-* envs)
import numpy as np  # noqa: E402


def apply(u, ops):
    for op in ops:
        if op["op"] == "move_entity":
            u.entities[op["index"]].pos = np.array(op["pos"], dtype=float)
            if "dir" in op:
                u.entities[op["index"]].dir = op["dir"]
        elif op["op"] == "swap_entities":
            a, b = u.entities[op["a"]], u.entities[op["b"]]
            a.pos, b.pos, a.dir, b.dir = b.pos, a.pos, b.dir, a.dir
        elif op["op"] == "set":
            setattr(u, op["attr"], op["value"])


def replay(rec, variant):
    env = gym.make(rec["env_id"], disable_env_checker=True, **rec["env_kwargs"])
    if "max_episode_steps" in rec:  # Sign: the env's own step limit, raised by the record
        env.unwrapped.max_episode_steps = rec["max_episode_steps"]
    env.reset(seed=rec["seed"])
    apply(env.unwrapped, rec["variants"][variant].get("intervention", []))
    reward, term, trunc, poses = 0.0, False, False, [list(env.unwrapped.agent.pos)]
    for a in rec["actions"]:
        _, reward, term, trunc, _ = env.step(a)
        poses.append(list(env.unwrapped.agent.pos))
        if term or trunc:
            break
    env.close()
    return {"success": bool(term and not trunc and reward > 0), "reward": float(reward),
            "terminated": bool(term), "truncated": bool(trunc), "poses": poses}


if __name__ == "__main__":
    for line in open(sys.argv[1]):
        rec = json.loads(line)
        runs = {v: replay(rec, v) for v in ("full", "nocue", "cf")}
        recorded = [s["agent"]["pos"] for s in rec["variants"]["full"]["states"]]
        print(json.dumps({"group_id": rec["group_id"],
                          "full": runs["full"]["success"], "nocue": runs["nocue"]["success"],
                          "cf": runs["cf"]["success"], "cf_truncated": runs["cf"]["truncated"],
                          "nocue_same": runs["nocue"]["poses"] == runs["full"]["poses"],
                          "full_poses_match": runs["full"]["poses"] == recorded,
                          "gridwm_imported": any(m.startswith("gridwm_judge")
                                                 for m in sys.modules)}))

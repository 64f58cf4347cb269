"""A tiny dataset in the scriptless Hub layout, written by hand for the judge/eval tests.

Independent of the real builder on purpose: it uses the schema row contract, real MiniGrid
frames (DoorKey-5x5 at 8 px tiles) and real parquet shards + a README ``configs:`` block, so
``datasets.load_dataset(DIR, "task_c")`` reads it exactly as it reads a built dataset.
"""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import minigrid  # noqa: F401  (registers the envs)
import numpy as np
from PIL import Image

from gridwm_judge import prompts
from gridwm_judge.schema import COLUMNS

ENV_ID = "MiniGrid-DoorKey-5x5-v0"
TILE = 8


def frame(agent_pos, seed: int = 1, agent_dir: int = 0) -> np.ndarray:
    env = gym.make(ENV_ID).unwrapped
    env.reset(seed=seed)
    env.agent_pos = np.array(agent_pos)
    env.agent_dir = agent_dir
    out = env.get_frame(highlight=False, tile_size=TILE)
    env.close()
    return out


def goal_pos(seed: int = 1) -> tuple[int, int]:
    env = gym.make(ENV_ID).unwrapped
    env.reset(seed=seed)
    for x in range(env.width):
        for y in range(env.height):
            cell = env.grid.get(x, y)
            if cell is not None and cell.type == "goal":
                return x, y
    raise RuntimeError("no goal")


def compose(frames, cols: int = 3, gutter: int = 4) -> Image.Image:
    """A white-gutter grid read left-to-right, top-to-bottom (stand-in for render.composite)."""
    h, w = frames[0].shape[:2]
    rows = (len(frames) + cols - 1) // cols
    canvas = np.full((rows * (h + gutter) + gutter, cols * (w + gutter) + gutter, 3), 255, np.uint8)
    for i, f in enumerate(frames):
        r, c = divmod(i, cols)
        y, x = gutter + r * (h + gutter), gutter + c * (w + gutter)
        canvas[y : y + h, x : x + w] = f
    return Image.fromarray(canvas)


def _row(**kw) -> dict:
    row = {name: (-1 if dtype == "int64" else "") for name, (dtype, _) in COLUMNS.items()}
    row.update(
        images=[],
        intervention="[]",
        mask="[]",
        validators="{}",
        prompt_version=prompts.PROMPT_VERSION,
        env_id=ENV_ID,
        family="doorkey",
        seed=1,
    )
    row.update(kw)
    return row


def trajectories():
    """(success frames, failure frames): the agent walks to the goal / stops one tile short."""
    gx, gy = goal_pos()
    success = [frame((1, 1)), frame((1, 2)), frame((gx, gy))]
    failure = [frame((1, 1)), frame((1, 2)), frame((gx - 1, gy))]
    return success, failure


def build_rows() -> dict[str, list[dict]]:
    success, failure = trajectories()
    mission = "use the key to open the door and then get to the goal"
    c_rows, d_rows = [], []
    for variant, frames, label in (("full", success, 1), ("cf", failure, 0)):
        gid = f"doorkey.5x5.s{1 if label else 2}"
        for temporal in ("orig", "rev"):
            shown = frames if temporal == "orig" else frames[::-1]
            for rep in ("composite", "split"):
                images = (
                    [compose(shown)] if rep == "composite" else [Image.fromarray(f) for f in shown]
                )
                prompt = prompts.task_c_prompt(
                    mission,
                    "neutral",
                    reversed_order=temporal == "rev",
                    n_split=len(images) if rep == "split" else 0,
                )
                c_rows.append(
                    _row(
                        uid=f"C.doorkey.{gid}.{variant}.grid.{temporal}.clean.neutral.{rep}",
                        task="C",
                        group_id=gid,
                        item_id=f"C.doorkey.{gid}.{variant}",
                        prompt=prompt,
                        images=images,
                        answer="Yes" if label else "No",
                        label=label,
                        variant=variant,
                        temporal=temporal,
                        visual="clean",
                        framing="neutral",
                        representation=rep,
                        probe_family="baseline" if temporal == "orig" else "temporal",
                        frame_indices=json.dumps(list(range(len(frames)))),
                    )
                )
        d_rows.append(
            _row(
                uid=f"D.doorkey.{gid}.{variant}.clean-neutral",
                task="D",
                group_id=gid,
                item_id=f"D.doorkey.{gid}.{variant}",
                prompt=prompts.task_d_prompt("neutral"),
                images=[compose(success), compose(frames)],
                answer="Success" if label else "Fail",
                label=label,
                variant=variant,
                temporal="orig",
                visual="clean",
                framing="neutral",
                representation="composite",
                probe_family="baseline",
                reference_group_id="doorkey.5x5.s9",
            )
        )
    current = frame((1, 1))
    gold = frame((1, 1), agent_dir=1)  # "turn right": only the triangle turns
    candidates = [frame((1, 3), agent_dir=3), gold, frame((3, 3)), frame((3, 1), agent_dir=2)]
    a_rows = [
        _row(
            uid="A.doorkey.doorkey.5x5.s1.q000.orig",
            task="A",
            group_id="doorkey.5x5.s1",
            item_id="A.doorkey.doorkey.5x5.s1.q000",
            prompt=prompts.TASK_A.format(action="turn right"),
            images=[Image.fromarray(f) for f in [current, *candidates]],
            answer="B",
            action_condition="orig",
            action="right",
            checkpoint=0,
        )
    ]
    b_answer = json.dumps(
        {
            "agent": {"pos": [1, 1], "dir": "right", "carrying": None},
            "front_cell": {"type": "empty", "color": None, "state": None},
            "visible_objects": [],
        },
        sort_keys=True,
    )
    b_rows = [
        _row(
            uid="B.doorkey.doorkey.5x5.s1.t000",
            task="B",
            group_id="doorkey.5x5.s1",
            item_id="B.doorkey.doorkey.5x5.s1.t000",
            prompt=prompts.TASK_B,
            images=[Image.fromarray(current)],
            answer=b_answer,
            question="perception",
            checkpoint=0,
        )
    ]
    e_rows = [
        _row(
            uid="E.unlockpickup.up.s1.t004.identity",
            task="E",
            family="unlockpickup",
            group_id="up.s1",
            item_id="E.unlockpickup.up.s1.t004",
            prompt=prompts.TASK_E["identity"],
            images=[compose(success)],
            answer=json.dumps({"answer": "key_yellow"}),
            question="identity",
            checkpoint=4,
        )
    ]
    return {
        "task_a": a_rows,
        "task_b": b_rows,
        "task_c": c_rows,
        "task_d": d_rows,
        "task_e": e_rows,
    }


def features():
    import datasets

    feats = {}
    for name, (dtype, _) in COLUMNS.items():
        feats[name] = (
            datasets.List(datasets.Image()) if dtype == "list_image" else datasets.Value(dtype)
        )
    return datasets.Features(feats)


def write_smoke_dataset(
    root: Path, configs=("task_a", "task_b", "task_c", "task_d", "task_e")
) -> Path:
    """Write the tiny dataset under ``root`` and return it."""
    import datasets

    root = Path(root)
    rows = build_rows()
    card = ["---", "configs:"]
    for config in configs:
        out = root / "data" / config / "test-00000-of-00001.parquet"
        out.parent.mkdir(parents=True, exist_ok=True)
        cols = {name: [r[name] for r in rows[config]] for name in COLUMNS}
        datasets.Dataset.from_dict(cols, features=features()).to_parquet(str(out))
        card += [
            f"- config_name: {config}",
            "  data_files:",
            "  - split: test",
            f"    path: data/{config}/test-*.parquet",
        ]
    card += ["---", "", "# GridWM-Judge smoke fixture", ""]
    (root / "README.md").write_text("\n".join(card), encoding="utf-8")
    (root / "validation.json").write_text(
        json.dumps({"fixture": True, "seeds": {"generation": 1, "sampling": 2}}), encoding="utf-8"
    )
    return root

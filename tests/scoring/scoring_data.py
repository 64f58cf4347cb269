"""Tiny hand-built datasets in the scriptless Hub layout, and prediction writers (scoring tests)."""

import json
from pathlib import Path

from PIL import Image

from gridwm_judge.schema import COLUMNS

C_PRESENTATIONS = [
    ("grid", t, v, "neutral") for t in ("orig", "rev") for v in ("clean", "noisy", "style")
]
C_PRESENTATIONS += [("framing", "orig", "clean", f) for f in ("neutral", "positive", "negative")]
D_CONDITIONS = {
    "clean-neutral": ("clean", "neutral", "baseline"),
    "clean-positive": ("clean", "positive", "framing"),
    "clean-negative": ("clean", "negative", "framing"),
    "style-neutral": ("style", "neutral", "visual"),
}
GOLD_B = {
    "agent": {"pos": [2, 3], "dir": "up", "carrying": None},
    "front_cell": {"type": "wall", "color": "grey", "state": None},
    "visible_objects": [{"type": "key", "color": "yellow", "pos": [1, 1]}],
}


def _row(**kw):
    row = {name: ("" if dtype == "string" else -1) for name, (dtype, _) in COLUMNS.items()}
    row["images"] = [Image.new("RGB", (4, 4), (10, 20, 30))]
    row["prompt"] = "prompt"
    row.update(kw)
    return row


def c_rows(families=("keycorridor", "multiroom"), per_family=2):
    rows = []
    for fam in families:
        for k in range(per_family):
            group = f"{fam}.s{k}"
            for variant, label in (("full", 1), ("nocue", 1), ("cf", 0)):
                item = f"C.{fam}.{group}.{variant}"
                for rep in ("composite", "split"):
                    for pset, t, v, f in C_PRESENTATIONS:
                        rows.append(
                            _row(
                                uid=f"{item}.{pset}.{t}.{v}.{f}.{rep}",
                                task="C",
                                family=fam,
                                env_id=f"E-{fam}",
                                group_id=group,
                                item_id=item,
                                answer="Yes" if label else "No",
                                label=label,
                                variant=variant,
                                temporal=t,
                                visual=v,
                                framing=f,
                                representation=rep,
                                probe_family=pset,
                            )
                        )
    return rows


def d_rows(families=("doorkey", "lavagap", "memory"), per_family=2):
    rows = []
    for fam in families:
        for k in range(per_family):
            group = f"{fam}.s{k}"
            for variant, label in (("full", 1), ("nocue", 1), ("cf", 0)):
                item = f"D.{fam}.{group}.{variant}"
                for cond, (v, f, pf) in D_CONDITIONS.items():
                    rows.append(
                        _row(
                            uid=f"{item}.{cond}",
                            task="D",
                            family=fam,
                            env_id=f"E-{fam}",
                            group_id=group,
                            item_id=item,
                            answer="Success" if label else "Fail",
                            label=label,
                            variant=variant,
                            temporal="orig",
                            visual=v,
                            framing=f,
                            representation="composite",
                            probe_family=pf,
                        )
                    )
    return rows


def a_rows():
    rows = []
    for q in range(4):
        item = f"A.doorkey.doorkey.s{q % 2}.q{q:03d}"
        for cond in ("orig", "shuffle", "mask"):
            rows.append(
                _row(
                    uid=f"{item}.{cond}",
                    task="A",
                    family="doorkey",
                    group_id=f"doorkey.s{q % 2}",
                    item_id=item,
                    answer="ABCD"[q],
                    action_condition=cond,
                    action="forward",
                )
            )
    return rows


def b_rows():
    return [
        _row(
            uid=f"B.doorkey.doorkey.s0.t{t:03d}",
            task="B",
            family="doorkey",
            group_id="doorkey.s0",
            item_id=f"B.doorkey.doorkey.s0.t{t:03d}",
            answer=json.dumps(GOLD_B, sort_keys=True),
            question="perception",
            checkpoint=t,
        )
        for t in (0, 3)
    ]


def e_rows():
    return [
        _row(
            uid="E.unlockpickup.u.s0.t004.identity",
            task="E",
            family="unlockpickup",
            group_id="u.s0",
            item_id="E.unlockpickup.u.s0.t004",
            answer=json.dumps({"answer": "key_yellow"}),
            question="identity",
        ),
        _row(
            uid="E.unlockpickup.u.s0.t006.status",
            task="E",
            family="unlockpickup",
            group_id="u.s0",
            item_id="E.unlockpickup.u.s0.t006",
            answer=json.dumps({"answer": "dropped"}),
            question="status",
        ),
    ]


def write_dataset(folder: Path, by_config: dict) -> Path:
    import datasets

    from gridwm_judge.dataset.features import features

    lines = ["---", "configs:"]
    for config, rows in by_config.items():
        out = folder / "data" / config
        out.mkdir(parents=True)
        datasets.Dataset.from_list(rows, features=features()).to_parquet(
            str(out / "test-00000-of-00001.parquet")
        )
        lines += [
            f"- config_name: {config}",
            "  data_files:",
            "  - split: test",
            f"    path: data/{config}/*.parquet",
        ]
    lines += ["---", "", "tiny test dataset"]
    (folder / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def oracle_raw(row) -> str:
    task = row["task"]
    if task in ("A", "C", "D"):
        return row["answer"]
    if task == "B":
        return "```json\n" + row["answer"] + "\n```"
    return row["answer"]


def write_predictions(path: Path, judge: str, rows, raw_for) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            raw = raw_for(row)
            if raw is False:
                continue
            fh.write(
                json.dumps(
                    {
                        "uid": row["uid"],
                        "judge": judge,
                        "task": row["task"],
                        "raw": raw,
                        "status": "ok",
                        "parsed": None,
                        "parse_mode": "strict",
                        "item_digest": row.get("item_digest", ""),
                    }
                )
                + "\n"
            )
    return path

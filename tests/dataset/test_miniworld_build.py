"""The MiniWorld profiles end to end: build (real MiniWorld, headless) -> eval with the baseline
judges -> score -> report, with MiniWorld in tables of its own."""

import hashlib
import json

import pyarrow.parquet as pq
import pytest
import yaml

pytest.importorskip("pyglet", reason="needs the 3d extra")

from gridwm_judge import parsing  # noqa: E402
from gridwm_judge.cli import main  # noqa: E402
from gridwm_judge.dataset.export import build_dataset  # noqa: E402
from gridwm_judge.dataset.generation import env_tables, is_miniworld  # noqa: E402
from gridwm_judge.dataset.profiles import MINIWORLD_FAMILIES, get_profile  # noqa: E402
from gridwm_judge.dataset.validation import read_columns  # noqa: E402
from gridwm_judge.records import ScoresRecord  # noqa: E402


@pytest.fixture(scope="module")
def smoke(miniworld_smoke):
    return miniworld_smoke.out, miniworld_smoke


def test_profiles_name_only_miniworld_configs():
    from gridwm_judge.worlds.miniworld.cards import FAMILIES

    assert all(is_miniworld(f) for f in FAMILIES)
    # every world family is in the dataset, Sign too (its reading frame shows the word)
    assert MINIWORLD_FAMILIES == FAMILIES and len(FAMILIES) >= 4 and "sign" in FAMILIES
    assert not is_miniworld("doorkey")
    env_ids, default = env_tables()
    assert env_ids["tmaze"] == ("MiniWorld-TMaze-v0",) and default["sign"] == "MiniWorld-Sign-v0"
    assert "MiniGrid-DoorKey-5x5-v0" in env_ids["doorkey"]
    prof = get_profile("miniworld")
    assert prof.configs == ("miniworld_a", "miniworld_c", "miniworld_d", "miniworld_c_hard")
    assert prof.plan("miniworld_a").n_items >= 100
    c, d = prof.plan("miniworld_c"), prof.plan("miniworld_d")
    assert dict(c.families) == dict.fromkeys(MINIWORLD_FAMILIES, 12)
    # D: 12 query groups per family; Sign's two missions need two references, so 13 + 1
    assert dict(d.families) == {**dict.fromkeys(MINIWORLD_FAMILIES, 12), "sign": 13}
    assert c.expected_rows == 48 * 54 and d.expected_rows == 48 * 3 * 4
    assert [p.shard_by for p in prof.plans] == ["task", "group", "env", "group"]


def test_smoke_build_checks_and_records_the_renderer(smoke):
    out, report = smoke
    assert report.rows == {"miniworld_a": 12, "miniworld_c": 48, "miniworld_d": 12,
                           "miniworld_c_hard": 24}
    v = json.loads((out / "validation.json").read_text())
    assert v["ok"] and not v["problems"]
    for config in ("miniworld_c", "miniworld_d"):
        assert v["configs"][config]["d3_prompts_identical_across_variants"]["ok"]
        assert v["configs"][config]["nocue_images_differ_from_full"]["checked"] > 0
    assert "Mesa" in v["generation"]["miniworld_renderer"]["version"]
    envs = v["generation"]["envs"]
    assert {e["family"] for e in envs if e["cf_kind"] == "paper"} == {"tmaze", "putnext"}
    assert {e["family"] for e in envs if e["cf_kind"] == "hard"} == set(MINIWORLD_FAMILIES)
    cols = read_columns(out, "miniworld_c", ("uid", "task", "prompt", "label", "variant"))
    assert set(cols["task"]) == {"MC"} and all(u.startswith("MC.") for u in cols["uid"])
    assert all("first-person 3D views" in p for p in cols["prompt"])


def test_smoke_card_describes_the_miniworld_build(smoke):
    """The README written by the build: MiniWorld's configs and the families it drew, the
    renderer validation.json recorded, and no MiniGrid description."""
    out, _ = smoke
    meta = yaml.safe_load((out / "README.md").read_text().split("---\n")[1])
    prose = (out / "README.md").read_text().split("---\n", 2)[2]
    assert {"miniworld", "3d"} <= set(meta["tags"]) and "minigrid" not in meta["tags"]
    assert [c["config_name"] for c in meta["configs"] if c.get("default")] == ["miniworld_c"]
    for config in ("miniworld_a", "miniworld_c", "miniworld_d", "miniworld_c_hard"):
        assert f"- **{config}," in prose
    assert "**`tmaze`** (`MiniWorld-TMaze-v0`" in prose and "**`putnext`**" in prose
    assert "**`sign`**" in prose   # miniworld_c_hard draws every family
    renderer = json.loads((out / "validation.json").read_text())["generation"][
        "miniworld_renderer"]["renderer"]
    assert f"`{renderer}`" in prose
    assert "[MiniGrid](" not in prose and "- **task_" not in prose and "task_a" not in prose


def test_eval_score_report_keep_miniworld_apart(smoke, tmp_path):
    out, _ = smoke
    runs = []
    for judge in ("oracle", "always-yes", "random", "pixel-heuristic"):
        run = tmp_path / judge
        assert main(["eval", "--dataset", str(out), "--tasks",
                     "miniworld_a,miniworld_c,miniworld_d",
                     "--judge", f"baseline:{judge}", "--out", str(run), "--no-progress"]) == 0
        runs.append(run)
    assert main(["score", "--dataset", str(out), "--predictions",
                 *[str(r / "predictions.jsonl") for r in runs], "--out", str(tmp_path / "s"),
                 "--n-resamples", "50"]) == 0
    scores = ScoresRecord.read(tmp_path / "s" / "scores.json").judges
    oracle = scores["baseline:oracle"].results
    assert set(oracle.tasks) == {"MA", "MC", "MD"}
    assert {r.world for r in oracle} == {"miniworld"}
    assert oracle.value(task="MA", name="acc_a1") == 1.0
    for rep in ("composite", "split"):
        for name in ("jacc_neu", "idr_raw"):
            assert oracle.value(task="MC", representation=rep, name=name) == 1.0
    assert oracle.value(task="MD", name="idr_raw") == 1.0
    assert scores["baseline:always-yes"].results.value(task="MD", name="idr_raw") == 0.0
    assert main(["report", str(tmp_path / "s"), "--out", str(tmp_path / "r")]) == 0
    index = (tmp_path / "r" / "index.md").read_text()
    assert "## MiniWorld (3D) Task C" in index and "## MiniWorld (3D) reference-aided" in index
    assert "## MiniWorld (3D) Task A" in index
    mw = json.loads((tmp_path / "r" / "tables" / "miniworld_c.json").read_text())
    assert {r["judge"] for r in mw["rows"]} >= {"baseline:oracle", "baseline:random"}
    # never pooled: no judge was asked a MiniGrid task, so no MiniGrid table is written
    assert not (tmp_path / "r" / "tables" / "task_c.json").exists()
    assert "## Task C" not in index


def test_parser_reads_the_miniworld_task_names():
    """The parser reads each task's answer format from the task table."""
    assert parsing.parse_answer("MC", "No").value == "failure"
    assert parsing.parse_answer("MD", "Success").value == "success"
    assert parsing.parse_answer("MA", "B").value == "B"


def test_same_arguments_same_rows(smoke, tmp_path):
    """A second build in one process (other worker count) writes the same rows, image bytes
    included: the frames do not depend on what the shared OpenGL context drew before, nor on
    whether the groups were drawn here or in spawned workers, whose draw also drew the same
    seeds with the same rejects (TMaze's hard draw rejects seeds)."""
    def rows(folder):
        return [hashlib.sha256(repr(sorted(r.items())).encode()).hexdigest()
                for c in get_profile("miniworld_smoke").configs
                for f in sorted((folder / "data" / c).glob("test-*.parquet"))
                for r in pq.read_table(f).to_pylist()]

    def generation(folder):
        return json.loads((folder / "validation.json").read_text())["generation"]

    again = tmp_path / "again"
    build_dataset(again, "miniworld_smoke", num_proc=1)
    assert rows(again) == rows(smoke[0])
    assert generation(again) == generation(smoke[0])
    assert generation(again)["rejects_by_cf_kind"]["hard"]

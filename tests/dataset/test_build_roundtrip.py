"""A real smoke build: Hub layout, load_dataset round trip, determinism, bad input."""

import hashlib
import json

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from PIL import Image

from gridwm_judge.cli import main
from gridwm_judge.dataset.export import build_dataset, build_order
from gridwm_judge.dataset.profiles import get_profile
from gridwm_judge.dataset.validation import AUDIT_READ, nocue_image_gate, problems, read_columns
from gridwm_judge.task_table import CONFIGS


@pytest.fixture(scope="module")
def built(smoke_build):
    return smoke_build.out, smoke_build.report


def row_hashes(folder):
    """sha256 of every row (all columns, image bytes included), in file order."""
    out = []
    for config in get_profile("smoke").configs:
        for f in sorted((folder / "data" / config).glob("test-*.parquet")):
            for row in pq.read_table(f).to_pylist():
                digest = hashlib.sha256(repr(sorted(row.items())).encode()).hexdigest()
                out.append((row["uid"], digest))
    return out


def test_hub_layout_card_and_validation(built):
    out, report = built
    assert report.rows == {p.config: p.expected_rows for p in get_profile("smoke").plans}
    assert report.rows["task_c"] == 48 and report.rows["task_d"] == 24
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "data", "validation.json"]
    for config in CONFIGS:
        assert list((out / "data" / config).glob("test-*-of-*.parquet"))
    text = (out / "README.md").read_text()
    meta = yaml.safe_load(text.split("---\n")[1])
    assert meta["license"] == "apache-2.0" and meta["pretty_name"] == "GridWM-Judge"
    assert meta["task_categories"] and meta["size_categories"] == ["n<1K"]
    # datasets lists the configs sorted by name: the smoke profile's are A-E + prompt_ablation
    assert [c["config_name"] for c in meta["configs"]] == sorted(get_profile("smoke").configs)
    by_name = {c["config_name"]: c for c in meta["configs"]}
    # the Hub viewer and load_dataset(path) without a config name open Task C
    assert [c for c, v in by_name.items() if v.get("default")] == ["task_c"]
    assert by_name["task_c"]["data_files"] == [{"split": "test", "path": "data/task_c/test-*"}]
    info = {i["config_name"]: i for i in meta["dataset_info"]}
    assert info["task_d"]["splits"][0]["num_examples"] == 24
    assert info["task_c"]["splits"][0]["num_bytes"] > 0
    assert {"name": "images", "list": "image"} in info["task_c"]["features"]
    assert "gridwm-judge build --profile smoke" in text and "@inproceedings" in text
    assert "$" not in text.split("---\n", 2)[2].replace("$ ", "")  # every placeholder filled
    prose = text.split("---\n", 2)[2]
    assert "minigrid" in meta["tags"] and "miniworld" not in meta["tags"]
    assert "[MiniGrid](https://minigrid.farama.org/) trajectory" in prose
    assert "[MiniWorld](" not in prose and "- **miniworld_" not in prose
    val = json.loads((out / "validation.json").read_text())
    assert val["ok"] and val["seeds"] == {"generation": 830000, "sampling": 42}
    assert val["package_version"] and val["generation"]["gates"]
    assert val["configs"]["task_c"]["d3_prompts_identical_across_variants"]["ok"]
    for config in ("task_c", "task_d"):
        gate = val["configs"][config]["nocue_images_differ_from_full"]
        assert gate["ok"] and gate["checked"] > 0 and gate["same_as_full"] == 0


def test_load_dataset_round_trip(built, tmp_path):
    out, _ = built
    assert datasets.get_dataset_config_names(str(out)) == sorted(get_profile("smoke").configs)
    ds = datasets.load_dataset(str(out), "task_c", split="test", cache_dir=str(tmp_path))
    assert len(ds) == 48
    default = datasets.load_dataset(str(out), split="test", cache_dir=str(tmp_path))
    assert default["uid"] == ds["uid"]
    row = ds[0]
    assert isinstance(row["images"][0], Image.Image) and row["images"][0].mode == "RGB"
    assert row["answer"] in ("Yes", "No") and row["uid"].startswith("C.redbluedoor.")
    split_row = next(r for r in ds if r["representation"] == "split")
    assert len(split_row["images"]) == len(json.loads(split_row["frame_indices"])) > 1
    for config in CONFIGS:
        rows = datasets.load_dataset(str(out), config, split="test", cache_dir=str(tmp_path))
        assert len(rows) == get_profile("smoke").plan(config).expected_rows
        assert all(isinstance(im, Image.Image) for im in rows[0]["images"])


def parquet_digests(folder):
    return {str(f.relative_to(folder)): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted((folder / "data").rglob("*.parquet"))}


def test_same_args_same_files_with_one_or_two_processes(built, tmp_path):
    out, _ = built
    again = build_dataset(tmp_path / "np2", "smoke", num_proc=2)
    assert row_hashes(again.out) == row_hashes(out)
    # two workers build the rows, the main process writes them: the very files of one process
    assert parquet_digests(again.out) == parquet_digests(out)
    # the workers start on A and E (build_order) but reports keep the profile's order
    assert list(again.rows) == list(again.validation["configs"]) == list(again.seconds) \
        == list(get_profile("smoke").configs)
    other_seed = build_dataset(tmp_path / "s1", "smoke", configs=["task_d"], seed=830100)
    assert other_seed.rows["task_d"] == 24
    gen = other_seed.validation["generation"]
    assert gen["generation_seed"] == 830100
    assert {e["family"] for e in gen["envs"]} == {"lavagap", "redbluedoor"}  # only what was built
    assert all(e["groups_used"] == 2 for e in gen["envs"])  # reference + one query per env
    assert set(uids(other_seed.out, "task_d")).isdisjoint(uids(out, "task_d"))


def test_the_builder_on_its_own_with_datasets_workers_gives_the_same_rows(built, tmp_path):
    """GridWMJudge used directly, as its docstring shows, with datasets' own num_proc: Task A
    and E are cut into one part per worker, and the rows are the build's."""
    from gridwm_judge.dataset.builder import GridWMJudge

    out, _ = built
    for config in ("task_a", "task_e"):
        builder = GridWMJudge(config_name=config, profile="smoke", cache_dir=str(tmp_path / "c"))
        builder.download_and_prepare(output_dir=str(tmp_path / config), file_format="parquet",
                                     num_proc=2)
        files = sorted((tmp_path / config).glob("*.parquet"))
        assert len(files) == 2   # one per part, from datasets' two workers
        mine = [r for f in files for r in pq.read_table(f).to_pylist()]
        ours = [r for f in sorted((out / "data" / config).glob("*.parquet"))
                for r in pq.read_table(f).to_pylist()]
        assert mine == ours


def uids(folder, config):
    files = sorted((folder / "data" / config).glob("*.parquet"))
    return [u for f in files for u in pq.read_table(f, columns=["uid"]).column("uid").to_pylist()]


def test_non_empty_out_is_refused_and_untouched(tmp_path):
    out = tmp_path / "full"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="--overwrite"):
        build_dataset(out, "smoke", configs=["task_d"])
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]  # no staging folder left
    assert main(["build", "--profile", "smoke", "--out", str(out), "--configs", "task_d"]) == 2
    # --overwrite replaces only a dataset folder gridwm-judge wrote, never someone's files
    assert main(["build", "--profile", "smoke", "--out", str(out), "--configs", "task_d",
                 "--overwrite", "--num-proc", "1"]) == 2
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    built = tmp_path / "built"
    for _ in range(2):  # the second build replaces the first
        assert main(["build", "--profile", "smoke", "--out", str(built), "--configs", "task_d",
                     "--overwrite", "--num-proc", "1"]) == 0
    assert sorted(p.name for p in built.iterdir()) == ["README.md", "data", "validation.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["built", "full"]


def test_cli_lists_valid_profiles_and_configs(tmp_path, capsys):
    assert main(["build", "--profile", "nope", "--out", str(tmp_path / "x")]) == 2
    assert "base, scale2, smoke" in capsys.readouterr().err
    assert main(["build", "--profile", "smoke", "--out", str(tmp_path / "x"),
                 "--configs", "task_c,task_q"]) == 2
    assert "task_a, task_b, task_c, task_d, task_e" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_a_row_off_the_contract_is_named():
    import pytest

    from gridwm_judge.schema import COLUMNS, dataset_row, row_dict

    row = {name: (-1 if dtype == "int64" else [] if dtype == "list_image" else "")
           for name, (dtype, _) in COLUMNS.items()}
    row["uid"] = "C.x"
    assert row_dict(dataset_row(row)) == row
    with pytest.raises(ValueError, match="column 'label' must be int64, got str"):
        dataset_row({**row, "label": "1"}, where="task_c")
    with pytest.raises(ValueError, match=r"missing \['prompt'\]"):
        dataset_row({k: v for k, v in row.items() if k != "prompt"})


def test_nocue_gate_reads_the_written_images(tmp_path):
    # A NoCue row whose images are byte for byte its Full row's hides nothing a judge sees.
    def img(b):
        return [{"bytes": b, "path": None}]

    rows = [("g1", "full", img(b"A")), ("g1", "nocue", img(b"A")), ("g1", "cf", img(b"C")),
            ("g2", "full", img(b"A")), ("g2", "nocue", img(b"B")), ("g2", "cf", img(b"C"))]
    cols = {c: [""] * len(rows) for c in AUDIT_READ if c != "images"}
    cols["uid"] = [f"C.{g}.{v}" for g, v, _ in rows]
    cols["group_id"] = [g for g, _, _ in rows]
    cols["variant"] = [v for _, v, _ in rows]
    cols["label"] = [1, 1, 0] * 2
    table = pa.table({**cols, "images": [i for _, _, i in rows]})
    (tmp_path / "data" / "task_c").mkdir(parents=True)
    pq.write_table(table, tmp_path / "data" / "task_c" / "test-00000.parquet")
    gate = nocue_image_gate(tmp_path, "task_c", read_columns(tmp_path, "task_c"))
    assert gate == {"checked": 2, "same_as_full": 1, "examples": ["C.g1.nocue"],
                    "unmatched": 0, "unmatched_examples": [], "ok": False}
    report = {"configs": {"task_c": {"rows_ok": True, "unique_uids": True,
                                     "rows_without_images": 0,
                                     "nocue_images_differ_from_full": gate}}}
    assert problems(report) == ["task_c: 1 NoCue rows show exactly their Full row's images "
                                "(nothing hidden in the shown frames), e.g. ['C.g1.nocue']"]
    # without its Full row a NoCue row is not silently skipped: the gate compared nothing
    keep = [i for i, (g, v, _) in enumerate(rows) if (g, v) != ("g2", "full")]
    pq.write_table(table.take(keep), tmp_path / "data" / "task_c" / "test-00000.parquet")
    gate = nocue_image_gate(tmp_path, "task_c", read_columns(tmp_path, "task_c"))
    assert gate["unmatched"] == 1 and gate["unmatched_examples"] == ["C.g2.nocue"]
    assert not gate["ok"]


def test_configs_cut_in_parts_are_built_first_and_the_rest_keep_their_order():
    base = get_profile("base")
    assert build_order(base, list(base.configs)) == [
        "task_a", "task_e", "task_b", "task_c", "task_d", "task_c_hard", "prompt_ablation",
        "oracle_state"]
    assert build_order(base, ["task_d", "task_e", "task_c"]) == ["task_e", "task_d", "task_c"]


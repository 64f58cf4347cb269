"""dataset_io: scriptless Hub layout round trip through datasets.load_dataset."""

from __future__ import annotations

import pytest
from judges.smoke_data import write_smoke_dataset

from gridwm_judge.dataset_io import available_configs, dataset_fingerprint, load_task
from gridwm_judge.schema import COLUMNS


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return write_smoke_dataset(
        tmp_path_factory.mktemp("ds") / "smoke", configs=("task_c", "task_d")
    )


def test_load_task_reads_parquet_with_image_lists(smoke):
    ds = load_task(str(smoke), "task_c")
    assert list(ds.column_names) == list(COLUMNS)
    assert len(ds) == 8
    row = ds[0]
    assert row["uid"].startswith("C.doorkey.") and row["task"] == "C"
    assert row["images"][0].mode == "RGB" and row["images"][0].size[0] > 40
    split_rows = [r for r in ds if r["representation"] == "split"]
    assert all(len(r["images"]) == 3 for r in split_rows)


def test_unknown_config_lists_the_ones_there(smoke):
    assert available_configs(str(smoke)) == ["task_c", "task_d"]
    with pytest.raises(ValueError, match=r"has no config 'task_a'; it has: task_c, task_d"):
        load_task(str(smoke), "task_a")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_task(str(smoke / "missing"), "task_c")


def test_configs_fall_back_to_data_folders(tmp_path):
    root = write_smoke_dataset(tmp_path / "nocard", configs=("task_d",))
    (root / "README.md").write_text("# no YAML header\n")
    assert available_configs(str(root)) == ["task_d"]


def test_fingerprint_tracks_content(smoke, tmp_path):
    first = dataset_fingerprint(str(smoke))
    assert first.startswith("sha256:") and first == dataset_fingerprint(str(smoke))
    other = write_smoke_dataset(tmp_path / "copy", configs=("task_c", "task_d"))
    assert dataset_fingerprint(str(other)) == first  # same bytes, other folder
    (other / "validation.json").write_text('{"changed": true}')
    assert dataset_fingerprint(str(other)) != first


def test_a_rebuilt_folder_is_read_afresh_not_from_a_stale_cache(tmp_path):
    """datasets keys its cache on the folder name (huggingface/datasets#2956): a folder
    rebuilt with other rows must give the new rows, never the previous build's."""
    root = write_smoke_dataset(tmp_path / "smoke", configs=("task_c",))
    first = load_task(str(root), "task_c")
    assert len(first) == 8
    part = root / "data" / "task_c" / "test-00000-of-00001.parquet"
    first.select(range(3)).to_parquet(str(part))
    again = load_task(str(root), "task_c")
    assert len(again) == 3 and again["uid"] == first["uid"][:3]
    # an unchanged folder reuses its cache (same Arrow files, no rebuild)
    assert load_task(str(root), "task_c").cache_files == again.cache_files


def test_the_data_folder_of_a_build_points_at_the_build(tmp_path):
    from gridwm_judge.dataset_io import load_task

    (tmp_path / "data" / "task_c").mkdir(parents=True)
    (tmp_path / "README.md").write_text(
        "---\nconfigs:\n- config_name: task_c\n  data_files: data/task_c/*.parquet\n---\n")
    with pytest.raises(ValueError, match="inside a built dataset: give its folder"):
        load_task(str(tmp_path / "data"), "task_c")

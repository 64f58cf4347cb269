"""`build --nocue-style`: occlude rebuilds the paper's items byte for byte; the style is
recorded in the column, validation.json and the card."""

from __future__ import annotations

import hashlib
import io
import json

import pyarrow.parquet as pq
import pytest
from PIL import Image

from gridwm_judge.dataset.export import build_dataset

OCCLUDE_DIGESTS = {
    "task_c": (48, "9753571d6090abcfb4070311a81e40a1955e9eb5edbcfb36a6dc1c6292eef244"),
    "task_d": (24, "bb68be62091d88b9f0cc0f88e192075e23b9b6350cfd90bb6d410639011b9081"),
}
"""The smoke profile's task_c / task_d items as the code drew them before NoCue styles existed
(commit 8a50bf4, its only NoCue rendering, the grey square): ``gridwm-judge build --profile
smoke --out DIR`` (default seeds), then :func:`items_digest` of each config. (Their PNG bytes
were identical too: fe9208f7... / c8bea7e9... over uid, prompt and each PNG's sha256.)"""


def items_digest(folder, config: str) -> tuple[int, str]:
    """(rows, sha256) over the model-facing items in uid order: uid, prompt, and each image's
    mode, size and decoded pixels (pixels rather than PNG bytes, so a zlib build that
    compresses differently cannot fail the test while the images are the same)."""
    rows = []
    for f in sorted((folder / "data" / config).glob("*.parquet")):
        rows += pq.read_table(f, columns=["uid", "prompt", "images"]).to_pylist()
    h = hashlib.sha256()
    for r in sorted(rows, key=lambda r: r["uid"]):
        h.update(f"{r['uid']}\0{r['prompt']}\0".encode())
        for im in r["images"]:
            img = Image.open(io.BytesIO(im["bytes"]))
            h.update(f"{img.mode}{img.size}".encode())
            h.update(img.tobytes())
        h.update(b"\n")
    return len(rows), h.hexdigest()


def column(folder, config: str, name: str) -> list:
    return [v for f in sorted((folder / "data" / config).glob("*.parquet"))
            for v in pq.read_table(f, columns=[name]).column(name).to_pylist()]


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    out = {}
    for style in ("occlude", "clean"):
        folder = tmp_path_factory.mktemp(style) / "gwj"
        build_dataset(folder, "smoke", num_proc=1, configs=["task_c", "task_d"],
                      nocue_style=style)
        out[style] = folder
    return out


def test_occlude_rebuilds_the_paper_items_byte_for_byte(builds):
    for config, want in OCCLUDE_DIGESTS.items():
        assert items_digest(builds["occlude"], config) == want, config


def test_clean_changes_the_nocue_pictures_only(builds):
    for config in OCCLUDE_DIGESTS:
        assert items_digest(builds["clean"], config)[1] != OCCLUDE_DIGESTS[config][1]
        prompts = {s: dict(zip(column(builds[s], config, "uid"),
                               column(builds[s], config, "prompt"), strict=True))
                   for s in builds}
        assert prompts["clean"] == prompts["occlude"]  # the text never says how NoCue hides


@pytest.mark.parametrize("style", ["occlude", "clean"])
def test_the_style_is_recorded(builds, style):
    folder = builds[style]
    assert json.loads((folder / "validation.json").read_text())["nocue_style"] == style
    card = (folder / "README.md").read_text()
    assert f"built with `--nocue-style {style}`" in card
    assert ("No square appears in NoCue alone" in card) == (style == "clean")
    assert ("**key, ball, box, goal**: erased" in card) == (style == "clean")
    for config in OCCLUDE_DIGESTS:
        assert set(column(folder, config, "nocue_style")) == {style}

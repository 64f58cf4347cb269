"""Images encoded once per build: an image that several rows or configs show is
PNG-encoded once, shared by content through the build's store, and the rows keep exactly the
bytes a fresh encoding gives."""

from __future__ import annotations

import hashlib
import io

import pyarrow.parquet as pq
from PIL import Image

from gridwm_judge.dataset.png_store import PngCache


def test_a_smoke_build_encodes_each_distinct_image_once(smoke_build):
    encodes = smoke_build.png_encodes   # counted while the session's smoke build ran
    written, distinct = 0, {}
    for f in sorted((smoke_build.out / "data").rglob("test-*.parquet")):
        for images in pq.read_table(f, columns=["images"]).column("images").to_pylist():
            for im in images:
                written += 1
                distinct.setdefault(hashlib.sha256(im["bytes"]).digest(), im["bytes"])
    assert encodes == len(distinct) < written   # shared images were not encoded again
    fresh = PngCache()
    for data in distinct.values():   # byte for byte what encoding the pixels again gives
        assert fresh.encode(Image.open(io.BytesIO(data))) == data
    assert not (smoke_build.out / ".png").exists()


def test_the_store_is_shared_between_caches(tmp_path):
    img = Image.new("RGB", (8, 4), (10, 200, 30))
    twin = img.copy()   # another object, the same pixels
    before = PngCache.encodes
    a, b = PngCache(store=tmp_path), PngCache(store=tmp_path)
    assert a(img)["bytes"] == b(twin)["bytes"] == PngCache().encode(img)
    assert PngCache.encodes - before == 2   # a once, and the uncached reference encode
    assert len(list(tmp_path.glob("*.png"))) == 1

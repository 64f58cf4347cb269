"""Images encoded once per build: an image that several rows or configs show is
PNG-encoded once, shared by content through the build's store, and the rows keep exactly the
bytes a fresh encoding gives."""

from __future__ import annotations

import hashlib
import io
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pyarrow.parquet as pq
from PIL import Image

from gridwm_judge.dataset.png_store import PackStore, PngCache, release


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
    assert PackStore.count(tmp_path) == 1
    release(tmp_path)


def _encode_in_a_worker(store: str, colours: list[tuple[int, int, int]]) -> tuple[int, list]:
    before = PngCache.encodes
    cache = PngCache(store=store)
    out = [cache(Image.new("RGB", (16, 8), c))["bytes"] for c in colours]
    return PngCache.encodes - before, out


def test_the_store_is_shared_between_processes(tmp_path):
    """What one worker encoded, another finds, however many it appended since; what none
    encoded is encoded once."""
    colours = [(i, 255 - i, 7) for i in range(0, 250, 10)]
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as ex:
        encoded, first = ex.submit(_encode_in_a_worker, str(tmp_path), colours).result()
    assert encoded == len(colours)
    before = PngCache.encodes
    here = PngCache(store=tmp_path)
    again = [here(Image.new("RGB", (16, 8), c))["bytes"] for c in colours]
    new = here(Image.new("RGB", (16, 8), (1, 2, 3)))["bytes"]
    assert again == first and PngCache.encodes - before == 1   # only the new one
    assert new == PngCache().encode(Image.new("RGB", (16, 8), (1, 2, 3)))
    assert PackStore.count(tmp_path) == len(colours) + 1
    release(tmp_path)


def test_a_record_still_being_written_is_read_once_whole(tmp_path):
    """Another process's index ends in half a record while it writes: that record is taken
    in when whole, not before, and never read wrong."""
    data = b"\x89PNG fake bytes"
    (tmp_path / "99.pack").write_bytes(data)
    record = PackStore.RECORD.pack(b"k" * 16, 0, len(data))
    (tmp_path / "99.idx").write_bytes(record[:20])
    store = PackStore(str(tmp_path))
    assert store.get(b"k" * 16) is None and PackStore.count(tmp_path) == 0
    with open(tmp_path / "99.idx", "ab") as f:
        f.write(record[20:])
    assert store.get(b"k" * 16) == data and PackStore.count(tmp_path) == 1


def test_a_store_reopened_in_the_same_folder_reads_what_it_wrote(tmp_path):
    """A store released and opened again (or a process with a reused pid) appends to files
    of its own, so every key still reads its own image's bytes."""
    a = Image.new("RGB", (9, 9), (200, 10, 10))
    b = Image.new("RGB", (9, 9), (10, 200, 10))
    PngCache(store=tmp_path)(a)
    release(tmp_path)
    PngCache(store=tmp_path)(b)
    release(tmp_path)
    fresh = PngCache(store=str(tmp_path) + "/.")   # another spelling of the same folder
    assert fresh(a.copy())["bytes"] == PngCache().encode(a)
    assert fresh(b.copy())["bytes"] == PngCache().encode(b)
    assert PackStore.count(tmp_path) == 2 and len(list(tmp_path.glob("*.pack"))) == 2
    release(tmp_path)

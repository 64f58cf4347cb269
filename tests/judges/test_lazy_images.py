"""Images stay encoded until a judge reads pixels; HTTP sends plain RGB PNGs as stored."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from gridwm_judge.item_hash import item_digest, request_hash
from gridwm_judge.judges import JudgeOptions, JudgeRequest, make_judge
from gridwm_judge.judges import images as images_mod
from gridwm_judge.judges.images import LazyImages, is_plain_rgb_png, png_bytes
from gridwm_judge.judges.openai_http import chat_body


def _png(mode: str, color, size=(9, 7), **save) -> bytes:
    buf = io.BytesIO()
    Image.new(mode, size, color).save(buf, format="PNG", **save)
    return buf.getvalue()


def test_decodes_on_first_read_only_and_caches():
    imgs = LazyImages([_png("RGB", (10, 200, 30)), _png("RGBA", (1, 2, 3, 4))])
    assert len(imgs) == 2 and imgs.decoded_count == 0
    first = imgs[-1]
    assert first.mode == "RGB" and first.getpixel((0, 0)) == (1, 2, 3)
    assert imgs.decoded_count == 1 and imgs[1] is first
    assert [im.size for im in imgs] == [(9, 7), (9, 7)] and imgs.decoded_count == 2
    with pytest.raises(IndexError, match="out of range for 2 images"):
        imgs[2]


def test_plain_rgb_png_is_sent_as_stored_others_reencoded():
    rgb = _png("RGB", (10, 200, 30))
    keyed = _png("RGB", (10, 200, 30), transparency=(10, 200, 30))
    rgba, pal = _png("RGBA", (5, 6, 7, 128)), _png("P", 3)
    assert is_plain_rgb_png(rgb)
    assert not any(is_plain_rgb_png(b) for b in (keyed, rgba, pal, b"GIF89a"))
    imgs = LazyImages([rgb, rgba, pal])
    assert png_bytes(imgs, 0) is imgs.encoded(0) and imgs.decoded_count == 0
    for i in (1, 2):
        again = Image.open(io.BytesIO(png_bytes(imgs, i)))
        assert again.mode == "RGB" and again.getpixel((0, 0)) == imgs[i].getpixel((0, 0))
    body = chat_body("m", JudgeRequest("u", "C", "p", LazyImages([rgb]), 8))
    url = body["messages"][0]["content"][0]["image_url"]["url"]
    assert base64.b64decode(url.split(",", 1)[1]) == rgb


def test_non_pixel_judges_never_decode(monkeypatch):
    def boom(data):
        raise AssertionError("decoded an image")

    monkeypatch.setattr(images_mod, "decode_rgb", boom)
    png = _png("RGB", (0, 0, 0))
    for name in ("always-yes", "always-no", "random", "oracle"):
        judge = make_judge(f"baseline:{name}", JudgeOptions())
        req = JudgeRequest("u", "C", "q", LazyImages([png, png]), 8, gold="Yes")
        [resp] = judge.judge([req])
        assert resp.status == "ok", resp.error


def test_request_hash_follows_stored_bytes():
    ident = {"judge": "baseline:random"}
    a, b = _png("RGB", (1, 2, 3)), _png("RGB", (1, 2, 4))
    d = item_digest("C", "p", [a])
    h = request_hash(ident, 8, d)
    assert h == request_hash(ident, 8, item_digest("C", "p", [a])) and len(h) == 64
    digests = [
        item_digest("C", "p", [b]),
        item_digest("C", "p", [a, a]),
        item_digest("C", "p", [a[:20], a[20:]]),
        item_digest("D", "p", [a]),
        item_digest("C", "q", [a]),
    ]
    assert len({d, *digests}) == 6
    others = [request_hash(ident, 9, d), request_hash({"judge": "baseline:oracle"}, 8, d)]
    assert len({h, *others, *(request_hash(ident, 8, x) for x in digests)}) == 8


@pytest.mark.parametrize("reversed_order", [False, True])
def test_pixel_heuristic_decodes_only_the_judged_frame(reversed_order):
    from gridwm_judge.prompts import REVERSED_NOTE

    frames = [_png("RGB", (0, 0, 40 * i), size=(16, 16)) for i in range(4)]
    judge = make_judge("baseline:pixel-heuristic", JudgeOptions())
    prompt = "Did the agent reach the goal?" + (REVERSED_NOTE if reversed_order else "")
    imgs = LazyImages(frames)
    [resp] = judge.judge([JudgeRequest("u", "C", prompt, imgs, 8)])
    assert resp.raw == "No" and imgs.decoded_count == 1
    assert imgs._decoded[0 if reversed_order else -1] is not None

"""--max-pixels as one rule: LazyImages scales (aspect kept) before any backend reads pixels."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from gridwm_judge.judges.images import LazyImages, decode_rgb, fit_pixels, png_bytes


def _png(size, colour=(10, 200, 30)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    return buf.getvalue()


def _jpeg(size) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (200, 10, 10)).save(buf, format="JPEG")
    return buf.getvalue()


def test_fit_pixels_keeps_aspect_and_never_upscales():
    im = Image.new("RGB", (300, 100))
    out = fit_pixels(im, 7_500)
    assert out.size == (150, 50) and out.width * out.height <= 7_500
    assert fit_pixels(im, 30_000) is im and fit_pixels(im, None) is im


def test_lazy_images_scale_pixels_and_re_encode_only_scaled_images():
    big, small = _png((400, 200)), _png((20, 10))
    images = LazyImages([big, small], max_pixels=20_000)
    assert images.encoded(1) is not None and images.decoded_count == 0  # small: header only
    assert images.encoded(1) == small
    assert images[0].size == (200, 100) and images[1].size == (20, 10)
    scaled = images.encoded(0)
    assert scaled != big and decode_rgb(scaled).size == (200, 100)
    assert png_bytes(images, 0) == scaled  # backends that send bytes send the scaled image


def test_lazy_images_scale_other_formats_too():
    images = LazyImages([_jpeg((300, 300))], max_pixels=900)
    assert images[0].size == (30, 30)
    assert decode_rgb(images.encoded(0)).size == (30, 30)
    assert decode_rgb(png_bytes(images, 0)).size == (30, 30)


def test_lazy_images_without_limit_hand_out_stored_bytes():
    data = _png((400, 200))
    images = LazyImages([data])
    assert images.encoded(0) is not None and images.encoded(0) == data
    assert images[0].size == (400, 200)


@pytest.mark.parametrize("bad", [0, -5])
def test_bad_max_pixels_is_one_clear_error(bad):
    with pytest.raises(ValueError, match=f"max_pixels must be a positive pixel count, got {bad}"):
        LazyImages([_png((4, 4))], max_pixels=bad)

"""Visual presentation probes: clean, noisy (mild Gaussian), style (mild colour jitter).

Each probe is a deterministic function of the image and a key string (the item's uid or group
id): the key is hashed to seed a private ``numpy.random.Generator``; global RNG state is never
touched, so any process count gives byte-identical images.
"""

from __future__ import annotations

import hashlib

import numpy as np
from PIL import Image, ImageEnhance

VISUALS = ("clean", "noisy", "style")
NOISE_SIGMA = 8.0
STYLE_RANGE = 0.12
"""Style factors are drawn uniformly from [1 - STYLE_RANGE, 1 + STYLE_RANGE]."""
STYLE_ENHANCERS = (
    ("color", ImageEnhance.Color),
    ("contrast", ImageEnhance.Contrast),
    ("brightness", ImageEnhance.Brightness),
    ("sharpness", ImageEnhance.Sharpness),
)


def rng_from_key(key: str, salt: str = "") -> np.random.Generator:
    """A Generator seeded from sha256(salt + key): stable across runs, platforms, processes."""
    digest = hashlib.sha256(f"{salt}\x1f{key}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


def style_factors(key: str) -> dict[str, float]:
    """The four ImageEnhance factors the style probe uses for ``key``."""
    rng = rng_from_key(key, "style")
    values = rng.uniform(1.0 - STYLE_RANGE, 1.0 + STYLE_RANGE, size=len(STYLE_ENHANCERS))
    return {name: float(v) for (name, _), v in zip(STYLE_ENHANCERS, values, strict=True)}


def apply_visual(image: Image.Image, visual: str, key: str) -> Image.Image:
    """``image`` under the visual probe ``visual``, deterministic from ``key``."""
    if visual not in VISUALS:
        raise ValueError(f"unknown visual probe {visual!r}; expected one of {', '.join(VISUALS)}")
    image = image.convert("RGB")
    if visual == "clean":
        return image
    if visual == "noisy":
        rng = rng_from_key(key, "noisy")
        arr = np.asarray(image, dtype=np.float32)
        noise = rng.standard_normal(arr.shape, dtype=np.float32) * np.float32(NOISE_SIGMA)
        out = np.clip(np.rint(arr + noise), 0, 255).astype(np.uint8)
        return Image.fromarray(out, "RGB")
    factors = style_factors(key)
    for name, enhancer in STYLE_ENHANCERS:
        image = enhancer(image).enhance(factors[name])
    return image

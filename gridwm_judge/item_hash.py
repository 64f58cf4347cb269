"""What a judge was asked, as a hash: eval stores it in every prediction, score recomputes it
from the dataset and refuses predictions that answered a different item.

``item_digest`` covers the model-facing item (task, prompt, the stored image bytes in order);
``request_hash`` adds who was asked and with which budget. Images enter as the encoded bytes
stored in the dataset (the PNG files in the Parquet), never as decoded pixels: hashing needs no
decoding, and a rebuilt dataset whose item changed hashes differently.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

HASH_RULE = "item-digest/1"
"""Recorded in each hash's input, so a change of rule changes every hash."""


def item_digest(task: str, prompt: str, images: Sequence[bytes]) -> str:
    """sha256 of the model-facing item: task, prompt, images (length-prefixed, in order)."""
    h = hashlib.sha256()
    h.update(json.dumps({"task": task, "prompt": prompt}, sort_keys=True).encode())
    for data in images:
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def request_hash(identity: Mapping[str, Any], max_tokens: int, digest: str) -> str:
    """sha256 over the judge identity (spec, answer-changing options and settings), the token
    budget and the item digest."""
    payload = {"id": identity, "max_tokens": int(max_tokens), "item": digest, "rule": HASH_RULE}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def stored_image_bytes(image: Mapping[str, Any] | None, uid: str) -> bytes:
    """The encoded bytes of one stored ``Image`` cell ({"bytes", "path"}), without decoding.

    Built datasets embed the bytes; a cell that only names a local file is read from it.
    """
    data = (image or {}).get("bytes")
    if data:
        return bytes(data)
    path = (image or {}).get("path")
    if path and Path(path).is_file():
        return Path(path).read_bytes()
    raise ValueError(
        f"row {uid!r} has an image with neither stored bytes nor a readable file "
        f"(path {path!r}); rebuild the dataset so its images are embedded"
    )

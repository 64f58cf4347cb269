"""Whether a judge model named by Hub id can be loaded here, decided in seconds.

transformers and vLLM fetch a Hub model through ``huggingface_hub``, which retries every file
on a connection error with growing waits: with no network an ``hf:ORG/NAME`` judge took minutes
and printed dozens of "Retrying in Ns" lines before failing. One request to the Hub endpoint
with a short timeout answers first: reachable, load as usual; unreachable but the model is in
the local Hub cache, load from the cache only; neither, one line saying how to work offline.
"""

from __future__ import annotations

import sys
from typing import Any

from gridwm_judge.judges.base import looks_like_path

REACH_TIMEOUT_S = 5.0
"""Seconds the Hub endpoint has to answer (any HTTP reply means it is reachable)."""


class HubUnreachableError(ValueError):
    """The Hub cannot be reached and the model is not in the local Hub cache."""


def offline_line(model: str, backend: str) -> str:
    """How to run a Hub model without the Hub (the end of every refusal that needs it)."""
    from huggingface_hub import constants

    fetch = f"`hf download {model}` on a machine with network"
    if constants.HF_HUB_OFFLINE:
        return (f"give a local model folder ({backend}:/path/to/model), or put {model!r} in the "
                f"Hub cache ({fetch})")
    return (f"to work offline give a local model folder ({backend}:/path/to/model) or set "
            f"HF_HUB_OFFLINE=1 with {model!r} in the Hub cache ({fetch})")


def hub_unreachable(timeout_s: float = REACH_TIMEOUT_S) -> str | None:
    """Why the Hub endpoint (``HF_ENDPOINT``) gives no HTTP answer within ``timeout_s``; None
    when it answers. Once, without the Hub client's retries."""
    from huggingface_hub import constants, get_session

    try:
        session: Any = get_session()  # httpx (huggingface_hub >= 1) or requests (older)
        stay = ("follow_redirects" if type(session).__module__.startswith("httpx")
                else "allow_redirects")  # the endpoint's redirect is reply enough
        session.head(constants.ENDPOINT, timeout=timeout_s, **{stay: False})
    except Exception as exc:  # noqa: BLE001 (any failure to get a reply is "unreachable")
        text = str(exc).splitlines()[0] if str(exc) else ""
        return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return None


def cached(model: str) -> bool:
    """Whether the local Hub cache holds ``model``'s config (as ``HF_HUB_OFFLINE=1`` reads it)."""
    return cached_folder(model) is not None


def cached_folder(model: str) -> str | None:
    """The local Hub cache's snapshot folder of ``model`` (the one holding its config), None
    when the cache has no config of it."""
    import os

    from huggingface_hub import try_to_load_from_cache

    config = try_to_load_from_cache(model, "config.json")
    return os.path.dirname(config) if isinstance(config, str) else None


def cache_only(model: str, backend: str) -> bool:
    """Whether ``model`` (a Hub id; a local folder is read as such) must be read from the local
    Hub cache only: the Hub is unreachable but the cache holds it. Raises
    :class:`HubUnreachableError` when neither the Hub nor the cache has it; with
    ``HF_HUB_OFFLINE`` set the loaders read the cache themselves, so nothing is asked."""
    import os

    from huggingface_hub import constants

    if looks_like_path(model) or os.path.isdir(os.path.expanduser(model)):
        return False
    if constants.HF_HUB_OFFLINE:
        return False
    why = hub_unreachable()
    if why is None:
        return False
    if cached(model):
        print(f"note: the Hugging Face Hub at {constants.ENDPOINT} cannot be reached ({why}); "
              f"loading {model!r} from the local Hub cache", file=sys.stderr, flush=True)
        return True
    raise HubUnreachableError(
        f"cannot reach the Hugging Face Hub at {constants.ENDPOINT} ({why}) to fetch the "
        f"{backend} judge model {model!r}, and it is not in the local Hub cache; "
        f"{offline_line(model, backend)}")


def load_name(model: str, backend: str) -> str:
    """What an engine that takes a name or a folder (vLLM) should load ``model`` by: the name
    itself, or its folder in the local Hub cache when the Hub cannot be reached (so the engine
    asks the Hub nothing); :func:`cache_only`'s refusal when neither has it."""
    if cache_only(model, backend):
        folder = cached_folder(model)
        assert folder is not None, "cache_only() said the cache holds it"
        return folder
    return model

"""Secrets never reach the disk: redact keys from URLs, headers and echoed error bodies.

A base URL may carry a key in its user info (``http://u:KEY@host/v1``) and a server's error
body may echo the request's ``Authorization`` header or an ``api_key`` field. Everything the
package writes (run.json, prediction records, error texts) passes through :func:`redact` or
:func:`redact_url` first. Known secret values (the API key in use) are also replaced
wherever they occur, whatever surrounds them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

MASK = "***"
SECRET_ENV = ("OPENAI_API_KEY", "GRIDWM_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
              "GOOGLE_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
"""Environment variables whose values are secrets wherever they appear."""
MIN_SECRET_LEN = 8
"""Shorter values (``EMPTY``, ``none``: what local servers are given) are not masked as text."""

_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@'\"]+@")
_AUTH_SCHEME = re.compile(r"(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=:-]{4,}")
_KEY_FIELD = re.compile(
    r"""(?ix)
    (?P<key>["']?(?:[\w-]*(?:api[_-]?key|authorization|secret|password|passwd)[\w-]*
                 |(?:[\w-]*[_-])?token(?![\w-]))["']?)
    (?P<sep>\s*[:=]\s*)
    (?P<q>["']?)
    (?P<value>(?:bearer\s+|basic\s+)?[^"'\s,;}&]+)
    """
)


def redact_url(url: str) -> str:
    """``http://u:KEY@host/v1`` -> ``http://***@host/v1``; a URL without user info is kept."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{MASK}@{host}"))


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with URL user info, auth header values, key-like fields and ``secrets`` masked."""
    for secret in (*secrets, *env_secrets()):
        if secret and len(secret) >= MIN_SECRET_LEN:
            text = text.replace(secret, MASK)
    text = _USERINFO.sub(lambda m: f"{m['scheme']}{MASK}@", text)
    text = _KEY_FIELD.sub(lambda m: f"{m['key']}{m['sep']}{m['q']}{MASK}", text)
    return _AUTH_SCHEME.sub(lambda m: f"{m[1]}{m[2]}{MASK}", text)


_SECRET_NAME = re.compile(r"(?i)(api[_-]?key|authorization|secret|password|passwd|"
                          r"(?:^|[_-])token$)")
"""A mapping key whose value is a secret whatever it looks like (``{"api_key": "sk-..."}``)."""


def redact_value(value: Any) -> Any:
    """Every string inside a JSON-like value redacted (dicts and lists walked); the string
    value of a secret-named key (``api_key``, ``token``, ...) masked whole."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: MASK if isinstance(v, str) and v and _SECRET_NAME.search(str(k))
                else redact_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v) for v in value]
    return value


def env_secrets() -> tuple[str, ...]:
    return tuple(os.environ[name] for name in SECRET_ENV if os.environ.get(name))

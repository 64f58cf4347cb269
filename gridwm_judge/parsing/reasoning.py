"""Reasoning is not the answer: ``<think>`` blocks are split off before an answer is read."""

from __future__ import annotations

import re
from typing import overload

_THINK_TAG = re.compile(r"<\s*(/?)\s*think(?:ing)?\s*>", re.IGNORECASE)


def split_text(text: str) -> tuple[str | None, str]:
    """(reasoning or None, answer unstripped): the answer keeps its trailing text, so a parser
    can tell whether anything followed a verdict before a cut."""
    parts: list[tuple[bool, str]] = []  # (is_reasoning, text) in order
    pos, open_at, cut, found = 0, -1, 0, False
    for m in _THINK_TAG.finditer(text):
        found = True
        closing = m.group(1) == "/"
        if open_at < 0 and closing:  # a bare close: everything before it was reasoning
            parts.append((True, text[pos : m.start()]))
            cut, pos = len(parts), m.end()
        elif open_at < 0:
            parts.append((False, text[pos : m.start()]))
            open_at = m.end()
        elif closing:
            parts.append((True, text[open_at : m.start()]))
            open_at, pos = -1, m.end()
        # an opening tag inside a block is part of the reasoning
    if not found:
        return None, text
    parts.append((True, text[open_at:]) if open_at >= 0 else (False, text[pos:]))
    reasoning = [p.strip() for i, (r, p) in enumerate(parts) if (r or i < cut) and p.strip()]
    answer = "".join(p for i, (r, p) in enumerate(parts) if not r and i >= cut)
    return ("\n\n".join(reasoning) or None), answer


@overload
def split_reasoning(text: str) -> tuple[str | None, str]: ...


@overload
def split_reasoning(text: None) -> tuple[None, None]: ...


def split_reasoning(text: str | None) -> tuple[str | None, str | None]:
    """(reasoning, answer): ``<think>``/``<thinking>`` blocks removed (case-insensitive).

    An unclosed ``<think>`` runs to the end (all reasoning, answer ""); a bare ``</think>``
    (the chat template opened the block in the prompt) makes everything before it reasoning.
    Reasoning is None when there was none; the answer is stripped, None only for None input.
    """
    if not isinstance(text, str):
        return None, None
    reasoning, answer = split_text(text)
    return reasoning, answer.strip()

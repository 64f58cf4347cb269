"""Where a model commits to an answer (committed rules): answer labels, standalone lines, and
which candidate wins. Shared by the choice and verdict parsers; every scan is linear."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from gridwm_judge.parsing.reasoning import split_text

MARK = r"[ \t>#*_`\"'~\u2022-]*"
"""Markup that may open a line: spaces, quotes, bullets, headers, bold/italics."""
CLOSE = r"[*_`\"')\]]*"
"""Markup that may close a word."""
WORD_END = r"(?![^\W_])"
"""Not followed by a letter or digit (an underscore may be italics markup: "_Yes_")."""
VALUE_WINDOW = 300
"""Characters after a label in which its value is read."""

_LABEL = re.compile(
    r"\b(?:final[ \t]+)?(?:answer|verdict|judge?ment|conclusion|decision|choice|selection"
    r"|option|prediction)\b[ \t*_`]*(?:(is|would[ \t]+be|will[ \t]+be|should[ \t]+be)\b(?:[ \t]*:)?"
    r"|[:=\u2013\u2014]|-(?![\w-])|(?=[ \t*_`:#]*$))",
    re.IGNORECASE | re.MULTILINE,
)
_BOXED = re.compile(r"\\boxed\{[ \t]*(?:\\text(?:bf)?\{)?")
_CONDITIONAL = re.compile(r"\b(?:if|whether|unless)[ \t]+(?:the[ \t]+|my[ \t]+)?$", re.I)
_GLUE = re.compile(r"thought(?=[A-Z])")  # Gemini glues its thought marker to the answer

Candidate = tuple[int, int, int, str]
"""(tier, position, end of the value, value): tier 1 explicit, 2 standalone, 3 closing."""


def answer_text(raw: str) -> str:
    """The answer part of ``raw``: reasoning blocks removed, line ends made ``\\n``, a glued
    ``thoughtX`` marker put on its own line (``thoughtSuccess``: a thought, then "Success")."""
    _, answer = split_text(raw)
    return _GLUE.sub("thought\n", answer.replace("\r\n", "\n").replace("\r", "\n"))


def line_end(text: str, start: int) -> int:
    """End of the line from ``start``, at most VALUE_WINDOW characters on."""
    end = text.find("\n", start, start + VALUE_WINDOW)
    return end if end >= 0 else min(len(text), start + VALUE_WINDOW)


def label_values(text: str) -> Iterator[tuple[int, int, int, bool]]:
    """(label position, value start, value stop, colon form) of every answer label.

    "the answer is X" has the "is" form; "Answer: X", "Verdict - X" the colon form. A label
    alone on its line ("## Final Answer") takes the next non-empty line as its value. A value
    stops at the line end or the next label, so the windows never overlap (linear time); a
    label after "if"/"whether" is a condition, not an answer.
    """
    labels = [
        m
        for m in _LABEL.finditer(text)
        if not _CONDITIONAL.search(text, max(0, m.start() - 20), m.start())
    ]
    for i, m in enumerate(labels):
        start, stop = m.end(), line_end(text, m.end())
        nxt = labels[i + 1].start() if i + 1 < len(labels) else len(text)
        if nxt < stop:
            stop = nxt
        elif not text[start:stop].strip(" \t*_`:#"):  # a label line: value on the next line
            window = text[stop : stop + 200]
            if not window.strip():
                continue
            start = stop + len(window) - len(window.lstrip())
            stop = line_end(text, start)
        yield m.start(), start, stop, m.group(1) is None
    for m in _BOXED.finditer(text):
        yield m.start(), m.end(), line_end(text, m.end()), False


def edge_lines(text: str) -> tuple[int, int]:
    """Start offsets of the first and the last non-empty line."""
    first = len(text) - len(text.lstrip())
    last = max(len(text.rstrip()) - 1, 0)
    return text.rfind("\n", 0, first) + 1, text.rfind("\n", 0, last) + 1


def tail_window(text: str) -> tuple[int, str]:
    """(offset, window) of the text's last 160 characters; a whole text gets a leading newline
    so a pattern needing a boundary before the final word also matches at the start."""
    if len(text) > 160:
        return len(text) - 160, text[-160:]
    return -1, "\n" + text


def closing_candidates(
    text: str, closing: re.Pattern, tail: re.Pattern, read: Callable[[re.Match], tuple[int, str]]
) -> list[Candidate]:
    """Tier-3 candidates of a parser: every ``closing`` match ("..., so X.") and the ``tail``
    match in the text's last characters; ``read(m)`` gives a match's (value end, value)."""
    cands: list[Candidate] = [(3, m.start(), *read(m)) for m in closing.finditer(text)]
    offset, window = tail_window(text)
    m = tail.search(window)
    if m:
        end, value = read(m)
        cands.append((3, offset + m.start(), offset + end, value))
    return cands


def pick(cands: list[Candidate], text_len: int, truncated: bool) -> str | None:
    """The winning value: the lowest tier, then the last position in it. When the answer was
    cut off, a candidate counts only if text follows its value (it was complete before the cut)."""
    best: Candidate | None = None
    for cand in cands:
        if truncated and cand[2] >= text_len:
            continue
        if best is None or (cand[0], -cand[1]) < (best[0], -best[1]):
            best = cand
    return best[3] if best else None

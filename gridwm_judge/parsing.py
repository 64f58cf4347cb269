"""One parser for every judge's raw text (paper Appendix F.4, with the release's fixes).

Every backend's output goes through :func:`parse_answer`, so a verdict never depends on which
backend produced the text. The result carries a parse mode: ``strict`` (the answer is exactly
in the requested format), ``recovered`` (found inside other text, or JSON repaired), or
``invalid`` (nothing usable: the value is ``None``, never a default answer).

Rules
- A: the first isolated letter A-D ("A" inside a word such as "Action" does not count).
- C/D: case-insensitive verdict keywords. Success words: success, succeed(s/ed), successful(ly),
  yes; failure words: fail(s/ed), failure, unsuccessful(ly), no; a negated success word
  ("not successful", "did not succeed", "wasn't successful") counts as failure. The whole
  answer being one format word (C: Yes/No, D: Success/Fail) is strict. Otherwise, if both
  polarities occur and a success and a failure word lie within 15 characters of each other,
  the answer is Fail (compound); else the last keyword wins. Glued tokens such as
  ``thoughtSuccess`` are split at the lower-to-upper case boundary first.
- B/E: a JSON object, strict when the whole text is one; recovered from code fences,
  surrounding text, trailing commas, single-quoted keys or a truncated tail. E needs a
  string ``answer`` field; its label is returned lower-cased and stripped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

ParseMode = Literal["strict", "recovered", "invalid"]
PARSE_MODES = ("strict", "recovered", "invalid")
VERDICTS = ("success", "failure")
COMPOUND_WINDOW = 15
"""Characters between a success and a failure word that make a compound (Fail) answer."""


@dataclass(frozen=True)
class ParsedAnswer:
    """A parsed judge answer: A letter, C/D "success"/"failure", B dict, E label, or None."""

    value: str | dict | None
    mode: ParseMode


INVALID = ParsedAnswer(None, "invalid")

_TASK_ALIASES = {t: t for t in "ABCDE"}
_TASK_ALIASES.update({t.lower(): t for t in "ABCDE"})
_TASK_ALIASES.update({f"task_{t.lower()}": t for t in "ABCDE"})


def normalise_task(task: str) -> str:
    """'c', 'C' or 'task_c' -> 'C'; anything else is a ValueError listing the valid names."""
    key = task.strip() if isinstance(task, str) else task
    if key not in _TASK_ALIASES:
        raise ValueError(
            f"unknown task {task!r}; expected one of A, B, C, D, E (or task_a..task_e)"
        )
    return _TASK_ALIASES[key]


RULES = ("committed", "paper")
PARSER_VERSIONS = {"committed": "committed/0", "paper": "paper-f4/1"}


def parse_answer(task: str, raw: str | None, *, rules: str = "committed",
                 truncated: bool = False) -> ParsedAnswer:
    """Parse one raw response for ``task`` (A-E). Never raises on any text (or None)."""
    t = normalise_task(task)
    if not isinstance(raw, str) or not raw.strip():
        return INVALID
    try:
        if t == "A":
            return _parse_letter(raw)
        if t in ("C", "D"):
            return _parse_verdict(raw, t)
        return _parse_json(raw, need_answer=(t == "E"))
    except (ValueError, RecursionError, TypeError, MemoryError):  # pragma: no cover - guard
        return INVALID


# --- Task A ------------------------------------------------------------------------------
_LETTER_STRICT = re.compile(r"^[\s\"'*(\[]*([ABCD])[\s\"'*)\].:]*$")
_LETTER_ISOLATED = re.compile(r"(?<![A-Za-z0-9_])([ABCD])(?![A-Za-z0-9_])")


def _parse_letter(raw: str) -> ParsedAnswer:
    m = _LETTER_STRICT.match(raw)
    if m:
        return ParsedAnswer(m.group(1), "strict")
    m = _LETTER_ISOLATED.search(raw)
    return ParsedAnswer(m.group(1), "recovered") if m else INVALID


# --- Tasks C and D -----------------------------------------------------------------------
_KEYWORD = re.compile(
    r"\b(unsuccessful(?:ly)?|successful(?:ly)?|succeeded|succeeds|succeed|successes|success"
    r"|yes|failures|failure|failed|fails|fail|no)\b",
    re.IGNORECASE,
)
_NEGATION_BEFORE = re.compile(r"(?:\bnot|\bnever|n't|\bcannot)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_STRICT_WORDS = {
    "C": {"yes": "success", "no": "failure"},
    "D": {"success": "success", "fail": "failure"},
}
_STRIP_CHARS = " \t\r\n.!\"'*`_:;()[]{}"


def _polarity(word: str) -> str:
    w = word.lower()
    if w.startswith("unsuccess") or w.startswith("fail") or w == "no":
        return "failure"
    return "success"


def _parse_verdict(raw: str, task: str) -> ParsedAnswer:
    whole = raw.strip(_STRIP_CHARS).lower()
    if whole in _STRICT_WORDS[task]:
        return ParsedAnswer(_STRICT_WORDS[task][whole], "strict")
    text = _CAMEL.sub(" ", raw)
    hits: list[tuple[int, int, str]] = []  # (start, end, polarity)
    for m in _KEYWORD.finditer(text):
        pol = _polarity(m.group(1))
        if pol == "success" and _NEGATION_BEFORE.search(text[max(0, m.start() - 30) : m.start()]):
            pol = "failure"
        hits.append((m.start(), m.end(), pol))
    if not hits:
        return INVALID
    polarities = {p for _, _, p in hits}
    if len(polarities) == 2:
        succ = [h for h in hits if h[2] == "success"]
        fail = [h for h in hits if h[2] == "failure"]
        for s in succ:
            for f in fail:
                gap = max(s[0], f[0]) - min(s[1], f[1])
                if gap <= COMPOUND_WINDOW:
                    return ParsedAnswer("failure", "recovered")
    return ParsedAnswer(hits[-1][2], "recovered")


# --- Tasks B and E -----------------------------------------------------------------------
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)(?:```|$)", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_SINGLE_QUOTED = re.compile(r"'([^'\\\n]*)'")
_PY_LITERALS = {"None": "null", "True": "true", "False": "false"}


def _loads(text: str):
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _object_spans(text: str) -> list[str]:
    """Top-level ``{...}`` spans in order; an unterminated last one is closed off."""
    spans, depth, start, in_str, esc, stack = [], 0, -1, False, False, []
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"' and depth:
            in_str = True
        elif ch in "{[":
            if ch == "[" and not depth:
                continue
            if not depth:
                start = i
            depth += 1
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and depth:
            depth -= 1
            stack.pop()
            if not depth:
                spans.append(text[start : i + 1])
    if depth and start >= 0:
        tail = text[start:].rstrip().rstrip(",")
        spans.append(tail + ('"' if in_str else "") + "".join(reversed(stack)))
    return spans


def _repairs(candidate: str):
    yield candidate
    fixed = _TRAILING_COMMA.sub(r"\1", candidate)
    yield fixed
    quoted = _SINGLE_QUOTED.sub(lambda m: json.dumps(m.group(1)), fixed)
    yield re.sub(r"\b(None|True|False)\b", lambda m: _PY_LITERALS[m.group(1)], quoted)


def _accept(obj, need_answer: bool):
    if not isinstance(obj, dict):
        return None
    if need_answer:
        ans = obj.get("answer")
        if not isinstance(ans, str) or not ans.strip():
            return None
        return ans.strip().lower()
    return obj


def _parse_json(raw: str, need_answer: bool) -> ParsedAnswer:
    value = _accept(_loads(raw.strip()), need_answer)
    if value is not None:
        return ParsedAnswer(value, "strict")
    sources = [m.group(1) for m in _FENCE.finditer(raw)] + [raw]
    for source in sources:
        for span in _object_spans(source):
            for candidate in _repairs(span):
                value = _accept(_loads(candidate), need_answer)
                if value is not None:
                    return ParsedAnswer(value, "recovered")
    return INVALID

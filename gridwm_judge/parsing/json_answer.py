"""JSON answers (Task B: a state object; Task E: an object with a string "answer" field).

Strict when the answer is one JSON object; else recovered from code fences, surrounding text,
trailing commas, single quotes, Python literals or a cut-off tail, the first acceptable object
winning. Linear: each top-level span is decoded once (a span that decodes as it stands is
never repaired: no repair of valid JSON can add the object or field it lacks), and spans that
no repair could make acceptable are skipped before decoding.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from gridwm_judge.parsing.base import INVALID, ParsedAnswer, guarded
from gridwm_judge.parsing.reasoning import split_text

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)(?:```|$)", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_SINGLE_QUOTED = re.compile(r"'([^'\\\n]*)'")
_PY_LITERAL = re.compile(r"\b(None|True|False)\b")
_PY_LITERALS = {"None": "null", "True": "true", "False": "false"}
_OPEN = re.compile(r'\{(?:[^{}\[\]"]|[{\[][^{}\[\]"]*[}\]])*[}\]]|\{')
"""An object with at most one level of nesting and no strings, taken whole, or an opening."""
_CLOSER = str.maketrans("{[", "}]")
_TOKEN = re.compile(r'[{\[]+|[}\]]+|"[^"\\]*(?:\\.[^"\\]*)*(")?', re.DOTALL)
_MISSING = object()


def _loads(text: str):
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _MISSING


def _object_spans(text: str, close_tail: bool) -> Iterator[str]:
    """Top-level ``{...}`` spans in order; an unterminated last one is closed off if asked.

    Outside an object only ``{`` matters (a shallow object is taken whole); inside, brackets count
    depth whatever their kind, a run of brackets is counted at once and a string is skipped
    whole, so the Python loop runs per run of brackets, not per character."""
    pos = 0
    while True:
        m = _OPEN.search(text, pos)
        if m is None:
            return
        if m.end() - m.start() > 1:
            pos = m.end()
            yield m.group()
            continue
        start, depth, in_str = m.start(), 1, False
        for t in _TOKEN.finditer(text, m.end()):
            ch = text[t.start()]
            if ch == '"':
                in_str = t.group(1) is None  # a string still open at the end of the text
            elif ch in "{[":
                depth += t.end() - t.start()
            elif t.end() - t.start() < depth:
                depth -= t.end() - t.start()
            else:  # this run of closers ends the object
                pos = t.start() + depth
                depth = 0
                yield text[start:pos]
                break
        if depth:
            if close_tail:
                yield _close_tail(text[start:], in_str)
            return


def _close_tail(tail: str, in_str: bool) -> str:
    """A cut-off object closed off: its open string, then its open brackets in reverse."""
    stack: list[str] = []
    for t in _TOKEN.finditer(tail):
        run = t.group()
        if run[0] in "{[":
            stack.extend(run.translate(_CLOSER))
        elif run[0] in "}]":
            del stack[len(stack) - len(run) :]
    return tail.rstrip().rstrip(",") + ('"' if in_str else "") + "".join(reversed(stack))


def _repairs(span: str) -> Iterator[str]:
    fixed = _TRAILING_COMMA.sub(r"\1", span)
    yield fixed
    quoted = _SINGLE_QUOTED.sub(lambda m: json.dumps(m.group(1)), fixed)
    yield _PY_LITERAL.sub(lambda m: _PY_LITERALS[m.group(1)], quoted)


def _may_accept(span: str, field: str | None, keys: tuple[str, ...] = ()) -> bool:
    """False only when no repair of ``span`` can be accepted: a non-empty object needs a ':'
    and a required field (or key) must appear as a quoted key ("answer" or 'answer', or
    escaped)."""
    if "\\" not in span and not all(f'"{k}"' in span or f"'{k}'" in span for k in keys):
        return False
    if field is not None:
        return f'"{field}"' in span or f"'{field}'" in span or "\\" in span
    return ":" in span or not span[1:-1].replace(",", "").strip()


def _accept(obj, field: str | None, keys: tuple[str, ...] = ()):
    if not isinstance(obj, dict) or any(k not in obj for k in keys):
        return None
    if field is None:
        return obj
    ans = obj.get(field)
    return ans.strip().lower() if isinstance(ans, str) and ans.strip() else None


def _search(text: str, field: str | None, close_tail: bool, keys: tuple[str, ...] = ()
            ) -> ParsedAnswer:
    obj = _loads(text.strip())
    if obj is not _MISSING and _accept(obj, field, keys) is not None:
        return ParsedAnswer(_accept(obj, field, keys), "strict")
    tried: set[str] = set()
    for source in [m.group(1) for m in _FENCE.finditer(text)] + [text]:
        if (field is not None or keys) and not _may_accept(source, field, keys):
            continue
        for span in _object_spans(source, close_tail):
            if span in tried or not _may_accept(span, field, keys):
                continue
            tried.add(span)
            obj = _loads(span)
            if obj is not _MISSING:  # valid JSON: repairs could only change string contents
                value = _accept(obj, field, keys)
                if value is not None:
                    return ParsedAnswer(value, "recovered")
                continue
            previous = span
            for candidate in _repairs(span):
                if candidate != previous:
                    value = _accept(_loads(candidate), field, keys)
                    if value is not None:
                        return ParsedAnswer(value, "recovered")
                previous = candidate
    return INVALID


def parse_json_answer(
    raw: str | None,
    required_field: str | None = None,
    *,
    rules: str = "committed",
    truncated: bool = False,
    required_keys: tuple[str, ...] = (),
) -> ParsedAnswer:
    """A JSON object (Task B; with ``required_keys``, one holding each of them: the
    Oracle-State staged answer), or the lower-cased, stripped non-empty string in its
    ``required_field`` (Task E: "answer"). Committed rules read the answer after
    ``<think>`` blocks and, when ``truncated``, only objects closed before the cut."""
    if required_field is not None and not (isinstance(required_field, str) and required_field):
        raise ValueError(f"required_field must be a non-empty string or None: {required_field!r}")
    keys = tuple(required_keys)
    if rules == "paper":
        return guarded(raw, rules, lambda text: _search(text, required_field, True, keys))

    def committed(text: str) -> ParsedAnswer:
        answer = split_text(text)[1]
        return _search(answer, required_field, not truncated, keys) if answer.strip() else INVALID

    return guarded(raw, rules, committed)

"""The paper rules stay what they were: a property test against the pre-issue-9 parser.

``_ref_parse`` below is the parser as it stood before the committed-answer rules, kept verbatim
(its C/D compound check compares every success hit with every failure hit: O(n^2)). The paper
rules' linear rewrite must give the same result on any text.
"""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from gridwm_judge.parsing import ParsedAnswer, parse_answer

COMPOUND_WINDOW = 15
INVALID = ParsedAnswer(None, "invalid")


def _ref_parse(task: str, raw: str | None) -> ParsedAnswer:
    if not isinstance(raw, str) or not raw.strip():
        return INVALID
    try:
        if task == "A":
            return _parse_letter(raw)
        if task in ("C", "D"):
            return _parse_verdict(raw, task)
        return _parse_json(raw, need_answer=(task == "E"))
    except (ValueError, RecursionError, TypeError, MemoryError):
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


VERDICT_TOKENS = [
    "yes",
    "Yes",
    "YES",
    "no",
    "No",
    "success",
    "Success",
    "succeeded",
    "successful",
    "unsuccessful",
    "fail",
    "Fail",
    "failed",
    "failure",
    "not ",
    "never ",
    "n't ",
    "cannot ",
    "thought",
    "did ",
    "the agent ",
    " ",
    " ",
    "\n",
    ".",
    ",",
    "!",
    "*",
    "'",
    "x" * 9,
    "ab",
]
JSON_TOKENS = [
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    ":",
    ",",
    " ",
    "\\",
    "answer",
    '"answer"',
    "'answer'",
    '"key_yellow"',
    "None",
    "True",
    "1",
    "```",
    "```json",
    "\n",
    "x",
]


def _joined(tokens: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(tokens), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(task=st.sampled_from("CD"), raw=st.one_of(_joined(VERDICT_TOKENS), st.text(max_size=200)))
def test_paper_verdicts_match_the_quadratic_reference(task, raw):
    assert parse_answer(task, raw, rules="paper") == _ref_parse(task, raw)


@settings(max_examples=300, deadline=None)
@given(task=st.sampled_from("BE"), raw=st.one_of(_joined(JSON_TOKENS), st.text(max_size=200)))
def test_paper_json_matches_the_reference(task, raw):
    assert parse_answer(task, raw, rules="paper") == _ref_parse(task, raw)


@settings(max_examples=200, deadline=None)
@given(
    raw=st.one_of(
        _joined(["A", "B", "C", "D", "a", " ", "(", ")", ".", "Action", "\n"]),
        st.text(max_size=100),
    )
)
def test_paper_letters_match_the_reference(raw):
    assert parse_answer("A", raw, rules="paper") == _ref_parse("A", raw)


def test_paper_compound_is_found_far_into_a_long_answer():
    """The case that took the quadratic check ~40 s: many hits of one polarity, then the other."""
    raw = "yes " * 12_500 + "no " * 12_500
    assert parse_answer("C", raw, rules="paper") == ParsedAnswer("failure", "recovered")
    assert parse_answer("C", "yes " * 5 + "x" * 20 + " no", rules="paper").value == "failure"
    assert parse_answer("C", "no " + "x" * 20 + " yes", rules="paper").value == "success"


def test_paper_compound_window_edge():
    """A success and a failure word exactly 15 characters apart are compound; 16 are not."""
    for gap, value in ((15, "failure"), (16, "success")):
        raw = "no" + " " * gap + "yes"
        assert parse_answer("C", raw, rules="paper").value == value == _ref_parse("C", raw).value

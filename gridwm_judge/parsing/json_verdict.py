"""Verdicts asked as a JSON object (the prompt ablation's structured styles) -> "success" /
"failure".

Committed rules read the object's ``verdict`` field: the object is found as JSON answers are
(:func:`parse_json_answer`: the whole answer, a code fence, surrounding text, trailing commas,
single quotes; a cut-off object only when the answer was not truncated), and the field's text
is read as a verdict answer (:func:`parse_verdict`: the exact word, or where the text commits
to one, e.g. ``"Fail."`` or ``"Success - it reached the goal"``). Free-text fields such as the
rationale are never read: a verdict word in the rationale is reasoning, not the answer.

*strict*: the whole answer (after ``<think>`` blocks) is one JSON object holding exactly the
asked fields, each a string (the schema structured outputs enforce), and ``verdict`` is
exactly a format word (case-insensitive); the fields' order is not checked (a JSON object has
none). *recovered*: a ``verdict`` is read otherwise (markup or text around the object, a
missing rationale or an extra field, ``"verdict": "fail."``). *invalid*: no object with a
readable ``verdict`` -- e.g. a rationale cut off by the token budget before its verdict, or a
bare verdict word with no JSON object (the format asked for an object).

Paper rules: the paper parsed all three prompt arms with its keyword rules (last keyword wins),
so they read the raw text as :func:`parse_verdict` does under ``paper``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from gridwm_judge.parsing.base import INVALID, ParsedAnswer, guarded
from gridwm_judge.parsing.json_answer import parse_json_answer
from gridwm_judge.parsing.reasoning import split_reasoning, split_text
from gridwm_judge.parsing.verdict import parse_verdict

VERDICT_FIELD = "verdict"


def _complete_object(raw: str, fields: Sequence[str]) -> bool:
    """Whether the answer part of ``raw`` is exactly one JSON object holding the asked fields,
    each a string, and no other."""
    try:
        obj = json.loads(split_text(raw)[1].strip())
    except (ValueError, RecursionError):
        return False
    return (isinstance(obj, dict) and set(obj) == set(fields)
            and all(isinstance(obj[f], str) for f in fields))


def parse_json_verdict(
    raw: str | None,
    strict_words: Mapping[str, str],
    fields: Sequence[str] = (VERDICT_FIELD,),
    *,
    rules: str = "committed",
    truncated: bool = False,
) -> ParsedAnswer:
    """A "success"/"failure" verdict from the ``verdict`` field of a JSON answer whose asked
    ``fields`` (ending with ``verdict``) are strings; ``strict_words`` maps the format's words to
    verdicts, e.g. {"Success": "success", "Fail": "failure"} (case-insensitive)."""
    if not fields or fields[-1] != VERDICT_FIELD:
        raise ValueError(f"fields must end with {VERDICT_FIELD!r}, got {tuple(fields)!r}")
    if rules == "paper":
        return parse_verdict(raw, strict_words, rules=rules)
    words = {str(k).lower(): v for k, v in strict_words.items()}

    def committed(text: str) -> ParsedAnswer:
        # the last object that holds a verdict is the answer (a model that revises itself
        # writes the revision last, as a direct answer's last committed word wins)
        start, found = len(text), INVALID
        while (start := text.rfind("{", 0, start)) >= 0:
            found = parse_json_answer(text[start:], VERDICT_FIELD, rules=rules,
                                      truncated=truncated)
            if found.value is not None:
                break
        if found.value is None:
            start = 0
            found = parse_json_answer(text, VERDICT_FIELD, rules=rules, truncated=truncated)
        value = found.value
        if value is None:
            return INVALID
        assert isinstance(value, str)  # a required field's value is a string
        if value in words:  # parse_json_answer returns the value stripped, lower-cased
            verdict, exact = words[value], True
        else:
            read = parse_verdict(value, strict_words, rules=rules)
            if read.value is None:
                return INVALID
            verdict, exact = read.value, False
        after = text[text.rfind("}") + 1:] if "}" in text[start:] else ""
        later = parse_verdict(after, strict_words, rules=rules).value if after.strip() else None
        if later is not None and later != verdict:
            return INVALID  # "{...Success...} Final answer: Fail" commits to neither
        strict = (found.mode == "strict" and exact
                  and not split_reasoning(text[:start])[1].strip()  # only reasoning before it
                  and _complete_object(text, fields))
        return ParsedAnswer(verdict, "strict" if strict else "recovered")

    return guarded(raw, rules, committed)

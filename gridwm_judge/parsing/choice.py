"""Choice answers (Task A: one letter of "ABCD"). Letters are case-sensitive ("a" is an
article) and count only as whole tokens, so the "A" of "A careful look" is no answer."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from gridwm_judge.parsing.base import INVALID, ParsedAnswer, guarded
from gridwm_judge.parsing.commit import (
    CLOSE,
    MARK,
    WORD_END,
    Candidate,
    answer_text,
    closing_candidates,
    edge_lines,
    label_values,
    pick,
)


@functools.lru_cache(maxsize=16)
def _patterns(choices: tuple[str, ...]) -> dict[str, re.Pattern]:
    if not choices or not all(isinstance(c, str) and c.isalnum() for c in choices):
        raise ValueError(f"choices must be letters or digits, got {choices!r}")
    letter = "(?:" + "|".join(re.escape(c) for c in sorted(choices, key=len, reverse=True)) + ")"
    opt = r"(?:(?i:option|choice|answer)[ \t]+)?"
    end = rf"{CLOSE}[ \t.:!*_`\"']*"
    return {
        "strict": re.compile(rf"^[\s\"'*(\[]*({letter})[\s\"'*)\].:]*$"),
        "isolated": re.compile(rf"(?<![A-Za-z0-9_])({letter})(?![A-Za-z0-9_])"),
        "value": re.compile(
            rf"[ \t*_`\"'(\[]*{opt}[(\[]?({letter}){WORD_END}(?![ \t]+(?i:or|and)\b)"
        ),
        "pure": re.compile(rf"^{MARK}{opt}[(\[]?({letter}){end}$", re.M),
        "lead": re.compile(
            rf"^{MARK}{opt}(?:[(\[]({letter})[)\]]|({letter}){CLOSE}"
            rf"(?:[.:)]|[ \t]+[-\u2013\u2014](?=[ \t])))",
            re.M,
        ),
        "verb": re.compile(
            r"\b(?i:choose|chose|select|selected|pick|picked|go[ \t]+with|going[ \t]+with"
            rf"|opt[ \t]+for)[ \t]+(?=[ \t*_`\"'(\[]*{opt}[(\[]?{letter}{WORD_END})"
        ),
        "option_is": re.compile(
            rf"(?<![\w'])(?:(?i:option|choice|candidate)[ \t]+)?[(\[]?({letter})[)\]]?[ \t]+"
            r"(?i:is[ \t]+(?:the[ \t]+)?(?:correct|right|answer|best)\b)"
        ),
        "correct_is": re.compile(
            rf"\b(?i:correct|right|best)\b[^.\n]{{0,30}}?\bis[ \t]+(?:the[ \t]+)?{opt}"
            rf"[(\[*_`\"']*({letter}){WORD_END}"
        ),
        "closing": re.compile(
            rf"\b(?i:so|thus|therefore|hence)\b[ \t,:]*{opt}[(\[*_`\"']*({letter}){end}$", re.M
        ),
        "tail": re.compile(
            rf"(?:[.!?:;\n][ \t\n>#*_`\"'-]*|\b(?i:option|choice|candidate)[ \t]+)"
            rf"{opt}[(\[]?({letter}){end}\Z"
        ),
    }


def _letter(m: re.Match) -> tuple[int, str]:
    return m.end(1), m.group(1)


def _committed(text: str, res: dict[str, re.Pattern], truncated: bool) -> ParsedAnswer:
    m = res["strict"].match(text)
    if m and not (truncated and m.end(1) >= len(text)):
        return ParsedAnswer(m.group(1), "strict")
    cands: list[Candidate] = []
    for pos, start, stop, _ in label_values(text):
        v = res["value"].match(text, start, stop)
        if v:
            cands.append((1, pos, v.end(1), v.group(1)))
    for m in res["verb"].finditer(text):
        v = res["value"].match(text, m.end())
        cands.append((1, m.start(), v.end(1), v.group(1)))
    for key in ("option_is", "correct_is"):
        cands += [(1, m.start(), m.end(1), m.group(1)) for m in res[key].finditer(text)]
    cands += [(2, m.start(), m.end(1), m.group(1)) for m in res["pure"].finditer(text)]
    leads = {m.start(): m for m in res["lead"].finditer(text)}
    if len({m.group(1) or m.group(2) for m in leads.values()}) == 1:  # several letters: a list
        first, last = edge_lines(text)
        for tier, at in ((2, first), (3, last)):
            if at in leads:
                g = 1 if leads[at].group(1) else 2
                cands.append((tier, at, leads[at].end(g), leads[at].group(g)))
    cands += closing_candidates(text, res["closing"], res["tail"], _letter)
    won = pick(cands, len(text), truncated)
    return ParsedAnswer(won, "recovered") if won else INVALID


def parse_choice(
    raw: str | None,
    choices: str | Sequence[str] = "ABCD",
    *,
    rules: str = "committed",
    truncated: bool = False,
) -> ParsedAnswer:
    """One letter of ``choices``. Committed rules: strict when the answer is just the letter
    ("(C)", "**D**"), else where the model commits: "Answer: B", "the answer is C", "I choose
    D", "option C is correct", a line that is the letter, a leading "C." / "(C) ..." line, a
    closing "..., so B." (lines starting with different letters are a list, not an answer).
    Paper rules: the first isolated letter anywhere. ``choices``: "ABCD" or ("A", "B", ...)."""
    res = _patterns(tuple(choices))
    if rules == "paper":
        return guarded(raw, rules, lambda text: _paper(text, res))
    return guarded(raw, rules, lambda text: _committed(answer_text(text), res, bool(truncated)))


def _paper(text: str, res: dict[str, re.Pattern]) -> ParsedAnswer:
    m = res["strict"].match(text)
    if m:
        return ParsedAnswer(m.group(1), "strict")
    m = res["isolated"].search(text)
    return ParsedAnswer(m.group(1), "recovered") if m else INVALID

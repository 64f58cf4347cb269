"""Verdict answers (Task C: Yes/No, Task D: Success/Fail) -> "success" / "failure".

Committed rules read where the model commits to a verdict (see the package docstring); the
paper rules are Appendix F.4's keyword rules with the release's fixes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from gridwm_judge.parsing import commit
from gridwm_judge.parsing.base import INVALID, VERDICTS, ParsedAnswer, guarded
from gridwm_judge.parsing.commit import CLOSE, MARK

COMPOUND_WINDOW = 15
"""Paper rules: characters between a success and a failure word that make a compound Fail."""

_WORDS = (
    "unsuccessful(?:ly)?|successful(?:ly)?|succeeded|succeeds|succeed|successes|success"
    "|yes|failures|failure|failed|fails|fail|no"
)
_NEG = r"(?:(not|never)[ \t]+(?:an?[ \t]+)?)?"  # "Not successful." reads as failure
_NO_IDIOMS = frozenset(
    "doubt doubts issue issues problem problems error errors mistake mistakes question concern"
    " concerns longer matter".split()
)
_NEXT_WORD = re.compile(r"[ \t]+(\w+)")
_STRIP_CHARS = " \t\r\n.!\"'*`_:;()[]{}"


def _polarity(word: str) -> str:
    w = word.lower()
    if w.startswith("unsuccess") or w.startswith("fail") or w == "no":
        return "failure"
    return "success"


@functools.lru_cache(maxsize=16)
def _patterns(words: tuple[str, ...]) -> dict[str, re.Pattern]:
    w = "(" + "|".join([re.escape(x) for x in words] + [_WORDS]) + r")(?![^\W_]|')"
    end = rf"{CLOSE}[ \t.!*_`\"']*$"
    flags = re.IGNORECASE | re.MULTILINE
    return {
        "value": re.compile(
            rf"[ \t*_`\"'(\[]*{_NEG}{w}{CLOSE}(?![ \t]*[?/|]|[ \t]+(?:or|nor|and)\b)", flags
        ),
        "pure": re.compile(rf"^{MARK}{_NEG}{w}{end}", flags),
        "lead": re.compile(
            rf"^{MARK}{_NEG}{w}{CLOSE}(?:[ \t]*[.,!;:]|[ \t]+[-\u2013\u2014](?=[ \t]))", flags
        ),
        "closing": re.compile(
            rf"\b(?:so|thus|therefore|hence)\b[ \t,:]*[*_`\"']*{_NEG}{w}{end}", flags
        ),
        "tail": re.compile(rf"[.!?:;\n][ \t\n>#*_`\"'-]*{_NEG}{w}{CLOSE}[ \t.!*_`\"']*\Z", flags),
    }


_CLAUSE_WORD = re.compile(
    r"\b(unsuccessful(?:ly)?|successful(?:ly)?|succeeded|succeeds|succeed|successes|success"
    r"|satisf(?:y|ies|ied)|completes|completed"
    r"|failures|failure|failed|fails|failing|fail)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\?|\b(?:if|whether|unless|so far|seems?|appears?|looks? like|maybe|perhaps|unclear"
    r"|uncertain|unsure|not sure|(?:can(?:no|')t|hard to|difficult to|impossible to) say)\b",
    re.IGNORECASE,
)
_CLAUSE_NEG = re.compile(
    r"(?:\bnot|\bnever|n't|\bcannot|\bwithout|\bno(?![ \t]+(?:doubts?|issues?|problems?)\b))"
    r"\s+(?:\w+\s+){0,2}$",
    re.IGNORECASE,
)
_MODAL = re.compile(r"\b(?:could|would|might|may|almost|nearly)\s+(?:\w+\s+){0,2}$", re.I)
_SENTENCE_END = re.compile(r"[.!;](?:\s|$)")
_LAST_SENTENCE = re.compile(r"(?:^|[.!;]\s+|\n)\W*([^.!;\n]+[.!]?)\W*\Z")
_CONCLUSION = re.compile(
    r"(?:so|thus|therefore|hence|overall|consequently|in (?:conclusion|summary))\b", re.I
)


def read_clause(clause: str) -> str | None:
    """The verdict one sentence states: negations flip ("did not fail" is success), idioms
    ("no doubt", "no issues") and hypotheticals ("could have failed") are not verdict words;
    None if it is hedged ("so far", "seems", "if", a question) or states both."""
    if _HEDGE.search(clause):
        return None
    found = set()
    for m in _CLAUSE_WORD.finditer(clause):
        before = clause[max(0, m.start() - 30) : m.start()]
        if _MODAL.search(before):
            continue
        pol = _polarity(m.group(1))
        if _CLAUSE_NEG.search(before):
            pol = "failure" if pol == "success" else "success"
        found.add(pol)
    return found.pop() if len(found) == 1 else None


def _contradicts(text: str, end: int, lead: str) -> bool:
    """Whether the rest of a lead verdict's sentence states the other verdict ("Yes, but the
    agent failed.", "No, it succeeded."): such an answer commits to neither."""
    dot = _SENTENCE_END.search(text, end)
    rest = read_clause(text[end : dot.end() if dot else len(text)])
    return rest is not None and rest != lead


def _plain_sentence(text: str) -> str | None:
    """The sentence a prose answer states: the whole answer when it is one short sentence
    (ending in . or !, or at most 8 words), or its last sentence when that opens with a
    conclusion ("Therefore, the agent did not reach the goal.")."""
    s = text.strip().strip("*_`\"'")
    body = s.rstrip(".! ")
    if len(s) <= 300 and "\n" not in s and not _SENTENCE_END.search(body):
        return s if s[-1:] in ".!" or len(s.split()) <= 8 else None
    last = _LAST_SENTENCE.search(s[-300:])
    return last.group(1) if last and _CONCLUSION.match(last.group(1)) else None


def _committed(text: str, strict_words: Mapping[str, str], truncated: bool) -> ParsedAnswer:
    whole = text.strip(_STRIP_CHARS).lower()
    if whole in strict_words and not (truncated and text[-1:].isalnum()):
        return ParsedAnswer(strict_words[whole], "strict")
    res = _patterns(tuple(sorted(strict_words, key=len, reverse=True)))

    def pol(m: re.Match) -> str:
        word = m.group(2).lower()
        p = strict_words[word] if word in strict_words else _polarity(word)
        return ("failure" if p == "success" else "success") if m.group(1) else p

    cands: list[commit.Candidate] = []
    for pos, start, stop, colon in commit.label_values(text):
        v = res["value"].match(text, start, stop)
        nxt = _NEXT_WORD.match(text, v.end(), stop) if v else None
        if v and not (v.group(2).lower() == "no" and nxt and nxt.group(1).lower() in _NO_IDIOMS):
            cands.append((1, pos, v.end(2), pol(v)))
        elif colon and not (truncated and stop >= len(text)):
            clause = text[start:stop]
            dot = _SENTENCE_END.search(clause)
            p = read_clause(clause[: dot.end()] if dot else clause)
            if p:
                cands.append((1, pos, stop, p))
    cands += [(2, m.start(), m.end(2), pol(m)) for m in res["pure"].finditer(text)]
    first, last = commit.edge_lines(text)
    contradicted = False
    for tier, at in ((2, first), (3, last)):
        m = res["lead"].match(text, at)
        if m:
            if _contradicts(text, m.end(), pol(m)):
                contradicted = True
            else:
                cands.append((tier, at, m.end(2), pol(m)))
    cands += commit.closing_candidates(text, res["closing"], res["tail"],
                                       lambda m: (m.end(2), pol(m)))
    won = commit.pick(cands, len(text), truncated)
    if won:
        return ParsedAnswer(won, "recovered")
    sentence = None if truncated or contradicted else _plain_sentence(text)
    p = read_clause(sentence) if sentence else None
    return ParsedAnswer(p, "recovered") if p else INVALID


_P_KEYWORD = re.compile(rf"\b({_WORDS})\b", re.IGNORECASE)
_P_NEGATION = re.compile(r"(?:\bnot|\bnever|n't|\bcannot)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _paper(raw: str, strict_words: Mapping[str, str]) -> ParsedAnswer:
    """Appendix F.4 with the release's fixes. The compound check compares each hit with the
    nearest earlier hit of the other polarity (hits never overlap, so that one is the closest):
    the same pairs as checking every pair, in linear time."""
    whole = raw.strip(_STRIP_CHARS).lower()
    if whole in strict_words:
        return ParsedAnswer(strict_words[whole], "strict")
    text = _CAMEL.sub(" ", raw)
    last_end: dict[str, int] = {}
    compound, pol = False, None
    for m in _P_KEYWORD.finditer(text):
        pol = _polarity(m.group(1))
        if pol == "success" and _P_NEGATION.search(text[max(0, m.start() - 30) : m.start()]):
            pol = "failure"
        other = "failure" if pol == "success" else "success"
        if other in last_end and m.start() - last_end[other] <= COMPOUND_WINDOW:
            compound = True
        last_end[pol] = m.end()
    if pol is None:
        return INVALID
    return ParsedAnswer("failure" if compound else pol, "recovered")


def parse_verdict(
    raw: str | None,
    strict_words: Mapping[str, str],
    *,
    rules: str = "committed",
    truncated: bool = False,
) -> ParsedAnswer:
    """A "success"/"failure" verdict. ``strict_words`` maps the task's format words to
    verdicts, e.g. {"Yes": "success", "No": "failure"} for Task C (case-insensitive)."""
    words = {str(k).lower(): v for k, v in strict_words.items()}
    bad = {k: v for k, v in words.items() if v not in VERDICTS or not k.strip()}
    if bad:
        raise ValueError(f"strict_words must map words to one of {VERDICTS}, got {bad!r}")
    if rules == "paper":
        return guarded(raw, rules, lambda text: _paper(text, words))
    return guarded(raw, rules,
                   lambda text: _committed(commit.answer_text(text), words, bool(truncated)))

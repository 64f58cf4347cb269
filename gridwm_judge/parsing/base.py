"""What every format parser returns and shares: the parse result, the rule sets, the guard."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from gridwm_judge.records import PUBLISHED

ParseMode = Literal["strict", "recovered", "invalid"]
PARSE_MODES = ("strict", "recovered", "invalid")
VERDICTS = ("success", "failure")
RULES = ("committed", "paper")
PUBLISHED_RULES = PUBLISHED
"""Not a rule set over text: the parse each answer was published with (answers imported from
the paper's release carry the authors' own), which ``score --rules published`` reads."""
PARSER_VERSIONS: dict[str, str] = {"committed": "committed/2", "paper": "paper-f4/1",
                                   PUBLISHED_RULES: "as-published/1"}
"""Recorded in the scores, so a parse can be traced to the rules that made it."""


@dataclass(frozen=True)
class ParsedAnswer:
    """A parsed judge answer: A letter, C/D "success"/"failure", B dict, E label, or None."""

    value: str | dict | None
    mode: ParseMode


INVALID = ParsedAnswer(None, "invalid")


def check_rules(rules: str) -> str:
    """The rule set's name, or a ValueError naming the bad one."""
    if rules not in RULES:
        raise ValueError(f"unknown parser rules {rules!r}; expected one of {', '.join(RULES)}")
    return rules


def guarded(raw: object, rules: str, parse: Callable[[str], ParsedAnswer]) -> ParsedAnswer:
    """``parse(raw)`` with the shared contract: ``rules`` checked (a bad name raises), None or
    blank text is invalid, and no text ever raises (whatever slips through is invalid)."""
    check_rules(rules)
    if not isinstance(raw, str) or not raw.strip():
        return INVALID
    try:
        return parse(raw)
    except (ValueError, RecursionError, TypeError, MemoryError):  # pragma: no cover - guard
        return INVALID

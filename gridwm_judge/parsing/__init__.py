"""One parser for every judge's raw text, organised by answer format (choice, verdict, JSON).

Every backend's output goes through :func:`parse_answer` (or the per-format functions a task
table calls), so a verdict never depends on which backend produced the text. A result carries a
parse mode: ``strict``, ``recovered`` or ``invalid`` (nothing usable: the value is ``None``,
never a default answer). Two rule sets (:data:`RULES`, versions in :data:`PARSER_VERSIONS`):

``committed`` (default): a verdict is read only where the model commits to one.
  :func:`split_reasoning` first removes ``<think>`` blocks, so reasoning never decides.
  *strict*: the whole answer is exactly the format word (C: Yes/No, D: Success/Fail, A: one
  letter; markup, brackets and trailing punctuation allowed); B/E: the answer is one JSON object.
  *recovered*: otherwise the first tier below with a candidate decides; inside a tier the last
  candidate wins, so a later explicit revision ("Final answer: No") wins.
  1. explicit: an answer label ("Answer: X", "Final answer - X", "**Verdict:** X", "the answer
     is X", a label line followed by X on the next line, ``\\boxed{X}``; for choices also
     "I choose X", "option X is correct"). X must open the value ("Answer: Yes or No" and
     "Answer: No issues" name no verdict); after a ``label:`` a sentence is read with negations
     ("Verdict: the agent did not fail" is success).
  2. standalone: a line that is only the verdict ("Fail", "**No.**") anywhere, or a first line
     that starts with the verdict word followed by punctuation ("Yes, the agent succeeded.",
     "Fail. The reference shows ..."): a leading verdict is never overridden by its explanation.
  3. closing: a last line starting that way, a line ending "so/thus/therefore X", or the text
     ending in a verdict after a sentence end or colon ("... opened: Yes").
  4. (verdicts only, not truncated) an answer that is one short sentence, or a last sentence
     opening with a conclusion ("Therefore, ...", "Overall, ..."), read with negations and
     idioms ("The agent did not fail." success, "No doubt, it succeeded." success); hedged
     sentences ("so far", "seems", "if", a question) are not read.
  Keywords in passing never decide: with no candidate the answer is invalid. With
  ``truncated=True`` (the model hit its token limit) a candidate counts only if text follows it
  before the cut ("Answer: No" at the very end may have been "Not sure"), tier 4 is off, and a
  JSON object counts only if it was closed before the cut (no repair of a cut-off tail).

``paper``: the paper's Appendix F.4 keyword rules with the release's fixes, kept to reproduce
  its tables. It reads the raw text as it is (no ``<think>`` removal; ``truncated`` ignored),
  as the paper's parser did. A: the first isolated letter. C/D: keywords (success,
  succeed(s/ed), successful(ly), yes / fail(s/ed), failure, unsuccessful(ly), no; a negated
  success word is failure); the whole answer being the format word is strict; if both
  polarities occur and a success and a failure word lie within 15 characters, Fail (compound);
  else the last keyword wins; ``thoughtSuccess`` is split at the case boundary.

Verdicts asked as a JSON object (the prompt ablation's structured styles): the ``verdict``
field read as a verdict answer; strict when the whole answer is the asked object and the field
is exactly a format word (:mod:`.json_verdict`). A row's format is its task's, or its prompt
style's when the task has styles (``style=``, the row's ``prompt_style``).

B/E (both rule sets): strict when the answer is one JSON object; recovered from code fences,
surrounding text, trailing commas, single quotes, Python literals or a cut-off tail. E needs a
non-empty string ``answer``, returned lower-cased; the Oracle-State staged answer needs an
object holding ``task_type``, ``objective`` and ``verdict`` (values read by its grader). Every
parser is linear in the text's length.
"""

from __future__ import annotations

from gridwm_judge.parsing.base import (
    INVALID,
    PARSE_MODES,
    PARSER_VERSIONS,
    PUBLISHED_RULES,
    RULES,
    VERDICTS,
    ParsedAnswer,
    ParseMode,
    check_rules,
)
from gridwm_judge.parsing.choice import parse_choice
from gridwm_judge.parsing.json_answer import parse_json_answer
from gridwm_judge.parsing.json_verdict import parse_json_verdict
from gridwm_judge.parsing.reasoning import split_reasoning
from gridwm_judge.parsing.verdict import COMPOUND_WINDOW, parse_verdict
from gridwm_judge.task_table import Choice, JsonVerdict, Verdict, answer_spec

__all__ = [
    "COMPOUND_WINDOW",
    "INVALID",
    "PARSE_MODES",
    "PARSER_VERSIONS",
    "PUBLISHED_RULES",
    "RULES",
    "VERDICTS",
    "ParseMode",
    "ParsedAnswer",
    "parse_answer",
    "parse_choice",
    "parse_json_answer",
    "parse_json_verdict",
    "parse_verdict",
    "split_reasoning",
]

def parse_answer(
    task: str, raw: str | None, *, rules: str = "committed", truncated: bool = False,
    style: str = "",
) -> ParsedAnswer:
    """Parse one raw response for ``task`` (a task or config name of the task table) under
    ``rules``, in the answer format the table gives it (``style``: the row's prompt style, for
    a task whose styles have their own formats); ``truncated`` says the model hit its token
    limit. Never raises on any text (or None); a bad task, style or rules name raises."""
    fmt = answer_spec(task, style).answer
    check_rules(rules)
    if isinstance(fmt, Choice):
        return parse_choice(raw, fmt.options, rules=rules, truncated=truncated)
    if isinstance(fmt, Verdict):
        return parse_verdict(raw, fmt.words, rules=rules, truncated=truncated)
    if isinstance(fmt, JsonVerdict):
        return parse_json_verdict(raw, fmt.verdict.words, fmt.fields, rules=rules,
                                  truncated=truncated)
    return parse_json_answer(raw, fmt.required, rules=rules, truncated=truncated,
                             required_keys=fmt.fields)

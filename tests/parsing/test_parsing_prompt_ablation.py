"""The one parser on each prompt style's answers (task PA): strict / recovered / invalid."""

from __future__ import annotations

import pytest

from gridwm_judge.parsing import parse_answer, parse_json_verdict


def p(raw, style, **kw):
    parsed = parse_answer("PA", raw, style=style, **kw)
    return parsed.value, parsed.mode


RATIONALE = '{"rationale": "The agent picks up the key, opens the door and reaches the goal.", '


@pytest.mark.parametrize("raw, expected", [
    # strict: exactly the asked object, the verdict a format word (any case)
    ('{"verdict": "Success"}', ("success", "strict")),
    ('{"verdict":"fail"}', ("failure", "strict")),
    ('  {"verdict": "FAIL"}\n', ("failure", "strict")),
    ('<think>It reached the goal: Success</think>{"verdict": "Fail"}', ("failure", "strict")),
    # recovered: markup or text around the object, repairs, a verdict read from its field
    ('```json\n{"verdict": "Fail"}\n```', ("failure", "recovered")),
    ('Here is my answer: {"verdict": "Success"}', ("success", "recovered")),
    ("{'verdict': 'Success'}", ("success", "recovered")),
    ('{"verdict": "Fail",}', ("failure", "recovered")),
    ('{"verdict": "Fail."}', ("failure", "recovered")),
    ('{"verdict": "Success - the agent reached the goal"}', ("success", "recovered")),
    ('{"verdict": "Success", "confidence": "high"}', ("success", "recovered")),
    ('{"verdict": "Success"', ("success", "recovered")),  # closed off (not truncated)
    # invalid: no object with a readable verdict; a bare word is not the asked format
    ("Success", (None, "invalid")),
    ('The verdict would be "Fail" I think', (None, "invalid")),
    ('{"verdict": "unclear"}', (None, "invalid")),
    ('{"verdict": "Success or Fail"}', (None, "invalid")),
    ('{"answer": "Success"}', (None, "invalid")),
    ('{"verdict": null}', (None, "invalid")),
    ("", (None, "invalid")),
    (None, (None, "invalid")),
])
def test_structured_verdict(raw, expected):
    assert p(raw, "structured_verdict") == expected


@pytest.mark.parametrize("raw, expected", [
    (RATIONALE + '"verdict": "Success"}', ("success", "strict")),
    ('{"rationale": "", "verdict": "Fail"}', ("failure", "strict")),
    # the fields' order is not checked: a JSON object has none
    ('{"verdict": "Fail", "rationale": "The goal is gone."}', ("failure", "strict")),
    # the rationale is never read as the verdict, whatever words it holds
    ('{"rationale": "It looks like a success at first, but the goal was moved.", '
     '"verdict": "Fail"}', ("failure", "strict")),
    ('{"rationale": "No key is picked up; it fails.", "verdict": "Success"}',
     ("success", "strict")),
    # recovered: no rationale, a non-string rationale, text after the object
    ('{"verdict": "Success"}', ("success", "recovered")),
    ('{"rationale": ["a", "b"], "verdict": "Fail"}', ("failure", "recovered")),
    (RATIONALE + '"verdict": "Success"}\nI am confident.', ("success", "recovered")),
    # invalid: a rationale with no verdict, keywords only in the rationale
    ('{"rationale": "The agent fails to reach the goal."}', (None, "invalid")),
    ("The agent reaches the goal. Success", (None, "invalid")),
])
def test_structured_rationale(raw, expected):
    assert p(raw, "structured_rationale") == expected


def test_a_cut_off_rationale_is_invalid_and_never_repaired():
    """A rationale cut by the token budget before its verdict has no verdict; with the cut
    marked, a cut-off object is not closed off either (it might have gone on differently)."""
    cut = RATIONALE[:-3] + ' and then the agent steps on the lava so it'
    assert p(cut, "structured_rationale", truncated=True) == (None, "invalid")
    assert p(cut, "structured_rationale") == (None, "invalid")  # no verdict field at all
    cut_in_verdict = RATIONALE + '"verdict": "Succ'
    assert p(cut_in_verdict, "structured_rationale", truncated=True) == (None, "invalid")
    # an object closed before the cut still counts
    done = RATIONALE + '"verdict": "Fail"}\nExplanation: the CF'
    assert p(done, "structured_rationale", truncated=True) == ("failure", "recovered")


@pytest.mark.parametrize("raw, expected", [
    ("Success", ("success", "strict")),
    ("Fail.", ("failure", "strict")),
    ("**Fail**", ("failure", "strict")),
    ("Verdict: Success", ("success", "recovered")),
    ('{"verdict": "Fail"}', ("failure", "recovered")),  # Task D's committed rules, unchanged
    ("I cannot tell.", (None, "invalid")),
])
def test_direct_is_task_ds_format(raw, expected):
    assert p(raw, "direct") == expected
    assert parse_answer("D", raw).value == expected[0]


def test_paper_rules_read_keywords_in_every_style():
    """The paper parsed its three arms with its keyword rules (last keyword wins)."""
    raw = '{"rationale": "The agent succeeded", "verdict": "Fail"}'
    assert p(raw, "structured_rationale", rules="paper") == ("failure", "recovered")
    assert p("Success", "structured_verdict", rules="paper") == ("success", "strict")


def test_direct_call_and_bad_fields():
    words = {"Success": "success", "Fail": "failure"}
    assert parse_json_verdict('{"v": "a", "verdict": "fail"}', words, ("v", "verdict")).mode == \
        "strict"
    with pytest.raises(ValueError, match="must end with 'verdict'"):
        parse_json_verdict("{}", words, ("verdict", "rationale"))
    with pytest.raises(ValueError, match="unknown parser rules"):
        parse_answer("PA", "{}", style="structured_verdict", rules="lenient")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # a revision written last wins, as a direct answer's last committed word does
        ('{"verdict": "Success"}\nWait, on reflection it did not reach the goal.\n'
         '{"verdict": "Fail"}', ("failure", "recovered")),
        # a later explicit answer that contradicts the object commits to neither
        ('{"verdict": "Success"}\nFinal answer: Fail', (None, "invalid")),
        ('{"verdict":"Success"}  Actually, Fail.', (None, "invalid")),
        ('Here it is: {"verdict": "Fail"}', ("failure", "recovered")),
    ],
)
def test_the_last_json_verdict_decides_and_contradictions_are_invalid(raw, expected):
    for style in ("structured_verdict", "structured_rationale"):
        got = parse_answer("PA", raw, style=style)
        assert (got.value, got.mode) == expected, style

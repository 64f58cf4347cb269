"""The one parser: committed-answer rules (default) read where the model commits to an answer,
the paper's keyword rules reproduce its tables, reasoning never decides, a cut-off answer
counts only what it committed to, and no text (up to 1 MB) makes it raise."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwm_judge.parsing import (
    PARSE_MODES,
    PARSER_VERSIONS,
    PUBLISHED_RULES,
    RULES,
    VERDICTS,
    ParsedAnswer,
    parse_answer,
    parse_choice,
    parse_json_answer,
    parse_verdict,
    split_reasoning,
)

S, F = "success", "failure"
NONE = (None, "invalid")

# --- committed reading vs paper reading, case by case -------------------------------------------
CUT_OFF = (
    "Let me check the frames. In frame 3 the agent picks up the key, which looks like success "
    "so far, but then in frame"
)
ISSUE_CASES = [
    (
        "D",
        "Fail\n\nThe reference trajectory shows the agent successfully reaching the goal, "
        "while the query agent never opens the door.",
        (F, "recovered"),
        (S, "recovered"),
    ),
    ("D", CUT_OFF, NONE, (S, "recovered")),
    ("D", "The agent did not fail.", (S, "recovered"), (F, "recovered")),
    ("C", "No doubt, it succeeded.", (S, "recovered"), (F, "recovered")),
    ("C", "Yes.\nNo issues observed.", (S, "recovered"), (F, "recovered")),
    (
        "D",
        "**Verdict:** Success\nThe agent reaches the goal; it could have failed but did not.",
        (S, "recovered"),
        (F, "recovered"),
    ),
    ("A", "A careful look shows the answer is C", ("C", "recovered"), ("A", "recovered")),
    ("A", "<think>Option A is wrong, B too.</think>\n\nC", ("C", "strict"), ("A", "recovered")),
    ("A", "Answer: B", ("B", "recovered"), ("B", "recovered")),
    ("A", "(C)", ("C", "strict"), ("C", "strict")),
    ("A", "A careful look", NONE, ("A", "recovered")),
]


@pytest.mark.parametrize(("task", "raw", "committed", "paper"), ISSUE_CASES)
def test_issue_cases_under_both_rule_sets(task, raw, committed, paper):
    assert parse_answer(task, raw) == ParsedAnswer(*committed)
    assert parse_answer(task, raw, rules="committed") == ParsedAnswer(*committed)
    assert parse_answer(task, raw, rules="paper") == ParsedAnswer(*paper)


def test_cut_off_reasoning_is_invalid_whether_or_not_marked_truncated():
    assert parse_answer("D", CUT_OFF, truncated=True) == ParsedAnswer(None, "invalid")
    assert parse_answer("C", CUT_OFF.replace("success", "yes"), truncated=True).mode == "invalid"


# --- real judge shapes from the paper (Appendix F.4 and the release) ----------------------------
@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize(
    ("task", "raw", "truncated", "value", "mode"),
    [
        ("D", "thoughtSuccess", False, S, "recovered"),  # glued thought marker
        ("D", "Let me think.thoughtFail", False, F, "recovered"),
        ("D", "Fail.", False, F, "strict"),
        ("D", "Success.\n\nLet me re-read the frames once more to be sure.", False, S, "recovered"),
        ("D", "Success.\n\nLet me re-read the frames once more to be sure.", True, S, "recovered"),
        ("C", "No, the agent is at (4,", True, F, "recovered"),  # committed before the cut
        ("C", "No, the agent is at (4,", False, F, "recovered"),
    ],
)
def test_paper_answer_shapes_read_the_same_by_both_rule_sets(
    rules, task, raw, truncated, value, mode
):
    assert parse_answer(task, raw, rules=rules, truncated=truncated) == ParsedAnswer(value, mode)


# --- committed rules: where the model commits ---------------------------------------------------
@pytest.mark.parametrize(
    ("task", "raw", "value", "mode"),
    [
        # the whole answer is the format word
        ("C", "Yes\n", S, "strict"),
        ("C", '"No."', F, "strict"),
        ("D", "**Fail**", F, "strict"),
        ("C", "<think>The agent fails at first ... yes</think>\n\nNo", F, "strict"),
        ("C", "Okay, the agent reaches the goal, so yes.\n</think>\n\nNo", F, "strict"),
        # explicit answer lines, with markup and punctuation
        ("C", "Answer: No", F, "recovered"),
        ("C", "Final answer: Yes.", S, "recovered"),
        ("D", "Verdict: Fail", F, "recovered"),
        ("D", "Final Answer - Fail", F, "recovered"),
        ("C", "*Answer:* _Yes_", S, "recovered"),
        ("C", "## Final Answer\n\n**No**", F, "recovered"),
        ("C", "The answer is: **Yes**", S, "recovered"),
        ("C", "Final Answer: \\boxed{Yes}", S, "recovered"),
        ("D", "Query trajectory: Fail", F, "recovered"),
        ("D", "Verdict: Fail (the agent never reaches the goal)", F, "recovered"),
        # a sentence after an answer label is read with negations and idioms
        ("D", "Verdict: the agent did not fail.", S, "recovered"),
        ("D", "Verdict: Not successful.", F, "recovered"),
        ("C", "Answer: No issues were found, and the agent succeeded.", S, "recovered"),
        ("C", "Answer: Yes or No", None, "invalid"),
        # standalone verdict lines: a leading one is never overridden by its explanation
        ("C", "Yes, the agent succeeded.", S, "recovered"),
        ("D", "Success - the agent reaches the green goal.", S, "recovered"),
        ("C", "Reasoning about frames 1-4.\n\n**No.**", F, "recovered"),
        ("C", "Reasoning about frames 1-4.\r\n\r\nNo\r\n", F, "recovered"),
        (
            "D",
            "Fail\n\nThe frames differ.\nYes, the reference agent reaches the goal.",
            F,
            "recovered",
        ),
        ("C", "Reasoning about frames.\nNo, the agent never reaches the goal.", F, "recovered"),
        ("C", "Yes, no doubt about it.", S, "recovered"),
        # a later revision: an explicit line, or a line that is only the verdict
        ("C", "Yes.\n\nWait, re-checking frame 4.\n\nFinal answer: No", F, "recovered"),
        ("D", "Success.\n\nLet me re-read frame 4: the door is shut.\n\nFail.", F, "recovered"),
        ("C", "Answer: Yes\nNo, the key was never needed.", S, "recovered"),  # explicit > lead
        # closing verdicts
        ("C", "The agent picks up the key and reaches the goal. Yes.", S, "recovered"),
        ("C", "Did the trajectory satisfy this goal? Yes.", S, "recovered"),
        ("C", "The door stays closed, so no.", F, "recovered"),
        ("C", "If the answer is yes, the door must open. It stays shut, so no.", F, "recovered"),
        # a one-sentence answer, or a concluding last sentence
        ("C", "The trajectory did not satisfy the goal.", F, "recovered"),
        ("C", "Frame 2: key picked. Therefore, the trajectory satisfies the goal.", S, "recovered"),
        ("D", "It never opens the door.\n\nThus, the query trajectory fails.", F, "recovered"),
        ("D", "The agent picks up the key. The agent did not fail.", None, "invalid"),
        ("D", "The agent wanders. So far it looks like success.", None, "invalid"),
        ("D", "It could have failed but did not.", None, "invalid"),  # nothing stated plainly
        # keywords in passing never decide
        ("C", "The key is picked up in frame 2, which looks like success so far", None, "invalid"),
        ("C", "I considered whether it failed or succeeded.", None, "invalid"),
        ("C", "No key is visible in frame 2.\nThe door stays closed.", None, "invalid"),
        ("C", "Looking at frame 1: yes the key", None, "invalid"),
        ("D", "<think>So it is a success.</think>", None, "invalid"),
        ("D", "<think>The agent reaches the goal, so Success", None, "invalid"),  # never closed
    ],
)
def test_committed_verdicts(task, raw, value, mode):
    assert parse_answer(task, raw) == ParsedAnswer(value, mode)


@pytest.mark.parametrize(
    ("raw", "value", "mode"),
    [
        ("The correct next state is C.", "C", "recovered"),
        ("C is the correct next state.", "C", "recovered"),
        ("The agent moves forward, which is shown in option B.", "B", "recovered"),
        ("A is wrong because the agent turns; the answer is D.", "D", "recovered"),
        ("I choose D.", "D", "recovered"),
        ("**Answer:** (D)", "D", "recovered"),
        ("Final Answer: \\boxed{B}", "B", "recovered"),
        ("C. The agent turns left, so the frame shows it facing up.", "C", "recovered"),
        ("Option B", "B", "recovered"),
        ("A) agent moves\nB) agent turns\nC) agent stays\nSo C.", "C", "recovered"),
        ("A) agent moves\nB) agent turns", None, "invalid"),  # a list of options, no answer
        ("Answer: A or B", None, "invalid"),
        ("On the left is the current state.", None, "invalid"),
    ],
)
def test_committed_choices(raw, value, mode):
    assert parse_answer("A", raw) == ParsedAnswer(value, mode)


# --- truncated answers: only what was committed before the cut ----------------------------------
@pytest.mark.parametrize(
    ("task", "raw", "value"),
    [
        ("C", "Answer: No", None),  # may have gone on as "Not sure"
        ("C", "Answer: No\n", F),
        ("C", "Answer: No.", F),
        ("C", "Yes", None),
        ("C", "Yes.", S),
        ("D", "The agent did not fail.", None),  # one-sentence reading is off when cut
        ("C", "The frames show the agent at the door, so the answer is", None),
        ("D", "Verdict: Success\nThe agent reaches the goal in frame", S),
        ("C", "<think>The agent reaches the goal, so yes", None),
        ("A", "Answer: C", None),
        ("A", "Answer: C\nBecause the agent", "C"),
        ("E", '{"answer": "key_yellow"} because the agent picked', "key_yellow"),
        ("E", '{"answer": "key_yellow", "seen": [1, 2', None),  # no repair of a cut tail
    ],
)
def test_truncated_answers(task, raw, value):
    assert parse_answer(task, raw, truncated=True).value == value


def test_truncated_json_tail_is_repaired_only_when_not_truncated_or_under_paper_rules():
    raw = '{"answer": "key_yellow", "seen": [1, 2'
    assert parse_answer("E", raw) == ParsedAnswer("key_yellow", "recovered")
    assert parse_answer("E", raw, rules="paper", truncated=True).value == "key_yellow"


# --- reasoning ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<think>a</think>b", ("a", "b")),
        ("<THINKING>x</Thinking>\nYes", ("x", "Yes")),
        ("<think>a</think>b<think>c</think> d", ("a\n\nc", "b d")),
        ("half a thought</think>\n\nNo", ("half a thought", "No")),  # template opened the block
        ("<think>never closed", ("never closed", "")),
        ("Yes <think>second thoughts", ("second thoughts", "Yes")),
        ("plain answer ", (None, "plain answer")),
        ("", (None, "")),
        (None, (None, None)),
    ],
)
def test_split_reasoning(text, expected):
    assert split_reasoning(text) == expected


def test_paper_rules_read_the_raw_text_think_blocks_included():
    raw = "<think>Success is unlikely</think>\nFail"
    assert parse_answer("D", raw) == ParsedAnswer(F, "strict")
    assert parse_answer("D", raw, rules="paper") == ParsedAnswer(F, "recovered")  # compound


# --- the per-format functions an integrator's task table calls ---------------------------------
def test_per_format_functions():
    assert parse_choice("E", "ABCDE") == ParsedAnswer("E", "strict")
    assert parse_choice("I choose B.", ("A", "B", "C", "D")) == ParsedAnswer("B", "recovered")
    assert parse_choice("Answer: 12", ("1", "12")) == ParsedAnswer("12", "recovered")
    assert parse_choice("Answer: E", "ABCD") == ParsedAnswer(None, "invalid")
    words = {"Pass": "success", "Fail": "failure"}
    assert parse_verdict("pass.", words) == ParsedAnswer(S, "strict")
    assert parse_verdict("Pass, every step is right.", words) == ParsedAnswer(S, "recovered")
    assert parse_verdict("Verdict: PASS", words, rules="paper") == ParsedAnswer(None, "invalid")
    assert parse_json_answer('{"label": " Key_Red "}', "label") == ParsedAnswer("key_red", "strict")
    assert parse_json_answer('x {"a": 1}', None, truncated=True) == ParsedAnswer(
        {"a": 1}, "recovered"
    )


def test_bad_arguments_raise_naming_the_value():
    with pytest.raises(ValueError, match="unknown parser rules 'keyword'"):
        parse_answer("C", "Yes", rules="keyword")
    with pytest.raises(ValueError, match="unknown parser rules"):
        parse_verdict("Yes", {"yes": S}, rules="strict")
    with pytest.raises(ValueError, match="choices must be letters"):
        parse_choice("A", "")
    with pytest.raises(ValueError, match="strict_words must map"):
        parse_verdict("Yes", {"yes": "maybe"})
    with pytest.raises(ValueError, match="required_field"):
        parse_json_answer("{}", "")


def test_rules_and_versions():
    assert RULES == ("committed", "paper")
    # score's --rules: the text rule sets, and each answer's published parse (not a text rule)
    assert set(PARSER_VERSIONS) == {*RULES, PUBLISHED_RULES}
    assert all(PARSER_VERSIONS[r].split("/")[0] for r in PARSER_VERSIONS)
    with pytest.raises(ValueError, match="unknown parser rules 'published'"):
        parse_answer("D", "Success", rules=PUBLISHED_RULES)


# --- the tests that predate the committed rules: both rule sets unless noted --------------------
@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize(
    ("raw", "value", "mode"),
    [
        ("B", "B", "strict"),
        (" (C). ", "C", "strict"),
        ("**D**", "D", "strict"),
        ("The answer is C because the agent turns.", "C", "recovered"),
        ("Action moves forward, so B.", "B", "recovered"),  # the A inside "Action" is not isolated
        ("I pick D, not A.", "D", "recovered"),  # paper: first isolated letter; committed: "pick D"
        ("none of these", None, "invalid"),
        ("E", None, "invalid"),
    ],
)
def test_task_a_letter(rules, raw, value, mode):
    assert parse_answer("A", raw, rules=rules) == ParsedAnswer(value, mode)


PAPER_VERDICTS = [
    ("C", "Yes", "success", "strict"),
    ("C", "no.", "failure", "strict"),
    ("D", "Success", "success", "strict"),
    ("D", "Fail.", "failure", "strict"),  # seen in real outputs
    ("D", "**Fail**", "failure", "strict"),
    ("C", "Success", "success", "recovered"),  # right polarity, not C's format word
    ("D", "thoughtSuccess", "success", "recovered"),  # glued token
    ("D", "Let me think.thoughtFail", "failure", "recovered"),
    ("D", "Success.\n\nLet me re-read the frames once more to be sure.", "success", "recovered"),
    ("C", "No, the agent is at (4,", "failure", "recovered"),  # truncated reasoning
    ("D", "The trajectory was not successful.", "failure", "recovered"),  # compound
    ("D", "The agent did not succeed in reaching it.", "failure", "recovered"),
    ("D", "It wasn't successful", "failure", "recovered"),
    ("D", "unsuccessful", "failure", "recovered"),
    ("D", "Unsuccessfully attempted.", "failure", "recovered"),
    ("C", "Yes, no doubt about it.", "failure", "recovered"),  # both within 15 chars
    (
        "C",
        "At first I thought no key was picked up, but after the door opened: Yes",
        "success",
        "recovered",
    ),  # both polarities far apart: last keyword wins
    (
        "D",
        "Success would require the goal; the agent never gets there. Fail",
        "failure",
        "recovered",
    ),
    ("C", "The agent knows nothing", None, "invalid"),  # "no" inside words does not count
    ("C", "Not sure.", None, "invalid"),
    ("D", "", None, "invalid"),
    ("D", None, None, "invalid"),
]
COMMITTED_READS_DIFFERENTLY = {
    # a leading committed "Yes," is the answer; "no doubt" is an idiom, not a second verdict
    "Yes, no doubt about it.": ("success", "recovered"),
}


@pytest.mark.parametrize(("task", "raw", "value", "mode"), PAPER_VERDICTS)
def test_verdict_keywords(task, raw, value, mode):
    assert parse_answer(task, raw, rules="paper") == ParsedAnswer(value, mode)


@pytest.mark.parametrize(("task", "raw", "value", "mode"), PAPER_VERDICTS)
def test_committed_rules_on_the_paper_table(task, raw, value, mode):
    expected = COMMITTED_READS_DIFFERENTLY.get(raw, (value, mode))
    assert parse_answer(task, raw) == ParsedAnswer(*expected)


@pytest.mark.parametrize("rules", RULES)
def test_task_names_are_normalised_and_checked(rules):
    assert (
        parse_answer("task_c", "Yes", rules=rules)
        == parse_answer("c", "Yes", rules=rules)
        == parse_answer("C", "Yes", rules=rules)
    )
    with pytest.raises(ValueError, match="unknown task 'F'"):
        parse_answer("F", "Yes", rules=rules)


B_OBJ = {
    "agent": {"pos": [1, 2], "dir": "right", "carrying": None},
    "front_cell": {"type": "empty", "color": None, "state": None},
    "visible_objects": [],
}


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize(
    ("raw", "mode"),
    [
        (
            '{"agent": {"pos": [1, 2], "dir": "right", "carrying": null}, "front_cell": {"type": '
            '"empty", "color": null, "state": null}, "visible_objects": []}',
            "strict",
        ),
        (
            '```json\n{"agent": {"pos": [1, 2], "dir": "right", "carrying": null}, "front_cell": '
            '{"type": "empty", "color": null, "state": null}, "visible_objects": [],}\n```',
            "recovered",
        ),
        (
            'Here is the state:\n{"agent": {"pos": [1, 2], "dir": "right", "carrying": null,}, '
            '"front_cell": {"type": "empty", "color": null, "state": null}, '
            '"visible_objects": [],} Hope this helps.',
            "recovered",
        ),
        (
            "{'agent': {'pos': [1, 2], 'dir': 'right', 'carrying': None}, 'front_cell': {'type': "
            "'empty', 'color': None, 'state': None}, 'visible_objects': []}",
            "recovered",
        ),
        (
            '{"agent": {"pos": [1, 2], "dir": "right", "carrying": null}, "front_cell": {"type": '
            '"empty", "color": null, "state": null}, "visible_objects": [',
            "recovered",
        ),  # truncated
    ],
)
def test_task_b_json_recovery(rules, raw, mode):
    assert parse_answer("B", raw, rules=rules) == ParsedAnswer(B_OBJ, mode)


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("raw", ["[1, 2]", "no json here", "{not json at all", '"a string"'])
def test_task_b_invalid(rules, raw):
    assert parse_answer("B", raw, rules=rules) == ParsedAnswer(None, "invalid")


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize(
    ("raw", "value", "mode"),
    [
        ('{"answer":"key_yellow"}', "key_yellow", "strict"),
        ('```json\n{"answer": "Dropped"}\n```', "dropped", "recovered"),
        ('I think {"answer": "ball_green",} is right', "ball_green", "recovered"),
        ('{"label": "key_yellow"} then {"answer": "holding"}', "holding", "recovered"),
        ('{"label": "key_yellow"}', None, "invalid"),  # E needs an answer field
        ('{"answer": 3}', None, "invalid"),
        ("key_yellow", None, "invalid"),
        ('{"\\u0061nswer": "Key_Red"}', "key_red", "strict"),  # an escaped field name
        ("{'answer': 'Holding'}", "holding", "recovered"),
        ('{"answer0": "x"} {"answers": "y"}', None, "invalid"),
    ],
)
def test_task_e_answer_field(rules, raw, value, mode):
    assert parse_answer("E", raw, rules=rules) == ParsedAnswer(value, mode)


def test_task_e_think_block_is_not_the_answer():
    raw = '<think>{"answer": "ball_red"}?</think>\n{"answer": "Key_Yellow"}'
    assert parse_answer("E", raw) == ParsedAnswer("key_yellow", "strict")
    assert parse_answer("E", raw, rules="paper") == ParsedAnswer("ball_red", "recovered")


# --- never raises, on anything ------------------------------------------------------------------
_VALUE_OK = {
    "A": lambda v: v in ("A", "B", "C", "D"),
    "B": lambda v: isinstance(v, dict),
    "C": lambda v: v in VERDICTS,
    "D": lambda v: v in VERDICTS,
    "E": lambda v: isinstance(v, str) and v == v.strip().lower() and v != "",
}
_SHAPES = [
    "Answer:",
    "Final answer - ",
    "**Verdict:**",
    "the answer is ",
    "\\boxed{",
    "<think>",
    "</think>",
    "Yes",
    "No",
    "Success",
    "Fail",
    "not ",
    "no doubt",
    "A",
    "B",
    "(C)",
    "so ",
    "{",
    "}",
    '"answer"',
    ": ",
    "\n",
    " ",
    ".",
    ",",
    "*",
    "#",
    "'",
    "?",
    "thought",
    "x",
]


@settings(max_examples=300, deadline=None)
@given(
    task=st.sampled_from("ABCDE"),
    rules=st.sampled_from(RULES),
    truncated=st.booleans(),
    raw=st.one_of(
        st.none(),
        st.text(max_size=400),
        st.lists(st.sampled_from(_SHAPES), max_size=40).map("".join),
    ),
)
def test_never_raises_on_arbitrary_text(task, rules, truncated, raw):
    out = parse_answer(task, raw, rules=rules, truncated=truncated)
    assert out.mode in PARSE_MODES
    assert (out.value is None) == (out.mode == "invalid")
    assert out.value is None or _VALUE_OK[task](out.value)


@settings(max_examples=150, deadline=None)
@given(raw=st.text(alphabet="{}[]\",:'` \nabc01-", max_size=200))
def test_never_raises_on_json_like_noise(raw):
    for task in ("B", "E"):
        for rules in RULES:
            out = parse_answer(task, raw, rules=rules)
            assert (out.value is None) == (out.mode == "invalid")


def test_deeply_nested_json_does_not_raise():
    for rules in RULES:
        assert parse_answer("B", "[" * 100_000, rules=rules).mode == "invalid"
        assert parse_answer("E", '{"a":' * 50_000, rules=rules).mode == "invalid"


# --- large and adversarial answers parse (timings: benchmarks/bench_parse.py) ------------------
LARGE_VERDICT_INPUTS = {
    "yes no alternating": ("yes no " * 14_000, None, F),
    "yes block then no block": ("yes " * 12_500 + "no " * 12_500, None, F),
    "verdict lines": ("Yes.\n" * 20_000, S, S),
    "newlines": ("\n" * 100_000 + "No", F, F),
    "labels": ("Answer: " * 12_500, None, None),
    "label lines": ("Verdict:\n" * 11_000, None, None),
    "open think": ("<think>" * 14_000, None, None),
    "markup": ("*" * 100_000 + " yes", S, S),
}


@pytest.mark.parametrize("name", sorted(LARGE_VERDICT_INPUTS))
def test_large_verdict_inputs_parse(name):
    raw, committed, paper = LARGE_VERDICT_INPUTS[name]
    assert parse_answer("C", raw).value == committed
    assert parse_answer("C", raw, rules="paper").value == paper


def test_one_megabyte_json_and_choice_inputs_parse():
    big = '{"note": "' + "a" * 1_000_000 + '"} {"answer": "key_red"}'
    for rules in RULES:
        assert parse_answer("E", big, rules=rules).value == "key_red"
        assert parse_answer("E", "{}" * 500_000, rules=rules).mode == "invalid"
        assert parse_answer("E", "{" * 1_000_000, rules=rules).mode == "invalid"
        assert parse_answer("B", "{a:}" * 250_000, rules=rules).mode == "invalid"
        assert parse_answer("A", "A " * 500_000, rules=rules).mode in PARSE_MODES
    assert parse_answer("A", "A " * 500_000 + "\nAnswer: D").value == "D"


# --- a lead verdict its own sentence contradicts commits to neither --------------------------
@pytest.mark.parametrize(
    ("task", "raw", "expected"),
    [
        ("C", "Yes, but ultimately the agent failed.", NONE),
        ("C", "No, it succeeded.", NONE),
        ("D", "Success, but the agent failed to reach the goal.", NONE),
        ("C", "I can't say it failed.", NONE),
        ("D", "It is hard to say whether it succeeded.", NONE),
        # agreeing or hedged rest: the lead stands
        ("C", "Yes - it did not fail.", (S, "recovered")),
        ("D", "Success, although it almost failed.", (S, "recovered")),
        ("C", "No, the agent did not succeed.", (F, "recovered")),
        # a later committed answer still decides
        ("C", "Yes, but it failed.\n\nAnswer: No", (F, "recovered")),
    ],
)
def test_contradicted_lead_is_invalid(task, raw, expected):
    got = parse_answer(task, raw)
    assert (got.value, got.mode) == expected

"""``baseline:prompt-only``: Oracle-State's staged answer from the prompt's text with
its state tables cut out; elsewhere always-yes's answer."""

from __future__ import annotations

import json

import pytest

from gridwm_judge.judges import make_judge
from gridwm_judge.judges.base import JudgeRequest
from gridwm_judge.judges.prompt_only import (
    OBJECTIVE,
    listed_task_types,
    prompt_text,
    staged_answer,
)
from gridwm_judge.parsing import parse_answer
from gridwm_judge.scoring.oracle_state import chance_levels, stage_hits
from gridwm_judge.task_table import OS_TASK_TYPES, task_spec
from gridwm_judge.tasks import oracle_state, prompt_ablation, task_d
from gridwm_judge.worlds.minigrid import generate_groups


@pytest.fixture(scope="module")
def groups():
    return generate_groups("memory", 5, 830000, env_id="MiniGrid-MemoryS7-v0").groups


@pytest.fixture(scope="module")
def rows(groups):
    return oracle_state.build_rows(groups, seed=42)


def _ask(judge, row, task, style=""):
    return judge.answer(JudgeRequest(row["uid"], task, row["prompt"], row["images"], 512,
                                     style=style))


def test_the_text_it_reads_has_no_state_table(rows):
    for r in rows:
        text = prompt_text(r["prompt"])
        assert "trajectory state table:" not in text and "agent (" not in text
        assert text.startswith("Below are two trajectories") and "Answer three questions." in text
        if r["evidence"] == "pixel":
            assert text == r["prompt"]
        else:  # the opening, the evidence note and the question are all that is left
            pixel = next(p for p in rows if p["item_id"] == r["item_id"]
                         and p["evidence"] == "pixel")
            assert text.split("\n")[-7:] == pixel["prompt"].split("\n")[-7:]


def test_answers_the_first_listed_type_goal_green_and_success(rows):
    judge = make_judge("baseline:prompt-only")
    fmt = task_spec("OS").answer
    for r in rows:
        raw = _ask(judge, r, "OS")
        parsed = parse_answer("OS", raw)
        assert parsed.mode == "strict", raw
        order = json.loads(r["task_type_order"])
        assert listed_task_types(r["prompt"]) == order
        assert parsed.value == {"task_type": order[0], "objective": OBJECTIVE,
                                "verdict": "Success"}
        assert raw == staged_answer(r["prompt"], fmt)


def test_the_tables_never_change_its_answer(rows):
    """Tables swapped between a query's variants (or dropped) leave the answer as it was."""
    fmt = task_spec("OS").answer
    by_item = {}
    for r in rows:
        by_item.setdefault(r["group_id"], []).append(r)
    for group_rows in by_item.values():
        assert len({staged_answer(r["prompt"], fmt) for r in group_rows}) == 1


def test_its_scored_stages(rows):
    """Task type right iff the gold is listed first; objective right iff the reference's
    objective is goal_green (never, in Memory); verdict right on Full and NoCue only."""
    judge = make_judge("baseline:prompt-only")
    for r in rows:
        gold = json.loads(r["answer"])
        hits = stage_hits(json.loads(_ask(judge, r, "OS")), gold)
        assert hits["task_type"] == (json.loads(r["task_type_order"])[0] == gold["task_type"])
        assert not hits["objective"] and not hits["joint"]
        assert hits["verdict"] == (r["variant"] != "cf")
    firsts = [json.loads(r["task_type_order"])[0] for r in rows]
    assert len(set(firsts)) > 1  # the first listed type varies across queries


def test_chance_levels_of_the_rows(rows):
    golds = [json.loads(r["answer"]) for r in rows if r["evidence"] == "state"]
    ch = chance_levels(golds)
    assert ch["task_type"]["uniform"] == pytest.approx(1 / len(OS_TASK_TYPES))
    assert ch["objective"]["uniform"] == pytest.approx(1 / 30)
    assert ch["verdict"]["uniform"] == 0.5
    assert ch["joint"]["uniform"] == pytest.approx(1 / 6 / 30 / 2)
    assert ch["task_type"]["best_constant"] == 1.0  # one env: one task type
    assert ch["verdict"] == {"uniform": 0.5, "best_constant": pytest.approx(2 / 3),
                             "best_constant_answer": "Success", "n_rows": len(golds)}
    objectives = [g["objective"] for g in golds]
    best = max(set(objectives), key=objectives.count)
    assert ch["objective"]["best_constant"] == pytest.approx(objectives.count(best) / len(golds))
    assert set(ch["joint"]["best_constant_answer"]) == {"task_type", "objective", "verdict"}
    assert chance_levels([])["joint"]["best_constant"] is None


def test_elsewhere_it_answers_as_always_yes(groups):
    judge = make_judge("baseline:prompt-only")
    yes = make_judge("baseline:always-yes")
    for r in task_d.build_rows(groups[:2], conditions=("clean-neutral",)):
        assert _ask(judge, r, "D") == _ask(yes, r, "D") == "Success"
    for r in prompt_ablation.build_rows(groups[:2]):
        style = r["prompt_style"]
        assert _ask(judge, r, "PA", style) == _ask(yes, r, "PA", style)

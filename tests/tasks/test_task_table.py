"""The task table's world and description fields: the one place every part reads whether a
task is MiniWorld's and what its dataset config says it is."""

from __future__ import annotations

import dataclasses

import pytest

from gridwm_judge.dataset.builder import GridWMJudge
from gridwm_judge.task_table import (
    ALL_TASKS,
    BUILT_CONFIGS,
    CONTROL_TASKS,
    MINIWORLD_TASKS,
    TASKS,
    WORLDS,
    JsonObject,
    JsonVerdict,
    TaskSpec,
    Verdict,
    task_spec,
    world_of,
    world_task,
)


def test_miniworld_tuple_holds_exactly_the_miniworld_entries():
    assert {t.world for t in ALL_TASKS} == set(WORLDS)
    assert [t for t in ALL_TASKS if t.world == "miniworld"] == list(MINIWORLD_TASKS)
    assert {t.world for t in (*TASKS, *CONTROL_TASKS)} == {"minigrid"}


@pytest.mark.parametrize("name, world", [
    ("C", "minigrid"), ("task_c", "minigrid"), ("oracle_state", "minigrid"),
    ("mc", "miniworld"), ("MINIWORLD_D", "miniworld"), ("miniworld_a", "miniworld"),
])
def test_world_of_reads_the_entry_by_any_name(name, world):
    assert world_of(name) == world


@pytest.mark.parametrize(("recipe", "world", "task"), [
    ("next_state", "minigrid", "A"), ("presentation_invariance", "minigrid", "C"),
    ("reference_aided", "minigrid", "D"), ("next_state", "miniworld", "MA"),
    ("presentation_invariance", "miniworld", "MC"), ("reference_aided", "miniworld", "MD"),
])
def test_world_task_is_the_paper_form_of_a_recipe_not_its_hard_counterpart(recipe, world, task):
    assert world_task(recipe, world) == task


def test_world_task_without_a_single_answer_says_so():
    with pytest.raises(ValueError, match="0 tasks of world 'miniworld' ask recipe 'perception'"):
        world_task("perception", "miniworld")


def test_world_of_an_unknown_task_names_the_valid_ones():
    with pytest.raises(ValueError, match=r"unknown task 'task_z'.*mc \(miniworld_c\)"):
        world_of("task_z")


def _spec(**kw):
    return TaskSpec("F", "task_f", "demo", Verdict("Yes", "No"), 64, "reference_aided",
                    "all_groups", **kw)


def test_an_unknown_world_is_refused_by_name():
    with pytest.raises(ValueError, match=r"unknown world .unity. of F.*'miniworld'"):
        _spec(description="F: demo", world="unity")


def test_a_config_cannot_go_without_a_description():
    with pytest.raises(TypeError, match="description"):
        _spec()
    with pytest.raises(ValueError, match="task F needs a description"):
        _spec(description="  ")
    assert _spec(description="F: demo").world == "minigrid"


def test_a_style_keeps_world_and_description():
    pa = task_spec("PA")
    styled = pa.for_style("structured_rationale")
    assert (styled.description, styled.world) == (pa.description, pa.world)
    assert dataclasses.replace(task_spec("MD"), max_tokens=9).world == "miniworld"


def test_every_config_is_described_by_its_entry(tmp_path):
    """The builder's config descriptions are the table's, each naming its task first."""
    got = {c.name: c.description for c in GridWMJudge.BUILDER_CONFIGS}
    assert list(got) == list(BUILT_CONFIGS)
    for spec in ALL_TASKS:
        if spec.imported:   # the release's exams: imported, never built
            assert spec.config not in got
            continue
        assert got[spec.config] == spec.description
        assert spec.description.startswith(f"{spec.name}: ")
    assert len(set(got.values())) == len(got)
    builder = GridWMJudge(config_name="miniworld_c", cache_dir=str(tmp_path))
    assert builder.info.description == task_spec("MC").description


# --- answer lines: the prompts' answer instruction is the table's answer format -------------

def _built_prompts(folder, config: str, style: str) -> list[str]:
    """The distinct prompts of one config (in one prompt style) as its row builder wrote them."""
    import pyarrow.parquet as pq

    files = sorted((folder / "data" / config).glob("*.parquet"))
    assert files, f"{config} is in no smoke profile: add it to its world's smoke build"
    table = pq.read_table(files, columns=["prompt", "prompt_style"]).to_pylist()
    return sorted({r["prompt"] for r in table if r["prompt_style"] == style})


@pytest.mark.parametrize("task, style", [
    (t.name, s) for t in ALL_TASKS if not t.imported for s in (tuple(t.styles) or ("",))])
def test_every_prompt_asks_in_its_answer_format(task, style, request):
    """Every prompt a smoke build writes (every built config is in its world's smoke profile)
    holds its answer line once, at the end."""
    spec = task_spec(task)
    build = (request.getfixturevalue("miniworld_smoke").out if spec.world == "miniworld"
             else request.getfixturevalue("smoke_build").out)
    line = spec.for_style(style).answer.format_line()
    texts = _built_prompts(build, spec.config, style)
    assert texts and all(text.count(line) == 1 for text in texts), line
    # the line is the answer instruction: after it at most one note line (Task E's label
    # space, the image-order note of Task D's prompts), never a second instruction
    for text in texts:
        tail = text.split(line, 1)[1]
        assert tail == "" or (tail.startswith("\n") and tail.count("\n") == 1
                              and "answer" not in tail.lower()), repr(tail)


def test_a_hard_config_asks_in_its_paper_configs_format():
    """Its rows are the paper config's prompts (task_c_hard's are Task C's)."""
    for spec in ALL_TASKS:
        if spec.paper:
            assert spec.answer == task_spec(spec.paper).answer, spec.name


def test_rendered_answer_lines():
    assert task_spec("A").answer.format_line() == "Answer with ONLY one letter: A, B, C, or D."
    assert task_spec("C").answer.format_line() == "Answer with ONLY: Yes or No."
    verdict = task_spec("PA").for_style("structured_verdict").answer
    assert verdict.format_line() == ('Answer with ONLY a JSON object and no other text: '
                                     '{"verdict": "<Success or Fail>"}.')
    free = JsonVerdict(Verdict("Yes", "No"), ("why", "verdict"))
    assert free.format_line().endswith('{"why": "<why>", "verdict": "<Yes or No>"}.')


def test_a_json_answer_says_its_line():
    with pytest.raises(TypeError, match="line"):
        JsonObject({"type": "object"})  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="answer line"):
        JsonObject({"type": "object"}, line=" ")

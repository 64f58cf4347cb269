"""oracle_state rows: three matched evidence arms, a state table that shows only what the shown
frames show (NoCue's marks in either style included) and never an excluded field, the staged
gold."""

from __future__ import annotations

import json
import re

import pytest

from gridwm_judge.dataset.profiles import get_profile
from gridwm_judge.prompts import oracle_state_prompt
from gridwm_judge.render import crop_box
from gridwm_judge.render.frames import Crop, mask_by_frame
from gridwm_judge.render.nocue_style import variant_marks
from gridwm_judge.scoring.oracle_state import stage_hits
from gridwm_judge.task_table import OS_TASK_TYPES, STAGED_SCHEMA, task_spec
from gridwm_judge.tasks import oracle_state
from gridwm_judge.world import rollout_of
from gridwm_judge.worlds.minigrid import generate_groups
from gridwm_judge.worlds.minigrid.cards import ENV_CARDS, get_card

FAMILIES = ("doorkey", "keycorridor", "redbluedoor", "lavagap", "memory", "multiroom")


@pytest.fixture(scope="module")
def batches():
    """family -> (groups, rows): one reference and one query group per core family."""
    out = {}
    for family in FAMILIES:
        groups = generate_groups(family, 2, 830000).groups
        out[family] = (groups, oracle_state.build_rows(groups))
    return out


def _table(prompt: str) -> str:
    """The state tables of a prompt (between the first table header and the question)."""
    return prompt[prompt.index("Reference trajectory state table:"):prompt.index("Answer three")]


def test_task_types_are_the_cards_causal_chains():
    assert OS_TASK_TYPES == tuple(c.causal_chain for c in ENV_CARDS.values() if c.oracle_state)
    assert len(OS_TASK_TYPES) == 6  # the paper's six
    assert tuple(oracle_state.TASK_TYPES.values()) == OS_TASK_TYPES
    assert STAGED_SCHEMA["properties"]["task_type"]["enum"] == list(OS_TASK_TYPES)
    assert task_spec("oracle_state").structured_output() == {"json": json.dumps(STAGED_SCHEMA)}
    with pytest.raises(ValueError, match="oracle_state has no family 'unlockpickup'"):
        oracle_state.task_type("unlockpickup")


def test_three_arms_are_matched_item_for_item(batches):
    for _family, (_groups, rows) in batches.items():
        assert len(rows) == 3 * 3  # one query x full/nocue/cf x three arms
        by_item: dict[str, list[dict]] = {}
        for r in rows:
            by_item.setdefault(r["item_id"], []).append(r)
        for item, arms in by_item.items():
            assert [r["evidence"] for r in arms] == ["pixel", "state", "pixel_state"]
            assert [r["uid"] for r in arms] == [f"{item}.{a}" for a in
                                                 ("pixel", "state", "pixel_state")]
            for key in ("group_id", "variant", "label", "answer", "frame_indices",
                        "reference_group_id", "mission", "intervention", "mask"):
                assert len({r[key] for r in arms}) == 1, key
            pixel, state, both = arms
            assert len(pixel["images"]) == 2 and state["images"] == []
            assert all(a is b for a, b in zip(pixel["images"], both["images"], strict=True))
            assert _table(state["prompt"]) == _table(both["prompt"])
            assert "state table" not in pixel["prompt"].lower()


def test_pixel_prompts_match_across_variants_and_tables_follow_the_shown_frames(batches):
    for _family, (groups, rows) in batches.items():
        pixel = {r["prompt"] for r in rows if r["evidence"] == "pixel"}
        assert len(pixel) == 1  # gate D3 on the pixel arm
        for r in (r for r in rows if r["evidence"] == "state"):
            ref_shown, shown = json.loads(r["frame_indices"])
            table = _table(r["prompt"])
            ref_part, query_part = table.split("Query trajectory state table:")
            assert len(re.findall(r"^\d+\. ", ref_part, re.M)) == len(ref_shown)
            assert len(re.findall(r"^\d+\. ", query_part, re.M)) == len(shown)
            query = groups[1]
            states = rollout_of(query, r["variant"]).states
            crop = crop_box(query)
            # the last line is the last shown frame's agent, in the frame's crop
            x, y = states[shown[-1]]["agent_pos"]
            last = query_part.strip().splitlines()[-1]
            assert last.startswith(f"{len(shown)}. agent ({x - crop.x}, {y - crop.y}) facing")


def test_no_excluded_field_reaches_a_state_prompt(batches):
    words = re.compile(r"success|fail|reward|terminat|truncat|valid|interven|mission|goal:|"
                       r"objective|[a-z]+_[a-z]+", re.I)
    for _family, (groups, rows) in batches.items():
        missions = {g.mission for g in groups}
        for r in (r for r in rows if r["evidence"] != "pixel"):
            prompt, table = r["prompt"], _table(r["prompt"])
            for mission in missions:
                assert mission not in prompt
            assert not words.search(table), (r["uid"], words.search(table))
            gold = json.loads(r["answer"])
            assert gold["objective"] not in prompt  # the label form never appears
            for op in json.loads(r["intervention"]):
                assert json.dumps(op) not in prompt and str(op) not in prompt
            assert r["validators"] not in prompt
            if r["evidence"] == "state":  # no image: nothing may refer the judge to one
                assert not re.search(r"storyboard|image", prompt, re.I), r["uid"]


def _query_lines(row: dict) -> list[str]:
    text = _table(row["prompt"]).split("Query trajectory state table:")[1]
    return [ln for ln in text.split("\n") if ln.strip()]


@pytest.mark.parametrize("style", ["occlude", "clean"])
def test_the_table_hides_what_the_frames_hide(batches, style):
    """occlude: NoCue's covered cells are hidden, Full and CF list no hidden cell. clean: an
    erased object is simply absent (no hidden line), a covered door / lava cell is hidden, and
    Full and CF list their balancing squares as hidden in the same shown frames."""
    checked = {"hidden": 0, "erased": 0, "decoy": 0}
    for _family, (groups, _rows) in batches.items():
        rows = oracle_state.build_rows(groups, nocue_style=style)
        query = groups[1]
        crop = crop_box(query)
        state = {r["variant"]: r for r in rows if r["evidence"] == "state"}
        assert {r["nocue_style"] for r in rows} == {style}
        lines = {v: _query_lines(r) for v, r in state.items()}
        shown = json.loads(state["nocue"]["frame_indices"])[1]
        marks = {v: {m.t: m for m in variant_marks(query, v, style)} for v in state}
        for n, t in enumerate(shown):
            for x, y in mask_by_frame(query.nocue).get(t, ()):
                cell = f"({x - crop.x}, {y - crop.y})"
                under = [o for o in query.full.states[t]["objects"] if o["pos"] == [x, y]]
                erased = style == "clean" and (x, y) in marks["nocue"][t].erase
                assert (f"hidden {cell}" in lines["nocue"][n]) == (not erased)
                for o in under:
                    assert f"{oracle_state.object_name(o)} {cell}" not in lines["nocue"][n]
                    assert f"{oracle_state.object_name(o)} {cell}" in lines["full"][n]
                checked["erased" if erased else "hidden"] += 1
            for v in ("full", "cf"):
                drawn = marks[v].get(t)
                hidden = re.findall(r"hidden \((\d+), (\d+)\)", lines[v][n])
                want = [] if drawn is None else [(x - crop.x, y - crop.y)
                                                 for x, y in drawn.occlude]
                assert sorted((int(a), int(b)) for a, b in hidden) == sorted(want)
                checked["decoy"] += len(want)
        unmasked = [n for n, t in enumerate(shown) if t not in marks["nocue"]
                    and t not in marks["full"]]
        assert all(lines["nocue"][n] == lines["full"][n] for n in unmasked)
    assert checked["hidden"] > 0
    if style == "clean":
        assert checked["erased"] > 0 and checked["decoy"] > 0
    else:
        assert checked["erased"] == checked["decoy"] == 0


def test_staged_gold(batches):
    expected = {"doorkey": "goal_green", "redbluedoor": "door_blue", "lavagap": "goal_green",
                "multiroom": "goal_green"}
    for family, (groups, rows) in batches.items():
        reference = groups[0]
        gold = json.loads(rows[0]["answer"])
        assert list(gold) == ["task_type", "objective", "verdict"]
        assert gold["task_type"] == get_card(family).causal_chain
        if family in expected:
            assert gold["objective"] == expected[family]
        elif family == "keycorridor":  # "pick up the <color> <type>"
            color, kind = reference.mission.split()[-2:]
            assert gold["objective"] == f"{kind}_{color}"
        else:  # memory: the end object the reference chose
            chose = next(e for e in reference.full.events if e["type"] == "choose")
            assert gold["objective"] == f"{chose['obj']['type']}_{chose['obj']['color']}"
        for r in rows:
            verdict = json.loads(r["answer"])["verdict"]
            assert verdict == ("Success" if r["label"] == 1 else "Fail")
            assert (r["variant"] == "cf") == (verdict == "Fail")


def test_bad_options_are_refused():
    groups = generate_groups("doorkey", 2, 830000).groups
    with pytest.raises(ValueError, match="bad arms"):
        oracle_state.build_rows(groups, arms=("pixels",))
    with pytest.raises(ValueError, match="give 9 rows, not n_items=5"):
        oracle_state.build_rows(groups, n_items=5)


# --- references from other seeds, a shuffled task-type list -----------------------

@pytest.fixture(scope="module")
def spread():
    """A KeyCorridor batch (one group drawn as a reference only, five queries; the ball's
    colour varies by seed) and a Memory batch (key or ball), and their rows."""
    out = {}
    for family, env_id in (("keycorridor", "MiniGrid-KeyCorridorS4R3-v0"),
                           ("memory", "MiniGrid-MemoryS7-v0")):
        groups = generate_groups(family, 6, 830000, env_id=env_id).groups
        out[family] = (groups, oracle_state.build_rows(groups, seed=42))
    return out


def test_each_query_gets_a_reference_from_another_seed_of_its_env(spread):
    for _family, (groups, rows) in spread.items():
        ids = {g.group_id for g in groups}
        refs: dict[str, set[str]] = {}
        for r in rows:
            assert r["reference_group_id"] in ids
            assert r["reference_group_id"] != r["group_id"]  # never the query's own group
            refs.setdefault(r["group_id"], set()).add(r["reference_group_id"])
        assert set(refs) == ids - {groups[0].group_id}  # the first group is never a query
        assert all(len(v) == 1 for v in refs.values())  # one per query: its variants and arms
        assert len({next(iter(v)) for v in refs.values()}) == 5 >= 3  # n - 1 distinct
        by_id = {g.group_id: g for g in groups}
        for r in rows:  # the gold is the drawn reference's own task type and objective
            gold = json.loads(r["answer"])
            assert gold["objective"] == oracle_state.objective(by_id[r["reference_group_id"]])
            assert gold["task_type"] == oracle_state.task_type(r["family"])


def test_objectives_vary_where_the_missions_do(spread):
    kc = {json.loads(r["answer"])["objective"] for r in spread["keycorridor"][1]}
    memory = {json.loads(r["answer"])["objective"] for r in spread["memory"][1]}
    assert len(kc) >= 3 and all(o.startswith("ball_") for o in kc)
    assert memory == {"key_green", "ball_green"}


@pytest.mark.parametrize("seed", range(12))
def test_the_draw_asks_every_objective_of_the_batch(spread, seed):
    """The one group no query points at is, where the batch allows, one whose objective
    another group shares (KeyCorridor's six groups have three objectives seen once)."""
    groups = spread["keycorridor"][0]
    refs = oracle_state.draw_references(groups, seed)
    assert set(refs) == {g.group_id for g in groups[1:]}
    assert all(q != r.group_id for q, r in refs.items())
    assert len({r.group_id for r in refs.values()}) == len(groups) - 1
    assert ({oracle_state.objective(r) for r in refs.values()}
            == {oracle_state.objective(g) for g in groups})


def test_references_depend_on_the_seed_and_the_env_only(spread):
    kc, memory = spread["keycorridor"][0], spread["memory"][0]
    alone = oracle_state.build_rows(kc, seed=42)
    together = oracle_state.build_rows(list(memory) + list(kc), seed=42)
    pick = [(r["uid"], r["reference_group_id"], r["task_type_order"], r["prompt"])
            for r in alone]
    assert pick == [(r["uid"], r["reference_group_id"], r["task_type_order"], r["prompt"])
                    for r in together if r["family"] == "keycorridor"]
    draws = {tuple(sorted((q, r.group_id) for q, r in
                          oracle_state.draw_references(kc, s).items())) for s in range(8)}
    assert len(draws) > 1  # the sampling seed draws the cycle


def _listed(prompt: str) -> list[str]:
    block = prompt.split("copy it exactly:\n", 1)[1].split("\n2. objective", 1)[0]
    return [line[2:] for line in block.splitlines()]


def test_task_type_order_is_drawn_per_query_recorded_and_shown(spread):
    orders = set()
    for _family, (_groups, rows) in spread.items():
        per_group: dict[str, set[str]] = {}
        for r in rows:
            order = json.loads(r["task_type_order"])
            assert _listed(r["prompt"]) == order  # the audit column is what the prompt shows
            assert sorted(order) == sorted(OS_TASK_TYPES)
            per_group.setdefault(r["group_id"], set()).add(r["task_type_order"])
            orders.add(r["task_type_order"])
        assert all(len(v) == 1 for v in per_group.values())  # same for variants and arms
    assert len(orders) >= 8  # ten query groups, (almost) ten orders
    firsts = {json.loads(o)[0] for o in orders}
    assert len(firsts) >= 3  # the gold is not the first listed, nor any fixed position
    # the answer's enum stays the set of task types, in the table's order
    assert STAGED_SCHEMA["properties"]["task_type"]["enum"] == list(OS_TASK_TYPES)


def test_a_task_type_listed_anywhere_grades_by_its_text(spread):
    r = next(r for r in spread["memory"][1] if r["evidence"] == "state")
    gold = json.loads(r["answer"])
    order = json.loads(r["task_type_order"])
    assert stage_hits({**gold, "task_type": f"- {order[order.index(gold['task_type'])]}"},
                      gold)["task_type"]
    other = next(t for t in order if t != gold["task_type"])
    assert not stage_hits({**gold, "task_type": other}, gold)["task_type"]


def test_the_prompt_refuses_an_order_that_is_not_the_task_types():
    shuffled = OS_TASK_TYPES[::-1]
    assert _listed(oracle_state_prompt("pixel", task_types=shuffled)) == list(shuffled)
    for bad in (OS_TASK_TYPES[:-1], (*OS_TASK_TYPES[:-1], OS_TASK_TYPES[0]),
                (*OS_TASK_TYPES[:-1], "reach the goal")):
        with pytest.raises(ValueError, match="task_types must order the task types"):
            oracle_state_prompt("pixel", task_types=bad)


def test_the_base_plan_gives_every_env_at_least_three_references():
    """A batch of n groups gives n - 1 distinct references (the draw's cycle); the base
    profile's oracle_state draws 1 + 10 or 11 groups per env, the control analyses' counts."""
    plan = get_profile("base").plan("oracle_state")
    assert plan.expected_rows == 98 * 3 * 3
    sizes = [n for _, _, n in plan.requests({}, {})]
    assert len(sizes) == 9 and sum(sizes) == 98 + 9
    assert min(sizes) - 1 >= 3


def test_lava_is_named_without_the_colour_the_frames_do_not_show():
    """MiniGrid's lava has colour attribute "red" and is drawn orange: the table says "lava"."""
    state = {"agent_pos": (1, 1), "agent_dir": 0, "carrying": None,
             "objects": [{"type": "lava", "color": "red", "pos": (3, 2)},
                         {"type": "key", "color": "yellow", "pos": (2, 2)}]}
    line = oracle_state.state_line(state, Crop(0, 0, 6, 6))
    assert "lava (3, 2)" in line and "red" not in line
    assert "key yellow (2, 2)" in line

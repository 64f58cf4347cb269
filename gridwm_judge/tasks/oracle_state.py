"""Oracle-State (issue 14; paper Appendix D.4, Tables 16-17): Task D's items in three evidence
arms, with a staged answer.

Each item is Task D's clean-neutral question: a successful Full reference from the first group
of an env batch, then a query (full / nocue / cf) of another group of that env. The judge
answers JSON ``{"task_type", "objective", "verdict"}``: the reference's task type (one of
``task_table.OS_TASK_TYPES``, the cards' causal chains), its objective (``<type>_<color>``,
Task E's label form: the object of the causal chain's last step in the reference's Full
rollout, e.g. ``goal_green``, ``door_blue``, ``ball_purple``) and the query's verdict.

Every query is asked in three arms (column ``evidence``), one ``item_id``:

- ``pixel``: Task D's two composite storyboards (reference, then query);
- ``state``: no image; a state table per trajectory, one line per shown keyframe;
- ``pixel_state``: the storyboards and the tables.

The state table is built from the very frame indices the storyboards show and holds only what
those frames show: the agent's cell and heading, what it carries, and every non-wall object
on the grid (type, colour, cell, door state), cells counted in the storyboard frame's crop
(the smallest rectangle holding the level's walls, which the text-only arm's note names).
NoCue's marks are applied to it as to the pixels (``render.nocue_style``): a cell under the
grey square is listed as hidden and whatever lies under it (an object, the agent) is left out,
in every variant that draws the square (under the ``clean`` style Full and CF carry the
squares that balance NoCue's, on wall cells); an erased object is simply absent, as in the
picture. The table never
holds the mission, the objective as such, the gold, reward, success, termination or
truncation, the intervention or the validators (the rows keep the mission as an audit column).
MiniGrid only (it reads MiniGrid's state dicts). ``seed`` is accepted for the common
``build_rows`` signature; nothing is sampled.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from gridwm_judge.prompts import oracle_state_prompt
from gridwm_judge.render import DEFAULT_NOCUE_STYLE, Crop, FrameMark, crop_box
from gridwm_judge.render.nocue_style import marks_by_frame, variant_marks
from gridwm_judge.schema import EVIDENCE, VARIANTS
from gridwm_judge.sim.cards import CORE_FAMILIES, get_card
from gridwm_judge.sim.holding import identity_label
from gridwm_judge.task_table import OS_VERDICTS
from gridwm_judge.tasks.rows import counted_rows, variant_row
from gridwm_judge.tasks.task_c import Storyboards, check_choices, nocue_setup
from gridwm_judge.tasks.task_d import env_batches
from gridwm_judge.world import Group, rollout_of

TASK_TYPES: dict[str, str] = {f: get_card(f).causal_chain for f in CORE_FAMILIES}
"""family -> its task type (the card's causal chain; ``task_table.OS_TASK_TYPES`` lists them)."""
HEADINGS = ("right", "down", "left", "up")
"""MiniGrid's ``agent_dir`` 0..3, in words (Task B's)."""
VERDICT = {1: OS_VERDICTS[0], 0: OS_VERDICTS[1]}


def task_type(family: str) -> str:
    """The task type of an env family; only the six core families have one."""
    if family not in TASK_TYPES:
        raise ValueError(f"oracle_state has no family {family!r}; expected one of "
                         f"{', '.join(TASK_TYPES)}")
    return TASK_TYPES[family]


def objective(group: Group) -> str:
    """``<type>_<color>`` of the object of the last chain step in ``group``'s Full rollout
    (its last event of the card's final chain event type, on an object of its type if named)."""
    kind, obj_type = get_card(group.family).chain_events[-1]
    hits = [e for e in group.full.events if e["type"] == kind and e.get("obj")
            and (obj_type is None or e["obj"]["type"] == obj_type)]
    if not hits:
        raise ValueError(f"oracle_state: group {group.group_id} has no {kind!r} event on an "
                         "object in its Full rollout; its objective is unknown")
    return identity_label(hits[-1]["obj"])


def _cell(pos: Sequence[int], crop: Crop) -> str:
    return f"({int(pos[0]) - crop.x}, {int(pos[1]) - crop.y})"


def _thing(obj: Mapping[str, Any]) -> str:
    return f"{obj['type']} {obj['color']}"


def state_line(state: Mapping[str, Any], crop: Crop, hidden: Sequence[Sequence[int]] = (),
               erased: Sequence[Sequence[int]] = ()) -> str:
    """One keyframe's observable facts; ``hidden`` cells (under a grey square in this frame)
    are listed as hidden and nothing under them is told; objects on ``erased`` cells (drawn as
    empty floor in this frame) are left out without a word."""
    cover = {(int(x), int(y)) for x, y in hidden}
    gone = {(int(x), int(y)) for x, y in erased}
    agent = tuple(int(v) for v in state["agent_pos"])
    if agent in cover:
        head = "agent hidden"
    else:
        carry = state["carrying"]
        head = (f"agent {_cell(agent, crop)} facing {HEADINGS[int(state['agent_dir'])]}, "
                f"carrying {_thing(carry) if carry else 'nothing'}")
    objs = []
    for o in state["objects"]:
        if (int(o["pos"][0]), int(o["pos"][1])) in cover | gone:
            continue
        text = f"{_thing(o)} {_cell(o['pos'], crop)}"
        objs.append(f"{text} {o['state']}" if o["type"] == "door" and o.get("state") else text)
    objs += [f"hidden {_cell(c, crop)}" for c in sorted(cover, key=lambda c: (c[1], c[0]))]
    return f"{head}; objects: {'; '.join(objs) if objs else 'none'}"


def state_table(group: Group, variant: str, indices: Sequence[int], crop: Crop,
                nocue_style: str | None = DEFAULT_NOCUE_STYLE) -> str:
    """The numbered lines of ``variant``'s shown keyframes ``indices`` (chronological), with
    the marks its frames draw in ``nocue_style`` (None: none)."""
    rollout = rollout_of(group, variant)
    marks = marks_by_frame(variant_marks(group, variant, nocue_style))
    lines = []
    for n, t in enumerate(indices, start=1):
        mark = marks.get(int(t), FrameMark(int(t)))
        lines.append(f"{n}. {state_line(rollout.states[t], crop, mark.occlude, mark.erase)}")
    return "\n".join(lines)


def staged_answer(reference: Group, label: int) -> str:
    """The gold JSON: the reference's task type and objective, the query's verdict."""
    return json.dumps({"task_type": task_type(reference.family),
                       "objective": objective(reference), "verdict": VERDICT[int(label)]})


def build_rows(
    groups: Sequence[Group],
    *,
    n_items: int | None = None,
    seed: int = 0,
    variants: Sequence[str] = VARIANTS,
    arms: Sequence[str] = EVIDENCE,
    max_frames: int | None = None,
    nocue_style: str = DEFAULT_NOCUE_STYLE,
) -> list[dict]:
    """Oracle-State rows (order: env batch, query group, variant, arm).

    ``n_items``, when given, must equal the number of rows the groups produce (a profile
    check). The three arms of a query share its ``item_id``, frames and gold.
    """
    variants = check_choices("variants", variants, VARIANTS)
    arms = check_choices("arms", arms, EVIDENCE)
    world, style = nocue_setup(nocue_style, variants, None)
    rows: list[dict] = []
    for reference, queries in env_batches(groups):
        task_type(reference.family)
        ref_boards = Storyboards(reference, world=world, max_frames=max_frames)
        ref_shown = ref_boards.shown("full", "orig")
        ref_table = state_table(reference, "full", ref_shown, crop_box(reference), style)
        for query in queries:
            boards = Storyboards(query, world=world, max_frames=max_frames)
            crop = crop_box(query)
            for variant in variants:
                base = variant_row(query, variant, style)
                item_id = f"OS.{query.group_id}.{variant}"
                shown = boards.shown(variant, "orig")
                images = (ref_boards.images("full", "orig", "clean", "composite")
                          + boards.images(variant, "orig", "clean", "composite"))
                table = state_table(query, variant, shown, crop, style)
                for arm in arms:
                    row = dict(base)
                    row.update(
                        uid=f"{item_id}.{arm}", task="OS", item_id=item_id,
                        prompt=oracle_state_prompt(arm, *(() if arm == "pixel"
                                                          else (ref_table, table))),
                        images=[] if arm == "state" else list(images),
                        answer=staged_answer(reference, base["label"]),
                        temporal="orig", visual="clean", framing="neutral",
                        representation="" if arm == "state" else "composite",
                        frame_indices=json.dumps([ref_shown, shown]),
                        reference_group_id=reference.group_id, evidence=arm,
                        mission=query.mission,
                    )
                    rows.append(row)
    return counted_rows("oracle_state", groups, rows, n_items)

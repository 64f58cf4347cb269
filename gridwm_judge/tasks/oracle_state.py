"""Oracle-State (paper Appendix D.4, Tables 16-17): Task D's items in three evidence
arms, with a staged answer.

Each item is Task D's clean-neutral question: a successful Full reference from another seed of
the query's env, then the query (full / nocue / cf). The judge answers JSON
``{"task_type", "objective", "verdict"}``: the reference's task type (one of
``task_table.OS_TASK_TYPES``, the cards' causal chains, listed in the prompt in an order drawn
per query), its objective (``<type>_<color>``, Task E's label form: the object of the causal
chain's last step in the reference's Full rollout, e.g. ``goal_green``, ``door_blue``,
``ball_purple``) and the query's verdict.

So that the first two stages are questions and not a few answers repeated:

- **References** (:func:`draw_references`): an env batch's groups (its first group, drawn as
  a reference only, and its query groups) are put in one cycle in an order drawn with the
  sampling seed; each query's reference is the group after it in the cycle: never the query
  itself, the same for its three variants and arms, and ``n - 1`` distinct references for a
  batch of ``n`` groups (11 of the 12 in the base profile's envs). The one group left out is
  chosen, where the batch allows, among groups whose objective another group shares, so every
  objective the batch's seeds produce is asked. The objective is each reference's own; it
  varies within an env only where its missions do (KeyCorridor's ball colour, Memory's key or
  ball), and is constant in DoorKey, LavaGap, MultiRoom (``goal_green``) and RedBlueDoors
  (``door_blue``).
- **Task-type order** (:func:`task_type_order`): the prompt lists the six task types in an
  order drawn per query group with the sampling seed (the same for its three variants, so the
  pixel arm's prompts stay identical across variants, gate D3); the order shown is the audit
  column ``task_type_order``.

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
MiniGrid only (it reads MiniGrid's state dicts). ``seed`` is the sampling seed: it and the
groups' ids alone fix the references and the orders (whatever the sharding).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from gridwm_judge.prompts import oracle_state_prompt
from gridwm_judge.render import DEFAULT_NOCUE_STYLE, Crop, FrameMark, crop_box, rng_from_key
from gridwm_judge.render.nocue_style import marks_by_frame, variant_marks
from gridwm_judge.schema import EVIDENCE, VARIANTS
from gridwm_judge.task_table import OS_TASK_TYPES, OS_VERDICTS
from gridwm_judge.tasks.rows import counted_rows, variant_row
from gridwm_judge.tasks.task_c import Storyboards, check_choices, nocue_setup
from gridwm_judge.world import Group, rollout_of
from gridwm_judge.worlds.minigrid.cards import ENV_CARDS, get_card
from gridwm_judge.worlds.minigrid.holding import identity_label

TASK_TYPES: dict[str, str] = {f: c.os_task_type for f, c in ENV_CARDS.items() if c.os_task_type}
"""family -> its task type (the card's ``os_task_type``; ``task_table.OS_TASK_TYPES`` lists
them)."""
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
    """``<type>_<color>`` of the object of the card's ``objective_event`` in ``group``'s Full
    rollout (its last event of that type, on an object of its type if named)."""
    kind, obj_type = get_card(group.family).objective_event
    hits = [e for e in group.full.events if e["type"] == kind and e.get("obj")
            and (obj_type is None or e["obj"]["type"] == obj_type)]
    if not hits:
        raise ValueError(f"oracle_state: group {group.group_id} has no {kind!r} event on an "
                         "object in its Full rollout; its objective is unknown")
    return identity_label(hits[-1]["obj"])


def env_batches(groups: Sequence[Group]) -> list[tuple[Group, ...]]:
    """The groups of each (family, env_id), in order of first appearance: the first of a
    batch is drawn as a reference only, the others are its queries (Task D's batches)."""
    batches: dict[tuple[str, str], list[Group]] = {}
    for group in groups:
        batches.setdefault((group.family, group.env_id), []).append(group)
    for (family, env_id), members in batches.items():
        if len(members) < 2:
            raise ValueError(f"oracle_state: env {env_id} ({family}) has a reference but no "
                             "query group")
        failed = [g.group_id for g in members if not g.full.success]
        if failed:
            raise ValueError(f"oracle_state: reference candidates {failed} do not succeed")
    return [tuple(m) for m in batches.values()]


def draw_references(batch: Sequence[Group], seed: int) -> dict[str, Group]:
    """query group id -> its reference, for one env batch (``batch[0]`` is not a query).

    The batch is put in one cycle in an order drawn from ``seed`` and the env; each query's
    reference is the next group in the cycle. The group no query points at (the one after
    ``batch[0]``) is swapped, where that keeps every objective asked, for a group whose
    objective another group of the batch shares.
    """
    first = batch[0]
    rng = rng_from_key(f"{first.family}|{first.env_id}", f"oracle_state.references.{seed}")
    cycle = [batch[int(i)] for i in rng.permutation(len(batch))]
    labels = Counter(objective(g) for g in batch)
    pos = {g.group_id: i for i, g in enumerate(cycle)}
    left_out = (pos[first.group_id] + 1) % len(cycle)
    if labels[objective(cycle[left_out])] == 1:
        # the first group in cycle order (after batch[0]) whose objective is not unique
        for step in range(2, len(cycle)):
            j = (pos[first.group_id] + step) % len(cycle)
            if cycle[j] is not first and labels[objective(cycle[j])] > 1:
                cycle[left_out], cycle[j] = cycle[j], cycle[left_out]
                break
    refs = {g.group_id: cycle[(i + 1) % len(cycle)] for i, g in enumerate(cycle)
            if g is not first}
    assert all(q != r.group_id for q, r in refs.items())  # never the query's own group
    return refs


def task_type_order(query: Group, seed: int) -> tuple[str, ...]:
    """The task types in the order ``query``'s prompt lists them: a permutation of
    ``task_table.OS_TASK_TYPES`` drawn from ``seed`` and the query's group id."""
    rng = rng_from_key(query.group_id, f"oracle_state.task_types.{seed}")
    return tuple(OS_TASK_TYPES[int(i)] for i in rng.permutation(len(OS_TASK_TYPES)))


def _cell(pos: Sequence[int], crop: Crop) -> str:
    return f"({int(pos[0]) - crop.x}, {int(pos[1]) - crop.y})"


def object_name(obj: Mapping[str, Any]) -> str:
    """``type colour``; lava alone, since MiniGrid's lava carries the colour attribute
    ``red`` but is drawn orange, and a table must name what the frames show."""
    return "lava" if obj["type"] == "lava" else f"{obj['type']} {obj['color']}"


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
                f"carrying {object_name(carry) if carry else 'nothing'}")
    objs = []
    for o in state["objects"]:
        if (int(o["pos"][0]), int(o["pos"][1])) in cover | gone:
            continue
        text = f"{object_name(o)} {_cell(o['pos'], crop)}"
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
    check). The three arms of a query share its ``item_id``, frames and gold; its three
    variants share its reference and task-type order. ``seed`` draws both (see the module
    doc).
    """
    variants = check_choices("variants", variants, VARIANTS)
    arms = check_choices("arms", arms, EVIDENCE)
    world, style = nocue_setup(nocue_style, variants, None)
    rows: list[dict] = []
    for batch in env_batches(groups):
        task_type(batch[0].family)
        references = draw_references(batch, seed)
        boards_of = {g.group_id: Storyboards(g, world=world, max_frames=max_frames)
                     for g in batch}
        for query in batch[1:]:
            reference = references[query.group_id]
            ref_boards = boards_of[reference.group_id]
            ref_shown = ref_boards.shown("full", "orig")
            ref_table = state_table(reference, "full", ref_shown, crop_box(reference), style)
            order = task_type_order(query, seed)
            boards = boards_of[query.group_id]
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
                                                          else (ref_table, table)),
                                                   task_types=order),
                        images=[] if arm == "state" else list(images),
                        answer=staged_answer(reference, base["label"]),
                        temporal="orig", visual="clean", framing="neutral",
                        representation="" if arm == "state" else "composite",
                        frame_indices=json.dumps([ref_shown, shown]),
                        reference_group_id=reference.group_id, evidence=arm,
                        mission=query.mission, task_type_order=json.dumps(order),
                    )
                    rows.append(row)
    return counted_rows("oracle_state", groups, rows, n_items)

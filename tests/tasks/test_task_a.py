"""Task A: counts, determinism, candidate distinctness (from each other and, for distractors,
from the current frame), balanced gold, clean prompts."""

from __future__ import annotations

import collections
import hashlib
import io
import json

import numpy as np
import pytest
from PIL import Image

from gridwm_judge.prompts import PROMPT_VERSION, TASK_A, TASK_A_MASKED_ACTION
from gridwm_judge.render import render_frames
from gridwm_judge.schema import COLUMNS
from gridwm_judge.tasks.task_a import LETTERS, balanced_gold_slots, build_rows
from gridwm_judge.worlds.minigrid import ACTION_NAMES, generate_groups


@pytest.fixture(scope="module")
def groups():
    return [g for f in ("doorkey", "lavagap") for g in generate_groups(f, 2, 830000).groups]


@pytest.fixture(scope="module")
def rows(groups):
    return build_rows(groups, n_items=16, seed=42)


def _png_hash(img: Image.Image) -> str:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return hashlib.sha256(buf.getvalue()).hexdigest()


def check_schema(row):
    assert set(row) == set(COLUMNS)
    for name, (dtype, _) in COLUMNS.items():
        if dtype == "int64":
            assert isinstance(row[name], int) and not isinstance(row[name], bool), name
        elif dtype == "list_image":
            assert row[name] and all(isinstance(i, Image.Image) and i.mode == "RGB"
                                     for i in row[name])
        else:
            assert isinstance(row[name], str), name


def test_counts_schema_and_uids(rows):
    assert len(rows) == 48
    for row in rows:
        check_schema(row)
        assert row["task"] == "A" and row["prompt_version"] == PROMPT_VERSION
        assert row["uid"] == f"{row['item_id']}.{row['action_condition']}"
        assert row["item_id"] == f"A.{row['group_id']}.q{row['checkpoint']:03d}"
    assert len({r["uid"] for r in rows}) == len(rows)
    by_item = collections.defaultdict(list)
    for r in rows:
        by_item[r["item_id"]].append(r)
    assert len(by_item) == 16
    for item in by_item.values():
        assert sorted(r["action_condition"] for r in item) == ["mask", "orig", "shuffle"]
        assert len({id(r["images"][0]) for r in item}) == 1  # the same panel
        assert len({r["answer"] for r in item}) == 1
    # Spread over the groups: 4 groups x 4 questions.
    assert set(collections.Counter(r["group_id"] for r in rows).values()) == {12}


def test_deterministic(groups, rows):
    again = build_rows(groups, n_items=16, seed=42)
    assert [r["uid"] for r in again] == [r["uid"] for r in rows]
    for a, b in zip(rows, again, strict=True):
        assert _png_hash(a["images"][0]) == _png_hash(b["images"][0])
        assert {k: v for k, v in a.items() if k != "images"} == {
            k: v for k, v in b.items() if k != "images"}
    other = build_rows(groups, n_items=16, seed=7)
    assert [r["answer"] for r in other] != [r["answer"] for r in rows]


def test_candidates_distinct_and_gold_is_next_frame(groups, rows):
    by_id = {g.group_id: g for g in groups}
    for row in rows[::3]:
        order = json.loads(row["candidate_order"])
        assert [c["letter"] for c in order] == ["A", "B", "C", "D"]
        golds = [c for c in order if c["gold"]]
        assert len(golds) == 1 and golds[0]["letter"] == row["answer"]
        t = row["checkpoint"]
        assert golds[0]["group_id"] == row["group_id"] and golds[0]["t"] == t + 1
        frames = [render_frames(by_id[c["group_id"]], "full")[c["t"]] for c in order]
        digests = {hashlib.sha256(f.tobytes()).hexdigest() for f in frames}
        assert len(digests) == 4
        own = render_frames(by_id[row["group_id"]], "full")
        assert not np.array_equal(own[t], own[t + 1])  # no-op transitions are excluded
        assert json.loads(row["frame_indices"]) == [t] + [c["t"] for c in order]


def test_no_distractor_equals_the_current_frame(groups, rows):
    """A distractor identical to the current frame is the answer a "least change, ignore the
    action" rule discards for free: none is drawn; the gold differs from it too."""
    by_id = {g.group_id: g for g in groups}
    for row in rows[::3]:
        order = json.loads(row["candidate_order"])
        current = render_frames(by_id[row["group_id"]], "full")[row["checkpoint"]]
        for c in order:
            frame = render_frames(by_id[c["group_id"]], "full")[c["t"]]
            assert not np.array_equal(frame, current), (row["uid"], c)


def test_gold_letters_balanced(groups):
    rows = build_rows(groups, n_items=20, seed=42, action_conditions=("orig",))
    counts = collections.Counter(r["answer"] for r in rows)
    assert counts == {"A": 5, "B": 5, "C": 5, "D": 5}
    by_family = collections.defaultdict(collections.Counter)
    for r in rows:
        by_family[r["family"]][r["answer"]] += 1
    assert len(by_family) > 1
    for fam, c in by_family.items():  # within a family too: no letter a better guess
        assert max(c[x] for x in LETTERS) - min(c[x] for x in LETTERS) <= 1, (fam, c)


@pytest.mark.parametrize("sizes", [(7, 5, 9), (1, 1, 1, 1, 1), (20,), (3, 6, 2, 11)])
def test_balanced_gold_slots_per_family_and_overall(sizes):
    strata = [f"f{k}" for k, n in enumerate(sizes) for _ in range(n)]
    slots = balanced_gold_slots(strata, seed=7)
    for counts in ([np.bincount(slots, minlength=4)],
                   [np.bincount(slots[np.array(strata) == f], minlength=4) for f in set(strata)]):
        for c in counts:
            assert c.max() - c.min() <= 1, (sizes, c)
    assert np.array_equal(slots, balanced_gold_slots(strata, seed=7))  # seeded
    # one family is the plain seeded permutation of A-D repeated
    n = len(strata)
    one = balanced_gold_slots(["x"] * n, seed=7)
    assert np.array_equal(one, np.resize(np.arange(4), n)[np.random.default_rng(7).permutation(n)])


def test_action_conditions_and_prompts(rows):
    allowed = {TASK_A.format(action=a) for a in (*ACTION_NAMES, TASK_A_MASKED_ACTION)}
    for row in rows:
        assert row["prompt"] in allowed
        assert row["action"] in ACTION_NAMES
        for audit in (row["group_id"], row["family"], row["candidate_order"], "gold"):
            assert audit not in row["prompt"]
        shown = row["prompt"].split("\n")[0]
        if row["action_condition"] == "orig":
            assert shown == f"Action: {row['action']}."
        elif row["action_condition"] == "shuffle":
            assert shown != f"Action: {row['action']}." and shown != "Action: unknown."
        else:
            assert shown == "Action: unknown."


def test_bad_requests(groups):
    with pytest.raises(ValueError, match="cannot make n_items=10000"):
        build_rows(groups, n_items=10000, seed=42)
    with pytest.raises(ValueError, match="orig, shuffle, mask"):
        build_rows(groups, n_items=2, seed=42, action_conditions=("loud",))


def test_short_trajectory_falls_back_to_other_groups(groups):
    """With too few distinct frames of its own, a question borrows frames of other groups."""
    from dataclasses import replace

    g = groups[0]
    short = replace(g, group_id=g.group_id + "-short", actions=g.actions[:2],
                    full=replace(g.full, actions=g.actions[:2], states=g.full.states[:3]))
    rows = build_rows([short, *groups[1:]], n_items=5, seed=42, action_conditions=("orig",))
    mine = [r for r in rows if r["group_id"] == short.group_id]
    assert mine
    sources = [c["source"] for r in mine for c in json.loads(r["candidate_order"])]
    assert "other_trajectory" in sources
    borrowed = [c for r in mine for c in json.loads(r["candidate_order"])
                if c["source"] == "other_trajectory"]
    # Same env id first: the other DoorKey group is preferred over LavaGap groups, its
    # neighbouring steps before a frame of another shape.
    assert {c["group_id"] for c in borrowed} == {groups[1].group_id}
    frames = {g.group_id: render_frames(g, "full") for g in [short, *groups[1:]]}
    for r in mine:
        current = frames[short.group_id][r["checkpoint"]]
        shown = [frames[c["group_id"]][c["t"]] for c in json.loads(r["candidate_order"])]
        assert all(f.shape == current.shape for f in shown)
        assert sum(np.array_equal(f, current) for f in shown) == 0
        assert len({f.tobytes() for f in shown}) == 4


def test_parts_in_order_are_the_whole(groups, rows):
    """Workers render a task in parts (``part=(k, n)``); the parts, in order, are the rows."""
    parts = [build_rows(groups, n_items=16, seed=42, part=(k, 3)) for k in range(3)]
    assert all(parts) and [len(p) % 3 for p in parts] == [0, 0, 0]   # whole questions
    joined = [r for p in parts for r in p]
    assert [r["uid"] for r in joined] == [r["uid"] for r in rows]
    for a, b in zip(joined, rows, strict=True):
        assert _png_hash(a["images"][0]) == _png_hash(b["images"][0])
        assert {k: v for k, v in a.items() if k != "images"} == {
            k: v for k, v in b.items() if k != "images"}
    with pytest.raises(ValueError, match=r"part must be \(k, n\) with 0 <= k < n, got \(3, 3\)"):
        build_rows(groups, n_items=16, seed=42, part=(3, 3))

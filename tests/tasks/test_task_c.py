"""Task C rows from a real generated group: counts, uids, D3 prompts, shared keyframes."""

import json
from collections import defaultdict

import numpy as np
import pytest

from gridwm_judge.prompts import PROMPT_VERSION, REVERSED_NOTE
from gridwm_judge.render import mark_spec, variant_marks
from gridwm_judge.schema import COLUMNS
from gridwm_judge.tasks import task_c
from gridwm_judge.worlds.minigrid import generate_groups


@pytest.fixture(scope="module")
def group():
    return generate_groups("redbluedoor", 1, 830000).groups[0]


@pytest.fixture(scope="module")
def rows(group):
    return task_c.build_rows([group], seed=42)


def _presentation(row):
    return (row["group_id"], row["probe_family"], row["temporal"], row["visual"], row["framing"],
            row["representation"])


def test_counts_columns_and_uids(rows, group):
    # base layout: 3 variants x (6 grid + 3 framing) x 2 representations per group
    assert len(rows) == 54 == task_c.rows_per_group()
    assert all(set(r) == set(COLUMNS) for r in rows)
    uids = [r["uid"] for r in rows]
    assert len(set(uids)) == len(uids)
    assert sum(r["representation"] == "split" for r in rows) == 27
    assert sum(r["probe_family"] == "framing" for r in rows) == 18
    r = rows[0]
    assert r["uid"] == (f"C.{group.group_id}.full.grid.orig.clean.neutral.composite")
    assert r["item_id"] == f"C.{group.group_id}.full"
    assert all(r["prompt_version"] == PROMPT_VERSION and r["task"] == "C" for r in rows)


def test_answers_follow_the_simulator(rows, group):
    for r in rows:
        ro = getattr(group, r["variant"])
        assert r["label"] == int(ro.success)
        assert r["answer"] == ("Yes" if ro.success else "No")
    assert {r["answer"] for r in rows if r["variant"] == "cf"} == {"No"}
    cf = next(r for r in rows if r["variant"] == "cf")
    assert json.loads(cf["intervention"]) == json.loads(json.dumps(list(group.cf.intervention)))
    nocue = next(r for r in rows if r["variant"] == "nocue")
    # The default clean style: RedBlueDoor's door keeps its square in NoCue, and CF carries
    # the balancing squares; the mask column lists what each row's frames draw.
    assert json.loads(nocue["mask"]) and json.loads(cf["mask"])
    assert json.loads(cf["mask"]) == mark_spec(variant_marks(group, "cf", "clean"), "clean")
    assert {r["nocue_style"] for r in rows} == {"clean"}


def test_d3_full_and_cf_prompts_identical_images_differ(rows):
    by = defaultdict(dict)
    for r in rows:
        by[_presentation(r)][r["variant"]] = r
    assert len(by) == 18
    for variants in by.values():
        full, nocue, cf = variants["full"], variants["nocue"], variants["cf"]
        assert full["prompt"] == cf["prompt"] == nocue["prompt"]
        assert len(full["images"]) == len(cf["images"])
        assert any(not np.array_equal(np.asarray(a), np.asarray(b))
                   for a, b in zip(full["images"], cf["images"], strict=True))
        assert str(full["group_id"]) not in full["prompt"]


def test_keyframes_shared_and_reversal(rows):
    orig = {r["variant"]: json.loads(r["frame_indices"]) for r in rows
            if r["temporal"] == "orig" and r["representation"] == "composite"}
    assert orig["full"] == orig["nocue"]
    assert len(orig["cf"]) == len(orig["full"])
    for r in rows:
        shown = json.loads(r["frame_indices"])
        if r["temporal"] == "rev":
            assert shown == orig[r["variant"]][::-1]
            assert REVERSED_NOTE in r["prompt"]
        else:
            assert REVERSED_NOTE not in r["prompt"]
        n_images = len(r["images"])
        assert n_images == (len(shown) if r["representation"] == "split" else 1)
        assert (f"{len(shown)} separate images" in r["prompt"]) == (r["representation"] == "split")


def test_framing_rows_reuse_the_baseline_image_objects(rows):
    """Rows that show the same presentation share image objects (encoded once by the builder)."""
    key = ("full", "composite")
    clean = [r for r in rows if (r["variant"], r["representation"]) == key
             and r["temporal"] == "orig" and r["visual"] == "clean"]
    assert len(clean) == 4  # grid orig/clean + three framings
    assert len({id(r["images"][0]) for r in clean}) == 1
    visuals = {r["visual"]: r["images"][0] for r in rows
               if (r["variant"], r["representation"]) == key and r["temporal"] == "orig"}
    assert not np.array_equal(np.asarray(visuals["clean"]), np.asarray(visuals["noisy"]))


def test_shown_indices_keep_the_count_for_a_short_variant():
    assert task_c.shown_indices((0, 3, 7, 12), 13) == (0, 3, 7, 12)
    assert task_c.shown_indices((0, 3, 7, 12), 9) == (0, 3, 7, 8)  # ends early, no repeat
    # a variant that would show its terminal frame twice shows its own keyframes instead
    assert task_c.shown_indices((0, 3, 7, 12), 6) == (0, 2, 3, 5)
    assert task_c.shown_indices((0, 3, 7, 12), 6, [{"t": 4, "type": "open"}]) == (0, 2, 4, 5)
    # fewer states than keyframes: the terminal frame repeats (the static-cue gate rejects it)
    assert task_c.shown_indices((0, 3, 7, 12), 3) == (0, 1, 2, 2)
    with pytest.raises(ValueError, match="empty"):
        task_c.shown_indices((), 5)


def test_bad_options_name_the_valid_ones(group):
    with pytest.raises(ValueError, match="grid, framing, baseline"):
        task_c.build_rows([group], seed=0, probe_sets=("nope",))
    with pytest.raises(ValueError, match="n_items=5"):
        task_c.build_rows([group], seed=0, probe_sets=("baseline",), n_items=5)
    other = generate_groups("lavagap", 1, 830000).groups[0]
    with pytest.raises(ValueError, match="keycorridor, multiroom, redbluedoor"):
        task_c.build_rows([other], seed=0)


def test_probe_noise_depends_on_group_and_frame_not_variant(group):
    boards = task_c.Storyboards(group)
    diffs = []
    for variant in ("full", "cf"):
        clean = np.asarray(boards.panels(variant, "clean")[0], dtype=np.int16)
        noisy = np.asarray(boards.panels(variant, "noisy")[0], dtype=np.int16)
        diffs.append((noisy - clean, (clean > 40) & (clean < 215)))
    (d_full, ok_full), (d_cf, ok_cf) = diffs
    both = ok_full & ok_cf
    assert both.mean() > 0.2 and np.abs(d_full[both]).mean() > 1
    assert np.array_equal(d_full[both], d_cf[both])
    styled = boards.panels("full", "style")
    assert len(styled) == len(boards.indices("full"))

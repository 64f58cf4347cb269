"""Which graded rows the failure gallery shows, and how many: the kinds of failure, the twins a
flip is read against, and the seeded draw of at most CAP per judge, task and kind."""

from __future__ import annotations

from dataclasses import replace

from gridwm_judge.report.gallery import CAP, Failure, draw, failures
from gridwm_judge.scoring.grading import GradedRow


def _row(uid: str, *, task="C", group="g1", variant="full", verdict=1, temporal="orig",
         visual="clean", framing="neutral", probe="grid", correct=None, judge="j") -> GradedRow:
    gold = {"full": 1, "nocue": 1, "cf": 0}.get(variant, 1)
    ok = verdict == gold if correct is None else correct
    return GradedRow(judge=judge, uid=uid, task=task, family="doorkey", env_id="E",
                     group_id=group, item_id=f"{group}.{variant}", variant=variant,
                     temporal=temporal, visual=visual, framing=framing,
                     representation="composite", probe_family=probe, action_condition="",
                     question="", status="ok", parse_mode="strict",
                     parsed={1: "success", 0: "failure"}.get(verdict), gold=gold,
                     verdict=verdict, correct=ok, score=None)


def _kinds(rows) -> dict[tuple[str, str], list[str]]:
    return {k: [f.row.uid for f in v] for k, v in failures(rows).items()}


def test_cf_accepted_and_full_rejected():
    rows = [_row("full-ok", verdict=1), _row("full-bad", group="g2", verdict=0),
            _row("cf-bad", variant="cf", verdict=1), _row("cf-ok", group="g2", variant="cf",
                                                           verdict=0)]
    assert _kinds(rows) == {("C", "full_rejected"): ["full-bad"], ("C", "cf_accepted"): ["cf-bad"]}


def test_nocue_flip_is_read_against_its_full_twin():
    rows = [_row("full", verdict=1), _row("nocue", variant="nocue", verdict=0),
            _row("full2", group="g2", verdict=0), _row("nocue2", group="g2", variant="nocue",
                                                       verdict=0)]
    found = failures(rows)
    (flip,) = found["C", "nocue_flip"]
    assert flip.row.uid == "nocue" and flip.twin is not None and flip.twin.uid == "full"
    # g2: both rejected -- a Full rejected, no flip
    assert [f.row.uid for f in found["C", "full_rejected"]] == ["full2"]


def test_probe_flip_against_the_canonical_presentation():
    rows = [_row("base", verdict=1), _row("rev", temporal="rev", verdict=0),
            _row("noisy", visual="noisy", verdict=1),
            _row("fr-neutral", probe="framing", verdict=0),
            _row("fr-positive", probe="framing", framing="positive", verdict=1)]
    found = failures(rows)
    flips = {f.row.uid: f.twin.uid for f in found["C", "probe_flip"] if f.twin}
    # each probe is compared with its own probe set's canonical row
    assert flips == {"rev": "base", "fr-positive": "fr-neutral"}


def test_probe_flip_falls_back_to_another_probe_sets_canonical_row():
    rows = [_row("base", probe="baseline", task="D", verdict=1),
            _row("pos", probe="framing", task="D", framing="positive", verdict=0)]
    (flip,) = failures(rows)["D", "probe_flip"]
    assert flip.twin is not None and flip.twin.uid == "base"


def test_an_invalid_answer_is_no_verdict_and_flips_nothing():
    rows = [_row("base", verdict=-1), _row("rev", temporal="rev", verdict=0)]
    found = _kinds(rows)
    assert found[("C", "no_verdict")] == ["base"]
    assert ("C", "probe_flip") not in found
    assert found[("C", "full_rejected")] == ["rev"]


def test_tasks_without_verdicts_show_wrong_answers():
    a_right = replace(_row("A.1", task="A", variant=""), verdict=None, correct=True)
    a_wrong = replace(_row("A.2", task="A", variant=""), verdict=None, correct=False)
    assert _kinds([a_right, a_wrong]) == {("A", "wrong_answer"): ["A.2"]}


def _many(n: int, judge: str = "j") -> list[Failure]:
    return [Failure(_row(f"C.u{i:03d}", variant="cf", judge=judge), "cf_accepted")
            for i in range(n)]


def test_draw_caps_at_24_in_uid_order_and_is_seeded():
    found = _many(57)
    picked = draw(found)
    assert len(picked) == CAP == 24
    uids = [f.row.uid for f in picked]
    assert uids == sorted(uids) and len(set(uids)) == CAP
    assert [f.row.uid for f in draw(list(reversed(found)))] == uids  # order does not matter
    assert [f.row.uid for f in draw(found, seed=7)] != uids
    assert len(draw(found[:10])) == 10


def test_judges_draws_share_the_items_their_failures_share():
    a, b = _many(57, "a"), _many(40, "b")  # b failed a subset of what a failed
    b_uids = {f.row.uid for f in b}
    ua = {f.row.uid for f in draw(a)}
    ub = {f.row.uid for f in draw(b)}
    assert ua & b_uids and ua & b_uids <= ub

"""`gridwm-judge score` end to end on a hand-built Hub-layout dataset."""

import json
import random

import pytest
from scoring_data import oracle_raw, write_predictions

from gridwm_judge.cli import main


def _run(dataset, preds, out, *extra):
    return main(
        [
            "score",
            "--dataset",
            str(dataset),
            "--predictions",
            *map(str, preds),
            "--out",
            str(out),
            "--n-resamples",
            "300",
            *extra,
        ]
    )


@pytest.fixture(scope="module")
def scored(tiny_dataset, tmp_path_factory):
    folder, rows = tiny_dataset
    tmp = tmp_path_factory.mktemp("score")
    oracle = write_predictions(tmp / "oracle.jsonl", "oracle", rows, oracle_raw)
    (tmp / "run.json").write_text(json.dumps({"judge": {"spec": "baseline:oracle"}}))

    def yes_man(row):
        if row["task"] == "D" and row["variant"] == "full" and row["family"] == "doorkey":
            return False  # missing predictions: not answered, so not scored
        return {"C": "Yes, it did.", "D": "Success"}.get(row["task"], "I cannot tell")

    shuffled = list(rows)
    random.Random(0).shuffle(shuffled)
    yes = write_predictions(tmp / "yes.jsonl", "always-yes", shuffled, yes_man)
    assert _run(folder, [oracle, yes], tmp / "out") == 0
    doc = json.loads((tmp / "out" / "scores.json").read_text())
    assert doc["runs"][str(oracle)]["judge"]["spec"] == "baseline:oracle"
    assert doc["bootstrap"]["seed"] == 20261103 and doc["dataset_fingerprint"].startswith("sha256:")
    lines = [json.loads(x) for x in (tmp / "out" / "rows.jsonl").read_text().splitlines()]
    return doc, lines, rows, tmp


def test_oracle_scores(scored):
    doc, _, _, _ = scored
    t = doc["judges"]["oracle"]["tasks"]
    comp = t["C"]["representations"]["composite"]
    assert comp["causal"]["metrics"]["idr_raw"]["value"] == 1.0
    assert comp["causal"]["n_pairs"] == 4 and comp["causal"]["g_active"] == 4
    assert comp["causal"]["degenerate"] == "low_activation"  # four groups only
    assert (
        comp["causal"]["idr_cond_status"] == "unstable"
        and comp["causal"]["metrics"]["idr_cond"]["ci"] is None
    )
    assert comp["families"]["framing"]["metrics"]["ns"]["value"] == 1.0
    assert comp["families"]["visual"]["les"]["status"] == "constant"
    assert t["C"]["vcc"]["metrics"]["vcc_rep"]["value"] == 1.0
    d = t["D"]["causal"]["metrics"]
    assert (
        d["idr_raw"]["value"] == 1.0
        and d["idr_raw"]["ci"] == [1.0, 1.0]
        and d["idr_raw"]["ci_env"] == [1.0, 1.0]
    )
    assert (
        t["A"]["metrics"]["acc_a1"]["value"] == 1.0
        and t["A"]["metrics"]["delta_shuffle"]["value"] == 0.0
    )
    assert (
        t["B"]["metrics"]["b_acc_090"]["value"] == 1.0
        and t["E"]["metrics"]["e_acc"]["value"] == 1.0
    )
    modes = {m["name"]: m for m in doc["judges"]["oracle"]["failure_modes"]}
    assert modes["causal_misgrounding"]["flagged"] is False
    assert (
        modes["action_ignorant_heuristic"]["flagged"] is True
    )  # the oracle ignores the action too


def test_always_yes_is_flagged_and_missing_rows_are_not_scored(scored):
    doc, _, _, _ = scored
    j = doc["judges"]["always-yes"]
    comp = j["tasks"]["C"]["representations"]["composite"]["causal"]
    assert comp["degenerate"] == "success_biased" and comp["metrics"]["idr_raw"]["value"] == 0.0
    cov = j["coverage"]["D"]
    assert cov["missing"] == 2 * 4 and cov["statuses"]["missing"] == 8
    assert cov["answered"] == cov["asked"] - 8 and cov["coverage"] == pytest.approx(
        cov["answered"] / cov["asked"])
    assert cov["unanswered_head"][0].startswith("D.doorkey.")
    d = j["tasks"]["D"]["causal"]["metrics"]
    # the two doorkey Full rows were never answered: they are in no denominator
    assert d["acc_full"]["value"] == 1.0 and d["acc_full"]["den"] == 4
    assert j["tasks"]["A"]["metrics"]["acc_a1"]["value"] == 0.0
    modes = {m["name"]: m for m in j["failure_modes"]}
    assert modes["stability_trap"]["flagged"] and modes["causal_misgrounding"]["flagged"]
    assert doc["comparisons"]["C_composite_vs_split"]["idr_raw"]["n_judges"] == 2


def test_rows_jsonl_keeps_the_audit_axes(scored):
    _, lines, rows, _ = scored
    assert len(lines) == 2 * len(rows) - 8  # the always-yes judge left 8 rows unanswered
    line = next(x for x in lines if x["judge"] == "oracle" and x["task"] == "C")
    for key in (
        "uid",
        "task",
        "family",
        "env_id",
        "group_id",
        "variant",
        "temporal",
        "visual",
        "framing",
        "representation",
        "probe_family",
        "parse_mode",
        "correct",
        "verdict",
    ):
        assert key in line
    assert {x["parse_mode"] for x in lines if x["judge"] == "oracle"} == {"strict", "recovered"}


def test_join_is_by_uid_not_position(scored, tiny_dataset):
    doc, _, rows, tmp = scored
    folder, _ = tiny_dataset
    # the same oracle answers written in reverse order score identically
    rev = write_predictions(tmp / "oracle_rev.jsonl", "oracle", list(reversed(rows)), oracle_raw)
    assert _run(folder, [rev], tmp / "out_rev", "--tasks", "C,D") == 0
    doc2 = json.loads((tmp / "out_rev" / "scores.json").read_text())
    assert doc2["judges"]["oracle"]["tasks"]["C"] == doc["judges"]["oracle"]["tasks"]["C"]


def test_unknown_and_duplicate_uids_are_errors(tiny_dataset, tmp_path, capsys):
    folder, rows = tiny_dataset
    bad = write_predictions(
        tmp_path / "bad.jsonl",
        "j",
        rows[:3] + [{"uid": "C.nope.x", "task": "C", "answer": "Yes"}],
        oracle_raw,
    )
    assert _run(folder, [bad], tmp_path / "o1") == 2
    assert "'C.nope.x'" in capsys.readouterr().err
    dup = write_predictions(tmp_path / "dup.jsonl", "j", rows[:3] + rows[1:2], oracle_raw)
    assert _run(folder, [dup], tmp_path / "o2") == 2
    assert repr(rows[1]["uid"]) in capsys.readouterr().err
    ok = write_predictions(tmp_path / "ok.jsonl", "j", rows[:3], oracle_raw)
    assert _run(folder, [ok], tmp_path / "o3", "--tasks", "A") == 0
    assert _run(folder, [ok], tmp_path / "o3", "--tasks", "A") == 2  # no silent overwrite
    assert "--overwrite" in capsys.readouterr().err


def test_a_task_the_judge_never_ran_is_coverage_zero_not_scored(tiny_dataset, tmp_path):
    folder, rows = tiny_dataset
    only_c = write_predictions(
        tmp_path / "c.jsonl", "c-only", rows, lambda r: "Yes" if r["task"] == "C" else False
    )
    assert _run(folder, [only_c], tmp_path / "out") == 0
    j = json.loads((tmp_path / "out" / "scores.json").read_text())["judges"]["c-only"]
    assert set(j["tasks"]) == {"C"}
    assert j["coverage"]["D"]["answered"] == 0 and j["coverage"]["D"]["missing"] > 0
    leakage = next(m for m in j["failure_modes"] if m["name"] == "presentation_leakage")
    assert not any("(D)" in e for e in leakage["evidence"])  # no verdicts, no instability
    lines = (tmp_path / "out" / "rows.jsonl").read_text().splitlines()
    assert {json.loads(x)["task"] for x in lines} == {"C"}


def test_a_judge_that_never_answers_is_not_called_unstable(tiny_dataset, tmp_path):
    folder, rows = tiny_dataset
    mute = write_predictions(tmp_path / "m.jsonl", "mute", rows, lambda r: "I cannot tell")
    assert _run(folder, [mute], tmp_path / "out") == 0
    j = json.loads((tmp_path / "out" / "scores.json").read_text())["judges"]["mute"]
    assert j["coverage"]["D"]["parse_modes"]["invalid"] == j["coverage"]["D"]["asked"]
    assert j["tasks"]["D"]["causal"]["metrics"]["acc_full"]["value"] == 0.0  # invalid = wrong
    leakage = next(m for m in j["failure_modes"] if m["name"] == "presentation_leakage")
    assert not leakage["flagged"] and leakage["evidence"] == []

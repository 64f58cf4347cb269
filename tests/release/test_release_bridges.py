"""The framework bridges read an imported config like a generated one: the same items and
digests as `score`, and the same figures for the same answers."""

from __future__ import annotations

from gridwm_judge.integrations import inspect_tasks
from gridwm_judge.integrations.items import grade_response, load_items, task_figures
from gridwm_judge.integrations.lmms_eval.utils import metric_names
from gridwm_judge.records import read_prediction_file
from gridwm_judge.scoring.score import load_rows


def test_bridge_items_and_figures_equal_score(imported, published_scores):
    items = load_items(str(imported), "paper_task_d_r")
    digests = {r["uid"]: r["item_digest"] for r in load_rows(str(imported), ["RDR"])}
    assert len(items) == 144 and {i.uid: i.item_digest for i in items} == digests
    judge = "published:gemini-3-flash-preview"   # ten invalid answers: the protocols differ
    answers = {r.uid: r for r in read_prediction_file(
        imported / "runs" / "published" / judge.split(":")[1] / "predictions.jsonl")}
    assert {r.item_digest for r in answers.values()} == set(digests.values())
    figures = task_figures([grade_response(answers[i.uid].raw, {**i.audit, "uid": i.uid})
                            for i in items])
    res = published_scores.judges[judge].results   # its parse and ours agree on the neutral
    for name in ("idr_raw", "p_active", "acc_cf"):   # Full / CF rows
        assert figures[name] == res.value(task="RDR", name=name, protocol="all_groups")
        assert figures[f"{name}_eligible_pairs"] == res.value(task="RDR", name=name,
                                                               protocol="eligible_pairs")
    assert figures["p_active"] != figures["p_active_eligible_pairs"]
    assert set(metric_names("RDR")) <= {"accuracy", *figures}   # lmms-eval finds each
    assert figures["ns_framing"] == res.value(task="RDR", name="ns", probe="framing")
    assert callable(inspect_tasks.paper_task_d_r)

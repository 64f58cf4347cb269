"""One set of failure-mode names: `score`'s printout, scores.json, the report and the docs
name every mode and degenerate flag by the same label (records.MODE_LABELS)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from gridwm_judge.cli import main
from gridwm_judge.records import MODE_LABELS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"


def test_score_scores_json_and_report_say_the_same_modes(quickstart_run, tmp_path, capsys):
    qs = quickstart_run.result
    runs = [qs.out / "runs" / name for name in ("random", "oracle", "pixel-heuristic")]
    code = main(["score", "--dataset", str(qs.dataset), "--n-resamples", "200", "--out",
                 str(tmp_path), "--predictions", *(str(r / "predictions.jsonl") for r in runs)])
    assert code == 0
    printed = dict(re.findall(r"^(baseline:[\w-]+): .*; failure modes: (.*)$",
                              capsys.readouterr().out, flags=re.M))
    index = (qs.report / "index.md").read_text()
    reported = dict(re.findall(r"^- \*\*(baseline:[\w-]+)\*\*: (.*)$", index, flags=re.M))
    scores = json.loads((tmp_path / "scores.json").read_text())["judges"]
    assert set(printed) == {"baseline:random", "baseline:oracle", "baseline:pixel-heuristic"}
    for judge, line in printed.items():
        assert line == reported[judge]  # the report says what score printed
        modes = scores[judge]["failure_modes"]
        assert [m["name"] for m in modes] == list(MODE_LABELS)
        assert all(m["label"] == MODE_LABELS[m["name"]] for m in modes)
        flagged = [m["label"] for m in modes if m["flagged"]]
        assert line.split("; suggested: ")[0] == (", ".join(flagged) or "none")
    assert "low-activation" in printed["baseline:random"]  # a flag, printed as the report does


def test_the_docs_list_every_label():
    text = DOCS.read_text()
    block = text.split("<!-- failure-mode-labels:begin -->")[1].split("<!-- failure-mode-"
                                                                      "labels:end -->")[0]
    rows = re.findall(r"^\| ([\w-]+) \| (\w+) \|$", block, flags=re.M)
    assert rows == [("label", "name"), *((label, name) for name, label in MODE_LABELS.items())]

"""The prompt ablation end to end: build (smoke) -> eval (oracle, always-yes, and an
OpenAI-compatible judge over real loopback HTTP) -> score -> report."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict

import pytest

from gridwm_judge.cli import main
from gridwm_judge.dataset.validation import read_columns
from gridwm_judge.prompts import PA_ANSWER
from gridwm_judge.records import ScoresRecord
from gridwm_judge.results import Results
from gridwm_judge.schema import PROMPT_STYLES
from gridwm_judge.testing.stub_server import StubServer, ok


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("pa") / "ds"
    assert main(["build", "--profile", "smoke", "--configs", "prompt_ablation", "--out",
                 str(out), "--num-proc", "1"]) == 0
    return out


def _eval(dataset, run, judge, *extra):
    return main(["eval", "--dataset", str(dataset), "--tasks", "prompt_ablation", "--judge",
                 judge, "--out", str(run), "--no-progress", *extra])


def _lines(run):
    return [json.loads(x) for x in (run / "predictions.jsonl").read_text().splitlines()]


def test_built_styles_share_image_bytes_in_the_parquet(dataset):
    import pyarrow.parquet as pq

    files = sorted((dataset / "data" / "prompt_ablation").glob("*.parquet"))
    table = pq.read_table(files, columns=["item_id", "prompt_style", "group_id", "images"])
    by_item = defaultdict(dict)
    columns = (table.column(c).to_pylist() for c in table.column_names)
    for item, style, group, images in zip(*columns, strict=True):
        digest = tuple(hashlib.sha256(im["bytes"]).hexdigest() for im in images)
        by_item[item][style] = (group, digest)
    assert len(by_item) == 4  # 2 query groups x Full / CF
    for styles in by_item.values():
        assert tuple(styles) == PROMPT_STYLES and len(set(styles.values())) == 1
    validation = json.loads((dataset / "validation.json").read_text())["configs"]
    assert validation["prompt_ablation"]["rows_ok"] and validation["prompt_ablation"]["rows"] == 12
    assert validation["prompt_ablation"]["d3_prompts_identical_across_variants"]["ok"]
    assert "prompt_ablation" in (dataset / "README.md").read_text()
    cols = read_columns(dataset, "prompt_ablation", ("uid", "prompt_style", "answer"))
    assert sorted(set(cols["prompt_style"])) == sorted(PROMPT_STYLES)


def test_eval_score_report(dataset, tmp_path, capsys):
    runs = {}
    for judge in ("oracle", "always-yes"):
        runs[judge] = tmp_path / judge
        assert _eval(dataset, runs[judge], f"baseline:{judge}") == 0
    yes = {r["uid"]: r for r in _lines(runs["always-yes"])}
    assert {r["parse_mode"] for r in yes.values()} == {"strict"}
    assert {r["raw"] for u, r in yes.items() if u.endswith(".structured_verdict")} == \
        {'{"verdict": "Success"}'}
    manifest = json.loads((runs["oracle"] / "run.json").read_text())
    assert manifest["max_tokens"]["PA"] == 256
    assert manifest["max_tokens"]["PA/structured_rationale"] == 1024

    # a served model through real loopback HTTP, with structured outputs: direct answers a
    # bare word; structured_verdict a JSON Fail; structured_rationale is cut off by its budget
    runs["stub"] = tmp_path / "stub"
    with StubServer(default_reply="Success") as server:
        server.script('{"verdict": "<Success', *[ok('{"verdict": "Fail"}')] * 4)
        server.script("first a short rationale",
                      *[ok('{"rationale": "The agent walks to the', "length")] * 4)
        assert _eval(dataset, runs["stub"], "openai:stub", "--base-url", server.base_url,
                     "--structured") == 0
        bodies = {b["messages"][0]["content"][-1]["text"]: b for b in server.requests}
    assert len(server.requests) == 12
    for style, text in PA_ANSWER.items():
        body = next(b for p, b in bodies.items() if text in p)
        assert body["max_tokens"] == (1024 if style == "structured_rationale" else 256)
        want = {"direct": "choice", "structured_verdict": "json",
                "structured_rationale": "json"}[style]
        assert list(body["structured_outputs"]) == [want]
    stub = _lines(runs["stub"])
    cut = [r for r in stub if r["uid"].endswith(".structured_rationale")]
    assert {(r["status"], r["parse_mode"]) for r in cut} == {("truncated", "invalid")}

    for name, run in runs.items():
        assert main(["score", "--dataset", str(dataset), "--predictions",
                     str(run / "predictions.jsonl"), "--out", str(run / "scores"),
                     "--n-resamples", "300"]) == 0, name
    capsys.readouterr()

    def pa(name):
        scores = ScoresRecord.read(runs[name] / "scores" / "scores.json")
        (judge,) = scores.judges.values()
        return Results(judge.results.select(task="PA"))

    oracle, always, served = pa("oracle"), pa("always-yes"), pa("stub")
    assert [oracle.value(style=s, name="idr_raw") for s in PROMPT_STYLES] == [1.0, 1.0, 1.0]
    assert [always.value(style=s, name="idr_raw") for s in PROMPT_STYLES] == [0.0, 0.0, 0.0]
    assert served.value(style="direct", name="acc_cf") == 0.0
    assert served.value(style="structured_verdict", name="acc_full") == 0.0
    assert served.value(style="structured_verdict", name="acc_cf") == 1.0
    assert served.value(style="structured_rationale", name="invalid") == 4
    assert served.value(style="structured_rationale", baseline="direct", name="acc_full"
                        ) == -1.0  # invalid counts as not accepted (Task D protocol)

    report = tmp_path / "report"
    assert main(["report", str(runs["oracle"]), str(runs["always-yes"]), str(runs["stub"]),
                 "--out", str(report), "--n-resamples", "300"]) == 0
    capsys.readouterr()
    table = json.loads((report / "tables" / "prompt_ablation.json").read_text())
    assert len(table["rows"]) == 3 * 3
    first = table["rows"][0]
    assert first["prompt"] == "Direct" and first["IDR_raw"]["value"] == 1.0
    paired = json.loads((report / "tables" / "prompt_ablation_paired.json").read_text())
    assert len(paired["rows"]) == 3 * 3
    assert (report / "figures" / "fig_prompt_ablation_paired.png").stat().st_size > 10_000
    assert "prompt_ablation" in (report / "index.md").read_text()

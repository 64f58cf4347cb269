"""What the framework-bridge tests share: the lmms-eval YAML reader, inspect's mock model
answering each item by what it was sent, and writing / scoring a scripted judge's answers."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from gridwm_judge.cli import main
from gridwm_judge.integrations.items import load_items
from gridwm_judge.integrations.lmms_eval import utils
from gridwm_judge.item_hash import item_digest
from gridwm_judge.records import PredictionRecord, ScoresRecord
from gridwm_judge.scoring.score import load_rows
from gridwm_judge.task_table import task_spec

LMMS_FOLDER = Path(utils.__file__).parent
Answer = Callable[[str, Mapping[str, Any]], str]


class _Loader(yaml.SafeLoader):
    """Reads ``!function utils.NAME`` as ("function", "utils.NAME")."""


_Loader.add_constructor(
    "!function", lambda loader, node: ("function", loader.construct_scalar(node)))


def built(tmp_path_factory, name: str, *build_args: str) -> Path:
    """A real build (``gridwm-judge build`` with ``build_args``) in a fresh temporary folder."""
    out = tmp_path_factory.mktemp(name) / "smoke"
    assert main(["build", "--out", str(out), *build_args]) == 0
    return out


def lmms_yaml(name: str) -> dict:
    """One YAML of the package's lmms-eval task folder."""
    return yaml.load((LMMS_FOLDER / name).read_text(), Loader=_Loader)


def mock_model(dataset, config: str, answer: Answer, *, fail=()):
    """inspect's mockllm/model answering each item from its digest (what it was sent: images
    and prompt), not its order; a uid in ``fail`` raises (a transport failure). Returns the
    model, the config's items and ``seen``: (uid, images sent, temperature, max_tokens) per
    request. An item held under two uids (Task C's phi0 row of the grid and of the framing
    probe set) gets one answer, the first uid's, as a deterministic judge would give."""
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    items = load_items(str(dataset), config)
    table: dict[str, tuple[str, str]] = {}
    for i in items:
        table.setdefault(i.item_digest, (i.uid, answer(i.uid, i.audit)))
    seen = []

    def outputs(messages, tools, tool_choice, config):
        images, texts = [], []
        for part in messages[-1].content:
            if part.type == "image":
                images.append(base64.b64decode(part.image.partition(";base64,")[2]))
            else:
                texts.append(part.text)
        uid, raw = table[item_digest(items[0].task, texts[0], images)]
        seen.append((uid, len(images), config.temperature, config.max_tokens))
        if uid in fail:
            raise RuntimeError(f"simulated transport failure for {uid}")
        out = ModelOutput.from_content(model="mockllm", content=raw)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/model", custom_outputs=outputs), items, seen


def write_predictions(path: Path, dataset: Path, config: str, said: Mapping[str, str | None],
                      judge: str = "scripted") -> None:
    """A predictions file of ``said`` (uid -> raw answer) for ``config``'s rows."""
    digests = {r["uid"]: r["item_digest"] for r in load_rows(str(dataset), [config])}
    task = task_spec(config).name
    with path.open("w") as fh:
        for uid, raw in said.items():
            fh.write(json.dumps(PredictionRecord(
                uid=uid, judge=judge, task=task, raw=raw, status="ok", request_hash="",
                item_digest=digests[uid]).to_json()) + "\n")


def score_judge(dataset: Path, predictions: Path, out: Path, judge: str):
    """``gridwm-judge score`` of one predictions file; the judge's scores."""
    assert main(["score", "--dataset", str(dataset), "--predictions", str(predictions),
                 "--out", str(out), "--n-resamples", "100", "--no-les"]) == 0
    return ScoresRecord.read(out / "scores.json").judges[judge]


def register_figure(monkeypatch, name: str) -> None:
    """Add figure ``name`` to the results' registry, as one line in FIGURE_NAMES does (the
    enumeration METRIC_NAMES is formed from its parts when the module loads)."""
    from gridwm_judge import results

    figures = (*results.FIGURE_NAMES, name)
    monkeypatch.setattr(results, "FIGURE_NAMES", figures)
    monkeypatch.setattr(results, "METRIC_NAMES", (
        *figures, *results.COUNT_NAMES, *results.FLAG_NAMES, *results.DETAIL_NAMES,
        *results.TEST_NAMES))

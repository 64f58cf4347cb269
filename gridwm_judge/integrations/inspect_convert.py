"""Turn an inspect_ai log of a gridwm-judge task into a run folder (``predictions.jsonl`` +
``run.json``) that ``gridwm-judge score`` and ``report`` read like one of ``eval``'s.

Each sample becomes one :class:`~gridwm_judge.records.PredictionRecord`. Its ``item_digest`` is
recomputed from what the model was sent (the images' bytes inside the sample's data URIs and
the prompt text) and must equal the digest the task stored from the dataset row, so ``score``
can check the answers against the dataset it is given. A sample whose generation errored is an
``error`` record (never scored); ``max_tokens`` stops are ``truncated``.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gridwm_judge.install import install_line
from gridwm_judge.item_hash import item_digest, request_hash
from gridwm_judge.judges.base import status_for
from gridwm_judge.parsing import parse_answer
from gridwm_judge.records import PREDICTIONS_FILE, RUN_FILE, PredictionRecord, RunRecord
from gridwm_judge.runner.store import now_iso
from gridwm_judge.task_table import task_spec


@dataclass(frozen=True)
class ConvertSummary:
    predictions: Path
    task: str
    judge: str
    records: int
    errors: int
    invalid: int

    def line(self) -> str:
        return (f"converted {self.records} samples of task {self.task} ({self.errors} errored, "
                f"{self.invalid} invalid parses) as judge {self.judge!r} -> {self.predictions}")


def _read_log(path: Path):
    try:
        from inspect_ai.log import read_eval_log
    except ImportError as exc:
        raise ValueError("reading inspect logs needs inspect_ai; install it with: "
                         f"{install_line('inspect')}") from exc
    if path.is_dir():
        raise ValueError(f"{str(path)!r} is a folder; expected an inspect log file (.eval)")
    if not path.is_file():
        raise FileNotFoundError(f"inspect log {str(path)!r} does not exist")
    return read_eval_log(str(path), resolve_attachments=True)


def _sent_item(sample, task: str) -> str:
    """The digest of what the model was sent: image bytes (from data URIs) and the prompt."""
    images: list[bytes] = []
    texts: list[str] = []
    messages = sample.input if isinstance(sample.input, list) else []
    for message in messages:
        content = message.content if isinstance(message.content, list) else []
        for part in content:
            if part.type == "image":
                head, _, data = part.image.partition(";base64,")
                if not head.startswith("data:") or not data:
                    raise ValueError(f"sample {sample.id!r}: an image is not an inline data URI")
                images.append(base64.b64decode(data))
            elif part.type == "text":
                texts.append(part.text)
    if len(texts) != 1:
        raise ValueError(f"sample {sample.id!r}: expected one prompt text, found {len(texts)}")
    return item_digest(task, texts[0], images)


def _usage(output) -> dict[str, int | None] | None:
    usage = getattr(output, "usage", None)
    if usage is None:
        return None
    return {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens}


def _eval_budget(log) -> int | None:
    """The max_tokens the eval ran under: the task's config merged with the eval's generate
    arguments (``--max-tokens``), which is what each generate used and what the prompt
    ablation's solver scales per style. The model's own config says nothing of it when the
    eval was given a Model object (inspect's Python API), and loses to the task's anyway."""
    plan = getattr(log, "plan", None)
    return getattr(getattr(plan, "config", None), "max_tokens", None)


def log_records(log, judge: str, identity: Mapping[str, Any], budget: int, task: str
                ) -> list[PredictionRecord]:
    """One record per sample of the log (epoch 1; more epochs are refused). ``budget`` is the
    task's; a row in a prompt style was asked with the style's (``TaskSpec.budget``) and its
    answer is read in the style's format."""
    spec = task_spec(task)
    out: list[PredictionRecord] = []
    for sample in log.samples or ():
        if sample.epoch != 1:
            raise ValueError(f"sample {sample.id!r} has epoch {sample.epoch}; convert a log run "
                             "with one epoch (one answer per uid)")
        uid = str(sample.id)
        stored = str((sample.metadata or {}).get("item_digest") or "")
        digest = _sent_item(sample, task)
        if stored != digest:
            raise ValueError(f"sample {uid!r}: what the model was sent differs from the dataset "
                             "item the task recorded (item digest mismatch)")
        if sample.error is not None:
            status, raw, error = "error", None, str(sample.error.message)[:500]
        else:
            raw = sample.output.completion if sample.output else None
            status = status_for(raw, sample.output.stop_reason == "max_tokens")
            error = None
        style = str((sample.metadata or {}).get("prompt_style") or "")
        parsed = parse_answer(task, raw if status != "error" else None,
                              truncated=status == "truncated", style=style)
        out.append(PredictionRecord(
            uid=uid, judge=judge, task=task, raw=raw, status=status,
            request_hash=request_hash(identity, spec.budget(style, budget), digest),
            item_digest=digest,
            parsed=parsed.value, parse_mode=parsed.mode,
            latency_s=round(float(sample.working_time or sample.total_time or 0.0), 6),
            usage=_usage(sample.output), error=error,
        ))
    return out


def convert_log(log_path: str | Path, out: str | Path, *, overwrite: bool = False
                ) -> ConvertSummary:
    """Write OUT/predictions.jsonl and OUT/run.json from one inspect log of a gridwm-judge task."""
    log_path, out = Path(log_path), Path(out)
    target = out / PREDICTIONS_FILE
    if target.exists() and not overwrite:
        raise FileExistsError(f"{target} exists; pass --overwrite to replace it")
    log = _read_log(log_path)
    meta = log.eval.metadata or {}
    if "gridwm_task" not in meta:
        raise ValueError(f"{log_path} is a log of inspect task {log.eval.task!r}, not of a "
                         "gridwm-judge task (inspect eval gridwm_judge/task_c ...)")
    spec = task_spec(str(meta["gridwm_task"]))
    config = log.eval.model_generate_config
    budget = int(_eval_budget(log) or config.max_tokens or meta.get("max_tokens")
                 or spec.max_tokens)
    judge = f"inspect/{log.eval.model}"
    options = {"framework": "inspect_ai",
               "generate_config": config.model_dump(exclude_none=True, mode="json")}
    settings = {"model": log.eval.model, "model_base_url": log.eval.model_base_url,
                "model_args": json.loads(json.dumps(log.eval.model_args, default=str))}
    run = RunRecord(
        judge=judge,
        judge_options=options,
        judge_settings=settings,
        max_tokens={spec.name: budget},
        representation=meta.get("representation"),
        seed=config.seed,
        dataset=str(meta.get("dataset") or ""),
        dataset_fingerprint=meta.get("dataset_fingerprint"),
        prompt_version=meta.get("prompt_version"),
        package_version=meta.get("package_version"),
        tasks=(spec.name,),
        source={"framework": "inspect_ai", "log": str(log_path), "eval_id": log.eval.eval_id,
                "status": log.status, "inspect_ai": log.eval.packages.get("inspect_ai")},
        created=now_iso(),
    )
    records = log_records(log, judge, run.identity(), budget, spec.name)
    out.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    with tmp.open("w", encoding="ascii") as fh:
        for rec in records:
            fh.write(json.dumps(rec.to_json(), ensure_ascii=True) + "\n")
    run_tmp = out / (RUN_FILE + ".tmp")
    run_tmp.write_text(json.dumps(run.to_json(), indent=2, sort_keys=True) + "\n",
                       encoding="utf-8")
    os.replace(tmp, target)
    os.replace(run_tmp, out / RUN_FILE)
    return ConvertSummary(target, spec.name, judge, len(records),
                          sum(not r.answered for r in records),
                          sum(r.answered and r.parse_mode == "invalid" for r in records))

"""``vllm:`` judges on Ray: Ray Data's vLLM engine processor (``ray.data.llm``).

Why the processor and not a ``vllm.LLM`` per actor: it places each replica's engine on its
GPUs (tensor x pipeline parallel, across nodes), overlaps batches and runs the chat template
and image preparation on CPU stages. Everything it is given is plain data built by functions
unit-tested on CPU against the signatures of the Ray and vLLM wheels
(:func:`processor_config`, :func:`preprocess_row`, :func:`postprocess_row`); only
:func:`build` imports ``ray.data.llm``'s builder, which needs ``ray[llm]`` (vLLM) and a GPU.

What is asked is the local ``vllm:`` judge's: the same engine keyword arguments
(:func:`~gridwm_judge.judges.vllm_engine.engine_kwargs`), greedy sampling per task budget, the
same judge settings (so request hashes equal a local run's), and the shared
:func:`~gridwm_judge.runner.evaluate.ask_row` / ``prediction_record``. Differences, from what
the processor returns: truncation is "used the whole budget" (it reports no finish reason),
latency is the engine's time for the row, and a ``<think>`` block's token count is not split
out. ``--structured`` is refused: rows of different tasks would carry differently shaped
constraints through Arrow.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gridwm_judge.judges.base import JudgeOptions, JudgeRequest, JudgeResponse, Usage, status_for
from gridwm_judge.judges.images import png_data_url
from gridwm_judge.judges.vllm_engine import CHUNK, VLLMJudge, engine_kwargs, sampling_kwargs
from gridwm_judge.parsing import split_reasoning
from gridwm_judge.runner.evaluate import EvalConfig, ask_row, prediction_record

INSTALL_LLM = "pip install 'ray[llm]==2.60.*'"


def processor_config(model: str, options: JudgeOptions, *, replicas: int = 1,
                     pipeline_parallel_size: int = 1, batch_size: int | None = None,
                     accelerator_type: str | None = None) -> dict[str, Any]:
    """Keyword arguments of ``ray.data.llm.vLLMEngineProcessorConfig``.

    ``replicas`` engines (a fixed pool), each over ``tensor_parallel_size`` x
    ``pipeline_parallel_size`` GPUs; images per prompt limited to the largest item's count
    (``options.max_images``) in the engine and in the CPU stage that parses the messages.
    """
    for name, value in (("--replicas", replicas), ("--pipeline-parallel-size",
                                                    pipeline_parallel_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    if options.structured:
        raise ValueError("--structured is not supported for vllm: judges with --engine ray; "
                         "use --engine local, or drop --structured")
    engine = engine_kwargs(model, options)
    engine.pop("model")
    engine["pipeline_parallel_size"] = pipeline_parallel_size
    model_config = {"limit_mm_per_prompt": dict(engine["limit_mm_per_prompt"])}
    if "max_model_len" in engine:
        model_config["max_model_len"] = engine["max_model_len"]
    return {
        "model_source": model,
        "engine_kwargs": engine,
        "concurrency": (replicas, replicas),  # a fixed pool: exactly `replicas` engines
        "batch_size": batch_size or CHUNK,
        "accelerator_type": accelerator_type,
        "prepare_multimodal_stage": {"enabled": True, "model_config_kwargs": model_config},
        "chat_template_stage": {"enabled": True},
        "tokenize_stage": {"enabled": True},
        "detokenize_stage": {"enabled": True},
        "should_continue_on_error": True,  # a failed row is an error record, the run goes on
        "log_engine_metrics": False,
    }


def judge_settings(model: str, options: JudgeOptions, spec: str) -> dict[str, Any]:
    """The local ``vllm:`` judge's settings (no engine is built), for run.json and hashes."""
    return VLLMJudge(model, options, spec, engine=object()).settings()


def judge_sending(model: str, options: JudgeOptions, spec: str) -> dict[str, Any]:
    """What the local ``vllm:`` judge says every request carries (run.json ``as_sent``)."""
    judge = VLLMJudge(model, options, spec, engine=object())
    return dict(getattr(judge, "sending", dict)())


def preprocess_row(row: Mapping[str, Any], *, task: str, cfg: EvalConfig,
                   identity: Mapping[str, Any]) -> dict[str, Any]:
    """A stored row -> the processor's input: one user turn (PNG data URLs, then the prompt),
    greedy sampling with the task's budget, and the fields postprocess needs."""
    asked = ask_row(task, row, cfg, identity, needs_gold=False)
    req = asked.request
    content: list[dict[str, Any]] = [
        {"type": "image_url", "image_url": {"url": png_data_url(req.images, i)}}
        for i in range(len(req.images))
    ]
    content.append({"type": "text", "text": req.prompt})
    return {
        "messages": [{"role": "user", "content": content}],
        "sampling_params": sampling_kwargs(task, req.max_tokens, seed=cfg.options.seed,
                                           style=req.style),
        "uid": req.uid, "task": task, "style": req.style, "max_tokens": req.max_tokens,
        "request_hash": req.request_hash, "item_digest": asked.digest,
    }


def response_of(row: Mapping[str, Any]) -> JudgeResponse:
    """The processor's output row (or an ``__inference_error__`` row) as a response."""
    error = row.get("__inference_error__")
    latency = max(0.0, float(row.get("time_taken_llm") or 0.0))
    if error:
        return JudgeResponse(row["uid"], None, "error", latency, error=str(error))
    reasoning, text = split_reasoning(row.get("generated_text") or "")
    n_out = int(row.get("num_generated_tokens") or 0)
    usage = Usage(int(row.get("num_input_tokens") or 0), n_out)
    truncated = n_out >= int(row["max_tokens"])
    return JudgeResponse(row["uid"], text, status_for(text, truncated), latency, usage,
                         reasoning=reasoning)


def record_of(row: Mapping[str, Any], judge_spec: str) -> dict[str, Any]:
    """The predictions.jsonl record of one processor row."""
    req = JudgeRequest(row["uid"], row["task"], "", (), int(row["max_tokens"]),
                       request_hash=row["request_hash"], style=row["style"] or "")
    return prediction_record(judge_spec, req, row["item_digest"], response_of(row)).to_json()


def postprocess_row(row: Mapping[str, Any], *, judge_spec: str) -> dict[str, Any]:
    """Only the record leaves the processor (never the messages with their images)."""
    return {"record": json.dumps(record_of(row, judge_spec), sort_keys=True)}


def build(rows, cfg: EvalConfig, options: JudgeOptions, identity: Mapping[str, Any],
          task_of: Mapping[str, str], *, replicas: int, pipeline_parallel_size: int = 1):
    """The Ray Dataset of records: ``rows`` through the vLLM engine processor (GPU)."""
    try:
        from ray.data.llm import build_processor, vLLMEngineProcessorConfig
    except ImportError as exc:
        from gridwm_judge.judges.base import MissingDependencyError

        raise MissingDependencyError(
            f"vllm: judges on --engine ray need Ray's LLM extra; install it with: "
            f"{INSTALL_LLM}") from exc
    model = cfg.judge.split(":", 1)[1]
    config = vLLMEngineProcessorConfig(**processor_config(
        model, options, replicas=replicas, pipeline_parallel_size=pipeline_parallel_size))
    tasks = dict(task_of)
    judge_spec = cfg.judge

    def pre(row: dict[str, Any]) -> dict[str, Any]:
        task = tasks[str(Path(row["path"]).resolve())]
        return preprocess_row(row, task=task, cfg=cfg, identity=identity)

    def post(row: dict[str, Any]) -> dict[str, Any]:
        return postprocess_row(row, judge_spec=judge_spec)

    return build_processor(config, preprocess=pre, postprocess=post)(rows)

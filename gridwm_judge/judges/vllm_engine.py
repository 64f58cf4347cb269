"""``vllm:MODEL``: the offline ``vllm.LLM`` engine (one GPU, or ``tensor_parallel_size``).

Everything the engine is given is built as plain data by functions that are unit-tested on
CPU (:func:`engine_kwargs`, :func:`sampling_kwargs`, :func:`chat_messages`); vLLM itself is
imported only inside :class:`_Engine`, the thin seam that constructs ``vllm.LLM`` and
``SamplingParams`` and calls ``llm.chat``. Decoding is :data:`~.decoding.GREEDY` with the
per-task max tokens, and the engine ignores the model's ``generation_config.json``
(``generation_config="vllm"``). The context length is the model's own unless the user sets
``max_model_len``; images arrive already scaled to ``--max-pixels`` (:mod:`.images`).
Constrained answers (``--structured``) use vLLM's structured outputs API
(``SamplingParams(structured_outputs=StructuredOutputsParams(...))``, vLLM >= 0.12); they are
off by default because the paper's protocol is free-form.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from gridwm_judge.judges.base import (
    JudgeOptions,
    JudgeRequest,
    JudgeResponse,
    Usage,
    check_local_path,
    refuse_api_options,
    require,
    require_installed,
    respond_batch,
    status_for,
)
from gridwm_judge.judges.decoding import GREEDY, vllm_sampling_kwargs
from gridwm_judge.judges.hub_access import load_name
from gridwm_judge.judges.images import fit_pixels
from gridwm_judge.parsing import split_reasoning
from gridwm_judge.task_table import answer_spec

CHUNK = 64
"""Requests per ``llm.chat`` call: big enough to keep the GPU busy, small enough that a
crash loses little (each chunk's responses are persisted before the next is sent)."""


def structured_spec(task: str, style: str = "") -> dict[str, Any]:
    """Keyword arguments of ``StructuredOutputsParams`` for a task's (prompt style's) format."""
    return answer_spec(task, style).structured_output()


def sampling_kwargs(task: str, max_tokens: int, *, structured: bool = False, seed: int = 0,
                    style: str = "") -> dict:
    """``SamplingParams`` keyword arguments: greedy, the task's budget, optional constraint.

    ``structured_outputs`` holds the plain kwargs of ``StructuredOutputsParams``; the engine
    seam wraps them.
    """
    out: dict[str, Any] = {**vllm_sampling_kwargs(max_tokens, GREEDY), "seed": seed}
    if structured:
        out["structured_outputs"] = structured_spec(task, style)
    return out


def engine_kwargs(model: str, options: JudgeOptions) -> dict:
    """``vllm.LLM`` keyword arguments, sized to the largest item's image count.

    No ``max_model_len`` unless the user sets one: vLLM then takes the model's own context
    length (a fixed value is refused by every model whose context is shorter).
    """
    tp = int(options.tensor_parallel_size)
    if tp < 1:
        raise ValueError(f"tensor_parallel_size must be >= 1, got {tp}")
    kwargs: dict[str, Any] = {
        "model": model,
        # images only: no video slots reserved (vLLM's default would budget for 999)
        "limit_mm_per_prompt": {"image": max(1, int(options.max_images)), "video": 0},
        "tensor_parallel_size": tp,
        "seed": options.seed,
        "generation_config": "vllm",  # ignore the model's sampling defaults
    }
    if options.max_model_len:
        kwargs["max_model_len"] = int(options.max_model_len)
    kwargs.update(options.extra.get("vllm_engine", {}))
    return kwargs


def chat_messages(req: JudgeRequest, max_pixels: int | None = None) -> list[dict]:
    """One user turn for ``llm.chat``: PIL images first (``image_pil`` parts), then the text."""
    content: list[dict] = [
        {"type": "image_pil", "image_pil": fit_pixels(im, max_pixels)} for im in req.images
    ]
    content.append({"type": "text", "text": req.prompt})
    return [{"role": "user", "content": content}]


def response_from_output(
    req: JudgeRequest, output: Any, latency_s: float, think_end_id: int | None = None
) -> JudgeResponse:
    """One vLLM ``RequestOutput`` -> response; ``finish_reason == "length"`` is truncated.

    A ``<think>`` block (reasoning models; the offline engine has no reasoning parser) goes to
    ``reasoning``, its tokens (up to ``think_end_id``) to ``usage.reasoning_tokens``.
    """
    completion = output.outputs[0]
    token_ids: list[int] = list(completion.token_ids or ())
    reasoning, text = split_reasoning(completion.text)
    n_reason = None
    if reasoning is not None:
        if think_end_id is not None and think_end_id in token_ids:
            n_reason = token_ids.index(think_end_id) + 1
        else:
            n_reason = len(token_ids)
    usage = Usage(len(output.prompt_token_ids or ()), len(token_ids), n_reason)
    truncated = completion.finish_reason == "length"
    return JudgeResponse(
        req.uid, text, status_for(text, truncated), latency_s, usage, reasoning=reasoning
    )


def _think_end_id(tokenizer) -> int | None:
    """The id of a single ``</think>`` token, None where the vocabulary has none."""
    try:
        end = tokenizer.convert_tokens_to_ids("</think>")
    except Exception:  # tokenizers without HF's API (e.g. mistral-common)
        return None
    unk = getattr(tokenizer, "unk_token_id", None)
    return end if isinstance(end, int) and end != unk else None


class _Engine:
    """The only code that touches vLLM: build the engine, wrap params, call ``llm.chat``."""

    def __init__(self, kwargs: dict):
        self.vllm = require("vllm", "vllm")
        self.llm = self.vllm.LLM(**kwargs)
        self.think_end_id = _think_end_id(self.llm.get_tokenizer())

    def chat(self, conversations: list, params: list[dict]) -> list:
        from vllm import SamplingParams  # pyright: ignore[reportMissingImports]  # optional extra

        wrapped = []
        for p in params:
            p = dict(p)
            if "structured_outputs" in p:
                from vllm.sampling_params import (  # pyright: ignore[reportMissingImports]
                    StructuredOutputsParams,
                )

                p["structured_outputs"] = StructuredOutputsParams(**p["structured_outputs"])
            wrapped.append(SamplingParams(**p))
        return self.llm.chat(conversations, sampling_params=wrapped, use_tqdm=False)


class VLLMJudge:
    needs_gold = False

    def __init__(self, model: str, options: JudgeOptions, spec: str, engine=None):
        refuse_api_options(options, spec)
        if engine is None:
            check_local_path(model, "vllm")
        self.spec, self.model, self.options = spec, model, options
        self.kwargs = engine_kwargs(model, options)
        if engine is None:
            # on our side of the seam, before vLLM is imported: no Hub and no cached copy is
            # one line in seconds, not minutes of vLLM's retries (run.json keeps the Hub id)
            require_installed("vllm", "vllm")
            engine = _Engine({**self.kwargs, "model": load_name(model, "vllm")})
        self.engine = engine

    def settings(self) -> dict:
        skip = ("limit_mm_per_prompt", "tensor_parallel_size")  # how it runs, not what is asked
        safe = {k: v for k, v in self.kwargs.items() if k not in skip}
        return {
            "backend": "vllm",
            "engine": safe,
            "decoding": GREEDY.settings(),
            "max_pixels": self.options.max_pixels,
            "structured": self.options.structured,
        }

    def sending(self) -> dict:
        """What every request carries (run.json ``as_sent``): all of the decoding values."""
        fields = {**vllm_sampling_kwargs(1, GREEDY), "seed": self.options.seed}
        return {"fields": {**fields, "max_tokens": "task budget"}, "not_sent": []}

    def judge(self, requests: Iterable[JudgeRequest]) -> Iterator[JudgeResponse]:
        chunk: list[JudgeRequest] = []
        for req in requests:
            chunk.append(req)
            if len(chunk) >= CHUNK:
                yield from self._run(chunk)
                chunk = []
        if chunk:
            yield from self._run(chunk)

    def _run(self, chunk: list[JudgeRequest]) -> Iterator[JudgeResponse]:
        engine = self.engine
        assert engine is not None, "judge used after close()"
        params = [
            sampling_kwargs(
                r.task, r.max_tokens, structured=self.options.structured, seed=self.options.seed,
                style=r.style,
            )
            for r in chunk
        ]

        def chat(chunk: Sequence[JudgeRequest]) -> list:
            convs = [chat_messages(r, self.options.max_pixels) for r in chunk]
            return engine.chat(convs, params)

        def respond(req: JudgeRequest, out: Any, elapsed: float) -> JudgeResponse:
            think_end = getattr(engine, "think_end_id", None)
            return response_from_output(req, out, elapsed, think_end)

        # a failed chunk is recorded (an error response each), never turned into verdicts
        yield from respond_batch(chunk, chat, respond)

    def close(self) -> None:
        self.engine = None


def create(name: str, options: JudgeOptions, spec: str) -> VLLMJudge:
    return VLLMJudge(name, options, spec)

"""The one decoding configuration every backend uses: greedy, no penalties, the task's budget.

Why: models ship defaults (``generation_config.json`` with a ``repetition_penalty``, sampling
temperatures) that ``transformers.generate`` and ``vllm serve`` would otherwise apply silently,
so the same judge decoded differently by backend while the run said "greedy". Each backend
reads :data:`GREEDY` through the builder for its API (:func:`hf_generate_kwargs`,
:func:`vllm_sampling_kwargs`, :func:`openai_request_fields`) and records
:meth:`Decoding.settings` in the run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class Decoding:
    """Plain decoding values; ``max_tokens`` is per request (the task budget), not stored here."""

    temperature: float = 0.0
    top_p: float = 1.0
    top_k: int = 0  # 0: no top-k cut (vLLM's "disabled")
    min_p: float = 0.0
    repetition_penalty: float = 1.0
    presence_penalty: float = 0.0
    frequency_penalty: float = 0.0
    min_tokens: int = 0

    def settings(self) -> dict:
        """JSON-safe form recorded in the run's judge settings."""
        return {"strategy": "greedy", **asdict(self), "max_tokens": "task budget"}

    def fields(self) -> tuple[str, ...]:
        """The names of the decoding values (what a backend sends or lists as not sent)."""
        return tuple(f.name for f in fields(self))


GREEDY = Decoding()


def hf_generate_kwargs(max_tokens: int, decoding: Decoding = GREEDY) -> dict:
    """``model.generate`` keywords that override every logits-changing default of the model.

    transformers fills any value left unset from the model's ``generation_config.json``, so the
    neutral values are passed explicitly (sampling knobs are moot once ``do_sample=False``).
    """
    if decoding.temperature != 0.0:
        raise ValueError(f"hf decoding is greedy only; got temperature {decoding.temperature}")
    return {
        "max_new_tokens": int(max_tokens),
        "min_new_tokens": decoding.min_tokens,
        "do_sample": False,
        "num_beams": 1,
        "repetition_penalty": decoding.repetition_penalty,
        "encoder_repetition_penalty": 1.0,
        "no_repeat_ngram_size": 0,
        "encoder_no_repeat_ngram_size": 0,
    }


def vllm_sampling_kwargs(max_tokens: int, decoding: Decoding = GREEDY) -> dict:
    """``vllm.SamplingParams`` keywords (field names as in vLLM >= 0.12)."""
    return {
        "temperature": decoding.temperature,
        "top_p": decoding.top_p,
        "top_k": decoding.top_k,
        "min_p": decoding.min_p,
        "repetition_penalty": decoding.repetition_penalty,
        "presence_penalty": decoding.presence_penalty,
        "frequency_penalty": decoding.frequency_penalty,
        "min_tokens": decoding.min_tokens,
        "max_tokens": int(max_tokens),
    }


def openai_request_fields(max_tokens: int, decoding: Decoding = GREEDY) -> dict:
    """Chat-completions body fields (standard OpenAI names only, so any server accepts them).

    ``vllm serve`` still applies a model's ``repetition_penalty``/``top_k`` defaults unless
    started with ``--generation-config vllm`` (see docs/judges.md).
    """
    return {
        "temperature": decoding.temperature,
        "top_p": decoding.top_p,
        "presence_penalty": decoding.presence_penalty,
        "frequency_penalty": decoding.frequency_penalty,
        "max_tokens": int(max_tokens),
    }





def is_greedy(sent: Mapping) -> bool:
    """Whether a request that carried ``sent`` decodes greedily (temperature 0, top-k 1, or
    sampling off); a request without such a field gets the server's default: not greedy."""
    return (sent.get("temperature") == 0 or sent.get("top_k") == 1
            or sent.get("do_sample") is False)

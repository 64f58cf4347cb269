"""Judge backends behind one protocol, chosen by a spec string ``BACKEND:NAME``.

``vllm:MODEL`` (offline engine on one GPU), ``openai:MODEL`` (any OpenAI-compatible server,
e.g. ``vllm serve``), ``anthropic:MODEL`` (Claude, Messages API), ``gemini:MODEL`` (Gemini
API), ``hf:PATH_OR_ID`` (transformers) and ``baseline:NAME`` (weight-free reference judges).
Each backend lives in its own module and imports its heavy dependencies only when a judge is
created.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Sequence

from gridwm_judge.judges.base import (
    Judge,
    JudgeOptions,
    JudgeRequest,
    JudgeResponse,
    MissingDependencyError,
    Usage,
)
from gridwm_judge.records import PUBLISHED
from gridwm_judge.task_table import DEFAULT_MAX_TOKENS

BACKENDS: dict[str, str] = {
    "vllm": "gridwm_judge.judges.vllm_engine",
    "openai": "gridwm_judge.judges.openai_http",
    "hf": "gridwm_judge.judges.hf_transformers",
    "baseline": "gridwm_judge.judges.baseline",
    "anthropic": "gridwm_judge.judges.anthropic_api",
    "gemini": "gridwm_judge.judges.gemini_api",
}


def did_you_mean(name: str, valid) -> str:
    """A "; did you mean 'x'?" suffix for the closest valid name (or shared prefix), else ""."""
    valid = list(valid)
    close = difflib.get_close_matches(name, valid, n=1, cutoff=0.5)
    if not close:
        low = name.lower()
        close = [v for v in valid if low.startswith(v) or (len(low) >= 2 and v.startswith(low))]
    return f"; did you mean {close[0]!r}?" if close else ""


def split_spec(spec: str) -> tuple[str, str]:
    """``"openai:gpt-4o"`` -> ``("openai", "gpt-4o")``; bad specs name the valid backends."""
    backend, sep, name = spec.partition(":")
    valid = ", ".join(BACKENDS)
    if backend == PUBLISHED:
        raise ValueError(
            f"{spec!r} names answers published with the paper's release, which `gridwm-judge "
            "import-paper` writes as runs (DIR/runs/published/<model>): score or report those "
            f"runs; to ask a model yourself, give a backend: {valid}")
    if backend not in BACKENDS:
        raise ValueError(
            f"unknown judge backend {backend!r} in {spec!r}; valid backends: {valid}"
            + did_you_mean(backend, BACKENDS)
        )
    if not sep or not name:
        raise ValueError(
            f"judge spec {spec!r} lacks a name; write it as BACKEND:NAME, e.g. {backend}:..."
        )
    return backend, name


def judge_tasks(spec: str, tasks: Sequence[str]) -> tuple[str, ...]:
    """The ones of ``tasks`` the judge ``spec`` answers (a shortcut judge has rules for a few;
    every other judge answers all), in the given order."""
    backend, name = split_spec(spec)
    module = importlib.import_module(BACKENDS[backend])
    answers = getattr(module, "answers_task", None)  # a backend that answers only some tasks
    return tuple(tasks) if answers is None else tuple(t for t in tasks if answers(name, t))


def images_only(spec: str) -> bool:
    """Whether the judge ``spec`` answers only items with images (it reads pixels only)."""
    backend, name = split_spec(spec)
    module = importlib.import_module(BACKENDS[backend])
    return bool(getattr(module, "images_only", lambda _name: False)(name))


def make_judge(spec: str, options: JudgeOptions | None = None) -> Judge:
    """Create the judge a spec names (raises MissingDependencyError with the pip line)."""
    backend, name = split_spec(spec)
    module = importlib.import_module(BACKENDS[backend])
    return module.create(name, options or JudgeOptions(), spec=spec)


__all__ = [
    "BACKENDS",
    "DEFAULT_MAX_TOKENS",
    "Judge",
    "JudgeOptions",
    "JudgeRequest",
    "JudgeResponse",
    "MissingDependencyError",
    "Usage",
    "images_only",
    "judge_tasks",
    "make_judge",
    "split_spec",
]

"""run.json: what a run means (judge spec and answer-changing settings, dataset fingerprint,
prompt version, budgets, seeds). eval writes it; a resume with different values is refused;
score reads it to check which items the predictions answered."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gridwm_judge import __version__
from gridwm_judge.dataset_io import dataset_fingerprint, dataset_provenance
from gridwm_judge.prompts import PROMPT_VERSION


def run_manifest(*, judge: str, judge_options: dict[str, Any], budgets: Mapping[str, int],
                 representation: str | None, seed: int, dataset: str) -> dict[str, Any]:
    """The identity part of run.json (eval adds tasks, times and judge settings)."""
    return {
        "judge": judge,
        "judge_options": judge_options,
        "max_tokens": dict(budgets),
        "representation": representation,
        "seed": seed,
        "dataset": dataset,
        "dataset_fingerprint": dataset_fingerprint(dataset),
        "dataset_provenance": dataset_provenance(dataset),
        "prompt_version": PROMPT_VERSION,
        "package_version": __version__,
    }

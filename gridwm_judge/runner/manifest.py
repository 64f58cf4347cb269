"""run.json: what a run means (judge spec and answer-changing settings, dataset fingerprint,
prompt version, budgets, seeds). eval writes it; a resume with different values is refused;
score reads it to check which items the predictions answered."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gridwm_judge import __version__
from gridwm_judge.dataset_io import dataset_fingerprint, dataset_provenance
from gridwm_judge.prompts import PROMPT_VERSION
from gridwm_judge.task_table import TASK_NAMES

if TYPE_CHECKING:
    from gridwm_judge.runner.evaluate import EvalConfig


def run_manifest(cfg: EvalConfig, judge_options: dict[str, Any]) -> dict[str, Any]:
    """The identity part of run.json for ``cfg`` (eval adds tasks, times and judge settings)."""
    return {
        "judge": cfg.judge,
        "judge_options": judge_options,
        "max_tokens": {t: cfg.budget(t) for t in (*TASK_NAMES, *cfg.tasks)},
        "representation": cfg.representation,
        "seed": cfg.options.seed,
        "dataset": cfg.dataset,
        "dataset_fingerprint": dataset_fingerprint(cfg.dataset),
        "dataset_provenance": dataset_provenance(cfg.dataset),
        "prompt_version": PROMPT_VERSION,
        "package_version": __version__,
    }

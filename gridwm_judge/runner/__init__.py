"""The evaluation runner: judges x dataset rows -> resumable predictions.jsonl + run.json."""

from gridwm_judge.runner.evaluate import EvalConfig, EvalSummary, parse_tasks, run_eval
from gridwm_judge.runner.store import PredictionStore

__all__ = ["EvalConfig", "EvalSummary", "PredictionStore", "parse_tasks", "run_eval"]

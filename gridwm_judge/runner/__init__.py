"""The evaluation runner: judges x dataset rows -> resumable predictions.jsonl + run.json."""

from gridwm_judge.runner.evaluate import EvalConfig, EvalSummary, run_eval
from gridwm_judge.runner.store import PredictionStore

__all__ = ["EvalConfig", "EvalSummary", "PredictionStore", "run_eval"]

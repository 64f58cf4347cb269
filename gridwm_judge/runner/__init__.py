"""The evaluation runner: judges x dataset rows -> resumable predictions.jsonl + run.json."""

from gridwm_judge.runner.evaluate import EvalConfig, EvalSummary, run_eval
from gridwm_judge.runner.many import load_spec, run_many
from gridwm_judge.runner.ray_engine import RayEngine
from gridwm_judge.runner.store import PredictionStore

__all__ = ["EvalConfig", "EvalSummary", "PredictionStore", "RayEngine", "load_spec", "run_eval",
           "run_many"]

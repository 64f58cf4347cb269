"""vLLM through Ray's vLLM engine processor: the configuration and the row
functions are plain data, checked here on CPU against the signatures of the wheels.

Ray's config class is the installed one (``ray.data.llm``, importable without vLLM); vLLM's
names come from tests/data/vllm_0.34.0_signatures.json, the field names of ``EngineArgs``,
``ModelConfig`` and ``SamplingParams`` read with ``ast`` from the vllm 0.34.0 wheel
(``pip download --no-deps vllm==0.34.0``, never installed). No GPU or vLLM runs here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from judges.smoke_data import write_smoke_dataset

from gridwm_judge.cli import main
from gridwm_judge.judges.base import JudgeOptions
from gridwm_judge.parsing import parse_answer
from gridwm_judge.runner.evaluate import EvalConfig, ask_row
from gridwm_judge.runner.ray_vllm import (
    judge_settings,
    postprocess_row,
    preprocess_row,
    processor_config,
    record_of,
)

SIGNATURES = json.loads((Path(__file__).parents[1] / "data" / "vllm_0.34.0_signatures.json")
                        .read_text())


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return write_smoke_dataset(tmp_path_factory.mktemp("ds") / "smoke")


def test_config_is_accepted_by_ray_and_names_only_vllm_fields():
    llm = pytest.importorskip("ray.data.llm")
    options = JudgeOptions(tensor_parallel_size=2, max_images=8, max_model_len=4096, seed=3)
    kwargs = processor_config("org/vlm", options, replicas=3, pipeline_parallel_size=2,
                              accelerator_type="H100")
    config = llm.vLLMEngineProcessorConfig(**kwargs)
    assert config.get_concurrency(autoscaling_enabled=True) == {"min_size": 3, "max_size": 3}
    engine = config.engine_kwargs
    assert engine["tensor_parallel_size"] == 2 and engine["pipeline_parallel_size"] == 2
    assert engine["limit_mm_per_prompt"]["image"] == 8 and engine["max_model_len"] == 4096
    assert engine["seed"] == 3 and engine["generation_config"] == "vllm"
    assert config.accelerator_type == "H100" and config.should_continue_on_error
    assert set(engine) - {"task_type"} <= set(SIGNATURES["EngineArgs"])  # ray adds task_type
    mm = kwargs["prepare_multimodal_stage"]["model_config_kwargs"]
    assert mm == {"limit_mm_per_prompt": engine["limit_mm_per_prompt"], "max_model_len": 4096}
    assert set(mm) <= set(SIGNATURES["ModelConfig"])
    stage = llm.PrepareMultimodalStageConfig(**kwargs["prepare_multimodal_stage"])
    assert stage.enabled and stage.model_config_kwargs == mm


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"replicas": 0}, "--replicas must be an integer >= 1"),
    ({"pipeline_parallel_size": 0}, "--pipeline-parallel-size must be an integer >= 1"),
])
def test_bad_sizes_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        processor_config("m", JudgeOptions(), **kwargs)
    with pytest.raises(ValueError, match="--structured is not supported"):
        processor_config("m", JudgeOptions(structured=True))


def test_rows_become_the_local_judges_requests_and_records(smoke):
    cfg = EvalConfig(dataset=str(smoke), tasks=("C",), judge="vllm:org/vlm", out=Path("x"),
                     options=JudgeOptions(max_images=3))
    settings = judge_settings("org/vlm", cfg.options, cfg.judge)
    assert settings["backend"] == "vllm" and settings["engine"]["model"] == "org/vlm"
    identity = {"judge": cfg.judge, "judge_options": {}, "judge_settings": settings}
    table = pq.read_table(next((Path(smoke) / "data" / "task_c").glob("*.parquet")))
    for row in table.to_pylist():
        pre = preprocess_row(row, task="C", cfg=cfg, identity=identity)
        local = ask_row("C", row, cfg, identity, needs_gold=False)
        assert pre["request_hash"] == local.request.request_hash
        assert pre["item_digest"] == local.digest and pre["uid"] == row["uid"]
        content = pre["messages"][0]["content"]
        assert len(content) == len(row["images"]) + 1 and content[-1]["text"] == row["prompt"]
        assert all(c["image_url"]["url"].startswith("data:image/png;base64,")
                   for c in content[:-1])
        assert set(pre["sampling_params"]) <= set(SIGNATURES["SamplingParams"])
        assert pre["sampling_params"]["max_tokens"] == cfg.budget("C")
        out = {**pre, "generated_text": "Yes", "num_generated_tokens": 2,
               "num_input_tokens": 50, "time_taken_llm": 0.25}
        record = json.loads(postprocess_row(out, judge_spec=cfg.judge)["record"])
        assert set(postprocess_row(out, judge_spec=cfg.judge)) == {"record"}  # no images back
        assert record["uid"] == row["uid"] and record["status"] == "ok"
        assert record["parsed"] == parse_answer("C", "Yes").value
        assert record["request_hash"] == local.request.request_hash
        assert record["usage"] == {"prompt_tokens": 50, "completion_tokens": 2}
    cut = record_of({**out, "generated_text": "Ye", "num_generated_tokens": pre["max_tokens"]},
                    cfg.judge)
    assert cut["status"] == "truncated"
    failed = record_of({**pre, "__inference_error__": "CUDA out of memory"}, cfg.judge)
    assert failed["status"] == "error" and failed["parsed"] is None
    assert "out of memory" in failed["error"]


def test_engine_flags_are_refused_by_name(smoke, tmp_path, capsys):
    pytest.importorskip("ray")
    base = ["eval", "--dataset", str(smoke), "--tasks", "c", "--no-progress"]
    assert main([*base, "--judge", "baseline:always-yes", "--out", str(tmp_path / "a"),
                 "--pipeline-parallel-size", "2"]) == 2
    assert "--pipeline-parallel-size mean(s) nothing for --engine local" in \
        capsys.readouterr().err
    assert main([*base, "--judge", "baseline:always-yes", "--out", str(tmp_path / "b"),
                 "--engine", "ray", "--pipeline-parallel-size", "2"]) == 2
    assert "--pipeline-parallel-size means nothing for baseline:always-yes" in \
        capsys.readouterr().err
    assert main([*base, "--judge", "vllm:org/vlm", "--out", str(tmp_path / "c"),
                 "--engine", "ray", "--structured"]) == 2
    assert "--structured is not supported for vllm: judges with --engine ray" in \
        capsys.readouterr().err
    assert not any((tmp_path / n).exists() for n in "abc")

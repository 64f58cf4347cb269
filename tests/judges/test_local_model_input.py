"""Bad input to the local-model judges (hf:, vllm:), each one clear line before any loading: a
mistyped local path, a broken or missing torchvision, API-only options; and the vLLM engine's
image-only limits."""

from __future__ import annotations

import pytest

from gridwm_judge.judges import JudgeOptions, make_judge
from gridwm_judge.judges.base import MissingDependencyError, check_local_path, looks_like_path
from gridwm_judge.judges.vllm_engine import engine_kwargs

transformers = pytest.importorskip("transformers")
hf = pytest.importorskip("gridwm_judge.judges.hf_transformers")


@pytest.mark.parametrize(("name", "path"), [
    ("./my-tiny-vlm", True), ("../models/x", True), ("/abs/model", True), ("~/m", True),
    ("a/b/c", True), ("Qwen/Qwen2.5-VL-7B-Instruct", False), ("gpt2", False),
])
def test_what_counts_as_a_local_path(name, path):
    assert looks_like_path(name) is path


@pytest.mark.parametrize("backend", ["hf", "vllm"])
def test_a_mistyped_local_path_is_no_such_folder(backend, tmp_path):
    missing = str(tmp_path / "no-such-model")
    with pytest.raises(ValueError, match="no such folder") as exc:
        make_judge(f"{backend}:{missing}")
    assert "Repo id" not in str(exc.value) and missing in str(exc.value)
    check_local_path(str(tmp_path), backend)  # an existing folder passes


def test_a_broken_torchvision_keeps_its_own_message(monkeypatch):
    said = "torchvision is installed but does not import beside torch 2.x (...)"

    def broken():
        raise MissingDependencyError(said)

    monkeypatch.setattr(hf, "torchvision_usable", broken)
    with pytest.raises(MissingDependencyError) as exc:
        hf.load_processor(transformers, "any/model")
    assert str(exc.value) == said and "None" not in str(exc.value)


def test_missing_package_lines():
    exc = ImportError("PixtralProcessor requires the torchvision library")
    line = hf.missing_package_line("m", exc)
    assert "needs the package 'torchvision'" in line
    assert "download.pytorch.org/whl/cpu" in line and "replaces the CPU torch" in line
    assert "pip install num2words" in hf.missing_package_line("m", ModuleNotFoundError(
        "No module named 'num2words'", name="num2words"))
    line = hf.missing_package_line("m", ImportError("something odd"))
    assert "None" not in line and "something odd" in line and "gridwm-judge[hf]" in line


@pytest.mark.parametrize("backend", ["hf", "vllm"])
@pytest.mark.parametrize(("option", "value"), [("reasoning_effort", "low"),
                                               ("reasoning_budget", 512),
                                               ("chat_template_kwargs", {"a": 1})])
def test_api_only_options_are_refused_by_local_engines(backend, option, value, tmp_path):
    flag = "--" + option.replace("_", "-")
    with pytest.raises(ValueError, match=f"{flag} apply to the API judges"):
        make_judge(f"{backend}:{tmp_path}", JudgeOptions(**{option: value}))


def test_vllm_engine_reserves_no_video_slots():
    kw = engine_kwargs("m", JudgeOptions(max_images=7))
    assert kw["limit_mm_per_prompt"] == {"image": 7, "video": 0}

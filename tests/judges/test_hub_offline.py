"""An ``hf:ORG/NAME`` (or ``vllm:ORG/NAME``) judge with no Hub: one line in seconds that says
how to work offline (not minutes of "Retrying in Ns"), nothing left on disk; a model already in
the local Hub cache is loaded from it. The Hub is a closed loopback port; the commands run as
subprocesses because ``huggingface_hub`` reads ``HF_ENDPOINT`` and the cache folder once, at
import. vLLM cannot run here: a stand-in ``vllm`` package on the path fails loudly if it is
imported, so the vLLM check is shown to happen on our side of the seam."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

REPO = Path(__file__).resolve().parents[2]
MODEL = "Qwen/Qwen2.5-VL-3B-Instruct"


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def eval_without_hub(tmp_path: Path, dataset: Path, model: str, *extra: str,
                     offline: bool = False, backend: str = "hf", path: str = ""):
    """``gridwm-judge eval`` in ``tmp_path/work`` with the Hub endpoint on a closed port and an
    own Hub cache (``offline``: HF_HUB_OFFLINE=1 too; ``path``: put first on PYTHONPATH);
    (exit code, stderr, seconds, work folder)."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env.update(HF_ENDPOINT=f"http://127.0.0.1:{closed_port()}",
               HF_HUB_CACHE=str(tmp_path / "hub"),
               PYTHONPATH=os.pathsep.join(p for p in (path, str(REPO)) if p))
    if offline:
        env["HF_HUB_OFFLINE"] = "1"
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "gridwm_judge", "eval", "--dataset", str(dataset), "--tasks", "c",
         "--judge", f"{backend}:{model}", "--out", "runs/q", "--no-progress", *extra],
        cwd=work, env=env, capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stderr, time.perf_counter() - t0, work


def test_no_hub_and_no_cache_is_one_line_in_seconds(tmp_path, api_smoke):
    code, err, seconds, work = eval_without_hub(tmp_path, api_smoke, MODEL)
    assert code == 2, err
    assert "Retrying" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith("gridwm-judge eval: error: cannot reach the Hugging Face Hub at "
                           "http://127.0.0.1:")
    assert f"{MODEL!r}" in line and "not in the local Hub cache" in line
    assert "local model folder (hf:/path/to/model)" in line and "HF_HUB_OFFLINE=1" in line
    assert list(work.iterdir()) == []  # no runs/ folder left
    # torch and transformers take seconds to import on a busy machine; the Hub's retries took
    # minutes
    assert seconds < 60, seconds


def test_offline_mode_without_the_model_cached_is_one_line(tmp_path, api_smoke):
    code, err, _, work = eval_without_hub(tmp_path, api_smoke, MODEL, offline=True)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Retrying" not in err, err
    assert "HF_HUB_OFFLINE is set and the local Hub cache does not hold it" in lines[0]
    assert "local model folder (hf:/path/to/model)" in lines[0]
    assert list(work.iterdir()) == []


def test_a_cached_model_is_loaded_from_the_cache_when_the_hub_is_down(tmp_path, api_smoke):
    from gridwm_judge.testing.tiny_model import build_tiny_vlm

    tiny = build_tiny_vlm(tmp_path / "tiny", hidden_size=32, layers=2)
    commit = "0" * 40  # the Hub cache's layout: refs/main names the snapshot
    repo = tmp_path / "hub" / "models--tiny-org--tiny-vlm"
    shutil.copytree(tiny, repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    code, err, _, work = eval_without_hub(tmp_path, api_smoke, "tiny-org/tiny-vlm",
                                          "--limit", "1", "--max-tokens-c", "2")
    assert code == 0, err
    assert "Retrying" not in err
    assert "cannot be reached" in err and "loading 'tiny-org/tiny-vlm' from the local Hub cache" \
        in err
    records = [json.loads(x) for x in
               (work / "runs" / "q" / "predictions.jsonl").read_text().splitlines()]
    assert len(records) == 1 and records[0]["status"] != "error"


def test_a_folder_without_model_files_is_named_as_a_folder(tmp_path):
    import transformers

    from gridwm_judge.judges import hf_transformers as hf

    (tmp_path / "config.json").write_text('{"model_type": "idefics3"}')  # no processor files
    with pytest.raises(ValueError) as exc:
        hf.load_processor(transformers, str(tmp_path))
    text = str(exc.value)
    assert text.startswith(f"cannot load the hf judge model folder {str(tmp_path)!r}")
    assert "\n" not in text and "Hub" not in text


FAKE_VLLM = """
class LLM:
    def __init__(self, **kwargs):
        raise SystemExit(f"vllm.LLM(model={kwargs['model']!r})")
"""


def fake_vllm(tmp_path: Path, importable: bool) -> str:
    """A folder holding a stand-in ``vllm`` package: one whose import fails loudly (the Hub
    check must come first), or one whose ``LLM`` exits naming what it was asked to load."""
    root = tmp_path / "fake"
    (root / "vllm").mkdir(parents=True)
    body = FAKE_VLLM if importable else 'raise RuntimeError("vllm imported before the Hub check")'
    (root / "vllm" / "__init__.py").write_text(body)
    return str(root)


def _hub_cache(tmp_path: Path, model: str, files: dict[str, str]) -> Path:
    """``model`` in the Hub cache layout under ``tmp_path/hub`` (refs/main names the snapshot);
    returns the snapshot folder."""
    commit = "0" * 40
    repo = tmp_path / "hub" / f"models--{model.replace('/', '--')}"
    snap = repo / "snapshots" / commit
    snap.mkdir(parents=True)
    for name, text in files.items():
        (snap / name).write_text(text)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    return snap


def test_a_vllm_judge_without_hub_or_cache_is_the_same_one_line_before_vllm_loads(
        tmp_path, api_smoke):
    code, err, seconds, work = eval_without_hub(tmp_path, api_smoke, MODEL, backend="vllm",
                                                path=fake_vllm(tmp_path, importable=False))
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("gridwm-judge eval: error: cannot reach the Hugging Face Hub at "
                               "http://127.0.0.1:")
    assert f"vllm judge model {MODEL!r}, and it is not in the local Hub cache" in lines[0]
    assert "local model folder (vllm:/path/to/model)" in lines[0] and "HF_HUB_OFFLINE=1" in lines[0]
    assert list(work.iterdir()) == []
    assert seconds < 60, seconds


def test_a_cached_model_is_given_to_vllm_as_its_cache_folder_when_the_hub_is_down(
        tmp_path, api_smoke):
    snap = _hub_cache(tmp_path, "tiny-org/tiny-vlm", {"config.json": "{}"})
    code, err, _, _work = eval_without_hub(tmp_path, api_smoke, "tiny-org/tiny-vlm",
                                           backend="vllm", path=fake_vllm(tmp_path, True))
    assert "loading 'tiny-org/tiny-vlm' from the local Hub cache" in err
    assert f"vllm.LLM(model={str(snap)!r})" in err, err
    assert code == 1 and "Retrying" not in err


@pytest.mark.parametrize("client", ["httpx", "requests"])
def test_a_hub_that_answers_is_reachable_with_either_session_kind(monkeypatch, client):
    """huggingface_hub >= 1 hands out an httpx client, older releases (which transformers 4.x
    pins) a requests session: both must read an answering endpoint as reachable."""
    import http.server
    import threading

    import huggingface_hub
    from huggingface_hub import constants

    from gridwm_judge.judges import hub_access

    class Answer(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self):
            self.send_response(302)  # the Hub's root redirects; a reply is all that counts
            self.send_header("Location", "/elsewhere")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{server.server_port}")
        if client == "requests":
            import requests

            monkeypatch.setattr(huggingface_hub, "get_session", requests.Session)
        assert hub_access.hub_unreachable(timeout_s=5.0) is None
        monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{closed_port()}")
        assert hub_access.hub_unreachable(timeout_s=5.0) is not None
    finally:
        server.shutdown()

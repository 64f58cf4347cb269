"""The stub server's command line speaks each provider's API and batch API, as a user tries
`eval --batch` without a provider account: submit and return, then collect."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gridwm_judge.cli import main

JUDGES = {"openai": "openai:gpt-4o", "anthropic": "anthropic:claude-sonnet-4-6",
          "gemini": "gemini:gemini-2.5-flash-lite"}


@pytest.mark.usefixtures("keys")
@pytest.mark.parametrize("api", list(JUDGES))
def test_eval_batch_against_the_stub_command(smoke, tmp_path, capsys, api):
    pytest.importorskip({"openai": "httpx", "anthropic": "anthropic",
                         "gemini": "google.genai"}[api])
    proc = subprocess.Popen([sys.executable, "-m", "gridwm_judge.testing.stub_server", "--api",
                             api, "--reply", "No"], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split()[-1]  # "serving on URL"
        out = tmp_path / "run"
        argv = ["eval", "--dataset", str(smoke), "--tasks", "c", "--judge", JUDGES[api],
                "--base-url", url, "--no-progress", "--out", str(out), "--batch"]
        assert main([*argv, "--no-wait"]) == 0
        assert "run this command again to collect them" in capsys.readouterr().err
        assert main([*argv, "--poll-s", "0.01"]) == 0
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    records = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(records) == 8 and {r["raw"] for r in records} == {"No"}
    [batch] = json.loads((out / "batches.json").read_text())["batches"]
    assert batch["provider"] == api and batch["state"] == "collected"

"""`eval --batch` for anthropic: judges, what is Anthropic's own (the behaviours every
provider shares are in test_batch_providers.py): requests go inline as the judge's own
Messages requests under ids Anthropic takes, a batch refused at submission is one line, and
results archived after some weeks are asked again."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner.batch_runs import ROWS, SECRET, book, eval_args, records

from gridwm_judge.cli import main
from gridwm_judge.testing.stub_server import StubServer

pytest.importorskip("anthropic")
pytestmark = pytest.mark.usefixtures("keys")

JUDGE = "anthropic:claude-sonnet-4-6"


def _eval(smoke: Path, server: StubServer, out: Path, *extra: str) -> list[str]:
    return eval_args(smoke, JUDGE, server, out, *extra)


def test_requests_go_inline_as_the_judges_own(smoke, tmp_path):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="anthropic") as server:
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        sent = server.batch_api.batches["msgbatch_0"]["requests"]
    assert [r["custom_id"] for r in sent] == [f"gwj-{i}" for i in range(ROWS)]
    params = sent[0]["params"]
    assert params["model"] == "claude-sonnet-4-6" and params["temperature"] == 0.0
    assert params["messages"][0]["content"][0]["type"] == "image"
    assert all(r["sent"] == {"max_tokens": params["max_tokens"], "temperature": 0.0}
               for r in records(out))


def test_a_batch_refused_at_submission_is_one_line(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="anthropic") as server:
        server.batch_api.ending = "failed"  # Anthropic refuses a malformed batch at create
        assert main(_eval(smoke, server, out, "--batch")) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "the provider rejected the batch (requests.0.params: the stub rejects" in line
    assert "nothing was submitted" in line and SECRET not in line and not out.exists()


def test_archived_results_are_asked_again(smoke, tmp_path, capsys):
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="anthropic") as server:
        assert main(_eval(smoke, server, out, "--batch", "--no-wait")) == 0
        for _ in range(3):  # the batch ends at the provider; its results are archived later
            server.batch_api._step(server.batch_api.batches["msgbatch_0"])
        server.batch_api.archive("msgbatch_0")
        capsys.readouterr()
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        err = capsys.readouterr().err
        assert "batch msgbatch_0: its results cannot be read (Anthropic archived" in err
        assert server.batch_api.created == ["msgbatch_0", "msgbatch_1"]
    assert len(records(out)) == ROWS
    assert {r["served"]["batch"] for r in records(out)} == {"msgbatch_1"}
    assert [b["state"] for b in book(out)] == ["collected", "collected"]


def test_a_refused_temperature_is_learned_from_failed_lines(smoke, tmp_path, capsys):
    """A model that refuses ``temperature`` fails every line of the first batch; the judge
    learns it as online and the rows go again without it, in the same run."""
    out = tmp_path / "run"
    with StubServer(default_reply="Yes", api="anthropic", refuse=("temperature",)) as server:
        assert main(_eval(smoke, server, out, "--batch", "--poll-s", "0.01")) == 0
        assert server.batch_api.created == ["msgbatch_0", "msgbatch_1"]
    err = capsys.readouterr().err
    assert "a failed line said:" in err and "temperature: Extra inputs are not permitted" in err
    assert "the server refused 'temperature'" in err
    got = records(out)
    assert len(got) == ROWS and all("temperature" not in r["sent"] for r in got)

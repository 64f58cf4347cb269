"""Faults on the wire: a server that trickles bytes, Ctrl-C mid-request, a server that echoes
the key. Real loopback HTTP (the stub server), real sockets, the real CLI."""

from __future__ import annotations

import base64
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from judges.smoke_data import write_smoke_dataset

from gridwm_judge.cli import main
from gridwm_judge.judges import JudgeOptions, JudgeRequest, make_judge
from gridwm_judge.testing.stub_server import StubServer, echo_headers, ok, trickle

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return write_smoke_dataset(tmp_path_factory.mktemp("ds") / "smoke")


def _ask(server, prompt, **kw):
    opts = dict(base_url=server.base_url, workers=1, retries=0, backoff_s=0.05, timeout_s=1.0)
    opts.update(kw)
    judge = make_judge("openai:m", JudgeOptions(**opts))
    start = time.monotonic()
    try:
        [resp] = list(judge.judge([JudgeRequest("u", "C", prompt, (), 8)]))
    finally:
        judge.close()
    return resp, time.monotonic() - start


@pytest.mark.parametrize("headers_too", [False, True], ids=["body", "headers-and-body"])
def test_a_trickling_server_is_cut_at_the_timeout(headers_too):
    # One byte every 0.2 s: each read is quick, the whole reply would take ~40 s.
    with StubServer() as server:
        server.script("drip", *[trickle(0.2, headers_too=headers_too)] * 3)
        resp, took = _ask(server, "drip", timeout_s=1.0)
        assert resp.status == "error" and resp.raw is None
        assert "timeout" in resp.error and "gave up after 1 attempts" in resp.error
        assert 0.9 < took < 5, took  # the whole reply would take ~40 s; loose bound for CI load
        print(f"trickle ({'headers+body' if headers_too else 'body'}), --timeout 1: {took:.2f} s")

        resp, took = _ask(server, "drip", timeout_s=1.0, retries=1)
        assert resp.status == "error" and "gave up after 2 attempts" in resp.error
        assert server.attempts("drip") == 3
        assert 1.9 < took < 8, took  # two bounded attempts + one 0.05 s backoff (loose for CI)


def test_a_reply_that_trickles_within_the_timeout_is_kept():
    with StubServer() as server:
        server.script("quick-drip", trickle(0.002, text="No"))
        resp, took = _ask(server, "quick-drip", timeout_s=5.0)
    assert (resp.status, resp.raw) == ("ok", "No") and took < 5.0


def test_eval_records_a_trickled_request_as_error(smoke, tmp_path, capsys):
    run = tmp_path / "drip"
    with StubServer(default_reply="Yes") as server:
        server.script("", trickle(0.2))  # the first request trickles, the rest are quick
        start = time.monotonic()
        args = ["eval", "--dataset", str(smoke), "--out", str(run), "--no-progress",
                "--tasks", "e", "--judge", "openai:stub", "--base-url", server.base_url,
                "--timeout", "1", "--retries", "0", "--workers", "1"]
        assert main(args) == 1  # an errored request remains: eval says so and exits 1
        took = time.monotonic() - start
    [record] = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    assert record["status"] == "error" and record["raw"] is None and "timeout" in record["error"]
    assert took < 6, took
    assert "errors 1" in capsys.readouterr().out


def test_ctrl_c_ends_eval_within_a_second_and_keeps_finished_rows(smoke, tmp_path):
    run = tmp_path / "interrupted"
    with StubServer(default_reply="Yes") as server:
        # Three quick answers, then every request hangs in a slow trickle (a 600 s reply).
        server.script("", ok("Yes"), ok("No"), ok("Yes"), *[trickle(1.0)] * 40)
        cmd = [sys.executable, "-m", "gridwm_judge", "eval", "--dataset", str(smoke),
               "--out", str(run), "--no-progress", "--tasks", "c,d,e", "--judge", "openai:stub",
               "--base-url", server.base_url, "--timeout", "300", "--workers", "2"]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        preds = run / "predictions.jsonl"
        deadline = time.monotonic() + 60
        while not (preds.exists() and preds.read_text().count("\n") >= 3):
            assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
            assert time.monotonic() < deadline, "eval wrote no rows"
            time.sleep(0.05)
        while len(server.requests) < 5:  # both workers now wait on a trickling reply
            time.sleep(0.05)
        time.sleep(0.5)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    assert proc.returncode == 130
    assert took < 5, f"Ctrl-C took {took:.2f} s"  # before the fix: 40-117 s; loose for CI load
    print(f"Ctrl-C during two trickling requests: exit 130 after {took:.2f} s")
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and "interrupted" in lines[0], err.decode()
    records = [json.loads(line) for line in preds.read_text().splitlines()]
    assert len(records) == 3 and all(r["status"] == "ok" for r in records)


def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def test_no_secret_reaches_the_disk(smoke, tmp_path, monkeypatch, capsys):
    key, password = "sk-live-SECRET1234", "PW-SECRET5678"
    basic = base64.b64encode(f"me:{password}".encode()).decode()
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with StubServer() as server:
        # 400s (a 401 would stop the run at once: tests/judges/test_bad_backend_input.py)
        server.script("", *[echo_headers(400), echo_headers(500)] * 30)
        host = server.base_url.split("://", 1)[1]
        runs = {
            "bearer": server.base_url,
            "userinfo": f"http://me:{password}@{host}",
        }
        for name, url in runs.items():
            args = ["eval", "--dataset", str(smoke), "--out", str(tmp_path / name),
                    "--no-progress", "--tasks", "c,e", "--judge", "openai:stub", "--base-url", url,
                    "--retries", "1", "--workers", "2"]
            assert main(args) == 1  # every request errored
        seen = {h.get("Authorization") for h in server.headers}
    assert f"Bearer {key}" in seen and f"Basic {basic}" in seen  # the server did get them
    out = capsys.readouterr()
    written = [p for name in runs for p in _files(tmp_path / name)]
    assert {p.name for p in written} >= {"run.json", "predictions.jsonl", "predictions.lock"}
    for path in written:
        text = path.read_text(encoding="utf-8", errors="replace")
        for secret in (key, password, basic):
            assert secret not in text, f"{secret!r} written to {path}"
    records = [json.loads(line) for line in
               (tmp_path / "bearer" / "predictions.jsonl").read_text().splitlines()]
    assert records and all(r["status"] == "error" for r in records)
    assert any("HTTP 400" in r["error"] and "***" in r["error"] for r in records)
    manifest = json.loads((tmp_path / "userinfo" / "run.json").read_text())
    assert manifest["operational"]["base_url"] == f"http://***@{host}"
    for stream in (out.out, out.err):
        assert key not in stream and password not in stream


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_server_that_is_not_there_stops_the_run_in_one_line(smoke, tmp_path, capsys):
    """Connection refused before anything answered: no retries, one line naming the URL and
    what to check, exit 2, no run folder (retries with backoff would take over 7 s)."""
    run = tmp_path / "nothing"
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    start = time.monotonic()
    code = main(["eval", "--dataset", str(smoke), "--out", str(run), "--no-progress",
                 "--tasks", "c", "--judge", "openai:stub", "--base-url", url, "--workers", "2"])
    took = time.monotonic() - start
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith(f"gridwm-judge eval: error: openai:stub: cannot reach {url}")
    assert "the connection was refused: is the server running, on that host and port?" in err[0]
    assert not run.exists() and took < 5, took


def test_a_server_gone_on_resume_keeps_the_answers(smoke, tmp_path, capsys):
    run = tmp_path / "resumed"
    with StubServer(default_reply="Yes") as server:
        args = ["eval", "--dataset", str(smoke), "--out", str(run), "--no-progress",
                "--tasks", "c", "--judge", "openai:stub", "--base-url", server.base_url,
                "--workers", "1"]
        assert main([*args, "--limit", "3"]) == 0
    before = (run / "predictions.jsonl").read_text()
    assert len(before.splitlines()) == 3
    capsys.readouterr()
    assert main(args) == 2   # the server is gone: the run stops, the answers stay
    assert "cannot reach" in capsys.readouterr().err
    assert (run / "predictions.jsonl").read_text() == before


def test_unreachable_names_what_no_retry_mends():
    import socket
    import ssl

    from gridwm_judge.judges.http_judge import Retryable, unreachable

    def chained(cause: BaseException) -> Retryable:
        try:
            try:
                raise cause
            except BaseException as exc:
                raise Retryable(f"connection error: {exc}") from exc
        except Retryable as out:
            return out

    assert "refused" in unreachable(chained(ConnectionRefusedError(111, "Connection refused")))
    dns = socket.gaierror(-2, "Name or service not known")
    assert unreachable(chained(dns)) == "unknown host: check the host name"
    tls = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify")
    assert "TLS handshake failed" in unreachable(chained(tls))
    assert unreachable(chained(TimeoutError("timed out"))) is None   # retried as before
    assert unreachable(Retryable("HTTP 503: overloaded")) is None
    assert unreachable(chained(ConnectionResetError(104, "Connection reset by peer"))) is None


def test_once_a_server_answered_a_refused_connection_is_retried():
    """A server that answered and then refuses may be restarting: retried, then an error row
    (the run goes on), as a timeout or a 5xx is."""
    from gridwm_judge.judges.base import JudgeResponse
    from gridwm_judge.judges.http_judge import HTTPJudge, Retryable

    class Flaky(HTTPJudge):
        url = "http://127.0.0.1:1/v1"

        def __init__(self):
            super().__init__("flaky:m", "m", JudgeOptions(retries=1, backoff_s=0.01))
            self.calls = 0

        def prepare(self, req):
            return req

        def attempt(self, req, prepared, start):
            self.calls += 1
            if self.calls == 1:
                return JudgeResponse(req.uid, "Yes", "ok", 0.0)
            try:
                raise ConnectionRefusedError(111, "Connection refused")
            except ConnectionRefusedError as exc:
                raise Retryable(f"connection error: {exc}") from exc

    judge = Flaky()
    first, second = list(judge.judge([JudgeRequest("a", "C", "p", (), 8)])) + list(
        judge.judge([JudgeRequest("b", "C", "p", (), 8)]))
    assert first.status == "ok" and judge.refused_run is None
    assert second.status == "error" and "gave up after 2 attempts" in second.error
    assert judge.calls == 3

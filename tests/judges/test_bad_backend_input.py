"""Bad input to the HTTP judges, through the real CLI: a missing key, a key or model the server
refuses, a provider extra that is not installed. Each is one line (exit 2) before or at the
first request, and no run folder is left behind."""

from __future__ import annotations

import sys

import pytest

from gridwm_judge.cli import main
from gridwm_judge.testing.stub_server import StubServer, http_error

KEY_VARS = ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY",
            "GRIDWM_API_KEY")



@pytest.fixture(autouse=True)
def _no_keys(monkeypatch):
    for name in KEY_VARS:
        monkeypatch.delenv(name, raising=False)


def _eval(api_smoke, out, judge, url):
    return main(["eval", "--dataset", str(api_smoke), "--out", str(out), "--no-progress",
                 "--tasks", "c,e", "--judge", judge, "--base-url", url, "--workers", "2"])


def _one_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(("api", "var"), [("anthropic", "ANTHROPIC_API_KEY"),
                                          ("gemini", "GEMINI_API_KEY or GOOGLE_API_KEY")])
def test_a_missing_key_is_one_line_and_nothing_is_sent(api, var, api_smoke, tmp_path, capsys):
    pytest.importorskip("anthropic" if api == "anthropic" else "google.genai")
    with StubServer(api=api) as server:
        assert _eval(api_smoke, tmp_path / "run", f"{api}:m", server.base_url) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("gridwm-judge eval: error:") and f"set {var}" in line
    assert server.requests == [] and not (tmp_path / "run").exists()


@pytest.mark.parametrize(("api", "status", "says"), [
    ("openai", 404, "no such model or endpoint"),
    ("anthropic", 404, "no such model or endpoint"),
    ("gemini", 404, "no such model or endpoint"),
    ("openai", 401, "the key was refused"),  # the SDK judges' 401: test_provider_judges.py
])
def test_a_model_or_key_the_server_refuses_stops_at_the_first_reply(
        api, status, says, api_smoke, tmp_path, capsys, monkeypatch):
    if api != "openai":
        pytest.importorskip("anthropic" if api == "anthropic" else "google.genai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-0123456789")
    monkeypatch.setenv("GEMINI_API_KEY", "g-0123456789")
    with StubServer(api=api) as server:
        server.script("", *[http_error(status)] * 50)
        assert _eval(api_smoke, tmp_path / "run", f"{api}:no-such-model", server.base_url) == 2
        asked = len(server.requests)
    line = _one_line(capsys.readouterr().err)
    assert says in line and f"HTTP {status}" in line
    assert asked <= 4  # the requests in flight (2 workers x 2 queued), not the whole run
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("api", "module", "extra"), [("anthropic", "anthropic", "anthropic"),
                                                      ("gemini", "google.genai", "gemini")])
def test_an_extra_not_installed_names_the_install_line(api, module, extra, api_smoke, tmp_path,
                                                       capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-0123456789")
    monkeypatch.setenv("GEMINI_API_KEY", "g-0123456789")
    assert _eval(api_smoke, tmp_path / "run", f"{api}:m", "http://127.0.0.1:9") == 2
    line = _one_line(capsys.readouterr().err)
    assert f'install it with: pip install -e ".[{extra}]" in a clone of https://' in line
    assert not (tmp_path / "run").exists()

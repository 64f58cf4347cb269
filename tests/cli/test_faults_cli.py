"""What every command shares: defaults in --help, one line for a mistyped flag or choice,
one line for an unreachable Hub dataset; and the helpers behind nothing-secret-on-disk and
whole-files-only (redaction, atomic writes)."""

from __future__ import annotations

import argparse
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gridwm_judge import atomic
from gridwm_judge.cli import build_parser, main
from gridwm_judge.redact import redact, redact_url, redact_value

ROOT = Path(__file__).resolve().parents[2]


def _subparsers(parser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                yield from _subparsers(sub)


def test_help_shows_every_default_once():
    parser = build_parser()
    for name, sub in _subparsers(parser):
        text = sub.format_help().split("\noptions:\n", 1)[1]
        for action in sub._actions:
            if (not action.option_strings or action.required or action.default is False
                    or isinstance(action, argparse._HelpAction)):
                continue
            flag = action.option_strings[-1]
            entry = re.search(rf"\n  [^\n]*?(?<![\w-]){re.escape(flag)}\b.*?(?=\n  -|\n\n|\Z)",
                              "\n" + text, re.S)
            assert entry, f"{name} {flag} not in help"
            n_defaults = entry.group(0).lower().count("default")
            assert n_defaults == 1, f"{name} {flag}: {n_defaults} defaults in {entry.group(0)!r}"


@pytest.mark.parametrize("command,flags", [
    ("eval", ["--workers", "--timeout", "--retries", "--batch-size", "--seed", "--rps"]),
    ("score", ["--n-resamples", "--seed"]),
    ("push", ["--revision"]),
    ("groups", ["--num-proc"]),
])
def test_the_defaults_the_issue_named_are_shown(command, flags, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for flag in flags:
        assert re.search(rf"{flag} [A-Z_]+ .*?default", text), (command, flag)
    assert "(default: (default" not in text


def test_a_mistyped_flag_is_one_line_with_the_close_match(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--dataset", "d", "--tasks", "c", "--judge", "baseline:always-yes",
              "--out", "o", "--wrokers", "3"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["gridwm-judge eval: error: unrecognized arguments: --wrokers 3 (did you mean "
                   "'--workers'?); see gridwm-judge eval --help"]


def _choice_options(parser: argparse.ArgumentParser):
    """(sub-command path, option, its choices) of every option with choices, sub-commands
    included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                for path, option, choices in _choice_options(sub):
                    yield [name, *path], option, choices
        elif action.choices and action.option_strings:
            yield [], action.option_strings[-1], list(action.choices)


def test_every_bad_choice_is_one_line(capsys):
    """Each sub-command's options with choices, given a mistyped one: one line naming the
    sub-command, the option, the valid choices and the close match, nothing else."""
    seen = set()
    for path, option, choices in _choice_options(build_parser()):
        wrong = choices[0][:-1] + "x" if len(choices[0]) > 2 else "zzz"
        with pytest.raises(SystemExit) as exc:
            main([*path, option, wrong])
        err = capsys.readouterr().err.splitlines()
        assert exc.value.code == 2 and len(err) == 1, (path, option, err)
        assert err[0].startswith(f"gridwm-judge {' '.join(path)}: error: argument {option}")
        assert f"invalid choice: '{wrong}'" in err[0] and err[0].endswith(" --help")
        seen.add((path[0], option))
    assert {("eval", "--representation"), ("eval", "--engine"), ("score", "--rules"),
            ("groups", "--cf")} <= seen
    with pytest.raises(SystemExit):
        main(["eval", "--representation", "compsite"])
    assert "(did you mean 'composite'?)" in capsys.readouterr().err


def test_an_unreachable_hub_dataset_is_one_line(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "gridwm_judge", "eval", "--dataset", "someone/no-such-dataset",
         "--tasks", "c", "--judge", "baseline:always-yes", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**_env(), "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")},
    )
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert "someone/no-such-dataset" in line and "HF_HUB_OFFLINE" in line
    assert "hf auth login" in line and "gridwm-judge build" in line
    assert not out.exists()


def test_a_hub_failure_of_any_kind_says_what_to_do(monkeypatch, capsys):
    import datasets

    def unreachable(*args, **kwargs):
        raise ConnectionError("Couldn't reach 'x/y' on the Hub (LocalEntryNotFoundError)")

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(datasets, "get_dataset_config_names", unreachable)
    code = main(["eval", "--dataset", "x/y", "--tasks", "c", "--judge", "baseline:always-yes",
                 "--out", "/nonexistent/never-made"])
    assert code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "go online" in line and "hf auth login" in line and "gridwm-judge build" in line


def _env():
    import os

    return {k: v for k, v in os.environ.items() if k != "HF_HUB_OFFLINE"}


@pytest.mark.parametrize("text,expected", [
    ("http://u:KEY123@host:8/v1", "http://***@host:8/v1"),
    ('{"error": "bad Authorization: Bearer sk-abc123"}', '{"error": "bad Authorization: ***"}'),
    ("{'Authorization': 'Basic dTpLRVkxMjM='}", "{'Authorization': '***'}"),
    ('{"api_key": "sk-1", "x": 1}', '{"api_key": "***", "x": 1}'),
    ("GET /v1?api_key=zzzz&b=1", "GET /v1?api_key=***&b=1"),
    ("hf_token=abcd, token: xyz9", "hf_token=***, token: ***"),
    ("X-Api-Key: k123", "X-Api-Key: ***"),
    ("max_tokens: 256, completion_tokens=3", "max_tokens: 256, completion_tokens=3"),
    ("openai:Qwen2.5-VL-7B", "openai:Qwen2.5-VL-7B"),
])
def test_redact(text, expected):
    assert redact(text) == expected


def test_redact_known_secrets_and_values(monkeypatch):
    monkeypatch.setenv("GRIDWM_API_KEY", "s3cr3t-value")
    assert redact("echo s3cr3t-value back") == "echo *** back"
    assert redact("a passphrase here", secrets=["passphrase"]) == "a *** here"
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")  # what local servers are given: not a secret
    assert redact("EMPTY reply") == "EMPTY reply"
    assert redact_url("http://host/v1") == "http://host/v1"
    manifest = {"operational": {"base_url": "https://me:pw@h/v1", "workers": 4}, "n": [1, "a"]}
    assert redact_value(manifest) == {
        "operational": {"base_url": "https://***@h/v1", "workers": 4}, "n": [1, "a"]}


def test_atomic_write_replaces_whole_and_keeps_permissions(tmp_path):
    target = tmp_path / "f.json"
    atomic.write_text(target, "one")
    atomic.write_bytes(target, b"two")
    assert target.read_bytes() == b"two"
    assert stat.S_IMODE(target.stat().st_mode) & 0o644 == 0o644
    with pytest.raises(RuntimeError), atomic.atomic_open(target) as fh:
        fh.write("half")
        raise RuntimeError("interrupted mid-write")
    assert target.read_text() == "two" and sorted(tmp_path.iterdir()) == [target]
    with pytest.raises(ValueError, match="mode"):
        with atomic.atomic_open(target, "a"):
            pass


@pytest.mark.parametrize("command", ["eval", "score"])
def test_a_mistyped_relative_dataset_is_refused_before_any_hub_lookup(command, tmp_path,
                                                                      monkeypatch, capsys):
    """A --dataset that is no folder here and not shaped ORG/NAME is a typo, not a Hub id:
    refused at once in one line (no lookup that retries), nothing written."""
    import datasets
    import huggingface_hub

    def asked(*args, **kwargs):
        raise AssertionError("the Hub was asked")

    monkeypatch.setattr(datasets, "get_dataset_config_names", asked)
    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", asked)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gwj").mkdir()
    args = {"eval": ["--tasks", "c", "--judge", "baseline:always-yes", "--out", "run"],
            "score": ["--predictions", "p.jsonl", "--out", "run"]}[command]
    (tmp_path / "p.jsonl").write_text("")
    code = main([command, "--dataset", "gwjj", *args])
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and len(err) == 1
    assert err[0] == (f"gridwm-judge {command}: error: no folder 'gwjj' here ({tmp_path}); a "
                      "Hub dataset is written ORG/NAME")
    assert not (tmp_path / "run").exists()

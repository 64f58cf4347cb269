"""command_line: how a sub-command declares the ways it stops, as cli.main reports them."""

from __future__ import annotations

import argparse
import errno

import pytest

from gridwm_judge import cli
from gridwm_judge.command_line import INTERRUPTED, add_command, options_of


def _err_lines(capsys) -> list[str]:
    return capsys.readouterr().err.strip().splitlines()


def test_add_command_records_the_runner_and_its_stops():
    sub = argparse.ArgumentParser().add_subparsers(dest="command")
    p = add_command(sub, "x", print, help="h", refused=(PermissionError,))
    args = p.parse_args([])
    assert (args.handler, args.refused, args.interrupted) == (print, (PermissionError,),
                                                              INTERRUPTED)


def test_a_refused_error_is_one_line_with_exit_2(monkeypatch, capsys):
    from gridwm_judge.integrations import hub_metrics

    def refuse(*args, **kwargs):
        raise PermissionError("no Hub login; run `hf auth login`")

    monkeypatch.setattr(hub_metrics, "push_metrics", refuse)
    assert cli.main(["push-metrics", "--namespace", "me"]) == cli.EXIT_BAD_INPUT
    assert _err_lines(capsys) == [
        "gridwm-judge push-metrics: error: no Hub login; run `hf auth login`"]


def test_a_permission_error_a_command_does_not_refuse_stays_an_os_error(monkeypatch, capsys):
    from gridwm_judge.worlds import commands

    def denied(**kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", kwargs["out"])

    monkeypatch.setattr(commands, "write_groups_jsonl", denied)
    code = cli.main(["groups", "--family", "doorkey", "--n", "1", "--out", "/no/x.jsonl"])
    assert code == cli.EXIT_OS_ERROR
    assert _err_lines(capsys) == ["gridwm-judge groups: error: Permission denied (/no/x.jsonl)"]


def test_an_interrupted_eval_says_what_it_keeps(monkeypatch, capsys, tmp_path):
    from gridwm_judge.runner import commands

    def interrupt(cfg):
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "run_eval", interrupt)
    code = cli.main(["eval", "--dataset", str(tmp_path), "--tasks", "c",
                     "--judge", "baseline:oracle", "--out", str(tmp_path / "run")])
    assert code == cli.EXIT_INTERRUPTED
    assert _err_lines(capsys) == [
        "gridwm-judge eval: interrupted; finished requests are saved, rerun to resume"]


def test_options_of_passes_parsed_values_by_name():
    args = argparse.Namespace(n=3, out="x.jsonl", seed=7)
    assert options_of(args, "n", "out") == {"n": 3, "out": "x.jsonl"}


def test_a_flag_is_taken_only_as_written(capsys, tmp_path):
    """No prefix matching: a shortened or mistyped flag is refused with the flag it is near,
    never read as another one (`eval --batch-s` is not `--batch-size`)."""
    parser = cli.build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert parser.allow_abbrev is False
    assert all(p.allow_abbrev is False for s in subs for p in s.choices.values())
    with pytest.raises(SystemExit) as stop:
        cli.main(["eval", "--dataset", str(tmp_path), "--tasks", "c", "--judge",
                  "baseline:oracle", "--out", str(tmp_path / "run"), "--batch-s", "3"])
    [line] = _err_lines(capsys)
    assert stop.value.code == 2 and "unrecognized arguments: --batch-s 3" in line
    assert "'--batch-size'" in line and not (tmp_path / "run").exists()

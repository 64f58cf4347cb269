"""Every flag of every sub-command is exercised by some test (issue 38), and the per-task token
budget flags, generated from the task table, each set exactly their own task's budget."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from gridwm_judge import cli
from gridwm_judge.runner import commands
from gridwm_judge.task_table import ALL_TASKS, task_spec

TESTS = Path(__file__).resolve().parents[1]
BUDGET_FAMILY = "--max-tokens-<task>"
"""The per-task budget flags, one entry for the scan: ``--max-tokens-c`` / ``--max-tokens-C``
and their like for every task of the table, covered by the parametrized test below."""


def _budget_flags() -> set[str]:
    return {f"--max-tokens-{name}" for s in ALL_TASKS for name in (s.name.lower(), s.name)}


def _flags() -> dict[str, list[str]]:
    """Sub-command -> its option strings (``--help`` left out), from the real parser."""
    parser = cli.build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {name: [opt for a in sp._actions for opt in a.option_strings
                   if opt not in ("-h", "--help")] for name, sp in sub.choices.items()}


def test_every_flag_is_used_by_some_test():
    text = "\n".join(f.read_text(encoding="utf-8") for f in sorted(TESTS.rglob("*.py"))
                     if f.resolve() != Path(__file__).resolve())
    family = _budget_flags()
    flags = _flags()
    # the family is exactly the budget flags eval has: a per-task flag made some other way
    # (or one the table no longer makes) is not hidden by it
    assert {f for f in flags["eval"] if f.startswith("--max-tokens-")} == family
    unused = []
    for command, options in flags.items():
        for opt in options:
            if opt in family or re.search(re.escape(opt) + r"(?![\w-])", text):
                continue
            unused.append(f"{command} {opt}")
    assert not unused, (f"flags no test mentions (the {BUDGET_FAMILY} family is covered "
                        "here): " + ", ".join(unused))


def _eval_config(monkeypatch, tmp_path: Path, *flags: str):
    """The EvalConfig ``gridwm-judge eval`` builds from its flags (what it would run with);
    ``run_eval`` itself is replaced, so nothing is read or asked."""
    seen = []

    def fake_run_eval(cfg, engine=None):
        seen.append(cfg)
        return SimpleNamespace(dropped_partial_bytes=0, errors=0, line=lambda: "faked")

    monkeypatch.setattr(commands, "run_eval", fake_run_eval)
    code = cli.main(["eval", "--dataset", str(tmp_path / "data"), "--tasks", "c",
                     "--judge", "baseline:always-yes", "--out", str(tmp_path / "run"),
                     "--no-progress", *flags])
    assert code == 0
    [cfg] = seen
    cfg.check()  # the run's own check accepts it
    return cfg


@pytest.mark.parametrize("spelling", ["lower", "upper"])
@pytest.mark.parametrize("task", [s.name for s in ALL_TASKS])
def test_a_per_task_budget_flag_sets_that_task_s_budget_only(task, spelling, monkeypatch,
                                                             tmp_path, capsys):
    spec = task_spec(task)
    flag = f"--max-tokens-{task.lower() if spelling == 'lower' else task}"
    n = spec.max_tokens + 37  # no task's default
    defaults = {s.name: s.max_tokens for s in ALL_TASKS}
    assert n not in defaults.values()
    cfg = _eval_config(monkeypatch, tmp_path, flag, str(n))
    assert dict(cfg.max_tokens) == {**defaults, task: n}
    assert cfg.budget(task) == n  # what each request of the task is sent as its limit
    for style, st in spec.styles.items():  # a prompt style's budget scales the task's
        assert cfg.budget(task, style) == st.budget_factor * n
    others = [s.name for s in ALL_TASKS if s.name != task]
    assert all(cfg.budget(t) == defaults[t] for t in others)
    capsys.readouterr()


def test_without_budget_flags_every_task_has_the_table_s_budget(monkeypatch, tmp_path):
    cfg = _eval_config(monkeypatch, tmp_path)
    assert dict(cfg.max_tokens) == {s.name: s.max_tokens for s in ALL_TASKS}


@pytest.mark.parametrize("value", ["0", "-5"])
def test_a_budget_that_is_not_positive_is_one_line(value, tmp_path, capsys):
    code = cli.main(["eval", "--dataset", str(tmp_path / "none"), "--tasks", "c",
                     "--judge", "baseline:always-yes", "--out", str(tmp_path / "run"),
                     "--no-progress", "--max-tokens-c", value])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert f"max tokens for task C must be positive, got {value}" in err
    assert not (tmp_path / "run").exists()

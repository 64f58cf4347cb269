"""A build says what it is doing before its longest silent step (drawing the groups: tens of
seconds for MiniWorld), not only when it ends."""

from __future__ import annotations

from gridwm_judge.cli import main


def test_the_build_says_it_is_generating_groups_before_it_does(tmp_path, capsys):
    assert main(["build", "--profile", "smoke", "--configs", "task_b", "--num-proc", "1",
                 "--out", str(tmp_path / "b")]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("generating the trajectory groups ...")
    done = next(i for i, line in enumerate(lines) if line.startswith("generated groups in "))
    assert start < done

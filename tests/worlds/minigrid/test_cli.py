"""`gridwm-judge groups`: output file, determinism, and bad input that writes nothing."""

import json

import pytest

from gridwm_judge.cli import main
from gridwm_judge.worlds.minigrid import TrajectoryGroup
from gridwm_judge.worlds.minigrid.audit import read_groups_jsonl
from gridwm_judge.worlds.minigrid.cards import FAMILIES


def run(*args):
    return main(["groups", *args])


def test_writes_one_replayable_line_per_group(tmp_path, capsys):
    out = tmp_path / "g.jsonl"
    assert run("--family", "multiroom", "--n", "3", "--seed", "830000", "--out", str(out)) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 3
    rec = json.loads(lines[0])
    assert {"group_id", "family", "env_id", "seed", "mission", "actions", "variants",
            "validators"} <= set(rec)
    assert set(rec["variants"]) == {"full", "nocue", "cf"}
    assert "mask" in rec["variants"]["nocue"] and "intervention" in rec["variants"]["cf"]
    groups = read_groups_jsonl(out)
    assert [g.seed for g in groups] == sorted(g.seed for g in groups)
    assert all(isinstance(g, TrajectoryGroup) and g.valid for g in groups)
    assert "valid    3" in capsys.readouterr().out
    assert not list(tmp_path.glob(".*.tmp")), "temporary file left behind"


def test_byte_identical_output_also_with_two_processes(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    args = ["--family", "all", "--n", "1", "--seed", "42"]
    assert run(*args, "--out", str(a)) == 0
    assert run(*args, "--out", str(b)) == 0
    assert a.read_bytes() == b.read_bytes()
    assert len(a.read_text().splitlines()) == len(FAMILIES)  # one group of each
    c, d = tmp_path / "c.jsonl", tmp_path / "d.jsonl"
    args = ["--family", "lavagap", "--n", "6", "--seed", "830000"]  # includes rejected seeds
    assert run(*args, "--out", str(c)) == 0
    assert run(*args, "--out", str(d), "--num-proc", "2") == 0
    assert c.read_bytes() == d.read_bytes()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--family", "nope", "--n", "1"], "doorkey, keycorridor, redbluedoor"),
        (["--family", "doorkey", "--n", "0"], "positive"),
        (["--family", "doorkey", "--n", "1", "--seed", "-1"], "non-negative"),
        (["--family", "doorkey", "--n", "1", "--env-id", "MiniGrid-X-v0"], "MiniGrid-DoorKey"),
        (["--family", "all", "--n", "1", "--env-id", "MiniGrid-DoorKey-5x5-v0"], "single"),
    ],
)
def test_bad_input_is_one_clear_line_and_writes_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "g.jsonl"
    assert run(*args, "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert err.startswith("gridwm-judge groups: error:") and message in err
    assert list(tmp_path.iterdir()) == []


def test_existing_file_needs_overwrite(tmp_path, capsys):
    out = tmp_path / "g.jsonl"
    out.write_text("keep me\n")
    assert run("--family", "doorkey", "--n", "1", "--out", str(out)) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert out.read_text() == "keep me\n"
    assert run("--family", "doorkey", "--n", "1", "--out", str(out), "--overwrite") == 0
    assert json.loads(out.read_text().splitlines()[0])["family"] == "doorkey"


def test_family_help_lists_every_card(capsys):
    from gridwm_judge.worlds.minigrid import ENV_CARDS

    with pytest.raises(SystemExit):
        main(["groups", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"one of {', '.join(ENV_CARDS)}, or 'all'" in text


def test_unknown_family_names_both_worlds(tmp_path, capsys):
    from gridwm_judge.cli import main

    out = tmp_path / "g.jsonl"
    assert main(["groups", "--family", "bogus", "--n", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "doorkey" in err and "tmaze" in err and "'miniworld'" in err
    assert not out.exists()

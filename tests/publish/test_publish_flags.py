"""``publish --benchmark-revision`` and ``--no-pr`` and ``leaderboard --headline`` by what they
do, on the session's quickstart runs (read only): the revision lands in every ``.eval_results``
entry, ``--no-pr`` turns the model repo's pull request into a direct commit (the Hub's calls
recorded through a patched ``HfApi``, nothing sent), ``--headline`` picks the figure the
leaderboard ranks by."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from gridwm_judge.cli import main
from gridwm_judge.publish.eval_results import EVAL_RESULTS_FILE


@pytest.fixture(scope="module")
def runs(quickstart_run) -> Path:
    return quickstart_run.result.out / "runs"


def _entries(out: Path) -> list[dict]:
    return yaml.safe_load((out / "model" / EVAL_RESULTS_FILE).read_text())


def _publish_local(runs: Path, out: Path, *flags: str) -> int:
    return main(["publish", str(runs / "random"), "--results-repo", "me/r", "--model-repo",
                 "me/m", "--benchmark-repo", "me/gwj", "--local", str(out), *flags])


def test_benchmark_revision_is_each_eval_results_entry_s_dataset_revision(runs, tmp_path,
                                                                          capsys):
    assert _publish_local(runs, tmp_path / "with", "--benchmark-revision", "abc1234") == 0
    assert _publish_local(runs, tmp_path / "without") == 0
    capsys.readouterr()
    given, plain = _entries(tmp_path / "with"), _entries(tmp_path / "without")
    assert len(given) == len(plain) > 1
    assert {e["dataset"]["revision"] for e in given} == {"abc1234"}
    assert all(e["dataset"]["id"] == "me/gwj" for e in given)
    assert not any("revision" in e["dataset"] for e in plain)  # unknown: not made up
    # the revision changes nothing else of an entry
    for e in given:
        del e["dataset"]["revision"]
    assert given == plain
    # and a dry run shows it in the file it would send
    assert main(["publish", str(runs / "random"), "--results-repo", "me/r", "--model-repo",
                 "me/m", "--benchmark-repo", "me/gwj", "--benchmark-revision", "abc1234",
                 "--dry-run"]) == 0
    assert "revision: abc1234" in capsys.readouterr().out


def test_a_revision_with_nowhere_to_go_is_refused(runs, tmp_path, capsys):
    code = main(["publish", str(runs / "random"), "--results-repo", "me/r",
                 "--benchmark-revision", "abc1234", "--local", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--benchmark-revision" in err


@pytest.fixture()
def hub(monkeypatch) -> list[dict]:
    """The Hub as publish sees it through ``HfApi``: a token, the model repo exists, the
    results repo is new; each commit is recorded (its keyword arguments) and never sent."""
    import huggingface_hub

    commits: list[dict] = []

    class Info:
        def __init__(self, kw):
            self.commit_url = f"https://huggingface.co/{kw['repo_id']}/commit/1"
            self.pr_url = (f"https://huggingface.co/{kw['repo_id']}/discussions/1"
                           if kw.get("create_pr") else None)

    def create_commit(self, **kw):
        commits.append(kw)
        return Info(kw)

    monkeypatch.setattr(huggingface_hub, "get_token", lambda: "hf_x")
    monkeypatch.setattr(huggingface_hub.HfApi, "repo_exists", lambda self, *a, **k: True)
    monkeypatch.setattr(huggingface_hub.HfApi, "list_repo_files", lambda self, *a, **k: [])
    monkeypatch.setattr(huggingface_hub.HfApi, "create_repo", lambda self, *a, **k: None)
    monkeypatch.setattr(huggingface_hub.HfApi, "create_commit", create_commit)
    return commits


@pytest.mark.parametrize("no_pr", [False, True])
def test_no_pr_commits_the_eval_results_directly_instead_of_a_pull_request(
        no_pr, runs, hub, capsys):
    flags = ["--no-pr"] if no_pr else []
    assert main(["publish", str(runs / "random"), "--results-repo", "me/r", "--model-repo",
                 "me/m", "--benchmark-repo", "me/gwj", *flags]) == 0
    out = capsys.readouterr().out
    results, model = hub
    assert results["repo_id"] == "me/r" and "create_pr" not in results  # always a commit
    assert model["repo_id"] == "me/m" and model["repo_type"] == "model"
    assert model["create_pr"] is (not no_pr)
    assert [op.path_in_repo for op in model["operations"]] == [EVAL_RESULTS_FILE]
    if no_pr:
        assert "committed the model's .eval_results on https://huggingface.co/me/m/commit/1" \
            in out
    else:
        assert "opened the model's .eval_results on https://huggingface.co/me/m/discussions/1" \
            in out


def test_a_dry_run_says_whether_it_would_open_a_pull_request(runs, monkeypatch, capsys):
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    base = ["publish", str(runs / "random"), "--results-repo", "me/r", "--model-repo", "me/m",
            "--benchmark-repo", "me/gwj", "--dry-run"]
    assert main(base) == 0
    assert "would open a pull request on model repo me/m" in capsys.readouterr().out
    assert main([*base, "--no-pr"]) == 0
    out = capsys.readouterr().out
    assert "would open a direct commit on model repo me/m" in out and "pull request" not in out


# -- leaderboard --headline -----------------------------------------------------------------

BOARD = ("random", "pixel-heuristic", "always-yes")


def _board(runs: Path, out: Path, *flags: str) -> tuple[list[tuple[str, str]], str, str]:
    """The ranked rows (rank, judge) of leaderboard.md, its header and the HTML page."""
    code = main(["leaderboard", *(str(runs / n) for n in BOARD), "--out", str(out), *flags])
    assert code == 0
    md = (out / "leaderboard.md").read_text()
    lines = [ln for ln in md.splitlines() if ln.startswith("| ")]
    rows = [cells for cells in ([c.strip() for c in ln.strip("|").split("|")] for ln in lines)
            if cells[0].isdigit()]
    ranked = [(cells[0], re.sub(r"^\[(.*?)\]\(.*\)$", r"\1", cells[1])) for cells in rows]
    return ranked, lines[0], (out / "index.html").read_text()


@pytest.mark.parametrize(("headline", "ranking"), [
    (None, [("1", "baseline:pixel-heuristic"), ("2", "baseline:random"),
            ("3", "baseline:always-yes")]),  # the hard counterfactuals' IDR_raw
    ("task_c-idr_raw", [("1", "baseline:random"), ("2", "baseline:pixel-heuristic"),
                        ("3", "baseline:always-yes")]),
    ("task_c_hard-jacc_neu", [("1", "baseline:always-yes"), ("2", "baseline:random"),
                              ("3", "baseline:pixel-heuristic")]),
])
def test_headline_picks_the_figure_the_judges_are_ranked_by(headline, ranking, runs, tmp_path,
                                                            capsys):
    flags = ["--headline", headline] if headline else []
    ranked, header, html = _board(runs, tmp_path / "board", *flags)
    capsys.readouterr()
    by = headline or "task_c_hard-idr_raw"
    assert ranked == ranking
    # the ranked figure is the first column, named under the table and in the page
    assert header.split("|")[4].strip() == by
    assert f"Ranked by {by}:" in (tmp_path / "board" / "leaderboard.md").read_text()
    assert f'data-primary="{by}"' in html


@pytest.mark.parametrize("headline", ["nope", "miniworld_c-idr_raw"])
def test_a_headline_the_runs_do_not_have_is_one_line(headline, runs, tmp_path, capsys):
    code = main(["leaderboard", str(runs / "random"), "--out", str(tmp_path / "board"),
                 "--headline", headline])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert f"unknown headline {headline!r}; expected one of " in err and "task_c-idr_raw" in err
    assert not (tmp_path / "board").exists()


def test_no_pr_without_a_model_repo_is_refused(runs, tmp_path, capsys):
    code = main(["publish", str(runs / "random"), "--results-repo", "me/r", "--no-pr",
                 "--local", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--no-pr" in err and "--model-repo" in err
    assert not (tmp_path / "out").exists()

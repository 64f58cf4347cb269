"""A release copy and one import of it, shared by the release tests (see release_copy.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from release_copy import make_release  # noqa: E402

from gridwm_judge.release import import_paper  # noqa: E402


@pytest.fixture(scope="session")
def release(tmp_path_factory) -> Path:
    return make_release(tmp_path_factory.mktemp("release") / "Towards-Reliable-VLM-Judges",
                        drawn=True)


@pytest.fixture(scope="session")
def imported(release, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("imported") / "paper"
    import_paper(release, out)
    return out


@pytest.fixture(scope="session")
def published_scores(imported, tmp_path_factory):
    """The ten published runs scored with the parse they were published with."""
    from gridwm_judge.scoring import read_scores
    from gridwm_judge.scoring.score import score

    out = tmp_path_factory.mktemp("published_scores")
    preds = sorted((imported / "runs" / "published").glob("*/predictions.jsonl"))
    score(str(imported), preds, out, rules="published")
    return read_scores(out / "scores.json")

"""The leaderboard's two trips to the Hub: fetch a results repo's tables, and publish the page
as a static Space. The seam is an ``HfApi``-like object, as everywhere the package meets the
Hub; tests replace it with a recording fake."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gridwm_judge.dataset.push import check_repo_id, hub_client
from gridwm_judge.dataset_io import go_online, hub_transport_errors
from gridwm_judge.publish.entries import PublishError
from gridwm_judge.publish.results_repo import MARKER

SPACE_FILES = ("index.html", "leaderboard.md")
"""What a leaderboard Space holds besides its card: never anything else of the folder."""
TABLE_FILES = (MARKER, "data/results/*.parquet", "data/runs/*.parquet", "data/groups/*.parquet")
"""What a leaderboard reads of a results repo (never its predictions)."""
SPACE_README = """---
title: GridWM-Judge leaderboard
sdk: static
app_file: index.html
tags:
- gridwm-judge
- leaderboard
---
"""


def fetch_results_repo(repo_id: str, *, api: Any = None) -> Path:
    """A local snapshot of the Hub results repo ``repo_id``'s tables (a folder the leaderboard
    reads as any results repo folder)."""
    try:
        check_repo_id(repo_id)
    except ValueError:
        raise PublishError(f"{repo_id!r} is no folder here, and not a Hub results repo id "
                           "(ORG/NAME)") from None
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    from huggingface_hub.errors import (
        LocalEntryNotFoundError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
    )

    try:
        path = Path(api.snapshot_download(repo_id, repo_type="dataset",
                                          allow_patterns=list(TABLE_FILES)))
    except RepositoryNotFoundError:
        raise PublishError(f"{repo_id!r} is no folder here, and no dataset repo of that id is "
                           "on the Hub (or this token cannot see it)") from None
    except (LocalEntryNotFoundError, OfflineModeIsEnabled, *hub_transport_errors()) as exc:
        raise PublishError(f"{repo_id!r} is no folder here, and the Hugging Face Hub cannot "
                           f"be reached to read it as a results repo ({type(exc).__name__}); "
                           f"{go_online()} and try again") from None
    if not (path / MARKER).is_file():
        raise PublishError(f"dataset repo {repo_id} holds no {MARKER}: it is not a "
                           "GridWM-Judge results repo")
    return path


@dataclass(frozen=True)
class SpaceUpload:
    repo_id: str
    files: tuple[str, ...]
    url: str


def push_space(folder: str | Path, repo_id: str, *, token: str | None = None,
               api: Any = None) -> SpaceUpload:
    """Publish the leaderboard in ``folder`` (its index.html and leaderboard.md, nothing else
    the folder holds) as the static Space ``repo_id``, created if needed, in one commit with a
    Space card."""
    from huggingface_hub import CommitOperationAdd

    check_repo_id(repo_id)
    folder = Path(folder)
    files = {name: folder / name for name in SPACE_FILES if (folder / name).is_file()}
    if "index.html" not in files:
        raise PublishError(f"{folder} holds no index.html; write the leaderboard first")
    api, token = hub_client(api, token)
    ops = [CommitOperationAdd(path_in_repo="README.md", path_or_fileobj=SPACE_README.encode()),
           *(CommitOperationAdd(path_in_repo=name, path_or_fileobj=str(path))
             for name, path in files.items() if name != "README.md")]
    try:
        api.create_repo(repo_id, repo_type="space", space_sdk="static", token=token,
                        exist_ok=True)
        info = api.create_commit(repo_id=repo_id, repo_type="space", token=token,
                                 operations=ops,
                                 commit_message="Update the GridWM-Judge leaderboard")
    except hub_transport_errors() as exc:
        raise PublishError(f"cannot reach the Hugging Face Hub to push Space {repo_id!r} "
                           f"({type(exc).__name__}); {go_online()} and try again") from exc
    url = str(getattr(info, "commit_url", "") or f"https://huggingface.co/spaces/{repo_id}")
    return SpaceUpload(repo_id, tuple(op.path_in_repo for op in ops), url)

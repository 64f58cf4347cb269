"""Upload a built dataset folder to the Hugging Face Hub in one commit.

The seam is thin on purpose: :func:`push_folder` checks the folder and the credentials, then
calls ``create_repo`` (and ``create_branch`` for a revision) and one ``create_commit`` on an
``HfApi``-like object, which tests replace with a recording fake. The commit adds every file of
the folder (hidden ones excepted) and the benchmark's ``eval.yaml``, generated from the task
table for the configs the folder holds (:func:`gridwm_judge.headlines.eval_yaml`), unless the
folder has its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gridwm_judge.dataset_io import SPLIT, go_online, hub_transport_errors
from gridwm_judge.headlines import EVAL_YAML, eval_yaml
from gridwm_judge.task_table import is_task

LOGIN_HELP = (
    "no Hugging Face token found; log in with `hf auth login` (or `huggingface-cli login`), "
    "or set the HF_TOKEN environment variable to a token with write access "
    "(https://huggingface.co/settings/tokens)"
)
_REPO_ID = re.compile(r"^[\w.-]+/[\w.-]+$")


class HubUnreachableError(ValueError):
    """The Hub could not be reached (offline, no network); nothing was uploaded."""


@dataclass(frozen=True)
class PushResult:
    repo_id: str
    revision: str | None
    commit: str
    url: str


def check_folder(folder: Path) -> None:
    """A pushable folder holds README.md and data/<config>/*.parquet from ``gridwm-judge build``."""
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} is not a folder; build one with `gridwm-judge build`")
    missing = [name for name in ("README.md", "data") if not (folder / name).exists()]
    if missing or not any((folder / "data").glob("*/*.parquet")):
        raise FileNotFoundError(
            f"{folder} is not a built dataset "
            f"(missing {', '.join(missing) or 'data/*/*.parquet'}); "
            "build one with `gridwm-judge build`"
        )


def _operations(folder: Path, plan: PushPlan) -> list[Any]:
    """One add per file of ``plan``: the generated ``eval.yaml`` from its text, every other
    file from disk. Hidden files and folders (a build's leftovers, caches) are never among
    them."""
    from huggingface_hub import CommitOperationAdd

    return [CommitOperationAdd(path_in_repo=name, path_or_fileobj=(
                plan.eval_yaml.encode() if name == EVAL_YAML and plan.eval_yaml is not None
                else str(folder / name)))
            for name, _ in plan.files]


@dataclass(frozen=True)
class PushPlan:
    """What ``push --dry-run`` reports: the files one commit would upload (``eval.yaml``
    among them), and the generated ``eval.yaml``'s text (None where the folder has its own)."""

    repo_id: str
    revision: str | None
    files: tuple[tuple[str, int], ...]
    token_found: bool
    eval_yaml: str | None = None

    @property
    def bytes(self) -> int:
        return sum(n for _, n in self.files)


def folder_configs(folder: Path) -> list[str]:
    """The configs a built folder holds (``data/<config>/*.parquet``) that the task table
    knows, in name order."""
    return sorted(d.name for d in (folder / "data").iterdir()
                  if d.is_dir() and any(d.glob("*.parquet")) and is_task(d.name))


def plan_push(folder: str | Path, repo_id: str, *, revision: str | None = None) -> PushPlan:
    """The checks of :func:`push_folder` and the files it would upload, without the Hub."""
    folder = Path(folder)
    check_repo_id(repo_id)
    check_folder(folder)
    from huggingface_hub import get_token

    files = tuple((p.relative_to(folder).as_posix(), p.stat().st_size)
                  for p in sorted(folder.rglob("*")) if p.is_file()
                  and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    generated = None
    if not (folder / EVAL_YAML).is_file():
        generated = eval_yaml(folder_configs(folder), SPLIT)
        files += ((EVAL_YAML, len(generated.encode())),)
    return PushPlan(repo_id, revision, files, token_found=bool(get_token()),
                    eval_yaml=generated)


def hub_client(api: Any = None, token: str | None = None) -> tuple[Any, str]:
    """The ``HfApi`` to call (``api``, else a new one) and the token (``token``, else the
    logged-in one); no token is a PermissionError saying how to log in."""
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    if token is None:
        from huggingface_hub import get_token

        token = get_token()
    if not token:
        raise PermissionError(LOGIN_HELP)
    return api, token


def check_repo_id(repo_id: str) -> None:
    if not _REPO_ID.match(repo_id):
        raise ValueError(f"bad repo id {repo_id!r}; expected USER/NAME or ORG/NAME")


def push_folder(folder: str | Path, repo_id: str, *, private: bool = False,
                revision: str | None = None, token: str | None = None,
                api: Any = None) -> PushResult:
    """Create ``repo_id`` (a dataset repo) if needed and upload ``folder`` with its
    ``eval.yaml`` in one commit."""
    folder = Path(folder)
    plan = plan_push(folder, repo_id, revision=revision)
    api, token = hub_client(api, token)
    try:
        api.create_repo(repo_id, token=token, private=private, repo_type="dataset",
                        exist_ok=True)
        if revision is not None:
            api.create_branch(repo_id, branch=revision, token=token, repo_type="dataset",
                              exist_ok=True)
        info = api.create_commit(
            repo_id=repo_id, operations=_operations(folder, plan), repo_type="dataset",
            revision=revision, token=token,
            commit_message="Upload GridWM-Judge dataset (gridwm-judge build)",
        )
    except hub_transport_errors() as exc:
        raise HubUnreachableError(
            f"cannot reach the Hugging Face Hub to push {repo_id!r} "
            f"({type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}); "
            f"{go_online()} and run the push again"
        ) from exc
    commit = str(getattr(info, "oid", "") or "")
    url = str(getattr(info, "commit_url", "") or f"https://huggingface.co/datasets/{repo_id}")
    return PushResult(repo_id=repo_id, revision=revision, commit=commit, url=url)

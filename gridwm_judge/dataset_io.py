"""Load one task config of a built dataset (local folder or Hub repo) and fingerprint it.

The builder writes the scriptless Hub layout (``data/<config>/test-*.parquet`` plus a
README.md whose YAML header has a ``configs:`` block), so ``datasets.load_dataset`` reads a
local folder and a Hub repo the same way; no loading script is ever involved. The fingerprint
goes into every run's ``run.json`` so predictions can be traced to the exact data they scored.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import re
import sys
from pathlib import Path

from gridwm_judge.locks import hold_shared

SPLIT = "test"
_FINGERPRINT_FILES = ("README.md", "validation.json")


class DatasetUnreachableError(ValueError):
    """A Hub dataset id that cannot be read (offline, not logged in, no such repo)."""


def hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def go_online() -> str:
    """How to reach the Hub again: unset HF_HUB_OFFLINE only where it is set."""
    return ("go online (unset HF_HUB_OFFLINE)" if hub_offline()
            else "go online (check the network connection and any proxy, HTTPS_PROXY)")


def _hub_error(dataset: str, exc: BaseException) -> DatasetUnreachableError:
    why = ("HF_HUB_OFFLINE is set" if hub_offline()
           else f"{type(exc).__name__}: {exc}".splitlines()[0])
    return DatasetUnreachableError(
        f"dataset {dataset!r} is not a local folder and cannot be read from the Hugging Face "
        f"Hub ({why[:200]}); {go_online()}, log in with `hf auth login` "
        "if the repo is private or gated, or give the path of a folder made by "
        "`gridwm-judge build`"
    )


def hub_transport_errors() -> tuple[type[BaseException], ...]:
    """What the Hub client raises when the Hub cannot be reached at all (offline, no network).

    Offline mode is a ConnectionError; a failed connection is the transport error of the HTTP
    library ``huggingface_hub`` uses (``httpx2`` in recent versions, ``httpx`` before).
    """
    found: list[type[BaseException]] = [ConnectionError, TimeoutError]
    for name in ("httpx2", "httpx"):
        try:
            found.append(importlib.import_module(name).TransportError)
        except (ImportError, AttributeError):
            pass
    return tuple(found)


def _hub_errors() -> tuple[type[BaseException], ...]:
    """What the Hub clients raise when a repo cannot be reached or read."""
    from huggingface_hub import errors as hub

    found: list[type[BaseException]] = [*hub_transport_errors(), hub.HfHubHTTPError,
                                         hub.OfflineModeIsEnabled, hub.LocalEntryNotFoundError]
    try:
        from datasets.exceptions import DatasetNotFoundError

        found.append(DatasetNotFoundError)
    except ImportError:
        pass
    return tuple(found)


def _from_hub(dataset: str, call, *args, **kwargs):
    """``call(*args, **kwargs)`` for a Hub dataset, its reach failures as one clear error."""
    try:
        return call(*args, **kwargs)
    except _hub_errors() as exc:
        raise _hub_error(dataset, exc) from exc


HUB_ID = re.compile(r"^[\w-][\w.-]*/[\w.-]+$")
"""The shape of a Hub dataset id: ``ORG/NAME``."""


def check_dataset(dataset: str) -> None:
    """A dataset that is no local folder and not shaped like a Hub id (a mistyped relative
    folder, say) is a FileNotFoundError at once, not a Hub lookup that retries."""
    path = Path(dataset)
    if path.is_dir():
        return
    if path.exists():
        raise FileNotFoundError(f"dataset folder {dataset!r} is a file, not a dataset folder")
    if not HUB_ID.match(dataset):
        raise FileNotFoundError(f"no folder {dataset!r} here ({Path.cwd()}); a Hub dataset is "
                                "written ORG/NAME")


def available_configs(dataset: str) -> list[str]:
    """Config names a dataset offers (from its card's ``configs:`` block, or its data/ folders)."""
    check_dataset(dataset)
    path = Path(dataset)
    if path.is_dir():
        names = _card_configs(path / "README.md")
        if not names and (path / "data").is_dir():
            names = [p.name for p in (path / "data").iterdir() if p.is_dir()]
        return sorted(names)
    import datasets

    return sorted(_from_hub(dataset, datasets.get_dataset_config_names, dataset))


def _card_configs(readme: Path) -> list[str]:
    if not readme.is_file():
        return []
    text = readme.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return []
    end = text.find("\n---", 3)
    if end < 0:
        return []
    import yaml

    try:
        meta = yaml.load(text[3:end], Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    except yaml.YAMLError:
        return []
    configs = meta.get("configs") if isinstance(meta, dict) else None
    if not isinstance(configs, list):
        return []
    return [c["config_name"] for c in configs if isinstance(c, dict) and "config_name" in c]


def load_task(dataset: str, config: str):
    """The ``test`` split of ``config`` (e.g. "task_c") as a ``datasets.Dataset``.

    ``dataset`` is a local folder in the scriptless Hub layout or a Hub repo id. A config the
    dataset does not have is a ValueError that lists the configs it has.
    """
    path = Path(dataset)
    if not path.is_dir() and (
        path.is_absolute() or dataset.startswith((".", "~")) or path.exists()
    ):
        what = "is a file, not a dataset folder" if path.exists() else "does not exist"
        raise FileNotFoundError(f"dataset folder {dataset!r} {what}")
    configs = available_configs(dataset)   # a name that is neither folder nor ORG/NAME: refused
    if config not in configs:
        have = ", ".join(configs) if configs else "none"
        hint = ""
        if not configs and path.is_dir() and available_configs(str(path.parent)):
            hint = (f"; {dataset!r} is inside a built dataset: give its folder "
                    f"{str(path.parent)!r}")
        raise ValueError(f"dataset {dataset!r} has no config {config!r}; it has: {have}{hint}")
    import datasets

    with bars_only_on_a_terminal(datasets):
        if path.is_dir():
            cache_dir = _content_cache_dir(path, config)
            hold_cached_copy(cache_dir)
            return datasets.load_dataset(str(path), config, split=SPLIT, cache_dir=cache_dir)
        return _from_hub(dataset, datasets.load_dataset, dataset, config, split=SPLIT)


@contextlib.contextmanager
def bars_only_on_a_terminal(datasets):
    """No ``datasets`` progress bars when stderr is a file or pipe (they become long lines)."""
    if sys.stderr.isatty() or datasets.are_progress_bars_disabled():
        yield
        return
    datasets.disable_progress_bars()
    try:
        yield
    finally:
        datasets.enable_progress_bars()


def dataset_provenance(dataset: str) -> dict:
    """Seeds, profile and versions the builder recorded in a local ``validation.json``.

    Best effort ({} for a Hub repo id or a folder without the file): it is copied into each
    run's run.json so a run names the generation and sampling seeds of the data it used.
    """
    path = Path(dataset) / "validation.json"
    if not path.is_file():
        return {}
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return {}
    if not isinstance(meta, dict):
        return {}
    keys = ("seeds", "profile", "prompt_version", "package_version", "dataset_version",
            "nocue_style", "ok")
    return {k: meta[k] for k in keys if k in meta}


def _content_hash(root: Path, files: list[Path]) -> str:
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.relative_to(root).as_posix().encode() + b"\0")
        with f.open("rb") as fh:
            for chunk in iter(lambda fh=fh: fh.read(1 << 20), b""):
                h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()


CACHE_SUBDIR = "gridwm-judge"
_HELD: dict[str, int | None] = {}


def package_cache_root() -> Path:
    """Where this package's Arrow copies of local configs live in the ``datasets`` cache."""
    import datasets.config

    return Path(datasets.config.HF_DATASETS_CACHE) / CACHE_SUBDIR


def cached_copy_lock(cache_dir: str | Path) -> Path:
    return Path(f"{cache_dir}.lock")


def hold_cached_copy(cache_dir: str) -> None:
    """Share-lock a cached copy for the rest of this process, which may read it (memory-
    mapped): ``gridwm-judge cache --clear`` leaves a copy alone while anyone holds it."""
    if cache_dir in _HELD:
        return
    Path(cache_dir).parent.mkdir(parents=True, exist_ok=True)
    _HELD[cache_dir] = hold_shared(cached_copy_lock(cache_dir))


def _content_cache_dir(path: Path, config: str) -> str:
    """Where ``datasets`` keeps its Arrow copy of a local config: a folder named by the
    content of the config's files and the card. ``datasets`` keys its own cache on the folder
    name and reuses a stale copy when a folder is rebuilt with other rows (huggingface/datasets
    #2956), which would have the judge asked, and scored on, the previous build's items."""

    data = path / "data" / config
    files = [f for f in (data if data.is_dir() else path / "data").rglob("*") if f.is_file()]
    files += [path / "README.md"] if (path / "README.md").is_file() else []
    key = _content_hash(path, files)[:32]
    return str(package_cache_root() / key)


def dataset_fingerprint(dataset: str) -> str:
    """A content hash of a local dataset folder, or the commit sha of a Hub dataset repo."""
    check_dataset(dataset)
    path = Path(dataset)
    if path.is_dir():
        files = sorted(path.glob("data/**/*.parquet"))
        files += [path / name for name in _FINGERPRINT_FILES if (path / name).is_file()]
        return f"sha256:{_content_hash(path, files)}"
    from huggingface_hub import HfApi

    return f"hub:{dataset}@{_from_hub(dataset, HfApi().dataset_info, dataset).sha}"

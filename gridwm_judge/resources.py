"""Locate the folders that ship beside the library: evaluate metric modules, the dataset
builder and the dataset-card template.

In a checkout they are top-level folders (`metrics/`, `builder/`, `dataset_card/`); in an
installed wheel they are bundled under `gridwm_judge/_bundled/`, so no generic top-level
import name (`metrics`, `builder`) lands in site-packages.
"""

from __future__ import annotations

from pathlib import Path

_KINDS = ("metrics", "builder", "dataset_card")


def resource_path(kind: str, name: str | None = None) -> Path:
    """Path of a shipped folder, e.g. ``resource_path("metrics", "idr")`` for
    ``evaluate.load(str(resource_path("metrics", "idr")))``."""
    if kind not in _KINDS:
        raise ValueError(f"unknown resource kind {kind!r}; expected one of {', '.join(_KINDS)}")
    here = Path(__file__).resolve().parent
    for base in (here / "_bundled" / kind, here.parent / kind):
        if base.is_dir():
            path = base / name if name else base
            if not path.exists():
                names = sorted(p.name for p in base.iterdir() if not p.name.startswith((".", "_")))
                raise FileNotFoundError(
                    f"no {kind} resource named {name!r} in {base}; available: {', '.join(names)}"
                )
            return path
    raise FileNotFoundError(f"the {kind!r} folder is missing from this gridwm_judge installation")

"""Publish the ``evaluate`` metric modules on the Hugging Face Hub, one Space per module, so
other benchmarks can ``evaluate.load("NAMESPACE/idr")``.

``evaluate.load("NS/NAME")`` fetches ``NAME.py`` from the Space ``NS/NAME``
(``{endpoint}/spaces/NS/NAME/resolve/{revision}/NAME.py``), so each Space holds the module
under its own name, its README card (front matter completed with the Space keys ``sdk`` and
``app_file``), and the usual ``app.py`` (evaluate's Gradio widget) with a ``requirements.txt``.
The module is written at push time from the shipped one with the package code it uses inlined
(:mod:`~gridwm_judge.integrations.standalone_metric`): a Space needs ``evaluate``, ``numpy``
and ``scipy``, never ``gridwm_judge``.
The seam is the one :mod:`gridwm_judge.dataset.push` uses: an ``HfApi``-like object whose
``create_repo`` / ``upload_folder`` calls tests record.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gridwm_judge.dataset.push import hub_client
from gridwm_judge.integrations.standalone_metric import standalone_source
from gridwm_judge.resources import resource_path

_NAMESPACE = re.compile(r"^[A-Za-z0-9][\w.-]*$")
SPACE_KEYS = {"sdk": "gradio", "app_file": "app.py"}
REQUIREMENTS = ("evaluate", "numpy", "scipy")
APP = """import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("{repo_id}")
launch_gradio_widget(module)
"""


@dataclass(frozen=True)
class SpaceUpload:
    """One metric module and the Space it goes to, with the files the Space will hold."""

    name: str
    repo_id: str
    source: Path
    files: tuple[str, ...]


@dataclass(frozen=True)
class PushedSpace:
    repo_id: str
    commit: str
    url: str


def metric_modules() -> list[Path]:
    """Every shipped metric folder that holds ``NAME/NAME.py`` and its README card."""
    base = resource_path("metrics")
    return [p for p in sorted(base.iterdir())
            if (p / f"{p.name}.py").is_file() and (p / "README.md").is_file()]


def plan(namespace: str, names: list[str] | None = None) -> list[SpaceUpload]:
    """The Spaces ``push_metrics`` would write, in name order; unknown names are refused."""
    if not _NAMESPACE.match(namespace or "") or "/" in namespace:
        raise ValueError(f"bad namespace {namespace!r}; expected a Hub user or organisation "
                         "name such as 'my-org'")
    modules = {p.name: p for p in metric_modules()}
    if names:
        unknown = [n for n in names if n not in modules]
        if unknown:
            raise ValueError(f"unknown metric module {unknown[0]!r}; expected some of "
                             f"{', '.join(modules)}")
        modules = {n: modules[n] for n in sorted(set(names))}
    return [SpaceUpload(n, f"{namespace}/{n}", p,
                        (f"{n}.py", "README.md", "app.py", "requirements.txt"))
            for n, p in modules.items()]


def space_card(readme: str) -> str:
    """The metric card with the Space keys added to its YAML front matter (kept if present)."""
    if not readme.startswith("---\n"):
        raise ValueError("a metric card must start with a YAML front matter block ('---')")
    head, sep, body = readme[4:].partition("\n---")
    if not sep:
        raise ValueError("the metric card's front matter block is not closed ('---')")
    have = {line.split(":", 1)[0].strip() for line in head.splitlines() if ":" in line}
    extra = "".join(f"\n{k}: {v}" for k, v in SPACE_KEYS.items() if k not in have)
    return f"---\n{head}{extra}{sep}{body}"


def stage(upload: SpaceUpload, folder: Path) -> None:
    """Write the Space's files for ``upload`` into ``folder``."""
    name = upload.name
    module = standalone_source(upload.source / f"{name}.py", load_as=upload.repo_id)
    (folder / f"{name}.py").write_text(module, encoding="utf-8")
    card = (upload.source / "README.md").read_text(encoding="utf-8")
    (folder / "README.md").write_text(space_card(card), encoding="utf-8")
    (folder / "app.py").write_text(APP.format(repo_id=upload.repo_id), encoding="utf-8")
    (folder / "requirements.txt").write_text("\n".join(REQUIREMENTS) + "\n", encoding="utf-8")


def push_metrics(namespace: str, *, names: list[str] | None = None, private: bool = False,
                 token: str | None = None, api: Any = None) -> list[PushedSpace]:
    """Create (if needed) and upload one Space per metric module, one commit each."""
    uploads = plan(namespace, names)
    api, token = hub_client(api, token)
    out = []
    for up in uploads:
        api.create_repo(up.repo_id, token=token, private=private, repo_type="space",
                        space_sdk=SPACE_KEYS["sdk"], exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=f"gwj-space-{up.name}-") as tmp:
            stage(up, Path(tmp))
            info = api.upload_folder(
                repo_id=up.repo_id, folder_path=tmp, repo_type="space", token=token,
                commit_message=f"Upload the {up.name} metric module (gridwm-judge push-metrics)",
            )
        out.append(PushedSpace(up.repo_id, str(getattr(info, "oid", "") or ""),
                               str(getattr(info, "commit_url", "")
                                   or f"https://huggingface.co/spaces/{up.repo_id}")))
    return out

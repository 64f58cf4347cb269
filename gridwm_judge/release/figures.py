"""The paper's own figures on the items of its released exams (``published_figures.json``),
for reports to set beside a judge run on the matching imported config.

Only figures computed on exactly these items, by a protocol this package reproduces, are
shipped: Table 13 (Task D-R, all groups, as printed) and the release's metrics CSV (Task D-R,
eligible pairs, Kimi K2.5 as corrected). The file's ``about`` says what is left out and why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

FIGURES_FILE = Path(__file__).resolve().parent / "published_figures.json"
FORMAT = "gridwm-judge-published-figures/1"


@dataclass(frozen=True)
class PublishedFigure:
    """One published figure: where it was published (``source``: "paper Table 13", "release
    taskdr_metrics.csv"), the imported config and judge (``published:<model>``) it is about,
    the metric (this package's name, ``probe`` for a probe family's), its protocol, value
    as published (``digits`` decimals), CIs where published, and a note (a superseded value,
    a figure shown but not reproduced)."""

    source: str
    config: str
    model: str
    judge: str
    protocol: str
    name: str
    value: float | None
    digits: int
    ci: tuple[float, float] | None = None
    ci_env: tuple[float, float] | None = None
    probe: str | None = None
    note: str | None = None


@cache
def published_figures() -> tuple[PublishedFigure, ...]:
    """Every shipped figure, in the file's order."""
    doc = json.loads(FIGURES_FILE.read_text(encoding="utf-8"))
    if doc.get("format") != FORMAT:
        raise ValueError(f"{FIGURES_FILE} has format {doc.get('format')!r}, expected {FORMAT!r}")
    out = []
    for f in doc["figures"]:
        out.append(PublishedFigure(**{**f, "ci": tuple(f["ci"]) if f.get("ci") else None,
                                      "ci_env": tuple(f["ci_env"]) if f.get("ci_env") else None}))
    return tuple(out)


def figures_for(config: str, source: str | None = None) -> tuple[PublishedFigure, ...]:
    """The published figures of an imported config (of one ``source``, when given)."""
    return tuple(f for f in published_figures()
                 if f.config == config and (source is None or f.source == source))

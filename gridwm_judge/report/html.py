"""REPORT_DIR/index.html: the report as one page that opens from disk with no network.

It is drawn from what the writer already wrote: index.md (every table, with its notes, and
every figure, in the Markdown's order; the headline moved to the top), failure_modes.md, and
the figures' PNG files beside it; the failure gallery follows (its images under
``gallery/``). CSS and the small script (sortable tables, the gallery's filters) are inline.
The page names the tasks no judge was asked; its gallery holds none of them.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from gridwm_judge.report import gallery_html
from gridwm_judge.report.gallery_items import Gallery, build_gallery
from gridwm_judge.report.inputs import ReportData
from gridwm_judge.report.markdown_html import Block, blocks, inline, render, slug, to_html
from gridwm_judge.task_table import ALL_TASKS

FILE = "index.html"


def _asset(name: str) -> str:
    return (resources.files("gridwm_judge.report") / "assets" / name).read_text("utf-8")


def _sections(markdown: str) -> tuple[list[Block], list[list[Block]]]:
    """index.md's blocks before its first ``##`` heading (its title left out), and its ``##``
    sections, each starting with its heading."""
    head: list[Block] = []
    sections: list[list[Block]] = []
    for b in blocks(markdown):
        level = len(b.lines[0]) - len(b.lines[0].lstrip("#")) if b.kind == "heading" else 0
        if level == 1 and not sections:
            continue
        if level == 2:
            sections.append([b])
        elif sections:
            sections[-1].append(b)
        else:
            head.append(b)
    return head, sections


def _title(section: list[Block]) -> str:
    return section[0].lines[0].lstrip("#").strip()


def tasks_line(data: ReportData) -> str:
    """Which tasks (of the task table) some judge was asked, and which none was."""
    ran = [t for t in ALL_TASKS if data.asked((t.name,))]
    not_run = [t for t in ALL_TASKS if t not in ran]
    text = "Tasks run: " + (", ".join(f"{t.name} ({t.config})" for t in ran) or "none")
    if not_run:
        text += (". Not run (no table, figure or gallery for them): "
                 + ", ".join(f"{t.name} ({t.config})" for t in not_run))
    return text + "."


def page(data: ReportData, index_md: str, failure_md: str, *, headline_titles: Sequence[str],
         gallery: Gallery) -> str:
    head, sections = _sections(index_md)
    first = [s for s in sections if _title(s) in headline_titles]
    rest = [s for s in sections if _title(s) not in headline_titles]
    shown = [*first, *rest]
    nav = [(slug(_title(s)), _title(s)) for s in shown]
    nav += [("failure-mode-summary", "Failure-mode summary"), ("failure-gallery",
                                                               "Failure gallery")]
    body = [f'<p class="tasks-run" id="tasks-run">{html.escape(tasks_line(data))}</p>',
            '<nav><ul>' + "".join(f'<li><a href="#{i}">{inline(t)}</a></li>' for i, t in nav)
            + "</ul></nav>", '<div id="report-view">', "\n".join(render(b) for b in head)]
    for s in shown:
        body.append(f'<section id="s-{slug(_title(s))}">'
                    + "\n".join(render(b) for b in s) + "</section>")
    body.append('<section id="s-failure-mode-summary">'
                + to_html(failure_md, level_shift=1) + "</section></div>")
    body.append(gallery_html.section(gallery))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GridWM-Judge report</title>
<style>{_asset("report.css")}</style></head>
<body><header><h1 id="top">GridWM-Judge report</h1></header><main>
{chr(10).join(body)}
</main><script>{_asset("report.js")}</script></body></html>
"""


def write_html(out: Path, data: ReportData, *, headline_titles: Sequence[str],
               dataset: str | None = None) -> tuple[Path, str | None]:
    """Write ``out/index.html`` (and its gallery's images) beside the index.md and
    failure_modes.md the writer wrote there; ``dataset`` overrides the runs' own. Returns the
    page and, when the gallery had to be left out, why (the command prints it)."""
    gallery = build_gallery(data, out, dataset=dataset)
    text = page(data, (out / "index.md").read_text(encoding="utf-8"),
                (out / "failure_modes.md").read_text(encoding="utf-8"),
                headline_titles=headline_titles, gallery=gallery)
    path = out / FILE
    path.write_text(text, encoding="utf-8")
    left_out = "; ".join(gallery.notes) if not gallery.groups and gallery.notes else None
    return path, left_out

"""REPORT_DIR/index.html: the report as one page that opens from disk with no network.

It is drawn from the report's own objects, not from the Markdown the writer wrote: the index
(:class:`~gridwm_judge.report.document.Document`: every table drawn from its
:class:`~gridwm_judge.report.table.Table`, with its notes, every figure, in the Markdown's
order; the headline moved to the top), the failure-mode summary (its Markdown through
markdown-it-py), and the figures' PNG files beside it; the failure gallery follows (its images
under ``gallery/``). CSS and the small script (sortable tables, the gallery's filters) are
inline. The page names the tasks no judge was asked; its gallery holds none of them.
"""

from __future__ import annotations

import html
from importlib import resources
from pathlib import Path

from gridwm_judge.report import gallery_html
from gridwm_judge.report.document import Document
from gridwm_judge.report.gallery_items import Gallery, build_gallery
from gridwm_judge.report.inputs import ReportData
from gridwm_judge.report.markdown_html import inline, to_html
from gridwm_judge.task_table import ALL_TASKS

FILE = "index.html"


def _asset(name: str) -> str:
    return (resources.files("gridwm_judge.report") / "assets" / name).read_text("utf-8")


def tasks_line(data: ReportData) -> str:
    """Which tasks (of the task table) some judge was asked, and which none was."""
    ran = [t for t in ALL_TASKS if data.asked((t.name,))]
    not_run = [t for t in ALL_TASKS if t not in ran]
    text = "Tasks run: " + (", ".join(f"{t.name} ({t.config})" for t in ran) or "none")
    if not_run:
        text += (". Not run (no table, figure or gallery for them): "
                 + ", ".join(f"{t.name} ({t.config})" for t in not_run))
    return text + "."


def page(data: ReportData, document: Document, failure_md: str, *, gallery: Gallery) -> str:
    shown = sorted(document.sections, key=lambda s: not s.headline)  # stable: headline first
    nav = [(s.id, inline(s.title)) for s in shown]
    nav += [("failure-mode-summary", "Failure-mode summary"), ("failure-gallery",
                                                               "Failure gallery")]
    body = [f'<p class="tasks-run" id="tasks-run">{html.escape(tasks_line(data))}</p>',
            '<nav><ul>' + "".join(f'<li><a href="#{i}">{t}</a></li>' for i, t in nav)
            + "</ul></nav>", '<div id="report-view">', document.head_html()]
    body += [s.html() for s in shown]
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


def write_html(out: Path, data: ReportData, document: Document, failure_md: str, *,
               dataset: str | None = None) -> tuple[Path, str | None]:
    """Write ``out/index.html`` (and its gallery's images) beside the index.md
    (``document``) and failure_modes.md (``failure_md``) the writer wrote there, and the
    figures they show; ``dataset`` overrides the runs' own. Returns the page and, when the
    gallery had to be left out, why (the command prints it)."""
    gallery = build_gallery(data, out, dataset=dataset)
    text = page(data, document, failure_md, gallery=gallery)
    path = out / FILE
    path.write_text(text, encoding="utf-8")
    left_out = "; ".join(gallery.notes) if not gallery.groups and gallery.notes else None
    return path, left_out

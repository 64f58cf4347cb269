"""Write REPORT_DIR: tables/ (md, csv, json), figures/ (png), failure_modes.{md,json},
index.md, which says what was run, on which dataset fingerprint, by which package version, and
index.html, the same report as one page with a failure gallery (:mod:`.html`).

Everything is written into a staging folder beside REPORT_DIR and moved into place at the end:
a refused or failed report leaves nothing behind and an earlier report intact.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gridwm_judge import __version__
from gridwm_judge.atomic import check_out_dir, new_folder, replace_dir
from gridwm_judge.report import failures
from gridwm_judge.report.document import HEADLINES, Document, Section
from gridwm_judge.report.html import write_html
from gridwm_judge.report.inputs import ReportData, collect
from gridwm_judge.report.plots import write_figures
from gridwm_judge.report.sections import all_figures, all_tables
from gridwm_judge.report.sent import decoding_table
from gridwm_judge.report.table import Table
from gridwm_judge.scoring.batch import check_resamples


@dataclass(frozen=True)
class ReportResult:
    out: Path
    index: Path
    tables: tuple[Path, ...]
    figures: tuple[Path, ...]
    html: Path  # index.html: the same report as one page, with the failure gallery
    headline: str  # the headline table as plain text (what the quickstart prints)
    data: ReportData
    gallery_left_out: str | None = None  # why the page has no failure gallery, if it has none


def _runs_section(data: ReportData) -> list[str]:
    lines = [
        "| run | judge(s) | tasks | dataset | fingerprint | package | prompts | scores |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in data.runs:
        judges = ", ".join(e.label for e in data.judges if e.run is r)
        tasks = ",".join(r.run.tasks if r.run else ()) or "–"
        fp = r.fingerprint or "–"
        fp = fp if len(fp) < 24 else fp[:23] + "…"
        scored = "computed by this report" if r.scored_now else "scores.json of the run"
        lines.append(
            f"| `{r.path}` | {judges} | {tasks} | `{r.dataset}` | `{fp}` | "
            f"{(r.run.package_version if r.run else None) or r.scores.package_version} | "
            f"{(r.run.prompt_version if r.run else None) or '–'} | {scored} |"
        )
    return lines


def _not_run(data: ReportData) -> str:
    """Which tasks the judges were asked, and which none was (their tables and figures are
    left out)."""
    run, missing = data.run(), data.not_run()
    line = f"Tasks run: {', '.join(run) or 'none'}."
    if missing:
        line += f" Not run by any judge (their tables and figures are left out): " \
                f"{', '.join(missing)}."
    return line


def _bootstrap_text(b: Mapping[str, Any]) -> str:
    if not b:
        return "unknown"
    level = b.get("level")
    pct = "" if level is None else f"{100 * level:g}% "
    return (
        f"{pct}percentile CIs from {b.get('n_resamples')} resamples of whole "
        f"{b.get('unit', 'group_id')}s (seed {b.get('seed')}); Task D also resamples "
        f"{b.get('env_unit', 'env_id')}s"
    )


def _decoding(data: ReportData) -> Section:
    """The "Requests as sent" section: its table alone."""
    table = decoding_table(data.runs)
    return Section(table.title, (table,))


def index_document(data: ReportData, tables: Sequence[Table], figures: Sequence[Path],
                   out: Path) -> Document:
    """index.md's content: what was run and how, then every table, the failure modes and the
    figures (``figures``' paths relative to ``out``)."""
    fps = sorted({r.fingerprint or "unknown" for r in data.runs})
    boot = {_bootstrap_text(r.scores.bootstrap) for r in data.runs}
    parsers = {"{rules} rules ({version})".format(**r.scores.parser) for r in data.runs}
    overrides = [o for r in data.runs for o in r.scores.overrides]
    head = [
        f"Written {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} by gridwm-judge "
        f"{__version__}. {len(data.judges)} judge(s) from {len(data.runs)} run(s).",
        "Dataset fingerprint(s): "
        + ", ".join(f"`{f}`" for f in fps)
        + ("" if len(fps) == 1 else " -- **runs on different datasets: compare with care**"),
        "Bootstrap: " + "; ".join(sorted(boot)),
        "Parser: " + "; ".join(sorted(parsers)),
        *(["**Scored despite a mismatch between predictions and dataset** (--allow-mismatch): "
           + "; ".join(overrides)] if overrides else []),
    ]
    runs = Section("Runs", ("\n".join(_runs_section(data)), _not_run(data),
                            "Oracle runs read the gold answer: an upper-bound sanity check of "
                            "the scorer, never a model result."))
    shown = [Section(t.title, (t, f"Files: `tables/{t.key}.md`, `tables/{t.key}.csv`, "
                                  f"`tables/{t.key}.json`")) for t in tables]
    flagged = [f"- **{e.label}**: {failures.summary_line(e)}" for e in data.judges]
    flagged += [f"- **{e.label}** (MiniWorld): {failures.summary_line(e, 'miniworld')}"
                for e in data.judges if failures.has_world(e, "miniworld")]
    modes = Section("Failure modes", ("See [failure_modes.md](failure_modes.md). Flagged:",
                                      "\n".join(flagged)))
    figs = Section("Figures", tuple(f"![{f.stem}]({f.relative_to(out).as_posix()})"
                                    for f in figures))
    return Document("GridWM-Judge report", "\n\n".join(head),
                    (runs, _decoding(data), *shown, modes, figs))


def write_report(
    run_dirs: Sequence[str | Path],
    out: str | Path,
    *,
    overwrite: bool = False,
    n_resamples: int | None = None,
    figures: bool = True,
    allow_mismatch: bool = False,
    dataset: str | None = None,
) -> ReportResult:
    """Render the report of ``run_dirs`` into ``out`` and return what was written;
    ``dataset`` is where the failure gallery reads its items (default: each run's own)."""
    check_resamples(n_resamples)
    out = Path(out).resolve()
    check_out_dir(out, overwrite, ours=("index.md", "tables"), what="report folder",
                  inputs=tuple(Path(p) for p in run_dirs))
    with new_folder(out.parent):  # a refused report leaves no folder it made
        stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.report-", dir=out.parent))
        try:
            result = _render(run_dirs, stage, n_resamples=n_resamples, figures=figures,
                             allow_mismatch=allow_mismatch, dataset=dataset)
            replace_dir(stage, out)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
    moved = [out / p.relative_to(stage) for p in result.tables]
    figs = [out / p.relative_to(stage) for p in result.figures]
    return ReportResult(out, out / "index.md", tuple(moved), tuple(figs), out / result.html.name,
                        result.headline, result.data, result.gallery_left_out)


def _render(run_dirs: Sequence[str | Path], out: Path, *, n_resamples: int | None,
            allow_mismatch: bool, figures: bool, dataset: str | None) -> ReportResult:
    data = collect(run_dirs, work_dir=out, n_resamples=n_resamples,
                   allow_mismatch=allow_mismatch)
    if not data.judges:
        raise ValueError("the runs hold no scored judge; run `gridwm-judge eval` first")
    tables = all_tables(data)
    tdir = out / "tables"
    tdir.mkdir(exist_ok=True)
    written = []
    for t in tables:
        for ext, text in (("md", t.markdown()), ("csv", t.csv()), ("json", t.json())):
            p = tdir / f"{t.key}.{ext}"
            p.write_text(text, encoding="utf-8")
            written.append(p)
    failure_md = failures.markdown(data.judges)
    (out / "failure_modes.md").write_text(failure_md, encoding="utf-8")
    (out / "failure_modes.json").write_text(
        json.dumps(failures.json_obj(data.judges), indent=1) + "\n", encoding="utf-8"
    )
    figs = write_figures(data, out / "figures", all_figures(data)) if figures else []
    index = out / "index.md"
    document = index_document(data, tables, figs, out)
    index.write_text(document.markdown(), encoding="utf-8")
    heads = [t for t in tables if t.key in HEADLINES]
    headline = "\n\n".join(f"{h.title}\n\n{h.text()}\n\n" + "\n".join(h.notes) for h in heads)
    page, left_out = write_html(out, data, document, failure_md, dataset=dataset)
    return ReportResult(out, index, tuple(written), tuple(figs), page, headline, data, left_out)

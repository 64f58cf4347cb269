"""The leaderboard written out: one static page (``index.html``) and its Markdown twin
(``leaderboard.md``, the same rankings as pipe tables), and the function that writes both.

The page opens from disk with no network: the report's stylesheet and sorting script
(:mod:`gridwm_judge.report`'s assets) and the leaderboard's filters (``assets/
leaderboard.js``) are inline. Each figure cell holds its overall value and one hidden value
per environment family, so the family select only shows what the Markdown's table would for
that family; every text is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from gridwm_judge.atomic import new_folder, write_text
from gridwm_judge.formats import DASH
from gridwm_judge.headlines import Headline
from gridwm_judge.publish.leaderboard import Row, Section, load, sections
from gridwm_judge.report.table import DESCRIPTIVE_NOTE, Table, fmetric, shown
from gridwm_judge.results import MetricResult

HTML_FILE, MARKDOWN_FILE = "index.html", "leaderboard.md"
TITLE = "GridWM-Judge leaderboard"
INTRO = ("One ranking per dataset digest: judges that answered different items are never "
         "ranked together. Every figure is a proportion in [0, 1], higher is better.")


@dataclass(frozen=True)
class LeaderboardResult:
    html: Path
    markdown: Path
    sections: tuple[Section, ...]


def figure_text(r: MetricResult | None) -> str:
    """``0.500 [0.21, 0.79]`` (``†`` when descriptive); the dash when not published."""
    if r is None:
        return DASH
    return fmetric(r, count=False)


# -- the Markdown twin ------------------------------------------------------------------------

def _label(row: Row) -> str:
    text = row.label.replace("|", "\\|")
    return f"[{text}]({row.link})" if row.link else text


def table(sec: Section) -> Table:
    """A section as a report table: rank, judge, group, the ranked figure, its groups, the
    other figures; the references last (rank "ref")."""
    ids = [h.id for h in sec.columns]
    rows = []
    for row in (*sec.rows, *sec.references):
        cells = [shown(r, counts=False) for r in row.figures]
        groups = row.figures[0].groups if row.figures and row.figures[0] else None
        rank = row.rank if row.kind == "judge" else "ref"
        rows.append((DASH if rank is None else rank, _label(row), row.group or DASH,
                     *cells[:1], DASH if groups is None else groups, *cells[1:]))
    return Table(f"leaderboard-{sec.head}", sec.title,
                 ("rank", "judge", "group", *ids[:1], "groups", *ids[1:]), tuple(rows),
                 sec.notes)


def markdown(secs: Sequence[Section]) -> str:
    parts = [f"# {TITLE}", "", INTRO, ""]
    for sec in secs:
        parts += [table(sec).markdown().replace("### ", "## ", 1), ""]
    return "\n".join(parts).rstrip() + "\n"


# -- the page ---------------------------------------------------------------------------------
CSS = """
table.leaderboard td.fig { white-space: nowrap; }
table.leaderboard th .cfg { color: var(--muted); font-weight: normal; font-size: 12px; }
table.leaderboard .ranked { background: #eef3ff; }
table.leaderboard td.ranked { font-weight: 600; }
table.leaderboard td.group { text-align: center; font-weight: 600; }
table.leaderboard tbody.refs tr { background: #fff8e6; }
table.leaderboard tbody.refs tr:first-child td { border-top: 2px solid #d98a00; }
table.leaderboard tbody.refs td.judge { font-style: italic; }
table.leaderboard td.fig .ci { display: block; font-size: 11px; font-weight: normal;
                              color: var(--muted); }
table.leaderboard tbody:first-of-type td.judge { white-space: nowrap; }
table.leaderboard tbody.refs td.judge { min-width: 16em; }
.lb-shown { color: var(--muted); }
"""
"""What the leaderboard adds to the report's stylesheet."""


def _asset(package: str, name: str) -> str:
    return (resources.files(package) / "assets" / name).read_text("utf-8")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _sort(r: MetricResult | None) -> str:
    return "" if r is None or r.value is None else repr(r.value)


def _figure(r: MetricResult | None) -> str:
    """The Markdown's text, its interval on a line of its own (a narrower column)."""
    value, _, ci = figure_text(r).partition(" ")
    ci = _e(ci).replace("; env ", ";<br>env ")
    return _e(value) + (f' <span class="ci">{ci}</span>' if ci else "")


def _spans(overall: MetricResult | None, families: Sequence[tuple[str, MetricResult | None]],
           text: Callable[[MetricResult | None], str]) -> str:
    out = [f'<span data-family="" data-sort="{_sort(overall)}">{text(overall)}</span>']
    out += [f'<span data-family="{_e(f)}" data-sort="{_sort(r)}" hidden>{text(r)}</span>'
            for f, r in families if r is not None]
    return "".join(out)


def _groups(r: MetricResult | None) -> str:
    return "–" if r is None or r.groups is None else str(r.groups)


def _cell(row: Row, i: int, h: Headline, ranked: bool) -> str:
    fams = [(f.family, f.figures[i]) for f in row.families]
    title = (f' title="{_e(row.chosen[i])}"' if row.chosen and row.chosen[i] else "")
    cls = "fig ranked" if ranked else "fig"
    r = row.figures[i]
    return (f'<td class="{cls}" data-config="{_e(h.config)}" data-sort="{_sort(r)}"{title}>'
            + _spans(r, fams, _figure) + "</td>")


def _of_ranking(sec: Section) -> str:
    """The attribute that hides the rank and group columns (what the ranked figure says)
    while another config is selected."""
    return f' data-config="{_e(sec.ranked_by.config)}"' if sec.ranked_by else ""


def _row(sec: Section, row: Row, order: int) -> str:
    name = (f'<a href="{_e(row.link)}" title="{_e(row.title)}">{_e(row.label)}</a>'
            if row.link else f'<span title="{_e(row.title)}">{_e(row.label)}</span>')
    rank = "" if row.rank is None else str(row.rank)
    shown = rank or ("–" if row.kind == "judge" else "ref")
    of = _of_ranking(sec)
    cells = [f'<td class="rank overall"{of} data-sort="{rank}">{shown}</td>',
             f'<td class="judge">{name}</td>',
             f'<td class="group overall"{of}>{_e(row.group or "–")}</td>']
    for i, h in enumerate(sec.columns):
        cells.append(_cell(row, i, h, h == sec.ranked_by))
        if i == 0:
            first = row.figures[0] if row.figures else None
            fams = [(f.family, f.figures[0]) for f in row.families]
            cells.append(f'<td class="fig groups" data-config="{_e(h.config)}" '
                         f'data-sort="{"" if first is None else first.groups or ""}">'
                         + _spans(first, fams, _groups) + "</td>")
    return f'<tr class="{row.kind}" data-order="{order}">' + "".join(cells) + "</tr>"


def _head(sec: Section) -> str:
    by = sec.ranked_by.id if sec.ranked_by else "nothing"
    of = _of_ranking(sec)
    cells = [f'<th scope="col" tabindex="0" class="overall"{of} title="rank by {_e(by)}">'
             'rank</th>',
             '<th scope="col" tabindex="0">judge</th>',
             f'<th scope="col" tabindex="0" class="overall"{of} title="judges sharing a letter '
             f'cannot be told apart from their group\'s first by the pair test on {_e(by)}">'
             'group</th>']
    for i, h in enumerate(sec.columns):
        cls = ' class="ranked"' if h == sec.ranked_by else ""
        cells.append(f'<th scope="col" tabindex="0"{cls} data-col="{_e(h.id)}" '
                     f'data-config="{_e(h.config)}" title="{_e(h.description)}">'
                     f'<span class="cfg">{_e(h.config)}</span><br>{_e(h.figure)}</th>')
        if i == 0:
            cells.append(f'<th scope="col" tabindex="0" data-config="{_e(h.config)}" '
                         f'title="trajectory groups behind {_e(h.id)}">groups</th>')
    return "<thead><tr>" + "".join(cells) + "</tr></thead>"


def _select(name: str, everything: str, values: Sequence[str]) -> str:
    opts = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in values)
    return (f'<label>{name} <select data-lb="{name}"><option value="">{everything}</option>'
            f"{opts}</select></label>")


def _descriptive(sec: Section) -> bool:
    rows = (*sec.rows, *sec.references)
    cells = [r for row in rows for r in row.figures] + [
        r for row in rows for f in row.families for r in f.figures]
    return any(r is not None and r.status == "descriptive" for r in cells)


def _section(sec: Section, n: int) -> str:
    table_id = f"board-{n}"
    configs = list(dict.fromkeys(h.config for h in sec.columns))
    bar = (f'<div class="filters lb-filters" data-table="{table_id}">'
           + _select("config", "all configs", configs)
           + _select("family", "all families", sec.families)
           + ' <span class="lb-shown" aria-live="polite"></span></div>')
    primary = _e(sec.ranked_by.id) if sec.ranked_by else ""
    body = "".join(_row(sec, r, i) for i, r in enumerate(sec.rows))
    refs = "".join(_row(sec, r, len(sec.rows) + i) for i, r in enumerate(sec.references))
    notes = [*sec.notes, *((DESCRIPTIVE_NOTE,) if _descriptive(sec) else ())]
    return (f'<section class="board" id="d-{_e(sec.head)}"><h2>{_e(sec.title)}</h2>'
            f'<p>Dataset digest <code>{_e(sec.digest or "unknown")}</code></p>{bar}'
            f'<div class="table-wrap"><table class="sortable leaderboard" id="{table_id}" '
            f'data-primary="{primary}">{_head(sec)}<tbody>{body}</tbody>'
            + (f'<tbody class="refs">{refs}</tbody>' if refs else "") + "</table></div>"
            + "".join(f'<p class="note">{_e(x)}</p>' for x in notes) + "</section>")


def page(secs: Sequence[Section]) -> str:
    """The whole page: one section per dataset digest."""
    n_judges = sum(len(s.rows) for s in secs)
    intro = (f"{n_judges} judge{'s' * (n_judges != 1)} on {len(secs)} dataset"
             f"{'s' * (len(secs) != 1)}. {INTRO} Click a header to sort.")
    nav = ("" if len(secs) < 2 else "<nav><ul>" + "".join(
        f'<li><a href="#d-{_e(s.head)}">{_e(s.title)}</a></li>' for s in secs) + "</ul></nav>")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{TITLE}</title>
<style>{_asset("gridwm_judge.report", "report.css")}{CSS}</style></head>
<body><header><h1 id="top">{TITLE}</h1></header><main>
<p class="tasks-run">{_e(intro)}</p>{nav}
{chr(10).join(_section(s, i) for i, s in enumerate(secs))}
</main><script>{_asset("gridwm_judge.report", "report.js")}</script>
<script>{_asset("gridwm_judge.publish", "leaderboard.js")}</script></body></html>
"""


def write_leaderboard(sources: Sequence[str | Path], out: str | Path, *,
                      headline: str | None = None,
                      resolve: Callable[[str], Path] | None = None) -> LeaderboardResult:
    """Write ``out/index.html`` and ``out/leaderboard.md`` from ``sources`` (run folders,
    score folders, results repo folders; :func:`~gridwm_judge.publish.leaderboard.load`),
    ranked by ``headline`` (a Hub task id; default
    :data:`~gridwm_judge.publish.leaderboard.DEFAULT_HEADLINES`). Everything is read and
    checked before ``out`` is made; each file is written atomically, others in ``out`` kept."""
    out = Path(out).absolute()
    secs = sections(load(sources, resolve=resolve), out, headline=headline)
    html_text, md_text = page(secs), markdown(secs)
    with new_folder(out):
        write_text(out / HTML_FILE, html_text)
        write_text(out / MARKDOWN_FILE, md_text)
    return LeaderboardResult(out / HTML_FILE, out / MARKDOWN_FILE, secs)

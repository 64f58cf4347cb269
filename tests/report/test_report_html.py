"""index.html over real baseline runs: every table and figure of the Markdown report, the
failure gallery (kinds, the cap and the counts, filters), a missing dataset, the tasks not
run, escaped answers; and the page opened in headless Chromium (Debian's ``chromium``; the
test skips only where it is not installed, and CI installs it).

One small dataset with Task C and D only (so A, B and E are tasks not run), three judges.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import cast

import pytest
from markdown_it import MarkdownIt
from PIL import Image

from gridwm_judge.cli import main
from gridwm_judge.dataset.export import build_dataset
from gridwm_judge.dataset.profiles import quickstart_profile
from gridwm_judge.records import PREDICTIONS_FILE
from gridwm_judge.report import write_report
from gridwm_judge.report.gallery import CAP, KINDS
from gridwm_judge.report.gallery_html import FILTERS
from gridwm_judge.runner.evaluate import EvalConfig, run_eval
from gridwm_judge.scoring.score import score
from gridwm_judge.scoring.task_scores import Settings

JUDGES = ("always-yes", "random", "oracle")
SCRIPT = '<script>document.title="owned"</script>'
"""What always-yes's answers carry here: a page that ran it would change its title."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("html")
    profile = quickstart_profile(4, 1, c_probe_sets=("grid",),
                                 d_conditions=("clean-neutral", "clean-positive"),
                                 n_controls=4, n_hard_per_family=0)
    profile = replace(profile, plans=tuple(p for p in profile.plans
                                           if p.config in ("task_c", "task_d")))
    dataset = root / "dataset"
    build_dataset(dataset, profile, num_proc=1)
    dirs = []
    for judge in JUDGES:
        out = root / "runs" / judge
        run_eval(EvalConfig(dataset=str(dataset), tasks=("C", "D"), judge=f"baseline:{judge}",
                            out=out, progress=False))
        score(str(dataset), [out / PREDICTIONS_FILE], out, settings=Settings(n_resamples=50))
        dirs.append(out)
    # always-yes answers with markup: the page must show it as text
    pred = dirs[0] / PREDICTIONS_FILE
    lines = [json.loads(x) for x in pred.read_text().splitlines()]
    for rec in lines:
        rec["raw"] = f"Yes {SCRIPT} & <b>bold</b>"
    pred.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return root, dataset, dirs


@pytest.fixture(scope="module")
def report(runs):
    root, _dataset, dirs = runs
    return write_report(dirs, root / "report")


class _Page(HTMLParser):
    """Tables, images, gallery groups and cards, filters of a page."""

    def __init__(self, text: str):
        super().__init__()
        self.tables: list[str] = []
        self.imgs: list[str] = []
        self.links: list[str] = []
        self.groups: list[dict[str, str]] = []
        self.cards: list[dict[str, str]] = []
        self.selects: dict[str, list[str]] = {}
        self._select: str | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        cls = a.get("class", "").split()
        if tag == "table":
            self.tables.append(a.get("class", ""))
        elif tag == "img":
            self.imgs.append(a["src"])
        elif tag == "a" and "href" in a:
            self.links.append(a["href"])
        elif tag == "section" and "ggroup" in cls:
            self.groups.append(a)
        elif tag == "article" and "gitem" in cls:
            self.cards.append(a)
        elif tag == "select" and "data-filter" in a:
            self._select = a["data-filter"]
            self.selects[self._select] = []
        elif tag == "option" and self._select:
            self.selects[self._select].append(a.get("value", ""))

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None


def _md_tables(text: str) -> int:
    """Pipe tables in a Markdown text (runs of lines starting with '|')."""
    return len(re.findall(r"(?:^|\n)(?!\|)[^\n]*\n\|", "\n" + text))


def test_page_holds_every_table_and_figure_of_the_markdown(report):
    out = report.out
    page = _Page(report.html.read_text())
    md = (out / "index.md").read_text()
    fm = (out / "failure_modes.md").read_text()
    report_tables = [t for t in page.tables if "gallery-counts" not in t]
    assert len(report_tables) == _md_tables(md) + _md_tables(fm) > 5
    assert all("sortable" in t for t in page.tables)
    figures = re.findall(r"!\[[^\]]*\]\((figures/[^)]+)\)", md)
    assert figures and set(figures) <= set(page.imgs)
    for src in page.imgs + [h for h in page.links if h.startswith(("gallery/", "figures/"))]:
        assert (out / src).is_file(), src
    text = report.html.read_text()
    # the headline comes first, before the runs
    assert text.index("Headline: does the judge") < text.index('id="runs"')
    plain = html.unescape(re.sub(r"<[^>]+>", "", text))
    for t in report.tables:  # every table's title (from its JSON) is on the page
        if t.suffix == ".json":
            title = json.loads(t.read_text())["title"]
            assert re.sub(r"[`*]", "", title) in plain, title


class _Grids(HTMLParser):
    """Each table of a page (the gallery's counts left out): its header and its rows of
    (data-sort, text) cells."""

    def __init__(self, text: str):
        super().__init__()
        self.tables: list[tuple[list[str], list[list[tuple[str | None, str]]]]] = []
        self._in = False
        self._cell: list[str] | None = None
        self._sort: str | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._in = "gallery-counts" not in (a.get("class") or "")
            if self._in:
                self.tables.append(([], []))
        elif self._in and tag == "tr" and self.tables[-1][0]:
            self.tables[-1][1].append([])
        elif self._in and tag in ("td", "th"):
            self._cell, self._sort = [], a.get("data-sort")

    def handle_endtag(self, tag):
        if tag == "table":
            self._in = False
        elif tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell)
            head, rows = self.tables[-1]
            (head.append(text) if tag == "th" else rows[-1].append((self._sort, text)))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _md_grids(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Each pipe table of a Markdown text, its cells as the text a reader sees."""
    def plain(md: str) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", MarkdownIt().renderInline(md)))

    grids, head, rows, cells = [], [], [], None
    for tok in MarkdownIt("commonmark").enable("table").parse(text):
        if tok.type == "table_open":
            head, rows = [], []
        elif tok.type == "tr_open":
            cells = []
        elif tok.type == "inline" and cells is not None:
            cells.append(plain(tok.content))
        elif tok.type == "tr_close" and cells is not None:
            (rows.append(cells) if head else head.extend(cells))
            cells = None
        elif tok.type == "table_close":
            grids.append((head, rows))
    return grids


def test_every_markdown_table_is_on_the_page_drawn_from_its_table_object(report):
    """The same tables with the same rows as index.md and failure_modes.md, and each metric
    cell of a table's JSON sorts by its value, not by the rounded number its text shows."""
    out = report.out
    page = _Grids(report.html.read_text())
    shown = sorted((h, [[t for _k, t in r] for r in rows]) for h, rows in page.tables)
    md = _md_grids((out / "index.md").read_text()) + _md_grids(
        (out / "failure_modes.md").read_text())
    assert shown == sorted(md) and len(md) > 5
    by_head = {tuple(h): rows for h, rows in page.tables}
    checked = 0
    for path in sorted((out / "tables").glob("*.json")):
        table = json.loads(path.read_text())
        rows = by_head[tuple(table["columns"])]
        assert len(rows) == max(1, len(table["rows"])), path.name
        for row, cells in zip(table["rows"], rows, strict=False):
            for (key, _text), value in zip(cells, row.values(), strict=True):
                if isinstance(value, dict) and value.get("value") is not None:
                    assert key is not None and float(key) == value["value"], (path.name, value)
                    checked += 1
    assert checked > 20


def test_gallery_kinds_cap_and_counts(report):
    page = _Page(report.html.read_text())
    text = report.html.read_text()
    kinds = {(g["data-judge"], g["data-task"], g["data-kind"]) for g in page.groups}
    assert ("baseline:always-yes", "C", "cf_accepted") in kinds
    assert ("baseline:random", "C", "probe_flip") in kinds
    assert not any(j == "baseline:oracle" for j, _t, _k in kinds)  # it got nothing wrong
    assert {k for _j, _t, k in kinds} <= set(KINDS)
    for judge, task, kind in kinds:
        n = sum(1 for c in page.cards if (c["data-judge"], c["data-task"], c["data-kind"])
                == (judge, task, kind))
        m = re.search(rf'data-judge="{re.escape(judge)}" data-task="{task}" '
                      rf'data-kind="{kind}"><h3>.*?<span class="count">(\d+) shown of (\d+)',
                      text)
        assert m is not None
        shown, total = int(m.group(1)), int(m.group(2))
        assert shown == n == min(CAP, total), (judge, task, kind)
    # always-yes accepts every CF of Task C: 4 groups x 6 presentations x 2 representations
    m = re.search(r'data-kind="cf_accepted"><h3>baseline:always-yes · C .*?(\d+) shown of (\d+)',
                  text)
    assert m is not None and (int(m.group(1)), int(m.group(2))) == (CAP, 48)
    assert set(page.selects) == set(FILTERS)
    for name in FILTERS:
        values = {c[f"data-{name}"] for c in page.cards}
        assert set(page.selects[name]) == {"", *values}, name
    assert len(page.cards) == sum(min(CAP, int(t)) for t in
                                  re.findall(r'class="count">\d+ shown of (\d+)', text))


def test_tasks_not_run_are_named_and_not_shown(report):
    page = _Page(report.html.read_text())
    text = report.html.read_text()
    line = re.search(r'<p class="tasks-run"[^>]*>(.*?)</p>', text)
    assert line is not None
    ran, _, not_run = line.group(1).partition("Not run")
    assert "C (task_c)" in ran and "D (task_d)" in ran
    for t in ("A (task_a)", "B (task_b)", "E (task_e)", "MC (miniworld_c)"):
        assert t in not_run and t not in ran
    assert {c["data-task"] for c in page.cards} == {"C", "D"}
    assert "miniworld" not in " ".join(page.imgs)


def test_answers_are_shown_as_text(report):
    text = report.html.read_text()
    assert SCRIPT not in text and "<b>bold</b>" not in text
    assert html.escape(SCRIPT) in text and "&amp; &lt;b&gt;bold&lt;/b&gt;" in text
    assert text.count("<script>") == 1  # the page's own


def test_a_dataset_that_cannot_be_read_leaves_the_gallery_out(runs, tmp_path):
    _root, _dataset, dirs = runs
    missing = tmp_path / "no-such-dataset"
    res = write_report(dirs, tmp_path / "report", dataset=str(missing))
    text = res.html.read_text()
    (line,) = re.findall(r'<p class="left-out">(Failure gallery left out: .*?)</p>', text)
    assert str(missing) in line and "\n" not in line
    assert 'class="gitem"' not in text and not (res.out / "gallery").exists()
    assert len(_Page(text).tables) > 5 and (res.out / "tables" / "headline.md").is_file()


def test_the_dataset_the_run_recorded_is_read_unless_overridden(runs, tmp_path, capsys):
    """Moved away, the run's own dataset cannot be found; ``--dataset`` points at it."""
    root, dataset, dirs = runs
    moved = tmp_path / "moved-dataset"
    shutil.move(str(dataset), moved)
    try:
        res = write_report(dirs, tmp_path / "r1")
        text = res.html.read_text()
        assert "Failure gallery left out: " in text and 'class="gitem"' not in text
        assert res.gallery_left_out and "could not be read" in res.gallery_left_out
        # the command says so on the terminal too, not only in the page
        assert main(["report", *map(str, dirs), "--out", str(tmp_path / "r3")]) == 0
        said = capsys.readouterr().out
        assert "failure gallery left out: " in said and "with the failure gallery" not in said
        res = write_report(dirs, tmp_path / "r2", dataset=str(moved))
        text = res.html.read_text()
        assert "Failure gallery left out" not in text and 'class="gitem"' in text
        assert res.gallery_left_out is None
    finally:
        shutil.move(str(moved), dataset)


def test_answers_to_other_items_and_runs_without_graded_rows_are_named(runs, tmp_path):
    """An answer whose item hash differs from the dataset's item is not shown beside its
    images; a run without rows.jsonl is named; the other judges' galleries stay."""
    _root, _dataset, dirs = runs
    other, bare = tmp_path / "random", tmp_path / "always-yes"
    shutil.copytree(dirs[1], other)
    shutil.copytree(dirs[0], bare)
    (bare / "rows.jsonl").unlink()
    recs = [json.loads(x) for x in (other / PREDICTIONS_FILE).read_text().splitlines()]
    for r in recs:
        r["item_digest"] = "0" * 64
    (other / PREDICTIONS_FILE).write_text("".join(json.dumps(r) + "\n" for r in recs))
    text = write_report([other, bare, dirs[2]], tmp_path / "rep").html.read_text()
    (line,) = re.findall(r'<p class="left-out">(.*?)</p>', text)  # nothing left to show
    assert line.startswith("Failure gallery left out: ")
    assert re.search(r"holds other items than were asked under \d+ uid", line)
    assert "--dataset" in line
    assert "baseline:always-yes: no rows.jsonl beside its scores" in line
    assert 'class="gitem"' not in text and 'class="ggroup"' not in text


def test_the_report_command_writes_the_page(runs, tmp_path, capsys):
    from gridwm_judge import cli

    _root, dataset, dirs = runs
    out = tmp_path / "rep"
    assert cli.main(["report", *map(str, dirs), "--out", str(out), "--dataset",
                     str(dataset)]) == 0
    assert str(out / "index.html") in capsys.readouterr().out
    assert 'class="gitem"' in (out / "index.html").read_text()


# -- the page in a real browser ---------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _chromium(*args: str, timeout: int = 180) -> subprocess.CompletedProcess:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--no-first-run", "--enable-logging=stderr", "--v=0", *args],
        capture_output=True, text=True, timeout=timeout, check=False)


def _console(stderr: str) -> list[str]:
    return [x for x in stderr.splitlines() if ":CONSOLE" in x]


def _not_blank(png: Path) -> None:
    with Image.open(png) as im:
        lo, hi = cast("tuple[int, int]", im.convert("L").getextrema())
    assert hi - lo > 100, f"{png} looks blank"


_WIDTH_PROBE = """<script>
window.addEventListener('load', () => {
  const vw = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('body *')].filter(
    el => el.getBoundingClientRect().right > vw + 1 && !el.closest('.table-wrap'));
  document.title = document.documentElement.scrollWidth <= vw ? 'fits'
    : 'scrolls sideways: ' + wide.slice(0, 3).map(el => el.tagName + ' ' +
      (el.textContent || '').slice(0, 40)).join(' | ');
});
</script>"""
"""Appended to a copy of the page: its title says whether the page fits the window's width,
else the first elements that run past it."""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                    "(Debian: apt-get install chromium; .ci/run installs it)")
def test_the_page_in_headless_chromium(report, tmp_path):
    url = report.html.as_uri()
    source = _Page(report.html.read_text())
    dom = _chromium("--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert _console(dom.stderr) == []
    page = _Page(dom.stdout)
    assert len(page.tables) == len(source.tables)
    assert len(page.cards) == len(source.cards) > 0 and page.imgs == source.imgs
    for src in page.imgs:
        assert (report.out / src).is_file(), src
    assert "<title>GridWM-Judge report</title>" in dom.stdout  # the answers' script never ran
    # the script ran: it counted the cards
    assert f">{len(page.cards)} of {len(page.cards)} items shown<" in dom.stdout
    # a filtered gallery page, from the hash
    gal = _chromium("--dump-dom", url + "#failure-gallery?judge=baseline:random&task=C")
    assert _console(gal.stderr) == []
    n = sum(1 for c in source.cards if c["data-judge"] == "baseline:random"
            and c["data-task"] == "C")
    assert f">{n} of {len(source.cards)} items shown<" in gal.stdout
    assert 'class="gallery-only"' in gal.stdout
    # the page fits a 1400 px window: nothing outside a table's own scroller runs past it
    probe = report.html.with_name("probe-width.html")
    probe.write_text(report.html.read_text() + _WIDTH_PROBE)
    for target in (probe.as_uri(), probe.as_uri() + "#failure-gallery?judge=baseline:random"):
        out = _chromium("--window-size=1400,1600", "--virtual-time-budget=5000", "--dump-dom",
                        target)
        title = re.search(r"<title>([^<]*)</title>", out.stdout)
        assert title and title.group(1) == "fits", (target, title and title.group(1))
    probe.unlink()
    keep = Path(os.environ.get("GWJ_SCREENSHOTS") or tmp_path)
    keep.mkdir(parents=True, exist_ok=True)
    for name, target in (("headline", url),
                         ("gallery", url + "#failure-gallery?judge=baseline:random&task=C")):
        png = keep / f"report-{name}.png"
        shot = _chromium("--window-size=1400,1600", f"--screenshot={png}", target)
        assert shot.returncode == 0 and _console(shot.stderr) == [], shot.stderr[-2000:]
        _not_blank(png)


_SORT_PROBE = """<script>
window.addEventListener('load', () => {
  const table = document.querySelector('#report-view table.sortable');
  const col = [...table.tHead.rows[0].cells].findIndex(th => th.textContent === 'IDR_raw');
  const keys = () => [...table.tBodies[0].rows].map(r => r.cells[col].getAttribute('data-sort'));
  table.tHead.rows[0].cells[col].click();
  const up = keys();
  table.tHead.rows[0].cells[col].click();
  document.title = JSON.stringify([up, keys()]);
});
</script>"""
"""Appended to a copy of the page: clicks the first table's IDR_raw header twice and writes the
column's sort keys (ascending, then descending) into the title."""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                    "(Debian: apt-get install chromium; .ci/run installs it)")
def test_a_table_sorts_by_its_cells_values_in_headless_chromium(report):
    probe = report.html.with_name("probe-sort.html")
    probe.write_text(report.html.read_text() + _SORT_PROBE)
    try:
        out = _chromium("--virtual-time-budget=5000", "--dump-dom", probe.as_uri())
    finally:
        probe.unlink()
    title = re.search(r"<title>([^<]*)</title>", out.stdout)
    assert title is not None and _console(out.stderr) == [], out.stderr[-2000:]
    up, down = json.loads(html.unescape(title.group(1)))
    numbers = [float(k) for k in up if k is not None]
    assert len(numbers) >= 3 and len(set(numbers)) > 1
    assert numbers == sorted(numbers) and up[:len(numbers)] == [repr(x) for x in numbers]
    assert [float(k) for k in down if k is not None] == sorted(numbers, reverse=True)

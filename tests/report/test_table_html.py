"""A report table drawn as HTML from its object (:meth:`Table.html`): every cell shows the text
the Markdown shows, escaped as text, and sorts by its value, never by a number read back out
of the text; the page's sections (:class:`Document`) hold the tables themselves."""

from __future__ import annotations

import html
import json
from html.parser import HTMLParser

from gridwm_judge.formats import DASH
from gridwm_judge.report.document import Document, Section
from gridwm_judge.report.table import DESCRIPTIVE, DESCRIPTIVE_NOTE, Cell, Table, fcell, sort_value


class _Grid(HTMLParser):
    """Each cell of a table: (its data-sort or None, its text)."""

    def __init__(self, text: str):
        super().__init__()
        self.head: list[str] = []
        self.rows: list[list[tuple[str | None, str]]] = []
        self._cell: list[str] | None = None
        self._sort: str | None = None
        self._body = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "tbody":
            self._body = True
        elif tag == "tr" and self._body:
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell, self._sort = [], dict(attrs).get("data-sort")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell)
            if tag == "th":
                self.head.append(text)
            else:
                self.rows[-1].append((self._sort, text))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


TINY = {"value": 0.0004, "num": 1, "den": 2500, "ci": [0.0, 0.002]}
"""Shows as 0.000 in the Markdown, as does 0: only its value tells them apart."""
NEGATIVE = {"value": -0.135, "num": -14, "den": 104, "ci": [-0.21, -0.06], "unit": "pairs",
            "signed": True, "status": "descriptive"}
MEAN = {"value": 0.7333, "num": 8.8, "den": 12, "ci": [0.61, 0.85], "unit": "items"}
ZERO = {"value": 0.0, "num": 0, "den": 7, "ci": [0.0, 0.0]}
EMPTY = {"value": None, "num": 0, "den": 0}
TRICKY = "a | b *c* _d_ <i>e</i> `f` & [g](h)"


def _table() -> Table:
    return Table("t", "A *table* with `code`", ("judge", "rate <x>", "diff", "mean", "n"),
                 (("j|1", TINY, NEGATIVE, MEAN, 3),
                  (TRICKY, ZERO, EMPTY, Cell("0.500 (last-frame)", 0.5), 2.5),
                  ("1e9 judges", None, "0.900 [0.8, 1.0]", Cell("n/a", None), True)),
                 ("a note with `code`",))


def test_a_metric_cell_sorts_by_its_value_not_by_its_text():
    t = _table()
    grid = _Grid(t.html())
    assert grid.head == ["judge", "rate <x>", "diff", "mean", "n"]
    first, second, third = grid.rows
    assert first[1] == ("0.0004", "0.000 (1/2500) [0.00, 0.00]")
    assert second[1] == ("0.0", "0.000 (0/7) [0.00, 0.00]")
    assert first[2] == ("-0.135", f"-0.135 [-0.21, -0.06], 104 pairs{DESCRIPTIVE}")
    assert first[3] == ("0.7333", "0.733 [0.61, 0.85], 12 items")
    assert first[4] == ("3.0", "3")
    assert second[2] == (None, "– (0/0)") and third[1] == (None, DASH)
    assert second[3] == ("0.5", "0.500 (last-frame)") and third[3] == (None, "n/a")
    assert second[4] == ("2.5", "2.500") and third[4] == (None, "True")
    assert float(first[1][0] or "nan") == TINY["value"]  # the key is the value itself


def test_every_cell_shows_the_markdown_text_as_text():
    t = _table()
    page, md = t.html(), t.markdown()
    grid = _Grid(page)
    for row, cells in zip(t.rows, grid.rows, strict=True):
        assert [text for _key, text in cells] == [fcell(c) for c in row]
    assert grid.rows[1][0] == (None, TRICKY)  # literally: no emphasis, code or link
    assert grid.rows[0][0] == (None, "j|1")
    for mark in ("<i>", "<em>", "<code>", "<a ", "<strong>"):
        assert mark not in page, mark
    assert "&lt;i&gt;e&lt;/i&gt;" in page and "rate &lt;x&gt;" in page
    assert "| j\\|1 |" in md and f"| {TRICKY.replace('|', chr(92) + '|')} |" in md
    assert '<table class="sortable">' in page and page.count('tabindex="0"') == 5


def test_a_cell_with_its_own_value_keeps_its_text_in_every_rendering():
    t = _table()
    rows = json.loads(t.json())["rows"]
    assert rows[1]["mean"] == "0.500 (last-frame)" and rows[2]["mean"] == "n/a"
    assert "0.500 (last-frame)" in t.text()
    csv_rows = [r.split(",") for r in t.csv().splitlines()]
    assert csv_rows[2][csv_rows[0].index("mean")] == "0.5"  # a metric column: the value
    assert csv_rows[3][csv_rows[0].index("mean")] == ""
    text_only = Table("c", "C", ("best",), ((Cell("0.5 (x)", 0.5),),))
    assert text_only.csv() == "best\n0.5 (x)\n"  # a column of text: the text
    assert sort_value(Cell("1.000 (x)", None)) is None  # its value, not its text
    assert sort_value(float("nan")) is None and sort_value({"value": float("inf"), "den": 1}) \
        is None


def test_an_empty_table_shows_one_row_of_dashes():
    grid = _Grid(Table("e", "Empty", ("a", "b"), ()).html())
    assert grid.rows == [[(None, DASH), (None, DASH)]]


def test_a_section_draws_its_table_with_title_and_notes_and_the_markdown_agrees():
    t = Table("headline", "Head *line*", ("judge", "x"),
              (("j", {**ZERO, "status": "descriptive"}),), ("see `a` and p_b",))
    runs = Section("Runs", ("| run |\n|---|\n| `r` |", "Tasks run: C."))
    doc = Document("Report", "Written now.", (runs, Section(t.title, (t, "Files: `f`"))))
    md = doc.markdown()
    assert md.startswith("# Report\n\nWritten now.\n\n## Runs\n\n| run |")
    assert f"## Head *line*\n\n{t.body_markdown()}\nFiles: `f`\n" in md
    assert doc.sections[1].headline and not runs.headline
    out = doc.sections[1].html()
    assert out.startswith('<section id="s-head-line"><h2 id="head-line">Head <em>line</em></h2>')
    assert t.html() in out
    assert '<p class="note"><em>see <code>a</code> and p_b</em></p>' in out
    assert f'<p class="note"><em>{html.escape(DESCRIPTIVE_NOTE, quote=False)}</em></p>' in out
    assert "<p>Files: <code>f</code></p>" in out
    assert '<td><code>r</code></td>' in runs.html()


def test_a_count_written_with_thousands_separators_sorts_as_its_number():
    assert sort_value("1,012") == 1012.0 and sort_value("12,345.5 USD") == 12345.5
    assert sort_value("9") < sort_value("1,012")


def test_a_figure_written_out_by_a_table_sorts_by_its_value_not_its_text():
    """The shortcut tables (and the headline, judge pairs, hard CF) write figures out
    themselves; the page sorts them by the figure, not by the rounded text."""
    from gridwm_judge.report.shortcuts import short
    from gridwm_judge.results import MetricResult

    cell = short(MetricResult(task="C", world="minigrid", name="idr_raw", value=0.0004,
                              ci=(0.0, 0.001)))
    assert fcell(cell) == "0.000 [0.00, 0.00]" and sort_value(cell) == 0.0004
    html_table = Table("t", "T", ("a",), ((cell,),)).html()
    assert 'data-sort="0.0004"' in html_table

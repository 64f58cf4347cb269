"""The times and sizes that README.md and docs/*.md quote agree with docs/measured.md.

docs/measured.md holds one table of measured figures, each row under a stable key (first
column, e.g. ``build_standard_s``, ``quickstart_mb``): a key ending in ``_s`` is a time, one
ending in ``_mb`` a size. A page that quotes one of them puts ``<!-- measured:KEY -->`` right
after the figure, e.g. ``about 1 min 50 s<!-- measured:build_standard_s -->``. A quoted figure
must equal the measured one rounded to the quote's own precision (``1 min 50 s``: to 10 s;
``109 MB``: to 1 MB; ``1.8 min``: to 0.1 min), and that precision must be at most a fifth of the
figure or one second / megabyte (so ``2 min`` does not stand for 109 s, while ``4 s`` may stand
for 4.3 s). Text only: nothing is built or run here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MEASURED = ROOT / "docs" / "measured.md"
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))

UNITS = {
    # unit -> (kind, factor to the base unit: seconds, or MB as `du -sh` prints them: MiB)
    "h": ("s", 3600.0), "hours": ("s", 3600.0), "hour": ("s", 3600.0),
    "min": ("s", 60.0), "minutes": ("s", 60.0), "minute": ("s", 60.0),
    "s": ("s", 1.0), "seconds": ("s", 1.0), "second": ("s", 1.0),
    "KB": ("mb", 1 / 1024), "MB": ("mb", 1.0), "GB": ("mb", 1024.0),
}
_UNIT = "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True))
PART = re.compile(rf"(\d+(?:\.\d+)?) ?({_UNIT})\b")
FIGURE = re.compile(rf"(?:\d+(?:\.\d+)? ?(?:{_UNIT})\b ?)+")
MARKER = re.compile(r"<!-- measured:([A-Za-z0-9_]+) -->")
QUOTE = re.compile(rf"(?<![\d.,])((?:\d+(?:\.\d+)? ?(?:{_UNIT})\b ?)+)\s*$")
KEY_ROW = re.compile(r"^\|\s*`([a-z0-9_]+)`\s*\|(.*)\|\s*$")


@dataclass(frozen=True)
class Figure:
    """A quoted or measured figure: its value in the kind's base unit and its rounding step."""

    text: str
    kind: str
    value: float
    step: float


def parse_figure(text: str) -> Figure:
    """``1 min 50 s`` -> 110 s, step 10 s; ``109 MB`` -> 109 MB, step 1 MB; ``1.1 GB`` ->
    1126.4 MB, step 102.4 MB. The step is the last part's precision: its decimals, or for a
    whole number its trailing zeros."""
    parts = PART.findall(text)
    if not parts or FIGURE.fullmatch(text.strip()) is None:
        raise ValueError(f"not a figure: {text!r}; expected e.g. '109 s', '1 min 50 s', '109 MB'")
    kinds = {UNITS[unit][0] for _, unit in parts}
    if len(kinds) != 1:
        raise ValueError(f"figure {text!r} mixes times and sizes")
    value = sum(float(number) * UNITS[unit][1] for number, unit in parts)
    number, unit = parts[-1]
    if "." in number:
        precision = 10.0 ** -len(number.split(".")[1])
    else:
        digits = number.lstrip("0")
        precision = 10.0 ** (len(digits) - len(digits.rstrip("0"))) if digits else 1.0
    return Figure(text.strip(), kinds.pop(), value, precision * UNITS[unit][1])


def measured_table(text: str) -> dict[str, tuple[Figure, list[str]]]:
    """docs/measured.md's rows: key -> (the figure, the row's other cells)."""
    rows: dict[str, tuple[Figure, list[str]]] = {}
    header: list[str] | None = None
    for line in text.splitlines():
        if header is None and line.startswith("| key |"):
            header = [c.strip() for c in line.strip().strip("|").split("|")]
            continue
        m = KEY_ROW.match(line)
        if m is None or header is None:
            continue
        cells = [c.strip() for c in m.group(2).split("|")]
        assert len(cells) == len(header) - 1, f"docs/measured.md row {m.group(1)!r}: {line!r}"
        row = dict(zip(header[1:], cells, strict=True))
        figure_cell = row["figure"]
        match = FIGURE.match(figure_cell)
        assert match, f"docs/measured.md row {m.group(1)!r}: no figure in {figure_cell!r}"
        assert m.group(1) not in rows, f"docs/measured.md: key {m.group(1)!r} twice"
        rows[m.group(1)] = (parse_figure(match.group(0)), cells)
    return rows


def quotes(text: str) -> list[tuple[str, Figure | None, int]]:
    """Each marker on a page: (key, the figure right before it or None, line number)."""
    found = []
    for marker in MARKER.finditer(text):
        line = text.count("\n", 0, marker.start()) + 1
        m = QUOTE.search(text[max(0, marker.start() - 120):marker.start()])
        found.append((marker.group(1), parse_figure(m.group(1)) if m else None, line))
    return found


def agrees(quoted: Figure, measured: Figure) -> bool:
    """Is ``quoted`` the measured figure rounded to the quote's precision (a fifth of the figure,
    or one second / megabyte, or finer)?"""
    if quoted.kind != measured.kind:
        return False
    if quoted.step > max(measured.value / 5, 1.0) + 1e-9:
        return False
    return abs(quoted.value - measured.value) <= quoted.step / 2 + 1e-9


@pytest.fixture(scope="module")
def table() -> dict[str, tuple[Figure, list[str]]]:
    return measured_table(MEASURED.read_text(encoding="utf-8"))


def test_measured_table_is_complete(table):
    assert table, "docs/measured.md has no rows with a `key`"
    for key, (figure, cells) in table.items():
        kind = key.rsplit("_", 1)[-1]
        assert kind in ("s", "mb"), f"key {key!r}: end it in _s (a time) or _mb (a size)"
        assert figure.kind == kind, f"key {key!r} holds {figure.text!r}, not a {kind} figure"
        assert all(cells), f"docs/measured.md row {key!r} has an empty cell: {cells}"


def test_quoted_figures_match_measured(table):
    checked = 0
    problems = []
    for page in PAGES:
        if page == MEASURED:
            continue
        name = page.relative_to(ROOT)
        for key, quoted, line in quotes(page.read_text(encoding="utf-8")):
            if key not in table:
                problems.append(f"{name}:{line}: marker for {key!r}, which docs/measured.md "
                                f"has no row for (keys: {', '.join(sorted(table))})")
            elif quoted is None:
                problems.append(f"{name}:{line}: marker {key!r} does not follow a figure "
                                f"such as '109 s' or '1 min 50 s'")
            elif not agrees(quoted, table[key][0]):
                problems.append(f"{name}:{line}: quotes {quoted.text!r} for {key!r}; "
                                f"docs/measured.md measured {table[key][0].text!r}")
            checked += 1
    assert not problems, "\n".join(problems)
    assert checked, "no page quotes a figure of docs/measured.md"


@pytest.mark.parametrize(("quoted", "measured", "ok"), [
    ("1 min 50 s", "109 s", True),
    ("110 s", "109 s", True),
    ("109 s", "109 s", True),
    ("1.8 min", "109 s", True),
    ("2 min", "109 s", False),        # a step of 60 s is coarser than a fifth of 109 s
    ("1 min 30 s", "89.1 s", True),
    ("3 min", "189.8 s", False),
    ("3 min 10 s", "189.8 s", True),
    ("4 s", "4.3 s", True),
    ("5 s", "4.3 s", False),
    ("1 min 40 s", "109 s", False),
    ("about 11 min", "637 s", True),
    ("10 min", "637 s", False),
    ("109 MB", "111.5 MB", False),
    ("110 MB", "109 MB", True),
    ("1 min", "109 MB", False),       # a time is never a size
])
def test_rounding_rule(quoted, measured, ok):
    q = parse_figure(FIGURE.search(quoted).group(0))
    assert agrees(q, parse_figure(measured)) is ok


def test_parse_figure_refuses_what_is_not_one():
    with pytest.raises(ValueError, match="not a figure"):
        parse_figure("about")
    with pytest.raises(ValueError, match="mixes"):
        parse_figure("1 min 3 MB")
    assert math.isclose(parse_figure("1.1 GB").value, 1126.4)

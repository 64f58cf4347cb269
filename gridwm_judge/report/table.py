"""One report table and its three renderings (Markdown, CSV, JSON).

A cell is plain (str / int / float / None) or a metric: a :class:`MetricResult` of the scores,
passed as it is (:class:`Shown` when it is shown otherwise than as a proportion), or, for a
figure the report computes itself or imports as published, a metric object ``M``
(``{"value", "num", "den", "ci"[, "ci_env"][, "status"]}``), which is also what tables/*.json
hold for every metric cell (:func:`metric_obj`, the one conversion). Markdown shows a metric as
``value (num/den) [lo, hi]`` so every number carries its denominator and CI; CSV spreads it
over ``col``, ``col_num``, ``col_den``, ``col_ci_lo``, ``col_ci_hi`` (and ``col_env_ci_*``);
JSON keeps the metric object as it is. A descriptive figure (too few groups to rank or
diagnose on) is marked ``†`` in Markdown, with a footnote the table adds itself. A metric
marked ``"signed": True`` is a difference and shows as :func:`fdiff` does (every difference
in every table has the one format of :func:`fsigned`); one with a ``"unit"`` shows its
denominator as a number of that unit (:class:`Shown`). How each kind of number is written
(decimals, p-values) is :mod:`gridwm_judge.formats`'s.

index.html draws the table from the object too (:meth:`Table.html`): each cell shows the text
the Markdown shows, escaped (a cell is text, never markup), and sorts by its value
(:func:`sort_value`), never by a number read back out of that text. A table written in
Markdown by hand (``markup``: code spans, bold) is drawn through markdown-it-py as the
report's prose is, and its cells sort by their values all the same.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gridwm_judge.formats import CI_DIGITS, DASH, fcount, fcount_of, fnum, fsigned
from gridwm_judge.report.markdown_html import to_html
from gridwm_judge.results import MIN_GROUPS, MetricResult

DESCRIPTIVE = "†"
DESCRIPTIVE_NOTE = (f"{DESCRIPTIVE} Descriptive: a per-family or per-probe figure over fewer than "
                    f"{MIN_GROUPS} groups; its interval is too wide to rank judges or raise a "
                    "failure mode on (a mode resting on such figures alone is 'suggested').")


@dataclass(frozen=True)
class Shown:
    """A metric shown otherwise than as ``value (num/den) [lo, hi]``: with its denominator as
    ``n`` ``unit`` (a mean, whose numerator is no count; with ``signed`` a difference, whose
    numerator is a net count), without its counts (``counts=False``: a figure whose counts
    the table does not show) or without its interval (``ci=False``: a figure over too few
    groups for one)."""

    metric: MetricResult | Shown | Mapping[str, Any]
    unit: str | None = None
    signed: bool = False
    counts: bool = True
    ci: bool = True


def shown(m: MetricResult | Shown | Mapping[str, Any] | None, *, unit: str | None = None,
          signed: bool = False, counts: bool = True, ci: bool = True) -> Shown | None:
    """``m`` as :class:`Shown` says (None stays None: the table shows a dash)."""
    return None if m is None else Shown(m, unit, signed, counts, ci)


def metric_obj(cell: Any) -> dict[str, Any] | None:
    """A metric cell as tables/*.json hold it (and the renderings read it): ``{"value", "ci",
    "num", "den"[, "ci_env"][, "status": "descriptive"][, "unit"][, "signed"]}``; None for a
    cell that is no metric. A result's ``ci_env`` is there when an environment-level bootstrap
    was run, its status only when it is descriptive by the reporting rule."""
    if isinstance(cell, MetricResult):
        out: dict[str, Any] = {"value": cell.value, "ci": _list(cell.ci),
                               "num": cell.numerator, "den": cell.denominator}
        if cell.env_level:
            out["ci_env"] = _list(cell.ci_env)
        # IDR_cond's own "descriptive" is low activation, which its table writes as "unstable"
        if cell.status == "descriptive" and cell.name != "idr_cond":
            out["status"] = cell.status
        return out
    if isinstance(cell, Shown):
        inner = metric_obj(cell.metric)
        if inner is None:
            raise TypeError(f"Shown holds no metric: {cell.metric!r}")
        out = {k: v for k, v in inner.items() if cell.ci or k not in ("ci", "ci_env")}
        if not cell.counts:
            out.update(num=None, den=None)
        if cell.unit is not None:
            out["unit"] = cell.unit
        if cell.signed:
            out["signed"] = True
        return out
    if isinstance(cell, Mapping) and "value" in cell and "den" in cell:
        return dict(cell)
    return None


def _list(ci: tuple[float, float] | None) -> list[float] | None:
    return None if ci is None else list(ci)


def is_metric(cell: Any) -> bool:
    return metric_obj(cell) is not None


def is_descriptive(cell: Any) -> bool:
    m = metric_obj(cell)
    return m is not None and m.get("status") == "descriptive"


def fci(ci) -> str:
    """An interval: ``[0.21, 0.79]``."""
    return "" if not ci else f"[{fnum(ci[0], CI_DIGITS)}, {fnum(ci[1], CI_DIGITS)}]"


def fsigned_ci(ci, digits: int = CI_DIGITS) -> str:
    """A difference's interval, its ends signed as :func:`fsigned`: ``[-0.21, +0.06]``."""
    if not ci or ci[0] is None or ci[1] is None:
        return ""
    return f"[{fsigned(ci[0], digits)}, {fsigned(ci[1], digits)}]"


def fdiff(cell: Any, unit: str | None = None) -> str:
    """A paired difference of proportions (a metric cell) with its CI, never as a count:
    ``-0.135 [-0.21, -0.06], 104 paired questions`` (``unit`` names what the denominator
    counts; the environment CI follows as ``; env lo, hi``)."""
    m = metric_obj(cell)
    if not m or m.get("value") is None:
        return DASH
    text = fsigned(m["value"])
    ci, env = fsigned_ci(m.get("ci")), fsigned_ci(m.get("ci_env"))
    if ci and env:
        text += f" {ci[:-1]}; env {env[1:]}"
    elif ci or env:
        text += f" {ci or 'env ' + env}"
    if unit and m.get("den") is not None:
        text += f", {fcount_of(m['den'], unit)}"
    return text + (DESCRIPTIVE if m.get("status") == "descriptive" else "")


def fmetric(cell: Any, *, ci: bool = True, count: bool = True) -> str:
    """A metric cell: ``0.500 (7/14) [0.21, 0.79]``; an empty set shows ``– (0/0)``. A cell
    with a ``unit`` (a mean, whose numerator is no count) shows its denominator as ``n`` of
    that unit: ``0.734 [0.61, 0.85], 12 items``."""
    m = metric_obj(cell)
    if not m:
        return DASH
    unit = m.get("unit")
    if m.get("signed"):
        return fdiff(m, unit)
    text = fnum(m.get("value"))
    if count and not unit and m.get("den") is not None:
        text += f" ({fcount(m.get('num'))}/{fcount(m.get('den'))})"
    if ci and m.get("ci"):
        text += " " + fci(m["ci"])
        if m.get("ci_env"):
            text = text[:-1] + f"; env {fci(m['ci_env'])[1:]}"
    if count and unit and m.get("den") is not None:
        text += f", {fcount_of(m['den'], unit)}"
    return text + (DESCRIPTIVE if m.get("status") == "descriptive" else "")


@dataclass(frozen=True)
class Cell:
    """A figure a table writes out itself (``0.500 [0.21, 0.79] (last-frame)``), with the
    number it stands for: shown as ``text`` in every rendering, sorted by ``value``."""

    text: str
    value: float | None

    def __str__(self) -> str:
        return self.text


_LEADING_NUMBER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+(?:\.\d*)?|\d+\.?\d*|\.\d+)"
                             r"(?:e[+-]?\d+)?", re.IGNORECASE)


def sort_value(cell: Any) -> float | None:
    """The number a cell sorts by on the page, or None (it sorts by its text): a metric's
    value, a number, a :class:`Cell`'s value. A figure a table passed as plain text has no
    value to keep: the number its text starts with, until that table passes a :class:`Cell`."""
    m = metric_obj(cell)
    if m is not None:
        value = m.get("value")
    elif isinstance(cell, Cell):
        value = cell.value
    elif isinstance(cell, str):
        m = _LEADING_NUMBER.match(cell.strip())
        value = float(m.group(0).replace(",", "")) if m else None
    elif isinstance(cell, bool):
        value = None
    else:
        value = cell if isinstance(cell, (int, float)) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def fcell(cell: Any) -> str:
    if isinstance(cell, Cell):
        return cell.text
    if is_metric(cell):
        return fmetric(cell)
    if cell is None:
        return DASH
    if isinstance(cell, float):
        return fnum(cell)
    return str(cell)


def _pipe(text: str) -> str:
    """A cell's text with its pipes escaped (``\\|``), so they do not split the row."""
    return text.replace("|", "\\|")


def _json_cell(cell: Any) -> Any:
    if isinstance(cell, Cell):
        return cell.text
    m = metric_obj(cell)
    return cell if m is None else m


@dataclass(frozen=True)
class Table:
    key: str  # file stem under REPORT_DIR/tables/
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    notes: tuple[str, ...] = ()
    markup: bool = False  # its text cells are Markdown (code spans, bold), drawn as such

    @property
    def all_notes(self) -> tuple[str, ...]:
        """Its notes, and the descriptive footnote when a cell is marked."""
        marked = any(is_descriptive(c) for r in self.rows for c in r)
        return (*self.notes, DESCRIPTIVE_NOTE) if marked else self.notes

    def markdown(self) -> str:
        """Its title (a ``###`` heading), the pipe table and its notes."""
        return f"### {self.title}\n\n{self.body_markdown()}"

    def grid_markdown(self) -> str:
        """The pipe table alone (an empty text cell is one space: ``| |``)."""
        def line(texts: Iterable[str]) -> str:
            return "|" + "|".join(f" {_pipe(t)} " if t else " " for t in texts) + "|"

        lines = [line(self.columns), "|" + "|".join("---" for _ in self.columns) + "|"]
        lines += [line(fcell(c) for c in row) for row in self.rows]
        if not self.rows:
            lines.append(line(DASH for _ in self.columns))
        return "\n".join(lines) + "\n"

    def body_markdown(self) -> str:
        """The pipe table and its notes, without the title."""
        lines = [self.grid_markdown().rstrip("\n")]
        for n in self.all_notes:
            lines += ["", f"_{n}_"]
        return "\n".join(lines).rstrip() + "\n"

    def sort_keys(self) -> tuple[tuple[float | None, ...], ...]:
        """Each cell's :func:`sort_value`, row by row."""
        return tuple(tuple(sort_value(c) for c in row) for row in self.rows)

    def html(self) -> str:
        """The grid as a sortable HTML table (its title and notes are the page's to draw):
        every cell shows :func:`fcell`'s text, escaped (a ``markup`` table's Markdown drawn by
        markdown-it-py), and a number's cell carries its :func:`sort_value` as
        ``data-sort``."""
        if self.markup:
            return to_html(self.grid_markdown(), sort_keys=self.sort_keys())
        head = "".join(f'<th scope="col" tabindex="0">{html.escape(c)}</th>'
                       for c in self.columns)
        rows = self.rows or (tuple(DASH for _ in self.columns),)
        body = []
        for row in rows:
            tds = []
            for c in row:
                key = sort_value(c)
                attr = "" if key is None else f' data-sort="{key!r}"'
                tds.append(f"<td{attr}>{html.escape(fcell(c))}</td>")
            body.append("<tr>" + "".join(tds) + "</tr>")
        return ('<div class="table-wrap"><table class="sortable">\n'
                f"<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(body)
                + "\n</tbody></table></div>")

    def csv(self) -> str:
        objs = [[metric_obj(c) for c in r] for r in self.rows]
        metric_cols = {
            i for i in range(len(self.columns)) if any(r[i] is not None for r in objs)
        }
        env_cols = {i for i in metric_cols if any("ci_env" in (r[i] or {}) for r in objs)}
        header: list[str] = []
        for i, c in enumerate(self.columns):
            header.append(c)
            if i in metric_cols:
                header += [f"{c}_num", f"{c}_den", f"{c}_ci_lo", f"{c}_ci_hi"]
                if i in env_cols:
                    header += [f"{c}_env_ci_lo", f"{c}_env_ci_hi"]
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(header)
        for row, row_objs in zip(self.rows, objs, strict=True):
            out: list[Any] = []
            for i, (cell, obj) in enumerate(zip(row, row_objs, strict=True)):
                if i not in metric_cols:
                    out.append("" if cell is None else cell.text if isinstance(cell, Cell)
                               else cell)
                    continue
                m: Mapping[str, Any] = (obj if obj is not None else {"value": cell.value}
                                        if isinstance(cell, Cell) else {})
                ci = m.get("ci") or [None, None]
                vals = [m.get("value"), m.get("num"), m.get("den"), ci[0], ci[1]]
                if i in env_cols:
                    vals += list(m.get("ci_env") or [None, None])
                out.extend("" if v is None else v for v in vals)
            w.writerow(out)
        return buf.getvalue()

    def json_obj(self) -> dict:
        return {
            "key": self.key,
            "title": self.title,
            "columns": list(self.columns),
            "rows": [dict(zip(self.columns, (_json_cell(c) for c in r), strict=True))
                     for r in self.rows],
            "notes": list(self.all_notes),
        }

    def json(self) -> str:
        return json.dumps(self.json_obj(), indent=1) + "\n"

    def text(self) -> str:
        """A plain aligned table for the terminal (values only, no CIs)."""
        cells = [[fcell(c) for c in r] for r in self.rows]
        widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(self.columns)]
        line = "  ".join(h.ljust(w) for h, w in zip(self.columns, widths, strict=True))
        rule = "  ".join("-" * w for w in widths)
        body = [
            "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells
        ]
        return "\n".join([line.rstrip(), rule, *body])

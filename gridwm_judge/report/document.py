"""The report's index as one object, rendered twice: index.md (:meth:`Document.markdown`) and
the sections of index.html (:meth:`Section.html`). A section holds Markdown prose and
:class:`~gridwm_judge.report.table.Table` objects; on the page a table is drawn from its
object (its cells escaped, sorted by their values), the prose through markdown-it-py
(:mod:`.markdown_html`), so the page shows every table and figure the Markdown shows without
reading the Markdown back.
"""

from __future__ import annotations

from dataclasses import dataclass

from gridwm_judge.report.markdown_html import inline, slug, to_html
from gridwm_judge.report.table import Table

HEADLINES = ("headline", "miniworld_headline")
"""The tables (by key) that lead the page and that the quickstart prints."""

Part = str | Table
"""A Markdown text (paragraphs, a list, a figure, a pipe table written by hand) or a table."""


def _part_markdown(part: Part) -> str:
    return (part.body_markdown() if isinstance(part, Table) else part).strip("\n")


def _part_html(part: Part) -> str:
    if isinstance(part, Table):
        notes = "".join(f'\n<p class="note"><em>{inline(n)}</em></p>' for n in part.all_notes)
        return part.html() + notes
    return to_html(part)


@dataclass(frozen=True)
class Section:
    """A ``##`` section: its title (Markdown) and what follows it, in order."""

    title: str
    parts: tuple[Part, ...] = ()

    @property
    def id(self) -> str:
        return slug(self.title)

    @property
    def tables(self) -> tuple[Table, ...]:
        return tuple(p for p in self.parts if isinstance(p, Table))

    @property
    def headline(self) -> bool:
        return any(t.key in HEADLINES for t in self.tables)

    def markdown(self) -> str:
        body = "\n\n".join(_part_markdown(p) for p in self.parts)
        return f"## {self.title}\n" + (f"\n{body}\n" if body else "")

    def html(self) -> str:
        return (f'<section id="s-{self.id}"><h2 id="{self.id}">{inline(self.title)}</h2>\n'
                + "\n".join(_part_html(p) for p in self.parts) + "</section>")


@dataclass(frozen=True)
class Document:
    """index.md: a title, the lines under it (Markdown) and its sections."""

    title: str
    head: str
    sections: tuple[Section, ...]

    def markdown(self) -> str:
        return (f"# {self.title}\n\n{self.head.strip(chr(10))}\n\n"
                + "\n".join(s.markdown() for s in self.sections))

    def head_html(self) -> str:
        return to_html(self.head)

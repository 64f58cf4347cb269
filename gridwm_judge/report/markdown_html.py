"""The report's prose as HTML, through markdown-it-py (CommonMark with pipe tables; raw HTML
is never passed through, it is shown as text): headings with ids, paragraphs, lists, links,
figures, inline marks, and the few pipe tables written as Markdown (the runs, the failure
modes; the requests as sent, a :class:`~gridwm_judge.report.table.Table` of ``markup`` cells,
whose values it is given), which are made sortable like the tables drawn from
:class:`~gridwm_judge.report.table.Table` objects (:meth:`Table.html`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token

_MD = MarkdownIt("commonmark", {"html": False}).enable("table")


def slug(text: str) -> str:
    """A heading's id, from its Markdown text: ``Task C: a table`` -> ``task-c-a-table``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def inline(text: str) -> str:
    """One line of Markdown (a title, a note) as HTML, with its inline marks."""
    return _MD.renderInline(text)


def _whole_emphasis(children: list[Token]) -> bool:
    """Whether a paragraph is one emphasis from start to end (``_a note_``)."""
    if not children or children[0].type != "em_open" or children[-1].type != "em_close":
        return False
    depth = 0
    for i, c in enumerate(children):
        depth += {"em_open": 1, "em_close": -1}.get(c.type, 0)
        if depth == 0 and i < len(children) - 1:
            return False
    return True


def _figure(image: Token) -> Token:
    """A paragraph holding one image, as a figure captioned by its alt text."""
    src = html.escape(str(image.attrGet("src") or ""))
    alt = html.escape(image.content)
    fig = Token("html_block", "", 0)
    fig.content = (f'<figure class="figure"><a href="{src}"><img src="{src}" alt="{alt}" '
                   f'loading="lazy"></a><figcaption>{alt}</figcaption></figure>\n')
    return fig


def _arrange(tokens: list[Token], level_shift: int,
             sort_keys: Iterator[float | None]) -> list[Token]:
    """Ids on headings (their level shifted), sortable tables (a body cell given a key in
    ``sort_keys`` sorts by it), notes and figures marked."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        kids = (nxt.children or []) if nxt is not None and nxt.type == "inline" else []
        if t.type in ("heading_open", "heading_close"):
            t.tag = f"h{min(6, int(t.tag[1:]) + level_shift)}"
            if t.type == "heading_open" and nxt is not None:
                t.attrSet("id", slug(nxt.content))
        elif t.type == "table_open":
            t.attrSet("class", "sortable")
            out.append(Token("html_block", "", 0, content='<div class="table-wrap">'))
        elif t.type == "th_open":
            t.attrSet("scope", "col")
            t.attrSet("tabindex", "0")
        elif t.type == "td_open":
            key = next(sort_keys, None)
            if key is not None:
                t.attrSet("data-sort", repr(key))
        elif t.type == "paragraph_open" and not t.hidden and len(kids) == 1 \
                and kids[0].type == "image":
            out.append(_figure(kids[0]))
            i += 3  # the paragraph, its inline image, its close
            continue
        elif t.type == "paragraph_open" and _whole_emphasis(kids):
            t.attrSet("class", "note")
        out.append(t)
        if t.type == "table_close":
            out.append(Token("html_block", "", 0, content="</div>\n"))
        i += 1
    return out


def to_html(markdown: str, *, level_shift: int = 0,
            sort_keys: Iterable[Iterable[float | None]] = ()) -> str:
    """A Markdown text as HTML; ``level_shift`` deepens its headings (``#`` -> ``h2``);
    ``sort_keys`` holds, row by row, the value each body cell of its tables sorts by (None:
    by its text), as :meth:`.table.Table.html` writes them."""
    keys = (k for row in sort_keys for k in row)
    tokens = _arrange(_MD.parse(markdown), level_shift, keys)
    return _MD.renderer.render(tokens, _MD.options, {})

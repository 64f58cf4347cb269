"""The Markdown the report writes, as HTML: headings, paragraphs, lists, pipe tables, images
and the inline marks it uses (code, bold, italics, links). The HTML page is drawn from the
Markdown report itself, so every table and figure the Markdown shows is on the page and a new
table needs no second rendering. Everything is escaped with :func:`html.escape` first.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])_(?!\s)(.+?)(?<!\s)_(?!\w)")
_STAR_ITALIC = re.compile(r"(?<![\w*])\*(?![\s*])(.+?)(?<![\s*])\*(?![\w*])")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_IMAGE = re.compile(r"^!\[([^\]]*)\]\(([^)\s]+)\)$")
_HEADING = re.compile(r"^(#{1,6}) (.*)$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?", re.IGNORECASE)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def inline(text: str) -> str:
    """One line of Markdown text as escaped HTML with its inline marks."""
    codes: list[str] = []

    def keep(m: re.Match) -> str:
        codes.append(f"<code>{html.escape(m.group(1))}</code>")
        return f"\x00{len(codes) - 1}\x00"

    text = html.escape(_CODE.sub(keep, text), quote=True)
    text = _LINK.sub(r'<a href="\2">\1</a>', text)
    text = _BOLD.sub(r"<strong>\1</strong>", text)
    text = _ITALIC.sub(r"<em>\1</em>", text)
    text = _STAR_ITALIC.sub(r"<em>\1</em>", text)
    return re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], text)


def sort_key(cell: str) -> str:
    """The number a cell starts with (``0.500 (7/14) [...]`` -> ``0.5``), for sorting; ""
    when it starts with none."""
    m = _NUMBER.match(cell.strip())
    return repr(float(m.group(0))) if m else ""


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [c.strip().replace("\\|", "|") for c in _CELL_SPLIT.split(body)]


def table(lines: list[str], caption: str = "") -> str:
    """A pipe table (header, rule, rows) as a sortable HTML table."""
    head, rows = _cells(lines[0]), [_cells(x) for x in lines[2:]]
    out = ['<div class="table-wrap"><table class="sortable">']
    if caption:
        out.append(f"<caption>{inline(caption)}</caption>")
    out.append("<thead><tr>" + "".join(
        f'<th scope="col" tabindex="0">{inline(h)}</th>' for h in head) + "</tr></thead>")
    out.append("<tbody>")
    for r in rows:
        tds = []
        for c in r:
            key = sort_key(c)
            attr = f' data-sort="{key}"' if key else ""
            tds.append(f"<td{attr}>{inline(c)}</td>")
        out.append("<tr>" + "".join(tds) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


@dataclass(frozen=True)
class Block:
    kind: str  # heading | table | list | image | para
    lines: tuple[str, ...]


def blocks(markdown: str) -> Iterator[Block]:
    """The Markdown split into blocks: a heading line, a run of table lines, of list items, an
    image line, or a paragraph (lines up to a blank line)."""
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if _HEADING.match(line):
            yield Block("heading", (line,))
            i += 1
            continue
        for kind, test in (("table", lambda s: s.lstrip().startswith("|")),
                           ("list", lambda s: s.startswith("- "))):
            if test(line):
                j = i
                while j < len(lines) and test(lines[j]):
                    j += 1
                yield Block(kind, tuple(lines[i:j]))
                i = j
                break
        else:
            if _IMAGE.match(line.strip()):
                yield Block("image", (line.strip(),))
                i += 1
                continue
            j = i
            while (j < len(lines) and lines[j].strip() and not _HEADING.match(lines[j])
                   and not lines[j].lstrip().startswith("|")):
                j += 1
            yield Block("para", tuple(lines[i:j]))
            i = j


def render(block: Block, *, level_shift: int = 0) -> str:
    if block.kind == "heading":
        m = _HEADING.match(block.lines[0])
        assert m is not None
        level = min(6, len(m.group(1)) + level_shift)
        return f'<h{level} id="{slug(m.group(2))}">{inline(m.group(2))}</h{level}>'
    if block.kind == "table":
        return table(list(block.lines))
    if block.kind == "list":
        return "<ul>" + "".join(f"<li>{inline(x[2:])}</li>" for x in block.lines) + "</ul>"
    if block.kind == "image":
        m = _IMAGE.match(block.lines[0])
        assert m is not None
        alt, src = html.escape(m.group(1)), html.escape(m.group(2))
        return (f'<figure class="figure"><a href="{src}"><img src="{src}" alt="{alt}" '
                f'loading="lazy"></a><figcaption>{alt}</figcaption></figure>')
    text = " ".join(x.strip() for x in block.lines)
    cls = ' class="note"' if re.fullmatch(r"_.+_", text) else ""
    return f"<p{cls}>{inline(text)}</p>"


def to_html(markdown: str, *, level_shift: int = 0) -> str:
    return "\n".join(render(b, level_shift=level_shift) for b in blocks(markdown))

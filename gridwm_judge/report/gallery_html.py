"""The failure gallery as an HTML section: the counts per judge, task and kind, filters (judge,
task, kind, family, variant, probe; the page's script applies them) and one card per drawn
answer: the thumbnails of the images the judge saw (each a link to the full image), the
prompt, the raw answer with the answer word its verdict reads marked, the parsed answer and
the gold, and the audit facts. Every text is escaped: an answer is shown as text, never run.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable
from typing import Any

from gridwm_judge.report.gallery import CAP, KINDS
from gridwm_judge.report.gallery_items import Gallery, GalleryGroup, GalleryItem
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.task_table import Choice, JsonVerdict, Verdict, answer_spec, task_spec

FILTERS = ("judge", "task", "kind", "family", "variant", "probe")
"""The gallery's filters, each a ``data-`` attribute of every card."""

_VERDICT_CODE = {1: "success", 0: "failure"}


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _verdict_words(row: GradedRow) -> Verdict | None:
    fmt = answer_spec(row.task, row.prompt_style).answer
    if isinstance(fmt, JsonVerdict):
        return fmt.verdict
    return fmt if isinstance(fmt, Verdict) else None


def _word(row: GradedRow, value: Any) -> str:
    """How the prompt's answer format says ``value`` (a verdict as its word: "Yes")."""
    words = _verdict_words(row)
    if words is not None and value in ("success", "failure"):
        return words.success if value == "success" else words.failure
    if value is None:
        return "none"
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _gold(row: GradedRow) -> str:
    if row.verdict is not None and isinstance(row.gold, int) and row.gold in _VERDICT_CODE:
        return _word(row, _VERDICT_CODE[row.gold])
    return _word(row, row.gold)


def _marked(raw: str, row: GradedRow) -> str:
    """``raw`` escaped, with the last place it says its parsed answer marked: the verdict's
    word, the letter chosen, the label given (a whole word, case-insensitive for words)."""
    value = row.parsed
    if value is None or isinstance(value, dict):
        return _e(raw)
    fmt = answer_spec(row.task, row.prompt_style).answer
    if isinstance(fmt, Choice):
        pattern = rf"(?<![A-Za-z]){re.escape(str(value))}(?![A-Za-z])"
    else:
        pattern = rf"(?i)(?<!\w){re.escape(_word(row, value))}(?!\w)"
    spans = list(re.finditer(pattern, raw))
    if not spans:
        return _e(raw)
    m = spans[-1]
    return (_e(raw[:m.start()]) + f'<mark class="verdict">{_e(m.group(0))}</mark>'
            + _e(raw[m.end():]))


def _probe(row: GradedRow) -> str:
    return row.probe_family or "none"


def _twin(item: GalleryItem) -> str:
    f = item.failure
    if f.twin is None:
        return ""
    what = "its Full twin" if f.kind == "nocue_flip" else "the canonical presentation"
    return (f'<p class="twin">Compared with {what}: <code>{_e(f.twin.uid)}</code> '
            f"answered <strong>{_e(_word(f.twin, f.twin.parsed))}</strong></p>")


def _card(group: GalleryGroup, item: GalleryItem) -> str:
    row = item.failure.row
    data = {"judge": group.judge, "task": row.task, "kind": item.failure.kind,
            "family": row.family or "none", "variant": row.variant or "none",
            "probe": _probe(row)}
    attrs = " ".join(f'data-{k}="{_e(data[k])}"' for k in FILTERS)
    thumbs = "".join(
        f'<a href="{_e(p.full)}" target="_blank" rel="noopener"><img src="{_e(p.thumb)}" '
        f'alt="image {i} of {_e(row.uid)}" loading="lazy"></a>'
        for i, p in enumerate(item.pictures, 1))
    if item.raw is None:
        answer = '<p class="missing">The run\'s predictions hold no answer under this uid.</p>'
    else:
        answer = f'<pre class="raw">{_marked(item.raw, row)}</pre>'
    reasoning = ("" if not item.reasoning else
                 f"<details><summary>reasoning (never parsed)</summary>"
                 f'<pre class="raw">{_e(item.reasoning)}</pre></details>')
    audit = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in item.audit)
    grade = "right" if row.correct else "wrong"
    strip = "thumbs many" if len(item.pictures) > 2 else "thumbs"
    parsed = _e(_word(row, row.parsed))
    return f"""<article class="gitem" {attrs}>
<div class="{strip}">{thumbs}</div>
<div class="gbody">
<p class="uid"><code>{_e(row.uid)}</code></p>
<p class="verdicts"><span class="badge parsed {grade}">parsed: <strong>{parsed}</strong>
 ({_e(row.parse_mode)})</span> <span class="badge gold">gold: <strong>{_e(_gold(row))}</strong>
</span> <span class="badge status">{_e(row.status)}</span></p>
{_twin(item)}<details><summary>prompt</summary><pre class="prompt">{_e(item.prompt)}</pre></details>
<div class="answer"><span class="label">raw answer</span>{answer}</div>{reasoning}
<dl class="audit">{audit}</dl>
</div></article>"""


def _options(name: str, values: Iterable[str]) -> str:
    opts = "".join(f'<option value="{_e(v)}">{_e(KINDS.get(v, v) if name == "kind" else v)}'
                   f"</option>" for v in sorted(set(values)))
    return (f'<label>{name} <select data-filter="{name}"><option value="">all</option>'
            f"{opts}</select></label>")


def _counts(gallery: Gallery) -> str:
    rows = "".join(
        f"<tr><td>{_e(g.judge)}</td><td>{_e(g.task)} ({_e(task_spec(g.task).config)})</td>"
        f"<td>{_e(KINDS[g.kind])}</td><td data-sort=\"{g.total}\">{g.total}</td>"
        f"<td data-sort=\"{len(g.items)}\">{len(g.items)}</td></tr>"
        for g in gallery.groups)
    return ('<div class="table-wrap"><table class="sortable gallery-counts"><thead><tr>'
            + "".join(f'<th scope="col" tabindex="0">{h}</th>'
                      for h in ("judge", "task", "kind", "failures", "shown"))
            + f"</tr></thead><tbody>{rows}</tbody></table></div>")


def section(gallery: Gallery) -> str:
    """The gallery's section: one line saying why when nothing could be shown and why."""
    head = '<section id="failure-gallery"><h2>Failure gallery</h2>'
    if not gallery.groups and gallery.notes:
        why = "; ".join(gallery.notes)
        return f'{head}<p class="left-out">Failure gallery left out: {_e(why)}</p></section>'
    notes = "".join(f'<p class="left-out">{_e(n)}</p>' for n in gallery.notes)
    intro = (f"<p>Per judge, task and kind of failure, the answers it got wrong: at most {CAP} "
             f"drawn (those whose uid ranks first by a hash of the sampling seed {gallery.seed} "
             "and the uid, so judges' draws share items where their failures do), the count of "
             "all of them beside. A probe flip compares a "
             "reversed, noisy / styled or framed presentation with the same group's canonical "
             "one; a NoCue flip compares NoCue with its Full twin. Click a thumbnail for the "
             "full image; the marked word is where the answer last says what was parsed.</p>")
    if not gallery.groups:
        return f"{head}{intro}{notes}<p>No failures: every answer was right.</p></section>"
    cards = [it for g in gallery.groups for it in g.items]
    values = {
        "judge": [g.judge for g in gallery.groups], "task": [g.task for g in gallery.groups],
        "kind": [g.kind for g in gallery.groups],
        "family": [it.failure.row.family or "none" for it in cards],
        "variant": [it.failure.row.variant or "none" for it in cards],
        "probe": [_probe(it.failure.row) for it in cards],
    }
    filters = ('<div class="filters" id="gallery-filters">'
               + "".join(_options(n, values[n]) for n in FILTERS)
               + ' <span id="gallery-shown" aria-live="polite"></span></div>')
    groups = []
    for g in gallery.groups:
        title = (f"{_e(g.judge)} · {_e(g.task)} ({_e(task_spec(g.task).config)}) · "
                 f"{_e(KINDS[g.kind])}")
        groups.append(
            f'<section class="ggroup" data-judge="{_e(g.judge)}" data-task="{_e(g.task)}" '
            f'data-kind="{_e(g.kind)}"><h3>{title} <span class="count">{len(g.items)} shown '
            f"of {g.total}</span></h3><div class=\"gitems\">"
            + "\n".join(_card(g, it) for it in g.items) + "</div></section>")
    counts = (f"<details><summary>Counts: {len(cards)} items shown of "
              f"{sum(g.total for g in gallery.groups)} failures in {len(gallery.groups)} "
              f"judge / task / kind groups</summary>{_counts(gallery)}</details>")
    return (f"{head}{intro}{notes}{counts}{filters}"
            + "\n".join(groups) + "</section>")

"""The report's prose as HTML (markdown-it-py: headings with ids, notes, figures, the pipe
tables written as Markdown made sortable, raw HTML shown as text), and the gallery's escaping
of what a judge answered."""

from __future__ import annotations

from gridwm_judge.report.gallery import Failure
from gridwm_judge.report.gallery_html import section
from gridwm_judge.report.gallery_items import Gallery, GalleryGroup, GalleryItem, Picture
from gridwm_judge.report.markdown_html import inline, slug, to_html
from gridwm_judge.scoring.grading import GradedRow

MD = """# Title

Written by `gridwm-judge`. **Bold** and _a note_ with p_active kept.

## Task C: a table

| judge | IDR_raw | note |
|---|---|---|
| a | 0.500 (7/14) [0.21, 0.79] | x \\| y |
| b | – | <b>no</b> |

_Brackets: 95% CI._

- **a**: none
- **b**: leakage

![fig4_stability](figures/fig4_stability.png)
"""


def test_prose_headings_notes_lists_and_figures():
    out = to_html(MD)
    assert '<h1 id="title">Title</h1>' in out
    assert '<h2 id="task-c-a-table">Task C: a table</h2>' in out
    assert ("<p>Written by <code>gridwm-judge</code>. <strong>Bold</strong> and <em>a note</em> "
            "with p_active kept.</p>") in out
    assert '<p class="note"><em>Brackets: 95% CI.</em></p>' in out
    assert "<li><strong>a</strong>: none</li>" in out and out.count("<li>") == 2
    assert ('<figure class="figure"><a href="figures/fig4_stability.png"><img '
            'src="figures/fig4_stability.png" alt="fig4_stability" loading="lazy"></a>'
            "<figcaption>fig4_stability</figcaption></figure>") in out
    assert "<p><img" not in out  # the image's paragraph became the figure
    shifted = to_html(MD, level_shift=1)
    assert '<h2 id="title">Title</h2>' in shifted and '<h3 id="task-c-a-table">' in shifted


def test_a_pipe_table_written_as_markdown_is_sortable_and_escaped():
    out = to_html(MD)
    assert '<div class="table-wrap"><table class="sortable">' in out
    assert out.count('<th scope="col" tabindex="0">') == 3 and out.count("<tr>") == 3
    assert "<td>x | y</td>" in out  # an escaped pipe stays in its cell
    assert "<td>&lt;b&gt;no&lt;/b&gt;</td>" in out and "<b>no</b>" not in out
    assert "</table>\n</div>" in out


def test_a_paragraph_emphasised_in_part_is_no_note():
    assert to_html("_a_ and _b_") == "<p><em>a</em> and <em>b</em></p>\n"
    assert to_html("_all of it_") == '<p class="note"><em>all of it</em></p>\n'


def test_inline_marks_and_what_is_never_markup():
    assert inline("`a<b>` **x** _y_ *z*: p_active [f](f.md)") == (
        '<code>a&lt;b&gt;</code> <strong>x</strong> <em>y</em> <em>z</em>: p_active '
        '<a href="f.md">f</a>')
    assert inline('<script>alert("x")</script>') == (
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;")
    assert "<a" not in inline("[x](javascript:alert(1))")  # no script links
    assert slug("Task C: `task_c` (Table 2)") == "task-c-task-c-table-2" and slug("**") == "section"


def _row(raw_parsed: str | None) -> GradedRow:
    return GradedRow(judge="j", uid="C.x<y>.cf", task="C", family="doorkey", env_id="E",
                     group_id="g", item_id="i", variant="cf", temporal="orig", visual="clean",
                     framing="neutral", representation="composite", probe_family="grid",
                     action_condition="", question="", status="ok", parse_mode="strict",
                     parsed=raw_parsed, gold=0, verdict=1, correct=False, score=None)


def test_a_gallery_card_shows_the_answer_as_text_with_its_verdict_marked():
    raw = 'I think <script>alert("x")</script> the answer is: yes & done'
    item = GalleryItem(Failure(_row("success"), "cf_accepted"), "Did it <succeed>?", raw, None,
                       (("intervention", '[{"op": "<remove>"}]'),),
                       (Picture("gallery/t.webp", "gallery/f.webp", 10, 10),))
    out = section(Gallery((GalleryGroup("judge<1>", "C", "cf_accepted", 30, (item,)),), (),
                          42))
    assert "<script>" not in out and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in out
    assert '<mark class="verdict">yes</mark> &amp; done' in out  # the last "yes"
    assert "Did it &lt;succeed&gt;?" in out and "judge&lt;1&gt;" in out
    assert "C.x&lt;y&gt;.cf" in out and "&lt;remove&gt;" in out
    assert "1 shown of 30" in out and "gold: <strong>No</strong>" in out
    assert 'parsed: <strong>Yes</strong>' in out
    unparsed = GalleryItem(Failure(_row(None), "no_verdict"), "p", "<img src=x onerror=alert(1)>",
                           "<think>", (), ())
    out = section(Gallery((GalleryGroup("j", "C", "no_verdict", 1, (unparsed,)),), (), 42))
    assert "<img src=x" not in out and "&lt;img src=x onerror=alert(1)&gt;" in out
    assert "&lt;think&gt;" in out and "parsed: <strong>none</strong>" in out


def test_a_gallery_left_out_is_one_line():
    out = section(Gallery((), ("dataset '/x' could not be read (no such folder)",), 42))
    assert out.count('class="left-out"') == 1
    assert "Failure gallery left out: dataset &#x27;/x&#x27; could not be read" in out

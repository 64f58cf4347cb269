"""The "Requests as sent" table (:mod:`gridwm_judge.report.sent`): its Markdown is the pipe
table index.md always held (paths as code, a request that was not greedy in bold, empty cells
for a run that recorded nothing), and on the page its token counts sort by their number, not
their text."""

from __future__ import annotations

from types import SimpleNamespace

from test_table_html import _Grid  # same folder: pytest puts it on sys.path

from gridwm_judge.report.markdown_html import to_html
from gridwm_judge.report.sent import decoding_table


def _run(path: str, judge: str, prompt_tokens: int | None, *, greedy: bool = True):
    usage = None if prompt_tokens is None else {
        "prompt_tokens": prompt_tokens, "completion_tokens": 7, "reasoning_tokens": 0}
    sent = {"greedy": greedy, "fields": {"temperature": 0, "max_tokens": 64},
            "refused_by_server": [] if greedy else ["temperature"],
            "served_models": ["m-1"]}
    return SimpleNamespace(path=path, run=SimpleNamespace(judge=judge, as_sent=sent,
                                                          usage=usage))


RUNS = [
    _run("runs/a", "openai:a", 12_345),
    _run("runs/b", "openai:b", 987, greedy=False),
    SimpleNamespace(path="runs/old", run=SimpleNamespace(judge="baseline:random",
                                                         as_sent=None, usage=None)),
    _run("runs/c", "openai:c", None),
]
MARKDOWN = """\
| run | judge | greedy | sent | not sent | refused by server | served by | tokens in / out / reasoning |
|---|---|---|---|---|---|---|---|
| `runs/a` | openai:a | yes | temperature=0, max_tokens=64 | – | – | m-1 | 12345 / 7 / 0 |
| `runs/b` | openai:b | **no** | temperature=0, max_tokens=64 | – | temperature | m-1 | 987 / 7 / 0 |
| `runs/old` | baseline:random | not recorded | | | | | |
| `runs/c` | openai:c | yes | temperature=0, max_tokens=64 | – | – | m-1 | – |
"""  # noqa: E501  (the table as index.md holds it)


def test_the_markdown_is_the_pipe_table_index_md_held():
    table = decoding_table(RUNS)
    assert table.title == "Requests as sent" and table.markup
    assert table.body_markdown() == MARKDOWN


def test_on_the_page_the_tokens_sort_by_their_number_and_the_markup_is_drawn():
    table = decoding_table(RUNS)
    page = table.html()
    grid = _Grid(page)
    tokens = [row[-1] for row in grid.rows]
    assert tokens == [("12345.0", "12345 / 7 / 0"), ("987.0", "987 / 7 / 0"), (None, ""),
                      (None, "–")]  # as text, "987" would sort after "12345"
    assert all(key is None for row in grid.rows for key, _text in row[:-1])
    assert "<code>runs/a</code>" in page and "<strong>no</strong>" in page
    # the page draws the Markdown as the report's prose is drawn, plus the sort keys
    assert page.replace(' data-sort="12345.0"', "").replace(' data-sort="987.0"', "") \
        == to_html(MARKDOWN)

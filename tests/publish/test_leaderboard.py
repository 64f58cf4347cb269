"""The leaderboard: its ranking and grouping rules on small synthetic runs (ties, digests kept
apart, the shortcut ceiling, the oracle and the paper's published rows beside the ranking,
the headline chosen and refused), then the whole path from the session's real quickstart,
read as run folders and as the results repo publishing them writes, and the page in headless
Chromium (sorting by a header, the config and family filters)."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gridwm_judge.publish import gather, plan_publish, write_local
from gridwm_judge.publish.entries import PublishError
from gridwm_judge.publish.leaderboard import (
    CEILING,
    GroupRow,
    PublishedRun,
    Section,
    load,
    pair_groups,
    ranks,
    sections,
)
from gridwm_judge.publish.leaderboard_html import figure_text, markdown, page, write_leaderboard
from gridwm_judge.release.figures import figures_for
from gridwm_judge.report.paper_release import TABLE13
from gridwm_judge.results import MetricResult, Results
from gridwm_judge.scoring.judge_pairs import compare_indicators
from gridwm_judge.task_table import task_spec

DIGEST_1, DIGEST_2 = "sha256:" + "1" * 64, "sha256:" + "2" * 64


def _idr(task: str, value: float, *, groups: int = 40, family: str | None = None,
         status: str = "ok", name: str = "idr_raw") -> MetricResult:
    spec = task_spec(task)
    rep = "composite" if spec.recipe == "presentation_invariance" else None
    return MetricResult(task, spec.world, name, value, ci=(max(value - 0.1, 0.0), value),
                        groups=groups, status=status, representation=rep, family=family,
                        protocol=spec.protocol)


def _run(judge: str, *figures: MetricResult, digest: str = DIGEST_1, oracle: bool = False,
         groups: tuple[GroupRow, ...] = ()) -> PublishedRun:
    return PublishedRun(f"{judge}--{digest[7:19]}", judge, digest, "", "0.4.0", oracle,
                        Results(figures), groups, Path("/nowhere"))


def _graded(task: str, hits: list[bool]) -> tuple[GroupRow, ...]:
    return tuple(GroupRow(task, "composite", f"g{i:03d}", h) for i, h in enumerate(hits))


def test_ranks_share_a_rank_on_ties_and_leave_judges_without_a_value_unranked():
    got = ranks([("b", 0.5), ("a", 0.5), ("c", 0.9), ("d", None), ("e", 0.1)])
    assert got == [("c", 1), ("a", 2), ("b", 2), ("e", 4), ("d", None)]


def test_a_new_group_starts_where_a_judge_is_told_apart_from_its_groups_first():
    # top discriminates 60 groups; near misses 3 of them (not told apart from top); mid
    # misses 8 (told apart from top, but not from near: 5 discordant); low misses 11
    # (told apart from top, not from mid, which now leads its group)
    ind = {"top": dict.fromkeys(map(str, range(60)), True)}
    for judge, misses in (("near", 3), ("mid", 8), ("low", 11)):
        ind[judge] = {str(g): g >= misses for g in range(60)}
    pairs = compare_indicators(ind, "C", "composite", n_resamples=2000)
    by = {frozenset((p.a, p.b)): p for p in pairs}
    assert not by[frozenset(("top", "near"))].distinguishable
    assert not by[frozenset(("near", "mid"))].distinguishable
    assert by[frozenset(("top", "mid"))].distinguishable
    assert not by[frozenset(("mid", "low"))].distinguishable
    groups = pair_groups(["top", "near", "mid", "low", "ungraded"], pairs)
    assert groups == {"top": "A", "near": "A", "mid": "B", "low": "B"}


def test_each_dataset_digest_is_its_own_ranking(tmp_path):
    runs = [_run("x", _idr("C", 0.2)), _run("y", _idr("C", 0.6)),
            _run("x", _idr("C", 0.9), digest=DIGEST_2), _run("z", _idr("C", 0.1), digest=DIGEST_2)]
    one, two = sections(runs, tmp_path)
    assert (one.digest, two.digest) == (DIGEST_1, DIGEST_2)
    assert [(r.label, r.rank) for r in one.rows] == [("y", 1), ("x", 2)]
    assert [(r.label, r.rank) for r in two.rows] == [("x", 1), ("z", 2)]
    assert one.head == "111111111111" and "version 0.4.0" in one.title
    text = markdown([one, two])
    assert text.count("## Dataset ") == 2 and "## Dataset 222222222222" in text


def test_shortcuts_and_the_oracle_sit_below_the_ranking_never_in_it(tmp_path):
    runs = [_run("m", _idr("C", 0.4), _idr("D", 0.3)),
            _run("baseline:last-frame", _idr("C", 0.5), _idr("D", 0.1)),
            _run("baseline:first-frame", _idr("C", 0.2), _idr("D", 0.6)),
            _run("baseline:oracle", _idr("C", 1.0), _idr("D", 1.0), oracle=True)]
    [sec] = sections(runs, tmp_path)
    assert [r.label for r in sec.rows] == ["m"]
    ceiling, oracle = sec.references
    assert (ceiling.label, ceiling.kind, oracle.kind) == (CEILING, "shortcut", "oracle")
    ids = [h.id for h in sec.columns]
    assert ids == ["task_c-idr_raw", "task_d-idr_raw"]
    # per column, the best shortcut and which one it is
    assert [r.value for r in ceiling.figures if r] == [0.5, 0.6]
    assert ceiling.chosen == ("baseline:last-frame", "baseline:first-frame")
    assert oracle.label.startswith("baseline:oracle") and oracle.rank is None
    assert any("shortcut ceiling" in n for n in sec.notes)
    no_shortcut = sections(runs[:1], tmp_path)[0]
    assert no_shortcut.references == ()
    assert any("shortcut ceiling is unknown" in n for n in no_shortcut.notes)


def test_the_default_headline_prefers_the_hard_counterfactuals(tmp_path):
    both = [_run("a", _idr("C", 0.9), _idr("CH", 0.1)), _run("b", _idr("C", 0.2), _idr("CH", 0.3))]
    [sec] = sections(both, tmp_path)
    assert sec.ranked_by is not None and sec.ranked_by.id == "task_c_hard-idr_raw"
    assert sec.columns[0] == sec.ranked_by and [r.label for r in sec.rows] == ["b", "a"]
    [sec] = sections([_run("a", _idr("D", 0.2)), _run("b", _idr("D", 0.7))], tmp_path)
    assert sec.ranked_by is not None and sec.ranked_by.id == "task_d-idr_raw"
    [sec] = sections(both, tmp_path, headline="task_c-idr_raw")
    assert [r.label for r in sec.rows] == ["a", "b"]


def test_an_unknown_headline_names_the_valid_ids(tmp_path):
    runs = [_run("a", _idr("C", 0.9), _idr("D", 0.3))]
    with pytest.raises(ValueError, match="unknown headline 'task_c-acc'.*task_c-idr_raw.*"
                                         "task_d-idr_raw"):
        sections(runs, tmp_path, headline="task_c-acc")
    with pytest.raises(PublishError, match="no runs to rank"):
        write_leaderboard([], tmp_path / "never")
    assert not (tmp_path / "never").exists()


def test_groups_come_from_the_published_group_rows_of_the_headlines_task(tmp_path):
    hits = [True] * 40
    runs = [_run("a", _idr("C", 1.0), groups=_graded("C", hits)),
            _run("b", _idr("C", 0.975), groups=_graded("C", [False] + hits[1:])),
            _run("c", _idr("C", 0.2), groups=_graded("C", [g < 8 for g in range(40)])),
            _run("d", _idr("C", 0.1))]
    [sec] = sections(runs, tmp_path)
    assert [(r.label, r.group) for r in sec.rows] == [("a", "A"), ("b", "A"), ("c", "B"),
                                                      ("d", None)]
    assert any(n.startswith("Groups: walking the ranking") for n in sec.notes)
    [bare] = sections([_run("a", _idr("C", 1.0)), _run("b", _idr("C", 0.5))], tmp_path)
    assert {r.group for r in bare.rows} == {None}
    assert "Pair tests not available (no graded rows published)." in bare.notes
    jacc = [_run(r.judge, *r.results, _idr("C", 0.5, name="jacc_neu"), groups=r.groups)
            for r in runs]
    [other] = sections(jacc, tmp_path, headline="task_c-jacc_neu")
    assert {r.group for r in other.rows} == {None}
    assert ("Pair tests compare IDR_raw on Full-CF configs; not available for "
            "task_c-jacc_neu.") in other.notes


def test_descriptive_figures_and_per_family_values(tmp_path):
    runs = [_run("a", _idr("C", 0.8), _idr("C", 0.5, groups=12, family="doorkey",
                                            status="descriptive"),
                 _idr("C", 0.5, groups=12, status="descriptive", name="jacc_neu")),
            _run("b", _idr("C", 0.6), _idr("C", 0.75, groups=12, family="lavagap",
                                            status="descriptive"))]
    [sec] = sections(runs, tmp_path)
    assert sec.families == ("doorkey", "lavagap")
    a, b = sec.rows
    doorkey = a.family("doorkey")[0]
    assert doorkey is not None and doorkey.value == 0.5 and a.family("lavagap")[0] is None
    assert figure_text(doorkey) == "0.500 [0.40, 0.50]†"
    assert figure_text(a.figures[0]) == "0.800 [0.70, 0.80]"
    text = page(sections(runs, tmp_path))
    assert 'data-family="doorkey"' in text and "Descriptive: a per-family" in text
    md = markdown(sections(runs, tmp_path))  # the twin: the overall figures only
    assert "| 0.500 [0.40, 0.50]† |" in md and "_† Descriptive: a per-family" in md


def test_the_papers_published_figures_stand_beside_paper_task_d_r(tmp_path):
    runs = [_run("published:gpt-4o", _idr("RDR", 0.5)), _run("mine", _idr("RDR", 0.25))]
    [sec] = sections(runs, tmp_path)
    assert sec.ranked_by is not None and sec.ranked_by.id == "paper_task_d_r-idr_raw"
    published = [r for r in sec.references if r.kind == "published"]
    shipped = [f for f in figures_for("paper_task_d_r", TABLE13) if f.name == "idr_raw"]
    assert [r.label for r in published] == [f"{f.model} (published, {TABLE13})"
                                            for f in shipped]
    assert [(r.figures[0].value, r.figures[0].ci) for r in published if r.figures[0]] == [
        (f.value, f.ci) for f in shipped]
    assert "(published, paper Table 13)" in markdown([sec])
    [plain] = sections([_run("mine", _idr("D", 0.25))], tmp_path)
    assert not any(r.kind == "published" for r in plain.references)


# -- the whole path, from the session's real quickstart ---------------------------------------

@pytest.fixture(scope="module")
def boards(quickstart_run, tmp_path_factory):
    """The quickstart's runs as run folders and as the results repo publishing them writes,
    each made into a leaderboard."""
    qs = quickstart_run.result
    root = tmp_path_factory.mktemp("leaderboard")
    runs = sorted(qs.out.glob("runs/*"))
    repo = write_local(plan_publish(gather(runs), "me/gwj-results"), root / "local")
    return (qs, runs, repo / "results", write_leaderboard(runs, root / "from-runs"),
            write_leaderboard([repo / "results"], root / "from-repo"))


def _summary(sec: Section) -> list[tuple]:
    return [(r.label, r.rank, r.group, tuple(figure_text(f) for f in r.figures))
            for r in (*sec.rows, *sec.references)]


def test_run_folders_and_their_results_repo_give_the_same_board(boards):
    qs, runs, _repo, from_runs, from_repo = boards
    [a], [b] = from_runs.sections, from_repo.sections
    assert _summary(a) == _summary(b) and a.families == b.families
    assert a.ranked_by is not None and a.ranked_by.id == "task_c_hard-idr_raw"
    assert {r.label for r in a.rows} == {"baseline:always-yes", "baseline:always-no",
                                         "baseline:random", "baseline:pixel-heuristic"}
    assert [r.kind for r in a.references] == ["shortcut", "oracle"]
    assert a.references[1].figures[0] is not None and a.references[1].figures[0].value == 1.0
    assert {r.group for r in a.rows} <= {"A", "B", "C"} and None not in {r.group for r in a.rows}
    # a run folder's name links to the quickstart's report; a results repo's to nothing
    for row in a.rows:
        assert row.link and (from_runs.html.parent / row.link).resolve() == (
            qs.out / "report" / "index.html").resolve()
    assert {r.link for r in b.rows} == {None}
    assert all("no report published" in r.title for r in b.rows)
    md = from_runs.markdown.read_text()
    assert md.count("\n| ") - 1 == len(a.rows) + len(a.references)  # header + one per row
    assert "[baseline:random](" in md and "[baseline:random](" not in from_repo.markdown.read_text()


def test_a_run_given_twice_or_an_unknown_headline_is_refused(boards, tmp_path):
    _qs, runs, repo, _a, _b = boards
    with pytest.raises(ValueError, match="unknown headline 'miniworld_c-idr_raw'; expected "
                                         "one of task_a-acc_a1, .*task_c_hard-idr_raw"):
        write_leaderboard(runs, tmp_path / "never", headline="miniworld_c-idr_raw")
    assert not (tmp_path / "never").exists()
    with pytest.raises(PublishError, match="baseline:always-no on dataset sha256:.* is in both"):
        load([repo, runs[0]])
    with pytest.raises(PublishError, match="is not a folder"):
        load(["me/gwj-results"])
    assert len(load(["me/gwj-results"], resolve=lambda _id: repo)) == len(runs)


# -- the page in a real browser ---------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
_PROBE = """<script>
window.addEventListener('load', () => {
  const t = document.querySelector('table.leaderboard');
  const heads = [...t.tHead.rows[0].cells];
  const names = () => [...t.tBodies[0].rows].map(r => r.cells[1].textContent);
  const cell = (r, col) => r.cells[heads.findIndex(h => h.dataset.col === col)].innerText;
  const bar = document.querySelector('.lb-filters');
  const pick = (name, v) => { const s = bar.querySelector(`select[data-lb=${name}]`);
    s.value = v; s.dispatchEvent(new Event('change')); };
  const out = {start: names()};
  heads[1].click(); out.byName = names();
  heads[1].click(); out.byNameDown = names();
  pick('config', 'CONFIG');
  out.columns = heads.filter(h => !h.classList.contains('hidden'))
    .map(h => h.dataset.col || h.textContent);
  out.configOrder = names(); out.shown = bar.querySelector('.lb-shown').textContent;
  pick('family', 'FAMILY');
  out.family = [...t.tBodies[0].rows].map(r => [r.cells[1].textContent, cell(r, 'COLUMN')]);
  pick('config', '');
  out.familyHeads = heads.filter(h => !h.classList.contains('hidden'))
    .map(h => h.dataset.col || h.textContent);
  out.fits = document.documentElement.scrollWidth <= document.documentElement.clientWidth;
  const pre = document.createElement('pre');
  pre.id = 'probe'; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
});
</script>"""
"""Appended to a copy of the page: clicks the judge header twice, picks a config and a family
and writes what the table showed after each step into ``#probe``."""


def _browse(*args: str) -> subprocess.CompletedProcess:
    assert CHROMIUM is not None
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", "--enable-logging=stderr", "--v=0", *args],
                          capture_output=True, text=True, timeout=180, check=False)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                    "(Debian: apt-get install chromium; .ci/run installs it)")
def test_sorting_and_filters_in_headless_chromium(boards, tmp_path):
    [sec] = boards[3].sections
    html_path = boards[3].html
    col = "task_d-idr_raw"
    at = [h.id for h in sec.columns].index(col)
    family = next(f for f in sec.families
                  if any(r.family(f)[at] is not None for r in sec.rows))
    probe = html_path.with_name("probe.html")
    probe.write_text(html_path.read_text() + _PROBE.replace("CONFIG", "task_d").replace(
        "FAMILY", family).replace("COLUMN", col))
    dom = _browse("--window-size=1400,1000", "--virtual-time-budget=5000", "--dump-dom",
                  probe.as_uri())
    probe.unlink()
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert [x for x in dom.stderr.splitlines() if ":CONSOLE" in x] == []
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom.stdout, re.S)
    assert found, dom.stdout[-2000:]
    got = json.loads(html.unescape(found.group(1)))
    ranked = [r.label for r in sec.rows]
    assert got["start"] == ranked
    assert got["byName"] == sorted(ranked) and got["byNameDown"] == sorted(ranked)[::-1]
    # the config shows its own figures only, ranked by its first (rank and group, which
    # are the ranked figure's, hidden)
    assert got["columns"] == ["judge", *(h.id for h in sec.columns if h.config == "task_d")]
    assert got["shown"] == f"sorted by {col}"
    values = {r.label: r.figures[at].value if r.figures[at] else None for r in sec.rows}
    assert got["configOrder"] == sorted(ranked, key=lambda j: (
        values[j] is None, -(values[j] or 0.0), ranked.index(j)))
    # the family shows that family's figure (the dash where none was published)
    texts = {r.label: figure_text(r.family(family)[at]) for r in sec.rows}
    assert {j: " ".join(t.split()) for j, t in got["family"]} == texts
    # rank and group are the whole dataset's: not shown beside one family's figures
    assert "rank" not in got["familyHeads"] and "group" not in got["familyHeads"]
    assert col in got["familyHeads"]
    assert got["fits"], "the page scrolls sideways at 1400 px"
    keep = Path(os.environ.get("GWJ_SCREENSHOTS") or tmp_path)
    keep.mkdir(parents=True, exist_ok=True)
    shot = _browse("--window-size=1400,1000", f"--screenshot={keep / 'leaderboard.png'}",
                   html_path.as_uri())
    assert shot.returncode == 0 and (keep / "leaderboard.png").stat().st_size > 10_000

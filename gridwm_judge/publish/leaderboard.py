"""The leaderboard: judges ranked by one published figure, one ranking per dataset digest.

Its inputs are the rows a results repo holds (:mod:`gridwm_judge.publish.tables`), read from
a results repo folder (``data/<table>/*.parquet`` beside the marker file) or built from run
and score folders by the same row builders, so a judge reads alike from either. Runs on
different dataset digests answered different items and are never ranked together.

Per digest: the judges (the oracle and the shortcut rules left out) ranked by the chosen
headline figure (:mod:`gridwm_judge.headlines`), every other headline figure of the configs
present beside it; groups of judges the paired tests cannot separate; and, below the ranking
and never ranked, the shortcut ceiling, the oracle's upper bound and, on the paper's Task
D-R, the figures the paper published. :mod:`.leaderboard_html` writes them as a page and its
Markdown twin.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from gridwm_judge.headlines import Headline, headlines
from gridwm_judge.headlines import headline as headline_of
from gridwm_judge.publish.entries import PublishError, gather
from gridwm_judge.publish.results_repo import LOCAL_RESULTS, MARKER
from gridwm_judge.publish.tables import group_rows, result_of, results_rows, run_rows
from gridwm_judge.release.figures import figures_for
from gridwm_judge.report.judge_pairs import REPRESENTATION
from gridwm_judge.report.paper_release import TABLE13
from gridwm_judge.report.shortcuts import SHORTCUT_JUDGES
from gridwm_judge.results import MetricResult, Results
from gridwm_judge.scoring.judge_pairs import PAIRED_TASKS, JudgePair, compare_indicators
from gridwm_judge.task_table import ALL_TASKS, task_spec

DEFAULT_HEADLINES = ("task_c_hard-idr_raw", "task_c-idr_raw", "paper_task_d_r-idr_raw",
                     "task_d-idr_raw", "miniworld_c_hard-idr_raw", "miniworld_c-idr_raw")
"""The figure a leaderboard ranks by unless told: the first of these some judge has (the
hardest counterfactuals first), else the first headline figure with a value."""
REPORT = Path("report") / "index.html"
"""Where a run's report is looked for: in its folder or up to two folders above (the
quickstart writes ``runs/<judge>/`` beside ``report/``)."""
CEILING = "shortcut ceiling (best rule that ignores the trajectory)"
KINDS = ("judge", "shortcut", "oracle", "published")
"""A row is a ranked ``judge`` or a reference shown below the ranking: the shortcut ceiling,
an oracle's upper bound, a figure the paper published."""


@dataclass(frozen=True)
class GroupRow:
    """One row of the ``groups`` table: did the judge discriminate this trajectory group."""

    task: str
    representation: str
    group_id: str
    discriminated: bool


@dataclass(frozen=True)
class PublishedRun:
    """One judge's run as the results repo holds it, whichever kind of source it came from;
    ``home`` is what its name links to (its report, else its run folder; None from a results
    repo, which has neither)."""

    key: str
    judge: str
    digest: str
    dataset: str
    dataset_version: str
    oracle: bool
    results: Results
    groups: tuple[GroupRow, ...]
    source: Path
    home: Path | None = None


def _report_near(folder: Path) -> Path | None:
    for base in (folder, folder.parent, folder.parent.parent):
        if (base / REPORT).is_file():
            return base / REPORT
    return None


def _runs_of(results: Iterable[Mapping[str, Any]], runs: Iterable[Mapping[str, Any]],
             groups: Iterable[Mapping[str, Any]], source: Path,
             home: Callable[[str], Path | None]) -> list[PublishedRun]:
    """The runs of one source from its table rows (``home``: run key -> its link target)."""
    by_key: dict[str, list[Mapping[str, Any]]] = {}
    for row in results:
        by_key.setdefault(row["run_key"], []).append(row)
    meta = {row["run_key"]: row for row in runs}
    graded: dict[str, list[GroupRow]] = {}
    for row in groups:
        graded.setdefault(row["run_key"], []).append(GroupRow(
            row["task"], row["representation"], row["group_id"], bool(row["discriminated"])))
    out = []
    for key, rows in by_key.items():
        head = meta.get(key, rows[0])
        out.append(PublishedRun(
            key, head["judge"], head["dataset_digest"] or "", head["dataset"] or "",
            head["dataset_version"] or "", bool(head.get("oracle_upper_bound")),
            Results(result_of(r) for r in rows), tuple(graded.get(key, ())), source,
            home(key)))
    return out


def _table(repo: Path, table: str) -> list[dict[str, Any]]:
    return [r for f in sorted((repo / "data" / table).glob("*.parquet"))
            for r in pq.read_table(f).to_pylist()]


def from_results_repo(repo: str | Path) -> list[PublishedRun]:
    """Every run a results repo folder holds (its ``results``, ``runs`` and ``groups``)."""
    repo = Path(repo)
    return _runs_of(_table(repo, "results"), _table(repo, "runs"), _table(repo, "groups"),
                    repo, lambda _key: None)


def from_run_folders(folders: Sequence[str | Path]) -> list[PublishedRun]:
    """The runs of run and score folders, as publishing them would write their rows."""
    out = []
    for e in gather(folders):
        home = _report_near(e.source) or e.source
        # run_rows: only its entry columns and oracle flag are read (no predictions counted)
        out += _runs_of(results_rows(e), run_rows(e, 0), group_rows(e), e.source,
                        lambda _key, home=home: home)
    return out


def _repo_folder(path: Path) -> Path | None:
    for folder in (path, path / LOCAL_RESULTS):
        if (folder / MARKER).is_file():
            return folder
    return None


def load(sources: Sequence[str | Path], *, resolve: Callable[[str], Path] | None = None
         ) -> list[PublishedRun]:
    """Every run of ``sources``: results repo folders (holding the marker file, or a
    ``publish --local`` folder's ``results/``), run folders and score folders; a source that
    is no folder goes through ``resolve`` (a Hub results repo id to its local snapshot). The
    same judge on the same dataset twice is a :class:`PublishError`."""
    runs: list[PublishedRun] = []
    folders: list[Path] = []
    for source in sources:
        path = Path(source)
        if not path.is_dir() and resolve is not None:
            path = Path(resolve(str(source)))
        if not path.is_dir():
            raise PublishError(f"{source} is not a folder; expected a run folder, a score "
                               f"folder or a results repo folder (holding {MARKER})")
        repo = _repo_folder(path)
        if repo is not None:
            runs += from_results_repo(repo)
        else:
            folders.append(path)
    runs += from_run_folders(folders) if folders else []
    seen: dict[str, Path] = {}
    for r in runs:
        if r.key in seen:
            raise PublishError(f"{r.judge} on dataset {r.digest[:19]}... is in both "
                               f"{seen[r.key]} and {r.source}; give one of them")
        seen[r.key] = r.source
    return runs


# -- the rows of one ranking ------------------------------------------------------------------

@dataclass(frozen=True)
class FamilyFigures:
    """A row's figures over one environment family, one per column (None: not published)."""

    family: str
    figures: tuple[MetricResult | None, ...]


@dataclass(frozen=True)
class Row:
    """One row of a ranking: a judge (``rank`` None when it has no value to rank by) or a
    reference (``kind``). ``group`` is the letter of its pair-test group; ``chosen`` names,
    per column, the judge a ceiling's figure comes from; ``link`` is relative to the page,
    and ``title`` says where the row comes from (or why it has no link)."""

    label: str
    kind: str
    figures: tuple[MetricResult | None, ...]
    families: tuple[FamilyFigures, ...] = ()
    rank: int | None = None
    group: str | None = None
    chosen: tuple[str, ...] = ()
    link: str | None = None
    title: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown row kind {self.kind!r}; expected one of {KINDS}")

    def family(self, name: str) -> tuple[MetricResult | None, ...]:
        found = [f.figures for f in self.families if f.family == name]
        return found[0] if found else tuple(None for _ in self.figures)


@dataclass(frozen=True)
class Section:
    """The ranking of one dataset digest: ``columns`` are its headline figures, the one
    ranked by (``ranked_by``; None when no judge has it) first."""

    digest: str
    dataset: str
    dataset_version: str
    ranked_by: Headline | None
    columns: tuple[Headline, ...]
    rows: tuple[Row, ...]
    references: tuple[Row, ...]
    families: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def head(self) -> str:
        return self.digest.removeprefix("sha256:")[:12] or "unknown"

    @property
    def title(self) -> str:
        about = ", ".join(x for x in (f"version {self.dataset_version}"
                                      if self.dataset_version else "", self.dataset) if x)
        return f"Dataset {self.head}" + (f" ({about})" if about else "")


def ranks(values: Sequence[tuple[str, float | None]]) -> list[tuple[str, int | None]]:
    """``(name, value)`` in ranking order, each with its rank: highest value first, ties
    sharing the rank of their first (1, 2, 2, 4) and listed by name; no value, no rank
    (last, by name)."""
    order = sorted(values, key=lambda nv: (nv[1] is None, -(nv[1] or 0.0), nv[0]))
    out: list[tuple[str, int | None]] = []
    for i, (name, value) in enumerate(order):
        if value is None:
            out.append((name, None))
        elif i and order[i - 1][1] == value:
            out.append((name, out[-1][1]))
        else:
            out.append((name, i + 1))
    return out


def _letter(i: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA."""
    return (_letter(i // 26 - 1) if i >= 26 else "") + chr(ord("A") + i % 26)


def pair_groups(order: Sequence[str], pairs: Sequence[JudgePair]) -> dict[str, str]:
    """judge -> its group letter. Walking ``order`` (the ranking), a judge joins the current
    group unless the pair test tells it apart from that group's first judge
    (:attr:`JudgePair.distinguishable`), when it starts the next group. A judge with no pair
    (no graded rows) gets none."""
    pair = {frozenset((p.a, p.b)): p for p in pairs}
    judged = [j for j in order if any(j in (p.a, p.b) for p in pairs)]
    out: dict[str, str] = {}
    first, n = None, 0
    for j in judged:
        p = pair.get(frozenset((first, j))) if first is not None else None
        if first is None or (p is not None and p.distinguishable):
            first, n = j, n + (first is not None)
        out[j] = _letter(n)
    return out


def _pick_families(h: Headline, results: Results) -> dict[str, MetricResult]:
    """family -> ``h``'s figure over that environment family alone (the same scope as the
    headline's, only ``family`` set)."""
    out = {}
    for family in dict.fromkeys(r.family for r in results if r.family is not None):
        picked = h.pick(Results(replace(r, family=None) for r in results
                                if r.family == family and r.task == h.task))
        if picked is not None:
            out[family] = picked
    return out


@dataclass(frozen=True)
class _Figures:
    """One run's figures: per column, overall and per family."""

    overall: tuple[MetricResult | None, ...]
    by_family: tuple[dict[str, MetricResult], ...]

    def row_families(self, families: Sequence[str]) -> tuple[FamilyFigures, ...]:
        return tuple(FamilyFigures(f, tuple(col.get(f) for col in self.by_family))
                     for f in families if any(f in col for col in self.by_family))


def _figures(run: PublishedRun, columns: Sequence[Headline]) -> _Figures:
    return _Figures(tuple(h.pick(run.results) for h in columns),
                    tuple(_pick_families(h, run.results) for h in columns))


def _best(found: Sequence[tuple[str, MetricResult | None]]
          ) -> tuple[str, MetricResult | None]:
    present = [(j, r) for j, r in found if r is not None and r.value is not None]
    return max(present, key=lambda jr: jr[1].value or 0.0) if present else ("", None)


def _ceiling(shortcuts: Mapping[str, _Figures], n: int, families: Sequence[str]) -> Row:
    """Per column (and family), the best of the shortcut judges, naming which."""
    cols = [_best([(j, f.overall[i]) for j, f in shortcuts.items()]) for i in range(n)]
    fams = []
    for fam in families:
        figs = tuple(_best([(j, f.by_family[i].get(fam)) for j, f in shortcuts.items()])[1]
                     for i in range(n))
        if any(figs):
            fams.append(FamilyFigures(fam, figs))
    return Row(CEILING, "shortcut", tuple(r for _, r in cols), tuple(fams),
               chosen=tuple(j for j, _ in cols),
               title="per column, the best of " + ", ".join(sorted(shortcuts)))


def _published_rows(columns: Sequence[Headline]) -> list[Row]:
    """The paper's Table 13 figures in the columns of its configs (the headline's own
    protocol), one row per model."""
    out: dict[str, list[MetricResult | None]] = {}
    for i, h in enumerate(columns):
        spec = task_spec(h.task)
        for f in figures_for(h.config, TABLE13):
            if f.name == h.metric and f.probe is None and f.protocol == spec.protocol:
                cells = out.setdefault(f.model, [None] * len(columns))
                cells[i] = MetricResult(h.task, spec.world, f.name, f.value, ci=f.ci,
                                        ci_env=f.ci_env, env_level=f.ci_env is not None,
                                        protocol=f.protocol)
    return [Row(f"{model} (published, {TABLE13})", "published", tuple(cells),
                title=f"the figure {TABLE13} printed on these items; not measured here")
            for model, cells in out.items()]


def _link(run: PublishedRun, out: Path) -> tuple[str | None, str]:
    if run.home is None:
        return None, f"from the results repo {run.source}: no report published with it"
    what = "its report" if run.home.name == REPORT.name else "its run folder (no report found)"
    link = Path(os.path.relpath(run.home, out)).as_posix()
    return link, f"{what}: {link}"


def _pair_note(ranked_by: Headline | None, runs: Sequence[PublishedRun],
               values: Mapping[str, float | None]) -> tuple[dict[str, str], str]:
    """The judges' pair-test groups on ``ranked_by``'s task and what they mean."""
    if ranked_by is None:
        return {}, "Pair tests: no ranking, no groups."
    if ranked_by.metric != "idr_raw" or ranked_by.task not in PAIRED_TASKS:
        return {}, (f"Pair tests compare IDR_raw on Full-CF configs; not available for "
                    f"{ranked_by.id}.")
    ranked = [r for r in runs if values.get(r.judge) is not None]
    reps = sorted({g.representation for r in ranked for g in r.groups
                   if g.task == ranked_by.task})
    if not reps:
        return {}, "Pair tests not available (no graded rows published)."
    rep = REPRESENTATION if REPRESENTATION in reps else reps[0]
    ind: dict[str, dict[str, bool]] = {}
    for r in ranked:
        for g in r.groups:
            if g.task == ranked_by.task and g.representation == rep:
                ind.setdefault(r.judge, {})[g.group_id] = g.discriminated
    order = [j for j, _ in ranks(list(values.items())) if j in ind]
    groups = pair_groups(order, compare_indicators(ind, ranked_by.task, rep))
    return groups, (
        f"Groups: walking the ranking from the top, a judge starts a new group when the paired "
        f"test tells it apart from the current group's first judge (on {ranked_by.config}, "
        f"{rep}: the paired bootstrap CI of the IDR_raw difference excludes 0 and McNemar's "
        f"p, Holm-adjusted over every pair of ranked judges, is below 0.05); judges sharing a "
        f"letter cannot be told apart from that group's top judge at this size.")


def _columns(runs: Sequence[PublishedRun]) -> tuple[Headline, ...]:
    tasks = {t for r in runs for t in r.results.tasks}
    return headlines(t.name for t in ALL_TASKS if t.name in tasks)


def _choose(asked: str | None, columns: Sequence[Headline], judges: Sequence[PublishedRun]
            ) -> Headline | None:
    has = [h for h in columns if any(h.pick(r.results) is not None for r in judges)]
    if asked is not None:
        return next((h for h in has if h.id == asked), None)
    return next((h for name in DEFAULT_HEADLINES for h in has if h.id == name),
                has[0] if has else None)


def section(runs: Sequence[PublishedRun], out: Path, asked: str | None = None) -> Section:
    """The ranking of runs on one dataset digest (``asked``: the headline id to rank by)."""
    judges = [r for r in runs if not r.oracle and r.judge not in SHORTCUT_JUDGES]
    all_columns = _columns(runs)
    ranked_by = _choose(asked, all_columns, judges)
    figs = {r.key: _figures(r, all_columns) for r in runs}
    keep = [i for i, h in enumerate(all_columns) if h == ranked_by
            or any(f.overall[i] is not None for f in figs.values())]
    keep.sort(key=lambda i: (all_columns[i] != ranked_by,  # its config's other figures next
                             ranked_by is None or all_columns[i].config != ranked_by.config))
    columns = tuple(all_columns[i] for i in keep)
    figs = {k: _Figures(tuple(f.overall[i] for i in keep), tuple(f.by_family[i] for i in keep))
            for k, f in figs.items()}
    families = tuple(sorted({fam for f in figs.values() for col in f.by_family for fam in col}))
    ranked = {r.judge: figs[r.key].overall[0] if ranked_by is not None else None
              for r in judges}
    values = {j: None if r is None else r.value for j, r in ranked.items()}
    groups, pair_note = _pair_note(ranked_by, judges, values)
    by_judge = {r.judge: r for r in judges}
    rows = []
    for judge, rank in ranks(list(values.items())):
        run = by_judge[judge]
        link, title = _link(run, out)
        rows.append(Row(judge, "judge", figs[run.key].overall,
                        figs[run.key].row_families(families), rank, groups.get(judge),
                        link=link, title=title))
    shortcuts = {r.judge: figs[r.key] for r in runs if r.judge in SHORTCUT_JUDGES}
    refs = [*([_ceiling(shortcuts, len(columns), families)] if shortcuts else []),
            *(_oracle(r, figs[r.key], families, out) for r in runs if r.oracle),
            *_published_rows(columns)]
    notes = (_rank_note(ranked_by, asked), pair_note, *_reference_notes(refs, shortcuts))
    head = runs[0]
    return Section(head.digest, next((r.dataset for r in runs if r.dataset), ""),
                   next((r.dataset_version for r in runs if r.dataset_version), ""),
                   ranked_by, columns, tuple(rows), tuple(refs), families, notes)


def _oracle(run: PublishedRun, figs: _Figures, families: Sequence[str], out: Path) -> Row:
    link, title = _link(run, out)
    return Row(f"{run.judge} (upper bound: reads the simulator's labels)", "oracle",
               figs.overall, figs.row_families(families), link=link, title=title)


def _reference_notes(refs: Sequence[Row], shortcuts: Mapping[str, Any]) -> list[str]:
    notes = ["Cells: value [95% group-bootstrap CI; env: environment-level CI where run]. "
             "'groups': the trajectory groups behind the ranked figure."]
    if shortcuts:
        notes.append(f"Below the ranking, not ranked: the {CEILING}, per column the best of "
                     "the shortcut judges on this dataset (" + ", ".join(sorted(shortcuts))
                     + "); a judge at or below it is not shown to follow the trajectory.")
    else:
        notes.append("No shortcut judge on this dataset, so its shortcut ceiling is unknown: "
                     "run " + ", ".join(SHORTCUT_JUDGES) + " on it and add their runs.")
    if any(r.kind == "oracle" for r in refs):
        notes.append("The oracle reads the labels: an upper bound that checks the pipeline, "
                     "not a model.")
    if any(r.kind == "published" for r in refs):
        notes.append(f"Rows marked (published, {TABLE13}) are the figures the paper printed on "
                     "these same items (all groups, 3 decimals), not measured here.")
    return notes


def _rank_note(ranked_by: Headline | None, asked: str | None) -> str:
    if ranked_by is None:
        what = f"no judge of this dataset has {asked}" if asked else "no judge has a headline"
        return f"Not ranked: {what}; the judges are listed by name."
    return (f"Ranked by {ranked_by.id}: {ranked_by.description}. Ties share a rank; a judge "
            "without this figure is listed last, unranked.")


def sections(runs: Sequence[PublishedRun], out: str | Path, *, headline: str | None = None
             ) -> tuple[Section, ...]:
    """One :class:`Section` per dataset digest, in the order first seen. An unknown
    ``headline`` (of the configs present) is a ValueError naming the valid ids."""
    if not runs:
        raise PublishError("no runs to rank: give run folders, score folders or results repos")
    if headline is not None:
        headline_of(headline, list(dict.fromkeys(h.config for h in _columns(runs))))
    by_digest: dict[str, list[PublishedRun]] = {}
    for r in runs:
        by_digest.setdefault(r.digest, []).append(r)
    return tuple(section(group, Path(out), headline) for group in by_digest.values())

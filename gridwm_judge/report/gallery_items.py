"""What the failure gallery shows of each drawn failure: the item the judge was asked (prompt
and images, read by uid from the dataset its run recorded, or the one given), its raw answer
(from the run's predictions) and the audit facts; images are written beside the page, each
once, as a small thumbnail for the list and a full-size file to open.

A dataset that cannot be read leaves its judges out of the gallery with one line saying why;
an item whose dataset row differs from what the judge was asked (its item hash) is not shown,
so a page never puts an answer beside images the judge did not see.
"""

from __future__ import annotations

import hashlib
import io
import math
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from gridwm_judge.dataset_io import DatasetUnreachableError, load_task
from gridwm_judge.item_hash import item_digest, stored_image_bytes
from gridwm_judge.records import PREDICTIONS_FILE, SCORED_ROWS_FILE, PredictionRecord
from gridwm_judge.records import read_prediction_file as read_predictions
from gridwm_judge.report.gallery import KINDS, Failure, draw, failures
from gridwm_judge.report.inputs import JudgeEntry, ReportData, RunInput, resolve_dataset
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.scoring.judge_pairs import read_graded
from gridwm_judge.seeds import SAMPLING_SEED
from gridwm_judge.task_table import ALL_TASKS, task_spec

if TYPE_CHECKING:
    import pyarrow as pa

FOLDER = "gallery"
"""The images' folder beside index.html (``full/`` and ``thumbs/``)."""
THUMB_BOX = (360, 240)
"""A large image's thumbnail fits this box (pixels)."""
KEEP_BYTES = 48_000
"""A stored image up to this size (most storyboards: ~14 KB of PNG) is written as it is and
is its own thumbnail, never decoded; a larger one (a noisy storyboard: ~1.6 MB) is written as
lossy WebP, about a tenth of it, with a small WebP thumbnail."""
WEBP = {"quality": 80, "method": 0}
AUDIT_FACTS = ("family", "env_id", "seed", "group_id", "variant", "intervention",
               "probe_family", "temporal", "visual", "framing", "representation",
               "reference_group_id", "nocue_style", "prompt_style", "evidence",
               "action_condition", "question", "mission", "frame_indices")
"""The dataset columns an item's audit facts show, in order (empty ones are left out)."""
_TASK_ORDER = {t.name: i for i, t in enumerate(ALL_TASKS)}


@dataclass(frozen=True)
class Picture:
    """One image an item showed: paths relative to the report folder, full size in pixels."""

    thumb: str
    full: str
    width: int
    height: int


@dataclass(frozen=True)
class GalleryItem:
    failure: Failure
    prompt: str
    raw: str | None  # None: the run's predictions hold no answer under this uid
    reasoning: str | None
    audit: tuple[tuple[str, str], ...]
    pictures: tuple[Picture, ...]


@dataclass(frozen=True)
class GalleryGroup:
    """The drawn items of one judge, task and kind; ``total`` counts all its failures."""

    judge: str
    task: str
    kind: str
    total: int
    items: tuple[GalleryItem, ...]


@dataclass(frozen=True)
class Gallery:
    groups: tuple[GalleryGroup, ...]
    notes: tuple[str, ...]  # one line per judge or dataset left out, and why
    seed: int


class _Images:
    """Writes each distinct image once, named by its content hash, under ``FOLDER``."""

    def __init__(self, out: Path):
        self.out = out
        self.done: dict[str, Picture] = {}

    @staticmethod
    def key(data: bytes) -> str:
        return hashlib.sha256(data).hexdigest()[:20]

    def _write(self, key: str, data: bytes) -> Picture:
        from PIL import Image

        with Image.open(io.BytesIO(data)) as im:
            size = im.size  # read from the header: a small image is never decoded
            if len(data) <= KEEP_BYTES:
                full = Path(FOLDER, "full", f"{key}.{(im.format or 'png').lower()}")
                (self.out / full).write_bytes(data)
                return Picture(full.as_posix(), full.as_posix(), *size)
            rgb = im.convert("RGB")
        full = Path(FOLDER, "full", f"{key}.webp")
        rgb.save(self.out / full, "WEBP", **WEBP)
        factor = max(1, math.ceil(max(size[0] / THUMB_BOX[0], size[1] / THUMB_BOX[1])))
        thumb = Path(FOLDER, "thumbs", f"{key}.webp")
        rgb.reduce(factor).save(self.out / thumb, "WEBP", **WEBP)
        return Picture(thumb.as_posix(), full.as_posix(), *size)

    def write(self, images: Mapping[str, bytes]) -> None:
        """Write those of ``images`` (key -> stored bytes) not written yet."""
        todo = {k: v for k, v in images.items() if k not in self.done}
        if not todo:
            return
        for sub in ("full", "thumbs"):
            (self.out / FOLDER / sub).mkdir(parents=True, exist_ok=True)
        with ThreadPoolExecutor(max_workers=2) as pool:  # PIL's codecs release the GIL
            for key, pic in zip(todo, pool.map(self._write, todo, todo.values()), strict=True):
                self.done[key] = pic


@dataclass(frozen=True)
class _Plan:
    entry: JudgeEntry
    task: str
    kind: str
    total: int
    picks: tuple[Failure, ...]


def _graded(entry: JudgeEntry, cache: dict[Path, list[GradedRow]]) -> list[GradedRow]:
    """The judge's graded rows from the rows.jsonl ``score`` wrote beside its scores; a
    ValueError says why there are none."""
    path = entry.run.scores_path.parent / SCORED_ROWS_FILE
    if not path.is_file():
        raise ValueError(f"no {SCORED_ROWS_FILE} beside its scores ({path.parent}); rerun "
                         "`gridwm-judge score` on it")
    if path not in cache:
        try:
            cache[path] = read_graded(path)
        except (TypeError, ValueError) as exc:  # a line off the GradedRow record
            raise ValueError(f"{path} could not be read ({exc}); rerun `gridwm-judge score` "
                             "on it") from None
    return [r for r in cache[path] if r.judge == entry.judge]


def _plans(data: ReportData, seed: int) -> tuple[list[_Plan], list[str]]:
    plans, notes, cache = [], [], {}
    for e in data.judges:
        try:
            graded = _graded(e, cache)
        except ValueError as exc:
            notes.append(f"{e.label}: {exc}")
            continue
        found = failures(graded)
        for task, kind in sorted(found, key=lambda k: (_TASK_ORDER.get(k[0], 99),
                                                       list(KINDS).index(k[1]))):
            every = found[task, kind]
            picks = draw(every, seed=seed)
            plans.append(_Plan(e, task, kind, len(every), tuple(picks)))
    return plans, notes


def _predictions(run: RunInput, judge: str, uids: set[str],
                 cache: dict[Path, list[PredictionRecord]]) -> dict[str, PredictionRecord]:
    """The run's answers of ``judge`` under ``uids`` (its predictions.jsonl, else the files
    its scores.json was scored from)."""
    paths = [run.path / PREDICTIONS_FILE, *(Path(p) for p in run.scores.predictions)]
    out: dict[str, PredictionRecord] = {}
    for path in dict.fromkeys(paths):
        if not path.is_file():
            continue
        if path not in cache:
            cache[path] = read_predictions(path)
        for r in cache[path]:  # the run's own file first
            if r.judge == judge and r.uid in uids:
                out.setdefault(r.uid, r)
    return out


def _load_items(dataset: str, uids_by_task: Mapping[str, set[str]]) -> dict[str, dict[str, Any]]:
    """uid -> {audit columns, prompt, images: [stored bytes]} for the uids wanted."""
    out: dict[str, dict[str, Any]] = {}
    for task, uids in uids_by_task.items():
        ds = load_task(dataset, task_spec(task).config)
        pos = {u: i for i, u in enumerate(ds["uid"]) if u in uids}
        if not pos:
            continue
        picked = ds.select(sorted(pos.values())).with_format("arrow")
        for batch in picked.iter(batch_size=64):  # images stay encoded: never decoded here
            for row in cast("pa.Table", batch).to_pylist():
                row["images"] = [stored_image_bytes(im, row["uid"]) for im in row["images"] or ()]
                out[row["uid"]] = row
    return out


def _audit(row: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    facts = []
    for name in AUDIT_FACTS:
        value = row.get(name)
        if value in (None, "", -1, "[]"):
            continue
        facts.append((name, str(value)))
    return tuple(facts)


def build_gallery(data: ReportData, out: Path, *, dataset: str | None = None,
                  seed: int = SAMPLING_SEED) -> Gallery:
    """The failure gallery of every judge of ``data``: drawn, read from the dataset (each run's
    own, or ``dataset``), images written under ``out/gallery``."""
    plans, notes = _plans(data, seed)
    by_dataset: dict[str, list[_Plan]] = {}
    for p in plans:
        try:
            ds = dataset or resolve_dataset(p.entry.run.dataset, p.entry.run.path)
        except ValueError as exc:
            notes.append(f"{p.entry.label}: {exc}")
            continue
        by_dataset.setdefault(ds, []).append(p)
    images = _Images(out)
    pred_cache: dict[Path, list[PredictionRecord]] = {}
    groups: list[GalleryGroup] = []
    for ds, ds_plans in by_dataset.items():
        wanted: dict[str, set[str]] = {}
        for p in ds_plans:
            wanted.setdefault(p.task, set()).update(f.row.uid for f in p.picks)
        try:
            items = _load_items(ds, wanted)
        except (OSError, ValueError, DatasetUnreachableError) as exc:
            judges = sorted({p.entry.label for p in ds_plans})
            notes.append(f"dataset {ds!r} could not be read ({exc}); left out: "
                         + ", ".join(judges))
            continue
        groups += _groups(ds, ds_plans, items, images, pred_cache, notes)
    return Gallery(tuple(groups), tuple(dict.fromkeys(notes)), seed)


def _groups(ds: str, plans: Sequence[_Plan], items: Mapping[str, dict[str, Any]],
            images: _Images, pred_cache: dict[Path, list[PredictionRecord]],
            notes: list[str]) -> list[GalleryGroup]:
    uids: dict[str, set[str]] = {}
    entries = {p.entry.label: p.entry for p in plans}
    for p in plans:
        uids.setdefault(p.entry.label, set()).update(f.row.uid for f in p.picks)
    answers = {label: _predictions(e.run, e.judge, uids[label], pred_cache)
               for label, e in entries.items()}
    keys = {uid: [images.key(b) for b in row["images"]] for uid, row in items.items()}
    digests = {uid: item_digest(str(row["task"]), row["prompt"], row["images"])
               for uid, row in items.items()}
    missing, other = set(), set()
    shown: list[tuple[_Plan, list[GalleryItem]]] = []
    pending: dict[str, bytes] = {}
    for p in plans:
        keep = []
        for f in p.picks:
            row = items.get(f.row.uid)
            if row is None:
                missing.add(f.row.uid)
                continue
            rec = answers[p.entry.label].get(f.row.uid)
            if rec is not None and rec.item_digest and rec.item_digest != digests[f.row.uid]:
                other.add(f.row.uid)
                continue
            pending.update(zip(keys[f.row.uid], row["images"], strict=True))
            keep.append(GalleryItem(f, row["prompt"], None if rec is None else rec.raw,
                                    None if rec is None else rec.reasoning, _audit(row), ()))
        shown.append((p, keep))
    images.write(pending)
    if missing:
        notes.append(f"dataset {ds!r} holds no item under {len(missing)} uid(s) a judge "
                     f"answered (e.g. {sorted(missing)[0]!r}); not shown")
    if other:
        notes.append(f"dataset {ds!r} holds other items than were asked under {len(other)} "
                     f"uid(s) (e.g. {sorted(other)[0]!r}); not shown: pass the dataset the "
                     "run was asked from with --dataset")
    return [GalleryGroup(p.entry.label, p.task, p.kind, p.total, tuple(
        replace(it, pictures=tuple(images.done[k] for k in keys[it.failure.row.uid]))
        for it in keep)) for p, keep in shown if keep]

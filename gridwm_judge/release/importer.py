"""``gridwm-judge import-paper``: the paper's release -> a dataset folder in this package's
layout (``data/<config>/test-*.parquet``, ``README.md``, ``validation.json``) and, for Task D-R,
one published run per judge the release holds (``runs/published/<model>/``).

Everything is written into a staging folder beside ``--out`` and moved into place at the end:
a refused import (a file that differs from the release's SHA256SUMS, a listed file missing, a
folder that is not the release, an exam line off its form) leaves nothing behind.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gridwm_judge import __version__
from gridwm_judge.atomic import check_out_dir, new_folder, replace_dir, write_text
from gridwm_judge.dataset.ceilings import measure
from gridwm_judge.dataset_io import bars_only_on_a_terminal, dataset_fingerprint
from gridwm_judge.records import PREDICTIONS_FILE, PUBLISHED, RUN_FILE
from gridwm_judge.release import card
from gridwm_judge.release.answers import PublishedRun, models, published_runs, unlisted
from gridwm_judge.release.exams import exam_rows
from gridwm_judge.release.images import unreadable
from gridwm_judge.release.layout import Release, open_release
from gridwm_judge.schema import DATASET_VERSION

VALIDATION = "validation.json"
PUBLISHED_RUNS = Path("runs") / PUBLISHED
PARQUET = "test-00000-of-00001.parquet"


@dataclass(frozen=True)
class ImportSummary:
    """What an import wrote (and what the release copy lacked), for the command's lines."""

    out: Path
    configs: dict[str, int]
    runs: tuple[str, ...]
    not_found: tuple[str, ...]
    left_out: tuple[str, ...]
    checked: int

    def lines(self) -> list[str]:
        out = [f"checked {self.checked} files against the release's SHA256SUMS"
               if self.checked else "no file of this copy is listed in the release's SHA256SUMS"]
        out += [f"{config}: {n} rows" for config, n in self.configs.items()]
        if self.runs:
            out.append(f"{len(self.runs)} published judges' Task D-R answers -> "
                       f"{self.out / PUBLISHED_RUNS}/<model>/ ({', '.join(self.runs)})")
        out += [f"not in this copy of the release: {name}" for name in self.not_found]
        out += self.left_out
        out.append(f"wrote {self.out} (load with load_dataset({str(self.out)!r}, "
                   f"{next(iter(self.configs))!r}))")
        return out


def _write_parquet(rows: list[dict[str, Any]], path: Path) -> dict[str, int]:
    import datasets

    from gridwm_judge.dataset.features import features

    with bars_only_on_a_terminal(datasets):
        ds = datasets.Dataset.from_list(rows, features=features())
        path.parent.mkdir(parents=True, exist_ok=True)
        ds.to_parquet(str(path))
    return {"num_examples": len(ds), "num_bytes": int(ds.data.nbytes),
            "download_size": path.stat().st_size}


def _validation(release: Release, configs: dict[str, list[dict[str, Any]]],
                ceilings: dict[str, Any], not_measured: dict[str, str]) -> dict[str, Any]:
    return {
        "source": "paper release",
        "release": release.provenance.to_json(),
        "dataset_version": DATASET_VERSION,
        "package_version": __version__,
        "checked_files": release.checked,
        "configs": {c: {"rows": len(rows), "expected_rows": len(rows),
                        "groups": len({r["group_id"] for r in rows}),
                        "images": sum(len(r["images"]) for r in rows),
                        "unique_uids": len({r["uid"] for r in rows}) == len(rows),
                        "exam": json.loads(rows[0]["source"])["path"],
                        "exam_sha256": json.loads(rows[0]["source"])["file_sha256"]}
                    for c, rows in configs.items()},
        "not_found": [e.path for e in release.missing],
        "left_out": [*release.left_out, *unlisted(release)],
        "shortcut_ceilings": ceilings,
        "shortcut_ceilings_not_measured": not_measured,
    }


def _write_run(folder: Path, run: PublishedRun) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    write_text(folder / PREDICTIONS_FILE,
               "".join(json.dumps(r.to_json(), sort_keys=True) + "\n" for r in run.records))
    write_text(folder / RUN_FILE, json.dumps(run.run.to_json(), indent=2, sort_keys=True) + "\n")


def import_paper(path: str | Path, out: str | Path, *, overwrite: bool = False,
                 progress: Callable[[str], None] = lambda _line: None) -> ImportSummary:
    """Import the release at ``path`` into the new dataset folder ``out``; ``progress`` gets
    a line per step."""
    out = Path(out)
    release = open_release(path)
    check_out_dir(out, overwrite, ours=(VALIDATION, "data"), what="dataset folder",
                  inputs=(release.root,))
    configs = {e.config: exam_rows(release, e) for e in release.exams}
    with new_folder(out.parent if str(out.parent) else Path(".")) as parent:
        stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.import-", dir=parent))
        try:
            splits = {}
            for config, rows in configs.items():
                progress(f"writing {config}: {len(rows)} rows")
                splits[config] = _write_parquet(rows, stage / "data" / config / PARQUET)
            progress("measuring the shortcut ceilings")
            unread = {e.config: bad for e in release.exams
                      if (bad := unreadable(release, e, configs[e.config]))}
            ceilings = measure(stage, [c for c in configs if c not in unread])
            not_measured = {c: f"{len(bad)} of {len(configs[c])} rows' images do not cut into "
                               f"the panels their exam line records (first: {bad[0]}), so the "
                               "shortcut rules' reading of them is not verified"
                            for c, bad in unread.items()}
            write_text(stage / VALIDATION, json.dumps(
                _validation(release, configs, ceilings, not_measured), indent=2,
                sort_keys=True) + "\n")
            has_dr = "paper_task_d_r" in configs
            card.write(stage, release, splits, ceilings, not_measured,
                       runs=models(release) if has_dr else [])
            runs = (published_runs(release, configs["paper_task_d_r"],
                                   dataset_fingerprint(str(stage))) if has_dr else [])
            for run in runs:
                _write_run(stage / PUBLISHED_RUNS / run.model, run)
            replace_dir(stage, out)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
    return ImportSummary(out, {c: len(rows) for c, rows in configs.items()},
                         tuple(r.model for r in runs), tuple(e.path for e in release.missing),
                         (*release.left_out, *unlisted(release)), release.checked)


"""The card (README.md) of a folder imported from the paper's release: the Hub's YAML
(configs, features, MIT licence) and prose that credits the release, says where every file came
from and how it was checked, what each config supports and what was left out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gridwm_judge import __version__
from gridwm_judge.atomic import write_text
from gridwm_judge.dataset import ceilings as shortcut_ceilings
from gridwm_judge.dataset.card import card_yaml, columns_table
from gridwm_judge.release.answers import unlisted
from gridwm_judge.release.layout import CLONE_LINE, RELEASE_BRANCH, Release
from gridwm_judge.schema import DATASET_VERSION
from gridwm_judge.task_table import task_spec

PRETTY_NAME = "GridWM-Judge: the paper's released exams"
SUPPORTS: Mapping[str, str] = {
    "paper_task_d_r": "the causal block (JAcc_neu, Acc_full / NoCue / CF, p_active, IDR_raw, "
    "IDR_cond, IDR_rev, NoCue lift) under both protocols (all groups: the paper's Table 13; "
    "eligible pairs: the release's metrics CSV), per presentation condition, and the framing "
    "and visual probe families (NS, JCR, Flip, LES). No temporal probe and no split "
    "representation: the release holds neither for Task D-R.",
    "paper_task_c": "the causal block under eligible pairs and the probe families the exam's "
    "rows hold, on composite storyboards only: VCC_rep (composite vs split) is not defined on "
    "these items.",
    "paper_task_a": "Acc_A1 per action condition the exam holds; Delta_shuffle and Delta_mask "
    "are defined only where it holds shuffled / masked-action rows.",
    "paper_task_e": "E_Acc and E_MeanScore, overall and per question (identity / status).",
}
"""What each imported config supports (the rest is reported as not defined on its items)."""


def _provenance(release: Release) -> str:
    p = release.provenance
    commit = p.revision or "not recorded (not a git clone)"
    if p.modified:
        commit += " (with local changes)"
    rows = [("repository", f"[{p.release}](https://github.com/{p.release})"),
            ("branch", f"`{p.branch or 'not recorded (not a git clone)'}`"),
            ("commit", f"`{commit}`"),
            ("SHA256SUMS (sha256)", f"`{p.sums_sha256 or 'none in this copy'}`"),
            ("files checked against it", str(release.checked)),
            ("licence", f"{p.license} (the release's)")]
    return "\n".join(["| | |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)])


def _licence(release: Release) -> str:
    path = release.file("LICENSE")
    if path.is_file():
        text = path.read_text(encoding="utf-8", errors="replace").strip()
        return "The release's licence, as it ships:\n\n```\n" + text + "\n```"
    return ("The release is published under the MIT licence (its repository's LICENSE file "
            "was not in the copy imported).")


def _configs(splits: Mapping[str, Mapping[str, int]]) -> str:
    lines = ["| config | task | rows | what it supports |", "|---|---|---:|---|"]
    for config, s in splits.items():
        lines.append(f"| `{config}` | `{task_spec(config).name}` | {s['num_examples']:,} | "
                     f"{SUPPORTS.get(config, '')} |")
    return "\n".join(lines)


def _runs(runs: Sequence[str]) -> str:
    if not runs:
        return ""
    names = ", ".join(f"`{m}`" for m in runs)
    return (
        "## Published judges\n\n"
        f"`runs/published/<model>/` holds the Task D-R answers of {len(runs)} judges as the "
        f"release publishes them ({names}): `predictions.jsonl` with each raw answer, the "
        "provider's metadata and the authors' own parse of it, and `run.json` marked as "
        "published (model and provider as the release records them). They are not runs this "
        "package made. Score them with the authors' parse (`gridwm-judge score --rules "
        "published`: the paper's Table 13 as printed, Kimi K2.5 as the release corrected it) "
        "or with this package's parser (the default); `gridwm-judge report` says on how many "
        "rows the two disagree.\n")


def write(folder: Path, release: Release, splits: Mapping[str, Mapping[str, int]],
          ceilings: Mapping[str, Any], not_measured: Mapping[str, str], runs: Sequence[str]
          ) -> Path:
    """Write ``folder/README.md``."""
    first = next(iter(splits))
    not_found = "".join(f"- not in the copy imported: `{e.path}` ({e.config} not written)\n"
                        for e in release.missing)
    left_out = "".join(f"- {why}\n" for why in (*release.left_out, *unlisted(release)))
    prose = f"""# {PRETTY_NAME}

The frozen exams of the paper *Towards Reliable VLM Judges: State-Conditional Invariance and
Presentation-Aware Diagnostics*, imported from the authors' public release by `gridwm-judge
import-paper` (gridwm-judge {__version__}, dataset layout {DATASET_VERSION}). Every prompt and
image is the release's byte for byte; gold labels are mapped onto GridWM-Judge's answer
formats. The items carry no seeds or actions, so they cannot be regenerated: they are imported.

**Credit.** The exams and the published answers are the work of the paper's authors, released
under the MIT licence; this folder redistributes them under the same licence.

## Where it came from

{_provenance(release)}

Get the release with `{CLONE_LINE}` (branch `{RELEASE_BRANCH}`), then
`gridwm-judge import-paper PATH --out DIR`. Each row's `source` column names the release
file, the line and the release's own uid.

## Configs

{_configs(splits)}

{not_found}{left_out}
```python
from datasets import load_dataset
ds = load_dataset("PATH_OR_REPO", "{first}", split="test")
```

{_runs(runs)}
## Shortcut ceiling

Rules that read only the prompt and the images but never follow the trajectory, on the
canonical items of each config (see the GridWM-Judge README):

{shortcut_ceilings.markdown(dict(ceilings))}
{"".join(f"- `{c}`: not measured: {why}" + chr(10) for c, why in not_measured.items())}
## Columns

{columns_table()}

## Licence

{_licence(release)}
"""
    path = folder / "README.md"
    meta = card_yaml({c: dict(s) for c, s in splits.items()}, license="mit",
                     pretty_name=PRETTY_NAME)
    write_text(path, f"---\n{meta}\n---\n\n{prose}")
    return path

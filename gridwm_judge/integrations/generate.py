"""Write the package's generated files: from the task table, the lmms-eval task folder's
YAMLs (one per config, one per prompt style of a config asked in several) and inspect's
``@task`` functions, one per config (``inspect_tasks.py``); from the results' records, the
JSON Schema of scores.json (``schemas/scores.schema.json``,
:mod:`gridwm_judge.integrations.scores_schema`)::

    python -m gridwm_judge.integrations.generate           # write them
    python -m gridwm_judge.integrations.generate --check   # exit 1 if a shipped file is stale

A new config or metric name gets its files by running it; a test keeps the shipped files equal
to what it writes. The hook functions the files name (``lmms_eval/utils.py``) and the inspect
Task they build, with the metrics it prints (:mod:`gridwm_judge.integrations.inspect_bridge`),
are written by hand. This module needs neither framework.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from gridwm_judge.integrations import scores_schema
from gridwm_judge.integrations.items import CONDITION_FIGURES, printed_metrics
from gridwm_judge.integrations.lmms_eval import utils
from gridwm_judge.schema import ACTION_CONDITIONS
from gridwm_judge.task_table import ALL_TASKS, TaskSpec

ROOT = Path(__file__).resolve().parent.parent
"""The package folder: :func:`stale` and :func:`write` name the generated files under it."""
INTEGRATIONS = "integrations"
LMMS_FOLDER = "lmms_eval"
INSPECT_FILE = "inspect_tasks.py"
SCHEMA_FILE = "schemas/scores.schema.json"
HEADER = "Generated from the task table by `python -m gridwm_judge.integrations.generate`"

LOWER_IS_BETTER = frozenset((
    *(name for figures in CONDITION_FIGURES.values() for name, condition in figures.items()
      if condition != ACTION_CONDITIONS[0]),
    "idr_rev"))
"""Accuracy under a control condition (a wrong or hidden action: a judge that reads the action
loses accuracy there), and IDR_rev (Full rejected while its CF is accepted: the wrong way
round, 0 for a careful judge); every other printed figure is better higher."""

_NOTES: dict[str, tuple[str, ...]] = {
    "next_state": (
        "Accuracy per action condition only, never pooled (each question is asked three ways): "
        "acc_a1 with the true action (orig), acc_shuffle with a wrong one, acc_mask with none; "
        "each over that condition's rows only. The last two are the controls: a judge that reads "
        "the action loses accuracy there (delta_shuffle, delta_mask = acc_a1 minus each, paired "
        "by question), one that ignores it does not.",
    ),
    "oracle_state": (
        "Staged JSON answers (task_type, objective, verdict) per evidence arm; the State arm's "
        "rows have no image. Paired arm differences with CIs and McNemar: gridwm-judge score.",
    ),
}
"""A comment above ``metric_list`` for the tasks of a recipe."""


def lmms_task(spec: TaskSpec, style: str = "") -> str:
    """The lmms-eval task name of ``spec`` (in prompt ``style``): ``gridwm_task_c``."""
    return f"gridwm_{spec.config}" + (f"_{style}" if style else "")


def _comment(paragraphs: Sequence[str]) -> list[str]:
    """YAML comment lines of ``paragraphs``, each wrapped to the line length."""
    return [line for text in paragraphs
            for line in textwrap.wrap(text, 100, initial_indent="# ", subsequent_indent="# ")]


def lmms_yaml(spec: TaskSpec, style: str = "") -> str:
    """The lmms-eval YAML of ``spec`` (of one prompt style's rows when ``style`` is given)."""
    head = [f"{HEADER}: do not edit.", f"{spec.config} ({spec.name}): {spec.role}"]
    if spec.world != "minigrid":
        head.append(f"dataset_path must hold {spec.config}: a build of a {spec.world} profile "
                    f"(gridwm-judge build --profile {spec.world} --out DIR).")
    if spec.paper:
        head.append(f"Hard counterfactuals at the neutral presentation only: the ns_* / jcr_* "
                    f"figures are undefined ({spec.paper}'s presentation probes measure them).")
    if style:
        head += [f"The {style} prompt style's rows only (its own token budget); `--tasks "
                 f"gridwm_{spec.config}` runs every style.",
                 "Paired differences between styles with CIs and McNemar/Holm: gridwm-judge "
                 f"score, or inspect's gridwm_judge/{spec.config} (every style in one eval)."]
    lines = [*_comment(head), "include: _default_template_yaml", f"task: {lmms_task(spec, style)}",
             f"dataset_name: {spec.config}"]
    if style:
        lines += [f"tag: gridwm_{spec.config}", f"process_docs: !function utils.docs_{style}"]
    lines += ["generation_kwargs:", f"  max_new_tokens: {spec.budget(style)}", "  temperature: 0",
              "  top_p: 1.0", "  num_beams: 1", "  do_sample: false"]
    lines += _comment(_NOTES.get(spec.recipe, ()))
    lines.append("metric_list:")
    lower = {name for name, metric in printed_metrics(spec, style).items()
             if metric in LOWER_IS_BETTER}
    for name in utils.metrics_of(spec, style):
        lines += [f"  - metric: {name}", f"    aggregation: !function utils.agg_{name}",
                  f"    higher_is_better: {str(name not in lower).lower()}"]
    return "\n".join(lines) + "\n"


def inspect_module(specs: Sequence[TaskSpec]) -> str:
    """``inspect_tasks.py``: one ``@task`` per config, named by it (inspect finds a task by the
    name of a ``@task`` function it reads in the file); the bridge builds each."""
    out = [
        '"""inspect_ai tasks: one ``@task`` per dataset config of the task table, registered',
        "through inspect's package entry point (group ``inspect_ai``, name ``gridwm_judge``), so",
        'with the ``inspect`` extra (``pip install -e ".[inspect]"`` in a clone)::',
        "",
        "    inspect eval gridwm_judge/task_c -T dataset=PATH_OR_HUB_ID --model MODEL",
        "",
        f"{HEADER}: do not",
        "edit. How a task is asked and scored: :mod:`gridwm_judge.integrations.inspect_bridge`.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from inspect_ai import Task, task",
        "",
        "from gridwm_judge.integrations.inspect_bridge import gridwm_task",
    ]
    for spec in specs:
        doc = textwrap.wrap(f'"""{spec.name}: {spec.role}."""', 96)
        out += [
            "", "",
            "@task",
            f"def {spec.config}(dataset: str, representation: str | None = None) -> Task:",
            *(f"    {line}" for line in doc),
            f'    return gridwm_task("{spec.config}", dataset, representation)',
        ]
    return "\n".join(out) + "\n"


def files(specs: Sequence[TaskSpec] = ALL_TASKS) -> dict[str, str]:
    """Every integration file's text by its path under ``integrations/``."""
    out = {}
    for spec in specs:
        for style in tuple(spec.styles) or ("",):
            out[f"{LMMS_FOLDER}/{lmms_task(spec, style)}.yaml"] = lmms_yaml(spec, style)
    out[INSPECT_FILE] = inspect_module(specs)
    return out


def generated(specs: Sequence[TaskSpec] = ALL_TASKS) -> dict[str, str]:
    """Every generated file's text by its path under the package folder: the integration files
    (:func:`files`) and the scores schema."""
    out = {f"{INTEGRATIONS}/{path}": text for path, text in files(specs).items()}
    out[SCHEMA_FILE] = scores_schema.schema_text()
    return out


def _shipped(root: Path) -> set[str]:
    """The generated files found under the package folder ``root`` (the lmms-eval YAMLs,
    inspect's tasks and the scores schema)."""
    lmms = f"{INTEGRATIONS}/{LMMS_FOLDER}"
    found = {f"{lmms}/{p.name}" for p in (root / lmms).glob("gridwm_*.yaml")}
    return found | {p for p in (f"{INTEGRATIONS}/{INSPECT_FILE}", SCHEMA_FILE)
                    if (root / p).is_file()}


def stale(root: Path = ROOT, specs: Sequence[TaskSpec] = ALL_TASKS) -> list[str]:
    """The generated files under the package folder ``root`` that differ from what this module
    writes: changed, missing, or left over from a config the table no longer has."""
    want = generated(specs)
    differ = [p for p, text in want.items()
              if not (root / p).is_file() or (root / p).read_text(encoding="utf-8") != text]
    return sorted(differ + sorted(_shipped(root) - set(want)))


def write(root: Path = ROOT, specs: Sequence[TaskSpec] = ALL_TASKS) -> list[str]:
    """Write the files under the package folder ``root`` and remove left-over ones; the paths
    changed."""
    changed = stale(root, specs)
    want = generated(specs)
    for path in changed:
        target = root / path
        if path in want:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(target.name + ".tmp")
            tmp.write_text(want[path], encoding="utf-8")
            tmp.replace(target)
        else:
            target.unlink()
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gridwm_judge.integrations.generate",
                                     description="Write the generated files: the "
                                     "integration files from the task table, the scores schema "
                                     "from the results' records.",
                                     allow_abbrev=False)
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a shipped file differs from what "
                        "this writes")
    args = parser.parse_args(argv)
    if args.check:
        changed = stale(ROOT)
        if changed:
            print(f"stale generated files (run python -m gridwm_judge.integrations.generate): "
                  f"{', '.join(changed)}", file=sys.stderr)
            return 1
        print("generated files are current")
        return 0
    changed = write(ROOT)
    print(f"wrote {', '.join(changed)}" if changed else "generated files are current")
    return 0


if __name__ == "__main__":
    sys.exit(main())

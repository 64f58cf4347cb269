"""The dataset row contract shared by tasks, builder, judges and scoring.

A row is exactly one model-facing item: the judge sees ``prompt`` and ``images`` and nothing
else. Every other column is audit-only. ``uid`` is the only join key between items,
predictions and scores. Columns that do not apply to a task hold the empty string ("") for
strings and -1 for integers, so every config shares one flat, typed layout.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import fields, make_dataclass
from typing import Any

DATASET_VERSION = "0.4.0"
"""The version of the items a build writes (card, ``validation.json``, the builder's configs,
each run's run.json). Bump it whenever the same profile and seeds give other items or rows;
CHANGELOG.md's "Dataset versions" says what each version changed."""

VARIANTS = ("full", "nocue", "cf")
TEMPORAL = ("orig", "rev")
VISUAL = ("clean", "noisy", "style")
FRAMING = ("neutral", "positive", "negative")
REPRESENTATIONS = ("composite", "split")
ACTION_CONDITIONS = ("orig", "shuffle", "mask")
E_QUESTIONS = ("identity", "status")
E_STATUSES = ("holding", "dropped", "reacquired_and_holding")
EVIDENCE = ("pixel", "state", "pixel_state")
PROMPT_STYLES = ("direct", "structured_verdict", "structured_rationale")
NOCUE_STYLES = ("clean", "occlude")
DEFAULT_NOCUE_STYLE = "clean"
"""How a build's NoCue frames hide the evidence (``gridwm-judge build --nocue-style``; the
``nocue_style`` column): ``clean`` leaves no mark that only NoCue shows, ``occlude`` is the
paper's grey square (see ``render.nocue_style``)."""

# The dataset row, one column a line: name, `datasets` dtype, meaning (an indented line goes on
# with the meaning above; {families} is each world's families, which the card fills in from the
# worlds' cards). Model-facing: prompt, images. Everything else is audit.
_COLUMN_TABLE = """\
uid                string stable unique id, <task>.<group_id>...: e.g.
                          C.keycorridor.KeyCorridorS4R3.s830003.cf.grid.rev.noisy.neutral.composite,
                          MC.sign.Sign.s830004.nocue.framing.orig.clean.positive.split
task               string A..E (MiniGrid), MA / MC / MD (MiniWorld), PA / OS (controlled analyses)
family             string env family: {families}
env_id             string registered env id: MiniGrid (MiniGrid-DoorKey-8x8-v0, ...) or MiniWorld
                          (MiniWorld-TMaze-v0, ...)
group_id           string trajectory group; CIs resample these
seed               int64  env.reset seed of the group
item_id            string id shared by the rows that are conditions of one question (A action
                          conditions, C/D presentations of one group+variant); pairs rows for
                          paired metrics
prompt             string model-facing text
images             list_image model-facing images, in order
answer             string gold answer as text: A-D letter (A), JSON (B), Yes/No (C), Success/Fail
                          (D), JSON {"answer": label} (E)
label              int64  C/D: 1 trajectory succeeded, 0 failed; -1 elsewhere
variant            string full / nocue / cf (C, D); '' elsewhere
temporal           string orig / rev
visual             string clean / noisy / style
framing            string neutral / positive / negative
representation     string composite / split
probe_family       string C/D: the presentation set this row belongs to (C: grid = temporal x
                          visual, framing, baseline; D: baseline, framing, visual; '' elsewhere)
action_condition   string A: orig / shuffle / mask; '' elsewhere
action             string A: the true action name; '' elsewhere
question           string E: identity / status; B: 'perception'; '' elsewhere
candidate_order    string A: JSON list of candidate sources, gold marked; '' elsewhere
frame_indices      string JSON list of trajectory state indices shown, in shown order
checkpoint         int64  B/E/A: state index the question is about; -1 elsewhere
reference_group_id string D, MD, PA, OS: group of the successful reference trajectory; ''
                          elsewhere
intervention       string JSON list of CF operations ('[]' when none)
mask               string JSON list of what this row's frames draw over the world ('[]' when
                          nothing): nocue_style occlude: NoCue's mask spec [{"t", "tiles"}];
                          clean: [{"t", "erase", "occlude"}], the cells drawn as empty floor and
                          the cells under the grey square in frame t (NoCue: its targets; Full
                          and CF: the squares that balance NoCue's)
validators         string JSON {gate: bool} of the source group
evidence           string oracle_state: pixel (storyboards) / state (text table of observable
                          facts) / pixel_state (both); '' elsewhere
prompt_style       string prompt_ablation: direct / structured_verdict / structured_rationale;
                          '' elsewhere
mission            string oracle_state: the env's mission text, audit only (never in the
                          prompt); '' elsewhere
task_type_order    string oracle_state: JSON list of the task types in the order the prompt lists
                          them (drawn per query group); '' elsewhere
prompt_version     string version of the prompt templates
nocue_style        string configs with NoCue rows (C, D, OS, MC, MD; PA when it asks NoCue):
                          the build's --nocue-style, clean / occlude (MiniWorld hides its entity
                          the same way under both); '' elsewhere
source             string rows imported from elsewhere (the paper's release, `import-paper`):
                          JSON {"release", "revision", "license", "path", "line", "uid"}: the
                          repository, its commit or SHA256SUMS digest, its licence, the exam
                          file, its line and the release's own uid; '' in generated rows
"""


def _read_table(table: str) -> dict[str, tuple[str, str]]:
    """name -> (dtype, meaning), in the table's order; a continued meaning is joined by a space."""
    rows: list[list[str]] = []
    for line in table.splitlines():
        if line[:1].isspace():
            rows[-1][2] += " " + line.strip()
        else:
            rows.append(line.split(None, 2))
    return {name: (dtype, meaning) for name, dtype, meaning in rows}


COLUMNS: dict[str, tuple[str, str]] = _read_table(_COLUMN_TABLE)
"""name -> (datasets dtype, meaning), in row order."""

MODEL_FACING = ("prompt", "images")


_PY_TYPES = {"string": str, "int64": int, "list_image": list}

DatasetRow = make_dataclass(
    "DatasetRow", [(name, _PY_TYPES[dtype]) for name, (dtype, _) in COLUMNS.items()], frozen=True
)
DatasetRow.__doc__ = """One dataset row (one model-facing item), typed: its fields are
:data:`COLUMNS` (generated from it, so the layout is defined once); see :func:`dataset_row`."""


def dataset_row(d: Mapping[str, Any], *, where: str = "") -> Any:
    """The :class:`DatasetRow` of a row dict; a row off the contract (a column missing or extra,
    a value of the wrong type) is a ValueError naming the row and the column."""
    at = f"{where}: " if where else ""
    extra, missing = sorted(set(d) - set(COLUMNS)), sorted(set(COLUMNS) - set(d))
    if extra or missing:
        raise ValueError(f"{at}row {d.get('uid')!r} breaks the row contract "
                         f"(extra {extra}, missing {missing})")
    for name, (dtype, _) in COLUMNS.items():
        v = d[name]
        ok = (isinstance(v, str) if dtype == "string"
              else isinstance(v, numbers.Integral) and not isinstance(v, bool)
              if dtype == "int64" else isinstance(v, (list, tuple)))
        if not ok:
            raise ValueError(f"{at}row {d.get('uid')!r}: column {name!r} must be {dtype}, "
                             f"got {type(v).__name__}")
    return DatasetRow(**d)


def row_dict(row: Any) -> dict[str, Any]:
    """The plain dict of a :class:`DatasetRow` (images kept as they are, not copied)."""
    return {f.name: getattr(row, f.name) for f in fields(row)}

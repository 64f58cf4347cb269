"""The task contract: one entry per task / dataset config, read by every part of the pipeline.

An entry says what a judge is asked to produce and how its answer is read and scored: the
config name, the answer format (a choice of tokens, a verdict word pair, or a JSON object with
its schema), the decoding budget, and the name of the scoring recipe
(:data:`gridwm_judge.scoring.recipes.RECIPES`) that grades and scores its rows; also the world
its rows come from and the dataset config's description. Prompts' answer lines (each format's
:meth:`format_line`), structured outputs, parsing, grading, scoring, reports, the framework
integration files, the dataset builder and card and the ``--tasks`` names all read this table,
so adding a config is one entry here plus its row builder (:mod:`gridwm_judge.tasks`).
An answer line is model-facing text: changing one changes prompts, so bump
:data:`gridwm_judge.prompts.PROMPT_VERSION` with it.

This module is plain data: it imports only the MiniGrid cards (Oracle-State's task types are
their causal chains), which import no env, so every part above the worlds may import it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any

from gridwm_judge.worlds.minigrid.cards import OS_TASK_TYPES

WORLDS: tuple[str, ...] = ("minigrid", "miniworld")
"""The simulated worlds a config's rows come from (``TaskSpec.world``; a ``world.World``'s
``name``), in the order cards and reports name them. Scores and reports never pool two worlds."""

MATCHED_RECIPES = ("presentation_invariance", "reference_aided", "prompt_ablation",
                   "oracle_state")
"""The recipes whose rows pair matched variants of one trajectory (Full / NoCue / CF): their
configs' rows can show NoCue (:attr:`TaskSpec.matched`)."""
REFERENCE_RECIPES = ("reference_aided", "prompt_ablation", "oracle_state")
"""The recipes whose items show a successful reference storyboard before the query (Task D's
layout; :attr:`TaskSpec.referenced`)."""

PROTOCOLS = ("all_groups", "eligible_pairs")
"""How a verdict task counts invalid answers (paper Appendix A): Task C summaries use the
groups with parseable Full and CF verdicts; Task D counts an invalid answer incorrect."""


@dataclass(frozen=True)
class Choice:
    """The answer is exactly one of ``options`` (e.g. a candidate letter)."""

    options: tuple[str, ...]

    def structured(self) -> dict[str, Any]:
        return {"choice": list(self.options)}

    def format_line(self) -> str:
        head = ", ".join(self.options[:-1])
        return f"Answer with ONLY one letter: {head}, or {self.options[-1]}."


@dataclass(frozen=True)
class Verdict:
    """A success / failure verdict in two words, e.g. ``Yes`` / ``No``."""

    success: str
    failure: str

    @property
    def options(self) -> tuple[str, str]:
        return (self.success, self.failure)

    @property
    def words(self) -> dict[str, str]:
        """Lower-cased format word -> "success" / "failure" (what a strict answer is)."""
        return {self.success.lower(): "success", self.failure.lower(): "failure"}

    def structured(self) -> dict[str, Any]:
        return {"choice": list(self.options)}

    def format_line(self) -> str:
        return f"Answer with ONLY: {self.success} or {self.failure}."


@dataclass(frozen=True)
class JsonObject:
    """A JSON object following ``schema``; ``required`` names a string field that must be
    present (its value is the answer, e.g. Task E's label), or None to keep the whole object.
    ``fields`` (whole-object answers) names keys the object must hold to count as an answer
    (the Oracle-State staged answer); an object without one of them is no answer. ``line``
    is the prompt's answer line, given in words: a schema does not say how to ask for it."""

    schema: Mapping[str, Any] = field(repr=False)
    required: str | None = None
    fields: tuple[str, ...] = ()
    _: KW_ONLY
    line: str = field(repr=False)

    def __post_init__(self) -> None:
        if not self.line.strip():
            raise ValueError("a JsonObject answer needs its prompt's answer line (line=...)")

    def structured(self) -> dict[str, Any]:
        return {"json": json.dumps(self.schema)}

    def format_line(self) -> str:
        return self.line


@dataclass(frozen=True)
class JsonVerdict:
    """A success / failure verdict given as a JSON object: string ``fields`` in the order asked,
    the last of them ``"verdict"`` holding one of ``verdict``'s words; the others are free text
    (the prompt ablation's short ``rationale``). Parsed to "success" / "failure" like a
    :class:`Verdict`, so it is graded and scored as one. The answer line shows the object with
    a placeholder per field (``"<rationale>"``, ``"<Success or Fail>"``); ``line``, when given,
    is the answer line instead (a free field that needs saying what it should hold)."""

    verdict: Verdict
    fields: tuple[str, ...] = ("verdict",)
    line: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if not self.fields or self.fields[-1] != "verdict" or len(set(self.fields)) != len(
                self.fields):
            raise ValueError(f"JsonVerdict fields must be distinct and end with 'verdict', "
                             f"got {self.fields!r}")

    @property
    def options(self) -> tuple[str, str]:
        return self.verdict.options

    @property
    def schema(self) -> dict[str, Any]:
        props: dict[str, Any] = {f: {"type": "string"} for f in self.fields}
        props["verdict"] = {"enum": list(self.verdict.options)}
        return {"type": "object", "properties": props, "required": list(self.fields),
                "additionalProperties": False}

    def structured(self) -> dict[str, Any]:
        return {"json": json.dumps(self.schema)}

    def format_line(self) -> str:
        if self.line:
            return self.line
        words = " or ".join(self.verdict.options)
        shown = ", ".join(f'"{f}": "<{words if f == "verdict" else f}>"' for f in self.fields)
        return f"Answer with ONLY a JSON object and no other text: {{{shown}}}."

    def text(self, word: str, **free: str) -> str:
        """A strict answer giving ``word``, the free fields from ``free`` ("" when not given)."""
        if word not in self.verdict.options:
            raise ValueError(f"verdict {word!r} is not one of {self.verdict.options}")
        extra = sorted(set(free) - set(self.fields[:-1]))
        if extra:
            raise ValueError(f"unknown JSON field(s) {extra}; expected {self.fields[:-1]}")
        return json.dumps({f: free.get(f, "") for f in self.fields[:-1]} | {"verdict": word})


AnswerFormat = Choice | Verdict | JsonObject | JsonVerdict


@dataclass(frozen=True)
class Style:
    """One prompt style of a config whose items are asked in several (the prompt ablation):
    its answer format and its token budget as a multiple of the task's."""

    answer: AnswerFormat
    budget_factor: int = 1

    def __post_init__(self) -> None:
        if self.budget_factor < 1:
            raise ValueError(f"budget_factor must be >= 1, got {self.budget_factor}")


PERCEPTION_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "agent": {
            "type": "object",
            "properties": {
                "pos": {"type": "array", "items": {"type": "integer"}, "minItems": 2,
                        "maxItems": 2},
                "dir": {"enum": ["right", "down", "left", "up"]},
                "carrying": {"type": ["string", "null"]},
            },
            "required": ["pos", "dir", "carrying"],
        },
        "front_cell": {
            "type": "object",
            "properties": {
                "type": {"type": "string"},
                "color": {"type": ["string", "null"]},
                "state": {"enum": ["open", "closed", "locked", None]},
            },
            "required": ["type", "color", "state"],
        },
        "visible_objects": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "type": {"type": "string"},
                    "color": {"type": "string"},
                    "pos": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["type", "color", "pos"],
            },
        },
    },
    "required": ["agent", "front_cell", "visible_objects"],
}
PERCEPTION_LINE = (
    'Use this schema: {"agent": {"pos": [x, y], "dir": "right"|"down"|"left"|"up", '
    '"carrying": null or "<type>_<color>"}, "front_cell": {"type": ..., "color": ... or null, '
    '"state": "open"|"closed"|"locked" or null}, "visible_objects": [{"type": ..., "color": ..., '
    '"pos": [x, y]}]}. Coordinates are [column, row] counted from 0 at the top-left cell '
    "(the outer wall included); visible_objects lists every non-wall object except the front cell."
)
"""Task B's answer line (ours: the paper's instruction names the fields but no schema)."""
LABEL_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {"answer": {"type": "string"}},
                                   "required": ["answer"]}


@dataclass(frozen=True)
class TaskSpec:
    """One task / dataset config.

    ``name`` is the short task name rows and predictions carry ("C"); ``config`` the dataset
    config ("task_c"); ``recipe`` the scoring recipe's name; ``protocol`` how a verdict task
    counts invalid answers (None for non-verdict tasks). ``styles``, when given, names the
    prompt styles its rows are asked in (a row's ``prompt_style`` column): each has its own
    answer format and budget, which :meth:`for_style` resolves; ``answer`` and ``max_tokens``
    are then those of a row with no style. Keyword-only: ``description``, the dataset config's
    (required: no built config goes without one), and ``world`` (:data:`WORLDS`), the one
    place that says which world a task's rows come from. ``paper``, for a hard-CF config, names
    the paper config it is the hard counterpart of ("C" for "CH"): reports set them side by
    side. ``imported``, for a config whose rows come from the paper's public release (never
    generated, :data:`PAPER_TASKS`), names the generated config that asks the same question
    ("D" for "RDR"); ``also_protocols`` names protocols its verdict figures are given under
    besides ``protocol`` (the release's D-R figures use both). ``variant_of``, for a config
    that asks another config's question in another form (a new answer format, a new prompt),
    names that config's task ("D"): it is scored by the same recipe, reported in a table of
    its own, and never taken for the world's task of that recipe (:func:`world_task`).
    """

    name: str
    config: str
    role: str
    answer: AnswerFormat
    max_tokens: int
    recipe: str
    protocol: str | None = None
    styles: Mapping[str, Style] = field(default_factory=dict, repr=False)
    _: KW_ONLY
    description: str = field(repr=False)
    world: str = "minigrid"
    paper: str | None = None
    imported: str | None = None
    also_protocols: tuple[str, ...] = ()
    variant_of: str | None = None

    def __post_init__(self) -> None:
        if not self.description.strip():
            raise ValueError(f"task {self.name} needs a description (its dataset config's)")
        if self.world not in WORLDS:
            raise ValueError(f"unknown world {self.world!r} of {self.name}; expected {WORLDS}")
        for protocol in (self.protocol, *self.also_protocols):
            if protocol is not None and protocol not in PROTOCOLS:
                raise ValueError(f"unknown protocol {protocol!r}; expected one of {PROTOCOLS}")
        if self.max_tokens <= 0:
            raise ValueError(f"max_tokens of {self.name} must be positive, got {self.max_tokens}")

    @property
    def matched(self) -> bool:
        """Whether its rows pair Full / NoCue / CF variants (:data:`MATCHED_RECIPES`)."""
        return self.recipe in MATCHED_RECIPES

    @property
    def referenced(self) -> bool:
        """Whether its items show a reference before the query (:data:`REFERENCE_RECIPES`)."""
        return self.recipe in REFERENCE_RECIPES

    @property
    def probed(self) -> bool:
        """Whether its rows vary the presentation (frame order, noise / style, framing): not a
        hard-CF config (``paper`` set: the neutral presentation only), nor an imported exam
        (as published)."""
        return not (self.paper or self.imported)

    @property
    def split(self) -> bool:
        """Whether its storyboards may also be shown as split frames: an imported exam is
        composite only."""
        return not self.imported

    @property
    def verdict(self) -> bool:
        """Whether its answer is a success / failure verdict (a word pair, or a JSON answer
        whose fields end in one): what a verdict shortcut can answer."""
        answer = self.answer
        return isinstance(answer, (Verdict, JsonVerdict)) or (
            isinstance(answer, JsonObject) and "verdict" in answer.fields)

    @property
    def choice(self) -> bool:
        """Whether its answer is one of a few candidate letters."""
        return isinstance(self.answer, Choice)

    def structured_output(self) -> dict[str, Any]:
        """Keyword arguments of vLLM's ``StructuredOutputsParams`` for this answer format."""
        return self.answer.structured()

    def for_style(self, style: str) -> TaskSpec:
        """This entry as a row of prompt style ``style`` is asked: the style's answer format and
        budget (``max_tokens`` x its factor). ``""`` (no style) is the entry itself; a style the
        entry does not have is a ValueError naming the valid ones."""
        if not style:
            return self
        if style not in self.styles:
            valid = ", ".join(self.styles) or "none: its rows have no prompt_style"
            raise ValueError(f"task {self.name} has no prompt style {style!r}; expected {valid}")
        st = self.styles[style]
        return replace(self, answer=st.answer, max_tokens=self.max_tokens * st.budget_factor,
                       styles={})

    def budget(self, style: str = "", base: int | None = None) -> int:
        """The token budget of a row in prompt ``style`` when this task's budget is ``base``
        (a user's; None: the table's): ``base`` times the style's factor, so raising a
        task's budget raises each of its styles' alike (every backend and bridge uses this)."""
        base = base or self.max_tokens
        return base * self.for_style(style).max_tokens // self.max_tokens


TASKS: tuple[TaskSpec, ...] = (
    TaskSpec("A", "task_a", "action-conditioned next state (A-D choice)",
             Choice(("A", "B", "C", "D")), 512, "next_state",
             description="A: action-conditioned next state (pick the next frame among four "
                         "candidates)"),
    TaskSpec("B", "task_b", "single-frame structured perception (JSON)",
             JsonObject(PERCEPTION_SCHEMA, line=PERCEPTION_LINE), 2048, "perception",
             description="B: single-frame structured perception (JSON state of one frame)"),
    TaskSpec("C", "task_c", "presentation invariance and representation exchangeability",
             Verdict("Yes", "No"), 256, "presentation_invariance", "eligible_pairs",
             description="C: presentation invariance and representation exchangeability "
                         "(Yes/No)"),
    TaskSpec("D", "task_d", "reference-aided causal sensitivity",
             Verdict("Success", "Fail"), 256, "reference_aided", "all_groups",
             description="D: reference-aided causal sensitivity (Success/Fail against a "
                         "successful reference)"),
    TaskSpec("E", "task_e", "prefix state tracking (JSON label)",
             JsonObject(LABEL_SCHEMA, required="answer",
                        line='Answer using JSON only: {"answer":"<label>"}.'), 256,
             "state_tracking",
             description="E: prefix state tracking (identity and status of the first picked-up "
                         "object)"),
)

HARD_TASKS: tuple[TaskSpec, ...] = (
    TaskSpec("CH", "task_c_hard", "causal sensitivity on hard counterfactuals (Task C's "
             "neutral presentation)", Verdict("Yes", "No"), 256, "presentation_invariance",
             "eligible_pairs",
             description="CH: Task C with hard counterfactuals (the CF's first frame holds "
                         "Full's objects and its target; it fails because of where things are "
                         "along the way): Full / NoCue / CF at the neutral presentation, "
                         "composite and split (Yes/No)", paper="C"),
)
"""Hard-CF configs: groups whose CF no static rule separates from Full, scored by
Task C's recipe under their own names. Not in ``TASKS`` (the paper's benchmark, what
``--tasks all`` means); name them to use them. Each names its ``paper`` config. MiniWorld's
``miniworld_c_hard`` (``paper="MC"``) is in ``MINIWORLD_TASKS``, with every MiniWorld entry."""

MINIWORLD_TASKS: tuple[TaskSpec, ...] = (
    TaskSpec("MA", "miniworld_a", "MiniWorld action-conditioned next first-person view "
             "(A-D choice)", Choice(("A", "B", "C", "D")), 512, "next_state",
             description="MA: Task A on MiniWorld (first-person view + map -> next first-person "
                         "view)", world="miniworld"),
    TaskSpec("MC", "miniworld_c", "MiniWorld presentation invariance and representation "
             "exchangeability", Verdict("Yes", "No"), 256, "presentation_invariance",
             "eligible_pairs",
             description="MC: Task C on MiniWorld first-person 3D storyboards (Yes/No)",
             world="miniworld"),
    TaskSpec("MD", "miniworld_d", "MiniWorld reference-aided causal sensitivity",
             Verdict("Success", "Fail"), 256, "reference_aided", "all_groups",
             description="MD: Task D on MiniWorld first-person 3D storyboards (Success/Fail)",
             world="miniworld"),
    TaskSpec("MCH", "miniworld_c_hard", "MiniWorld causal sensitivity on hard counterfactuals "
             "(MiniWorld Task C's neutral presentation)", Verdict("Yes", "No"), 256,
             "presentation_invariance", "eligible_pairs",
             description="MCH: MiniWorld Task C with hard counterfactuals (the CF's first "
                         "frame holds Full's objects, its target is seen along the walk; it "
                         "fails because of where things are): Full / NoCue / CF at the neutral "
                         "presentation, composite and split (Yes/No)",
             world="miniworld", paper="MC"),
)
"""MiniWorld (3D): Tasks A, C and D on first-person views (and Task C on hard
counterfactuals), scored by the same recipes under their own names, so scores and
reports never pool them with MiniGrid's. They are not in ``TASKS`` (the MiniGrid benchmark,
what ``--tasks all`` means); name them to use them. The tuple gives their order; the entries'
``world`` says they are MiniWorld's."""

D_VERDICT = Verdict("Success", "Fail")
PA_STYLES: Mapping[str, Style] = {
    "direct": Style(D_VERDICT),
    "structured_verdict": Style(JsonVerdict(D_VERDICT, ("verdict",))),
    "structured_rationale": Style(JsonVerdict(
        D_VERDICT, ("rationale", "verdict"), line=(
            "Answer with ONLY a JSON object and no other text: first a short rationale (one or "
            "two sentences on what the query trajectory shows), then the verdict: "
            '{"rationale": "<one or two sentences>", "verdict": "<Success or Fail>"}.')),
        budget_factor=4),
}
"""The prompt ablation's styles: Task D's bare word, a JSON verdict, and a JSON
object with a short rationale first (4 x the budget: room for the rationale, so a cut-off
answer is rare; one that is cut off before its verdict is invalid)."""

OS_OBJECT_TYPES: tuple[str, ...] = ("goal", "key", "ball", "box", "door")
OS_COLORS: tuple[str, ...] = ("red", "green", "blue", "purple", "yellow", "grey")
"""An objective's label is ``<type>_<color>`` over these (MiniGrid's names; Task E's form)."""
OS_VERDICTS: tuple[str, str] = D_VERDICT.options
OS_FIELDS: tuple[str, ...] = ("task_type", "objective", "verdict")
STAGED_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "task_type": {"enum": list(OS_TASK_TYPES)},
        "objective": {"type": "string"},
        "verdict": {"enum": list(OS_VERDICTS)},
    },
    "required": list(OS_FIELDS),
}
"""Oracle-State's staged answer: the reference's task type and objective (``<type>_<color>``,
Task E's label form), then the query's verdict."""
STAGED_LINE = ('Answer using JSON only: {"task_type": "<task type>", "objective": '
               '"<type>_<color>", "verdict": "Success" or "Fail"}.')

CONTROL_TASKS: tuple[TaskSpec, ...] = (
    TaskSpec("PA", "prompt_ablation", "prompt-structure ablation of Task D (direct / "
             "structured verdict / structured rationale)", D_VERDICT, 256, "prompt_ablation",
             "all_groups", styles=PA_STYLES,
             description="PA: prompt-structure ablation of Task D's clean-neutral Full and CF "
                         "items, each asked in three prompt styles (prompt_style): direct "
                         "(Success/Fail), structured_verdict (JSON {\"verdict\"}) and "
                         "structured_rationale (JSON {\"rationale\", \"verdict\"})"),
    TaskSpec("OS", "oracle_state", "Oracle-State evidence arms: staged task type, objective "
             "and verdict from pixels, a state table or both (JSON)",
             JsonObject(STAGED_SCHEMA, fields=OS_FIELDS, line=STAGED_LINE), 512,
             "oracle_state", "all_groups",
             description="OS: Oracle-State control, Task D's items in three evidence arms (pixel "
                         "storyboards, a text state table of the shown keyframes: agent cell, "
                         "heading and carried object, objects with type, colour, cell and door "
                         "state; no mission, objective, reward, outcome or intervention; or "
                         "both), answered as JSON task_type / objective / verdict"),
)
"""The controlled analyses (Oracle-State evidence arms, prompt-structure ablation):
Task-D-style studies over one shared set of groups, named to use them (not in ``all``)."""

PAPER_TASKS: tuple[TaskSpec, ...] = (
    TaskSpec("RA", "paper_task_a", "the paper's released Task A exam (A-D choice)",
             Choice(("A", "B", "C", "D")), 512, "next_state",
             description="RA: the paper's own Task A exam, imported from its public release "
                         "(action-conditioned next state, A-D choice)", imported="A"),
    TaskSpec("RC", "paper_task_c", "the paper's released Task C exam (composite storyboards)",
             Verdict("Yes", "No"), 256, "presentation_invariance", "eligible_pairs",
             description="RC: the paper's own Task C exam, imported from its public release "
                         "(composite storyboards, Yes/No)", imported="C"),
    TaskSpec("RDR", "paper_task_d_r", "the paper's released reference-aided Task D (Task D-R, "
             "Table 13)", Verdict("Success", "Fail"), 256, "reference_aided", "all_groups",
             description="RDR: the paper's own reference-aided Task D exam (Task D-R, Table 13), "
                         "imported from its public release: one combined reference + query "
                         "image per row (Success/Fail)", imported="D",
             also_protocols=("eligible_pairs",)),
    TaskSpec("RE", "paper_task_e", "the paper's released Task E exam (JSON label)",
             JsonObject(LABEL_SCHEMA, required="answer",
                        line='Answer using JSON only: {"answer":"<label>"}.'), 256,
             "state_tracking",
             description="RE: the paper's own Task E exam, imported from its public release "
                         "(prefix state tracking, JSON label)", imported="E"),
)
"""Configs whose rows are the paper's own frozen exams, imported from its public release by
``gridwm-judge import-paper`` (:mod:`gridwm_judge.release`), never generated: prompts and
images are the release's byte for byte. Task D-R's figures are given under both protocols:
all groups (the paper's Table 13) and eligible pairs (the release's metrics CSV). Named to use
them (not in ``all``)."""

ALL_TASKS: tuple[TaskSpec, ...] = (TASKS + HARD_TASKS + MINIWORLD_TASKS + CONTROL_TASKS
                                   + PAPER_TASKS)
BUILT_CONFIGS: tuple[str, ...] = tuple(t.config for t in ALL_TASKS if not t.imported)
"""The configs the builder generates (every config but the imported ones)."""

TASK_NAMES: tuple[str, ...] = tuple(t.name for t in TASKS)
CONFIGS: tuple[str, ...] = tuple(t.config for t in TASKS)
DEFAULT_MAX_TOKENS: Mapping[str, int] = {t.name: t.max_tokens for t in TASKS}
"""The paper's decoding budget per task (greedy decoding everywhere)."""

_BY_KEY: dict[str, TaskSpec] = {}
for _spec in ALL_TASKS:
    for _key in (_spec.name, _spec.name.lower(), _spec.config, _spec.config.upper()):
        _BY_KEY[_key] = _spec


def _valid_names() -> str:
    return ", ".join(f"{t.name.lower()} ({t.config})" for t in ALL_TASKS)


def world_of(name: str) -> str:
    """The world a task's or config's rows come from (its entry's ``world``): the one rule every
    part asks. An unknown name is a ValueError naming the valid ones."""
    return task_spec(name).world


def world_task(recipe: str, world: str = "minigrid") -> str:
    """The task of ``world`` that asks ``recipe``'s question in the paper's form (not a hard
    counterpart, an imported exam or a variant): ``world_task("next_state", "miniworld")`` is
    ``"MA"``. What the report's per-world sections read instead of spelling a world's task
    names."""
    found = [t.name for t in ALL_TASKS if t.recipe == recipe and t.world == world
             and not (t.paper or t.imported or t.variant_of)]
    if len(found) != 1:
        raise ValueError(f"{len(found)} tasks of world {world!r} ask recipe {recipe!r} "
                         f"({', '.join(found) or 'none'}); expected one")
    return found[0]


def is_task(name: str) -> bool:
    """Whether ``name`` names a task or config of the table."""
    return isinstance(name, str) and name.strip() in _BY_KEY


def answer_spec(task: str, style: str = "") -> TaskSpec:
    """The entry a row of ``task`` in prompt ``style`` is asked and parsed by (its format and
    budget): ``task_spec(task).for_style(style)``."""
    return task_spec(task).for_style(style)


def task_spec(name: str) -> TaskSpec:
    """The entry for a task or config name: 'c', 'C' or 'task_c'; others name the valid ones."""
    key = name.strip() if isinstance(name, str) else name
    if key not in _BY_KEY:
        raise ValueError(f"unknown task {name!r}; expected one of {_valid_names()}")
    return _BY_KEY[key]


def parse_task_list(text: str) -> tuple[str, ...]:
    """``"c,d"`` or ``"task_c,task_d"`` -> ``("C", "D")`` in the given order; ``"all"`` -> every
    MiniGrid task (``TASK_NAMES``; MiniWorld's are named, e.g. ``"miniworld_c"``). Unknown
    names are a ValueError naming the valid ones."""
    if text.strip().lower() == "all":
        return TASK_NAMES
    out: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if part:
            name = task_spec(part).name
            if name not in out:
                out.append(name)
    if not out:
        raise ValueError(f"no task given; expected a comma list of {_valid_names()}, or 'all'")
    return tuple(out)

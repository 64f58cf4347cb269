"""Model-facing prompt templates, versioned in one place.

Texts marked *verbatim* are the paper's (Appendix C). Additions of ours (marked *ours*) keep probes
semantics-preserving and answers scorable: a reversed storyboard says so (otherwise reversal
changes meaning), split-image items say how the numbered images relate, and Tasks B and E state
the answer schema / label space (the paper's texts do not, so a judge could match the scored
fields only by luck), and Task D says which image is the reference (the verbatim text names
both trajectories but not their order). Bump ``PROMPT_VERSION`` whenever any
model-facing text changes; it is recorded in every row and every run.

The answer line of each prompt (``Answer with ONLY: Yes or No.``, a JSON format) is its task's
answer format's (:meth:`gridwm_judge.task_table.TaskSpec.answer`'s ``format_line``): the table
is the one place that says how a task is answered, and an answer line changed there changes
its prompts (bump ``PROMPT_VERSION`` with it).
"""

from __future__ import annotations

from collections.abc import Sequence

from gridwm_judge.task_table import OS_COLORS, OS_OBJECT_TYPES, OS_TASK_TYPES, answer_spec

PROMPT_VERSION = "gwj-prompts-v6"


def answer_line(task: str, style: str = "") -> str:
    """The answer line of ``task``'s prompts (in prompt ``style``): its answer format's."""
    return answer_spec(task, style).answer.format_line()


# --- Task A (verbatim) -------------------------------------------------------------------
TASK_A = (
    "Action: {action}.\n"
    "On the left is the current state. On the right are four candidate next states (A, B, C, D).\n"
    "Select the correct next state after executing the action. " + answer_line("A")
)
TASK_A_MASKED_ACTION = "unknown"

# --- Task B (verbatim instruction + our answer schema) -----------------------------------
TASK_B_VERBATIM = (
    "You are given one MiniGrid observation. Describe the visible local state using JSON only. "
    "Include the agent direction, whether the agent is carrying an object, the front cell, "
    "and visible objects. Do not infer hidden objects."
)
TASK_B_SCHEMA = answer_line("B")  # ours
TASK_B = f"{TASK_B_VERBATIM}\n{TASK_B_SCHEMA}"

# --- Task C (verbatim preambles; neutral is the paper's first line) ----------------------
TASK_C_PREAMBLE = {
    "neutral": "Below is a storyboard from one MiniGrid trajectory.",
    "positive": (
        "The trajectory may show successful progress toward the task goal. "
        "Please judge only from the visual evidence."
    ),
    "negative": (
        "The trajectory may contain a failure to complete the task goal. "
        "Please judge only from the visual evidence."
    ),
}
TASK_C_QUESTION = "Task goal: {mission}\nDid the trajectory satisfy this goal? " + answer_line("C")

# --- Task D (verbatim) -------------------------------------------------------------------
TASK_D = (
    "Below are two storyboard trajectories from the same MiniGrid environment. "
    "Reference trajectory: This trajectory is a known successful example of completing the "
    "task in this environment. Query trajectory: Determine whether this trajectory also "
    "completes the same task goal as the reference trajectory. " + answer_line("D")
)

# --- Task E (verbatim; the release's doubled braces are a bug we avoid) + label lines ----
TASK_E_QUESTION = {
    "identity": (
        "Below is a MiniGrid trajectory storyboard showing the trajectory up to the last shown "
        "frame only. Earlier in the shown trajectory, what was the first object the agent picked "
        "up?"
    ),
    "status": (
        "Below is a MiniGrid trajectory storyboard showing the trajectory up to the last shown "
        "frame only. By the last shown frame, what is the status of the first object the agent "
        "picked up earlier?"
    ),
}
TASK_E_VERBATIM = {q: f"{text} {answer_line('E')}" for q, text in TASK_E_QUESTION.items()}
TASK_E_LABELS = {  # ours
    "identity": (
        "The label is <object>_<color>, e.g. key_yellow or ball_green "
        "(objects: key, ball, box; colors: red, green, blue, purple, yellow, grey)."
    ),
    "status": "The label is one of: holding, dropped, reacquired_and_holding.",
}
TASK_E = {q: f"{text}\n{TASK_E_LABELS[q]}" for q, text in TASK_E_VERBATIM.items()}

# --- Presentation notes (ours) -----------------------------------------------------------
REVERSED_NOTE = (
    "Note: the frames are shown in reverse chronological order "
    "(the first frame shown is the last moment of the trajectory)."
)
SPLIT_NOTE = "The storyboard is given as {n} separate images, numbered in the order shown."


def task_c_prompt(mission: str, framing: str, *, reversed_order: bool, n_split: int = 0) -> str:
    """Task C prompt. ``n_split`` > 0 marks a split-image item with that many images."""
    _check_framing(framing)
    parts = [TASK_C_PREAMBLE[framing]]
    parts += _presentation_notes(reversed_order, n_split)
    parts.append(TASK_C_QUESTION.format(mission=mission))
    return "\n".join(parts)


D_ORDER_NOTE = (  # ours
    "The first image is the reference trajectory's storyboard; "
    "the second image is the query trajectory's storyboard."
)


def task_d_prompt(
    framing: str,
    *,
    reversed_order: bool = False,
    n_split_reference: int = 0,
    n_split_query: int = 0,
) -> str:
    """Task D prompt: the framing preamble for non-neutral rows, the verbatim instruction,
    then which images are the reference and which the query."""
    _check_framing(framing)
    parts = [] if framing == "neutral" else [TASK_C_PREAMBLE[framing]]
    parts += _presentation_notes(reversed_order, 0)
    parts.append(TASK_D)
    if n_split_reference or n_split_query:
        parts.append(
            f"The first {n_split_reference} images are the reference trajectory; "
            f"the next {n_split_query} images are the query trajectory, in the order shown."
        )
    else:
        parts.append(D_ORDER_NOTE)
    return "\n".join(parts)


def _check_framing(framing: str) -> None:
    if framing not in TASK_C_PREAMBLE:
        valid = ", ".join(TASK_C_PREAMBLE)
        raise ValueError(f"unknown framing {framing!r}; expected one of {valid}")


def _presentation_notes(reversed_order: bool, n_split: int) -> list[str]:
    notes = []
    if n_split:
        notes.append(SPLIT_NOTE.format(n=n_split))
    if reversed_order:
        notes.append(REVERSED_NOTE)
    return notes


# --- MiniWorld (ours): what the 3D images are; questions as in Tasks C and D -----
MINIWORLD_C_PREAMBLE = (
    "Below is a storyboard from one MiniWorld trajectory: first-person 3D views seen by the "
    "agent as it moves through the environment."
)
MINIWORLD_D = (
    "Below are two storyboard trajectories from the same MiniWorld environment, each a "
    "sequence of first-person 3D views seen by the agent. "
    "Reference trajectory: This trajectory is a known successful example of completing the "
    "task in this environment. Query trajectory: Determine whether this trajectory also "
    "completes the same task goal as the reference trajectory.\n"
    "Task goal: {mission}\n" + answer_line("MD")
)


def miniworld_c_prompt(mission: str, framing: str, *, reversed_order: bool,
                       n_split: int = 0) -> str:
    """MiniWorld Task C prompt: Task C's with a preamble that says the panels are first-person
    3D views; positive / negative framings add Task C's framing sentence after it."""
    _check_framing(framing)
    parts = [MINIWORLD_C_PREAMBLE]
    if framing != "neutral":
        parts.append(TASK_C_PREAMBLE[framing])
    parts += _presentation_notes(reversed_order, n_split)
    parts.append(TASK_C_QUESTION.format(mission=mission))
    return "\n".join(parts)


def miniworld_d_prompt(mission: str, framing: str) -> str:
    """MiniWorld Task D prompt: the framing sentence for non-neutral rows, the reference-aided
    instruction with the goal (a Sign query's shape is in its mission), then the image order."""
    _check_framing(framing)
    parts = [] if framing == "neutral" else [TASK_C_PREAMBLE[framing]]
    parts += [MINIWORLD_D.format(mission=mission), D_ORDER_NOTE]
    return "\n".join(parts)

MINIWORLD_A = (
    "Action: {action}.\n"
    "On the left is the current state: the agent's first-person 3D view, with a top-down map of "
    "the whole environment below it (the agent is the orange arrow on the map, pointing where it "
    "faces). On the right are four candidate next first-person views (A, B, C, D).\n"
    "Select the correct next view after executing the action. " + answer_line("MA")
)


# --- Prompt-structure ablation (ours: the paper gives no wording) -----------------
# The three styles ask Task D's clean-neutral question over the same images; they differ only
# in the answer instruction, which replaces Task D's in the same place (``direct`` is Task D's
# prompt exactly). Each style's instruction is its answer format's line (``task_table.PA_STYLES``).
TASK_D_ANSWER = answer_line("D")
PA_ANSWER = {style: answer_line("PA", style) for style in answer_spec("PA").styles}


def prompt_ablation_prompt(style: str) -> str:
    """The prompt ablation's prompt in ``style``: Task D's clean-neutral prompt with the
    style's answer instruction in place of Task D's."""
    if style not in PA_ANSWER:
        raise ValueError(f"unknown prompt style {style!r}; expected one of {', '.join(PA_ANSWER)}")
    base = task_d_prompt("neutral")
    assert base.count(TASK_D_ANSWER) == 1  # the one sentence a style replaces
    return base.replace(TASK_D_ANSWER, PA_ANSWER[style])
# --- Oracle-State (ours: paper App. D.4 gives no wording): evidence arms ---------
OS_OPENING = (
    "Below are two trajectories from the same MiniGrid environment. "
    "Reference trajectory: This trajectory is a known successful example of completing the "
    "task in this environment. Query trajectory: a separate trajectory in the same environment."
)
OS_EVIDENCE = {
    "pixel": (
        "The first image is the reference trajectory's storyboard; the second image is the "
        "query trajectory's storyboard. Each storyboard shows numbered keyframes in time order."
    ),
    "state": (
        "Each trajectory is given as a state table: one numbered line per keyframe, in time "
        "order, with the agent's cell and heading, what it carries, and the objects on the grid "
        "with their type, colour, cell and door state."
    ),
    "pixel_state": (
        "The first image is the reference trajectory's storyboard; the second image is the "
        "query trajectory's storyboard. Each storyboard shows numbered keyframes in time order. "
        "The state tables below describe the same numbered keyframes as text: the agent's cell "
        "and heading, what it carries, and the objects on the grid with their type, colour, cell "
        "and door state."
    ),
}
OS_TABLE_NOTE = (
    "Cells are (column, row), counted from (0, 0) at the top-left cell of {origin}; walls are "
    "not listed; a hidden cell is covered in its keyframe and its content is unknown."
)
OS_ORIGIN = {
    # the text-only arm shows no storyboard: its origin is named by what the judge can picture
    "state": "the smallest rectangle that holds the level's walls",
    "pixel_state": "the storyboard frame",
}
OS_QUESTION = (
    "Answer three questions.\n"
    "1. task_type: which task does the reference trajectory carry out? Choose one of these "
    "task types and copy it exactly:\n{task_types}\n"
    "2. objective: the object the reference trajectory's task ends at (the last object it had "
    "to reach, pick up or open), as <type>_<color>, e.g. ball_purple "
    "(types: {types}; colors: {colors}).\n"
    "3. verdict: does the query trajectory also complete the same task goal as the reference "
    "trajectory? The query comes from another seed of the same environment, so its layout, "
    "colours and the object its task ends at may differ from the reference's: judge whether it "
    "completes its own instance of the same task. Success or Fail.\n"
)


def oracle_state_prompt(evidence: str, reference_table: str = "", query_table: str = "", *,
                        task_types: Sequence[str] = OS_TASK_TYPES) -> str:
    """Oracle-State prompt of one evidence arm: the opening, what the evidence is, the state
    tables (state / pixel_state arms: both tables must be given, pixel: neither), then the
    staged question listing the task types in the order ``task_types`` gives (an ordering of
    ``task_table.OS_TASK_TYPES``; the row builder draws one per query)."""
    if sorted(task_types) != sorted(OS_TASK_TYPES) or len(set(task_types)) != len(task_types):
        raise ValueError(f"task_types must order the task types {list(OS_TASK_TYPES)} once "
                         f"each; got {list(task_types)}")
    if evidence not in OS_EVIDENCE:
        raise ValueError(f"unknown evidence {evidence!r}; expected one of {', '.join(OS_EVIDENCE)}")
    tables = bool(reference_table) and bool(query_table)
    if tables != (evidence != "pixel") or bool(reference_table) != bool(query_table):
        raise ValueError(f"evidence {evidence!r} takes {'no' if evidence == 'pixel' else 'both'} "
                         "state tables")
    parts = [OS_OPENING, OS_EVIDENCE[evidence]]
    if tables:
        parts += [OS_TABLE_NOTE.format(origin=OS_ORIGIN[evidence]),
                  f"Reference trajectory state table:\n{reference_table}",
                  f"Query trajectory state table:\n{query_table}"]
    types = "\n".join(f"- {t}" for t in task_types)
    parts.append(OS_QUESTION.format(task_types=types, types=", ".join(OS_OBJECT_TYPES),
                                    colors=", ".join(OS_COLORS)) + answer_line("OS"))
    return "\n".join(parts)

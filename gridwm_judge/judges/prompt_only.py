"""The prompt-only rule behind ``baseline:prompt-only``: what Oracle-State's staged
question gives to a reader of the prompt's text alone, with no image and no state table.

It reads :func:`prompt_text` (the prompt with its state tables cut out: in the State arm the
table *is* in the prompt, and reading it would be reading the evidence) and answers:

- ``task_type``: the first task type the text lists (a reader's position bias). While the
  list had one fixed order this was one constant answer (DoorKey's chain: 66 of 294 queries
  in the base build); with the order drawn per query it is right about one time in six.
- ``objective``: ``goal_green`` (:data:`OBJECTIVE`), the label a reader who knows MiniGrid
  guesses from the prompt's type and colour lists: the goal tile is always green, and it is
  the most common objective (54 of 98 base query groups, the best constant).
- ``verdict``: Success. Outside the tables nothing tells a query's Full, NoCue and CF rows
  apart (their prompts are identical, gate D3), and two of the three succeed.

Other tasks have no prompt-only rule here; :mod:`gridwm_judge.judges.baseline` gives them
always-yes's answer. The functions are pure (text in, text out), so the rule can be rerun on
a dataset's prompts without a judge run.
"""

from __future__ import annotations

import json
import re

from gridwm_judge.task_table import OS_TASK_TYPES, JsonObject

OBJECTIVE = "goal_green"
"""The objective the rule always answers (see the module doc)."""
_TABLES = re.compile(r"^Reference trajectory state table:\n.*?(?=^Answer three questions\.)",
                     re.M | re.S)
_LISTED = re.compile(r"^- (.+)$", re.M)


def prompt_text(prompt: str) -> str:
    """``prompt`` without its state tables (both headers and every table line); a prompt
    without tables (Pixel arm) is returned as it is."""
    return _TABLES.sub("", prompt)


def listed_task_types(text: str) -> list[str]:
    """The task types ``text`` lists as ``- <type>`` lines, in the order it lists them."""
    known = set(OS_TASK_TYPES)
    return [m.group(1).strip() for m in _LISTED.finditer(text) if m.group(1).strip() in known]


def staged_answer(prompt: str, fmt: JsonObject) -> str:
    """The rule's staged JSON for an Oracle-State ``prompt`` (fields as ``fmt``'s schema
    orders them); a prompt that lists no task type gets the schema's first."""
    text = prompt_text(prompt)
    listed = listed_task_types(text)
    props = fmt.schema["properties"]
    out = {}
    for key, prop in props.items():
        if key == "task_type":
            out[key] = listed[0] if listed else prop["enum"][0]
        elif key == "verdict":
            out[key] = prop["enum"][0]  # Success: the schema lists the success word first
        else:
            out[key] = OBJECTIVE
    return json.dumps(out)


__all__ = ["OBJECTIVE", "listed_task_types", "prompt_text", "staged_answer"]

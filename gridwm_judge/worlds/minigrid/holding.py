"""The first object the agent picks up, and whether it holds it at a given frame.

Read from a rollout's pickup / drop events; Task E's gold answers (``tasks.task_e``) and a
group's ``first_pickup`` come from here.

Status of the first object the agent picked up, by the last shown frame ``t``:
"holding" (picked, never dropped yet), "dropped" (on the floor), "reacquired_and_holding"
(dropped earlier and held again). None before the first pickup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gridwm_judge.world import Rollout


def identity_label(obj: Mapping[str, Any]) -> str:
    """{"type": "key", "color": "yellow"} -> "key_yellow"."""
    return f"{obj['type']}_{obj['color']}"


def first_pickup(rollout: Rollout) -> Mapping[str, Any] | None:
    """The first pickup event ({"t", "type", "obj", "pos"}) or None."""
    return next((e for e in rollout.events if e["type"] == "pickup"), None)


def status_at(rollout: Rollout, t: int) -> str | None:
    """Status of the first picked object in state ``t`` (see module doc)."""
    first = first_pickup(rollout)
    if first is None or t < first["t"]:
        return None
    ident = first["obj"]
    dropped = False
    status = "holding"
    for e in rollout.events:
        if e["t"] > t or e["obj"] != ident or e["type"] not in ("pickup", "drop"):
            continue
        if e["type"] == "drop":
            dropped, status = True, "dropped"
        elif e["t"] > first["t"]:
            status = "reacquired_and_holding" if dropped else "holding"
    return status

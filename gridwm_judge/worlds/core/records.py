"""Frozen records every world's simulator hands on: rollouts, audited groups, draw results.

Everything inside is JSON-safe (plain ints, floats, strs, lists/dicts, None) so a group can be
written to the audit JSONL and replayed by anyone with the world's own simulator package. A
world's state and event dicts are its own (MiniGrid's: ``worlds.minigrid.records``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from gridwm_judge.schema import VARIANTS


@dataclass(frozen=True)
class Rollout:
    """One variant's rollout: actions, per-frame states, events and outcome.

    ``mask`` is set for NoCue (tuple of {"t", "tiles"}); ``intervention`` for CF (op dicts).
    A CF that terminates early has ``steps + 1`` states, fewer than ``len(actions) + 1``.
    """

    actions: tuple[int, ...]
    states: tuple[dict, ...]
    events: tuple[dict, ...]
    reward: float
    terminated: bool
    truncated: bool
    success: bool
    steps: int
    mask: tuple[dict, ...] = ()
    intervention: tuple[dict, ...] = ()

    def to_record(self, kind: str) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "success": self.success,
            "reward": self.reward,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "steps": self.steps,
            "events": list(self.events),
        }
        if kind == "nocue":
            rec["mask"] = list(self.mask)
        if kind == "cf":
            rec["intervention"] = list(self.intervention)
        rec["states"] = list(self.states)
        return rec

    @classmethod
    def from_record(cls, rec: dict, actions: tuple[int, ...]) -> Rollout:
        return cls(
            actions=tuple(actions),
            states=tuple(rec["states"]),
            events=tuple(rec["events"]),
            reward=float(rec["reward"]),
            terminated=bool(rec["terminated"]),
            truncated=bool(rec["truncated"]),
            success=bool(rec["success"]),
            steps=int(rec["steps"]),
            mask=tuple(rec.get("mask", ())),
            intervention=tuple(rec.get("intervention", ())),
        )


def gates_passed(validators: dict[str, bool]) -> bool:
    """A group is valid when it has a gate report and every gate in it passed."""
    return bool(validators) and all(validators.values())


@dataclass(frozen=True)
class AuditedGroup:
    """Full / NoCue / CF rollouts of one (env id, seed) under the same action ids: the fields
    every world's group has, its validity and its audit record. A world subclasses it with its
    own fields, its ``ACTION_NAMES`` and its ``RECORD_HEAD``: the attributes its record starts
    with, in that order; every record ends with the shared action ids, the first pickup, the
    three variants (each rollout under its name) and the gate report."""

    ACTION_NAMES: ClassVar[tuple[str, ...]]
    RECORD_HEAD: ClassVar[tuple[str, ...]]
    group_id: str
    family: str
    env_id: str
    seed: int
    mission: str
    actions: tuple[int, ...]
    full: Rollout
    nocue: Rollout
    cf: Rollout
    validators: dict[str, bool] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(self.ACTION_NAMES[a] for a in self.actions)

    @property
    def valid(self) -> bool:
        return gates_passed(self.validators)

    def pickup_record(self) -> dict | None:
        """Type and colour of Full's first picked-up object, for the record; each world says
        how it knows (a field, or Full's events)."""
        raise NotImplementedError

    def to_record(self) -> dict[str, Any]:
        """The audit JSON line: replayable with the world's own simulator package alone."""
        head = {k: getattr(self, k) for k in self.RECORD_HEAD}
        return {
            **{k: dict(v) if isinstance(v, dict) else v for k, v in head.items()},
            "actions": list(self.actions),
            "action_names": list(self.action_names),
            "first_pickup": self.pickup_record(),
            "variants": {v: getattr(self, v).to_record(v) for v in VARIANTS},
            "validators": dict(self.validators),
        }

    @staticmethod
    def shared_from_record(d: dict) -> dict[str, Any]:
        """The fields above read back from a record (the kwargs a subclass adds its own to)."""
        actions = tuple(int(a) for a in d["actions"])
        return {"group_id": d["group_id"], "family": d["family"], "env_id": d["env_id"],
                "seed": int(d["seed"]), "mission": d["mission"], "actions": actions,
                **{v: Rollout.from_record(d["variants"][v], actions) for v in VARIANTS},
                "validators": dict(d.get("validators", {}))}


@dataclass(frozen=True)
class GenerationResult:
    """``n`` valid groups drawn from consecutive seeds, plus what was rejected and why."""

    family: str
    env_id: str
    seed: int
    groups: tuple[AuditedGroup, ...]
    n_drawn: int
    rejects: dict[str, int]
    rejected_seeds: tuple[tuple[int, tuple[str, ...]], ...] = ()
    reject_reasons: tuple[tuple[int, dict[str, str]], ...] = ()  # (seed, gate -> reason)

    @property
    def reject_rate(self) -> float:
        """Share of drawn seeds that failed a gate, in [0, 1]; 0.0 when nothing was drawn."""
        if self.n_drawn == 0:
            return 0.0
        return (self.n_drawn - len(self.groups)) / self.n_drawn

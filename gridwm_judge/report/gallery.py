"""Which answers the failure gallery shows: per judge, task and kind of failure, the graded rows
a judge got wrong, and a seeded draw of at most :data:`CAP` of them.

The kinds read the graded rows ``score`` wrote (rows.jsonl), never recompute a metric:

- ``cf_accepted``: a counterfactual (its trajectory fails) given the success verdict;
- ``full_rejected``: a Full trajectory (it succeeds) given the failure verdict;
- ``nocue_flip``: a NoCue row whose verdict differs from its Full twin's (same group and
  presentation): hiding the cue moved the verdict;
- ``probe_flip``: a probed presentation (reversed, noisy / styled, framed) whose verdict
  differs from the same group's and variant's canonical presentation (orig, clean, neutral);
- ``no_verdict``: an answer of a verdict task with no verdict parsed from it;
- ``wrong_answer``: a wrong answer to a task that asks no verdict (A's letter, B's JSON, E's
  label).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gridwm_judge.scoring._arrays import FAILURE, INVALID, SUCCESS
from gridwm_judge.scoring.grading import GradedRow
from gridwm_judge.seeds import SAMPLING_SEED

KINDS: Mapping[str, str] = {
    "cf_accepted": "CF accepted",
    "full_rejected": "Full rejected",
    "nocue_flip": "NoCue flip",
    "probe_flip": "probe changed the verdict",
    "no_verdict": "no verdict parsed",
    "wrong_answer": "wrong answer",
}
"""Kind of failure -> its label on the page, in the page's order."""

CAP = 24
"""Items shown per judge, task and kind; the count of all of them stands beside."""

_PRESENTATION = ("temporal", "visual", "framing")
_CANONICAL = {"temporal": "orig", "visual": "clean", "framing": "neutral"}


@dataclass(frozen=True)
class Failure:
    """One graded row a judge got wrong, why, and the row it was compared with (the Full twin
    of a NoCue flip, the canonical presentation of a probe flip; None otherwise)."""

    row: GradedRow
    kind: str
    twin: GradedRow | None = None


def _key(r: GradedRow, **change: str) -> tuple[str, ...]:
    """What identifies a row within its group, with ``change`` applied."""
    fields = ("task", "group_id", "variant", *_PRESENTATION, "representation", "probe_family",
              "prompt_style", "evidence", "action_condition", "question")
    return tuple(change[f] if f in change else getattr(r, f) for f in fields)


def _canonical(r: GradedRow) -> dict[str, str]:
    """``r``'s presentation fields set to the canonical one (a field a task leaves empty stays
    empty)."""
    return {f: _CANONICAL[f] if getattr(r, f) else "" for f in _PRESENTATION}


def is_probed(r: GradedRow) -> bool:
    return any(getattr(r, f) not in ("", _CANONICAL[f]) for f in _PRESENTATION)


def _differs(a: GradedRow, b: GradedRow | None) -> bool:
    return b is not None and INVALID not in (a.verdict, b.verdict) and a.verdict != b.verdict


def failures(rows: Iterable[GradedRow]) -> dict[tuple[str, str], list[Failure]]:
    """(task, kind) -> the failures among one judge's graded ``rows``, sorted by uid."""
    rows = sorted(rows, key=lambda r: r.uid)
    by_key = {_key(r): r for r in rows}
    by_probe_set: dict[tuple[str, ...], list[GradedRow]] = {}
    for r in rows:
        by_probe_set.setdefault(_key(r, probe_family=""), []).append(r)

    def canonical_twin(r: GradedRow) -> GradedRow | None:
        same = by_key.get(_key(r, **_canonical(r)))
        if same is not None:
            return same  # the canonical presentation of the same probe set, else another's
        others = by_probe_set.get(_key(r, probe_family="", **_canonical(r)), [])
        return others[0] if others else None

    out: dict[tuple[str, str], list[Failure]] = {}
    for r in rows:
        found: list[Failure] = []
        if r.verdict is None:
            if not r.correct:
                found.append(Failure(r, "wrong_answer"))
        elif r.verdict == INVALID:
            found.append(Failure(r, "no_verdict"))
        else:
            if r.variant == "cf" and r.verdict == SUCCESS:
                found.append(Failure(r, "cf_accepted"))
            if r.variant == "full" and r.verdict == FAILURE:
                found.append(Failure(r, "full_rejected"))
            if r.variant == "nocue":
                full = by_key.get(_key(r, variant="full"))
                if _differs(r, full):
                    found.append(Failure(r, "nocue_flip", full))
            if is_probed(r):
                base = canonical_twin(r)
                if _differs(r, base):
                    found.append(Failure(r, "probe_flip", base))
        for f in found:
            out.setdefault((r.task, f.kind), []).append(f)
    return out


def draw(found: Sequence[Failure], *, cap: int = CAP, seed: int = SAMPLING_SEED
         ) -> list[Failure]:
    """At most ``cap`` of ``found``: those whose uid ranks first by a hash of ``seed`` and the
    uid (a seeded uniform draw without replacement), in uid order. Ranking by uid alone keeps
    the draws of several judges on the same items where their failures overlap, so their
    answers can be set side by side, and the same runs give the same page."""
    if len(found) <= cap:
        return sorted(found, key=lambda f: f.row.uid)
    picked = sorted(found, key=lambda f: hashlib.sha256(f"{seed}|{f.row.uid}".encode()).digest())
    return sorted(picked[:cap], key=lambda f: f.row.uid)

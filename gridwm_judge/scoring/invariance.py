"""Presentation invariance (NS_F, JCR_F, Flip_F) and representation exchangeability
(VCC_rep and its conditional forms, VCC_oracle): paper Appendix A.3, eqs. 21-23, 27-29.

Invalid verdicts: under ``all_groups`` an invalid verdict never agrees with anything (a
conservative count); under ``eligible_pairs`` comparisons that involve an invalid verdict
are left out (NS, VCC) and a group with any invalid verdict is left out (JCR).
Every result is a :class:`GroupRatio` (value ``None`` on an empty set).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gridwm_judge.scoring._arrays import (
    FAILURE,
    INVALID,
    SUCCESS,
    GroupRatio,
    group_index,
    strings,
    verdict_columns,
)


def _by_group(predictions, group_ids, presentations, protocol: str
              ) -> tuple[tuple[str, ...], dict[str, dict[str, int]]]:
    """Checked inputs as (sorted group ids, group -> {presentation: verdict})."""
    y, g, p = verdict_columns(
        predictions, protocol=protocol, group_ids=group_ids, presentations=presentations
    )
    groups, _ = group_index(g)
    return groups, _cells(y, g, p, "group")


def _cells(
    y: np.ndarray, units: np.ndarray, keys: np.ndarray, what: str
) -> dict[str, dict[str, int]]:
    """unit -> {key: verdict}; a repeated (unit, key) is a ValueError naming it."""
    table: dict[str, dict[str, int]] = {}
    for u, k, v in zip(units.tolist(), keys.tolist(), y.tolist(), strict=True):
        row = table.setdefault(u, {})
        if k in row:
            raise ValueError(f"{what} {u!r} has more than one row for {k!r}")
        row[k] = v
    return table


def ns(
    predictions: Sequence[int] | np.ndarray,
    group_ids: Sequence[str],
    presentations: Sequence[str],
    baseline: str,
    *,
    protocol: str = "all_groups",
) -> GroupRatio:
    """Nuisance Stability NS_F: agreement of each non-baseline presentation with the
    family baseline, over (group, presentation) pairs; groups without a baseline row
    contribute nothing. Range [0, 1]; None when there is no pair."""
    groups, table = _by_group(predictions, group_ids, presentations, protocol)
    num, den = np.zeros(len(groups)), np.zeros(len(groups))
    for i, gid in enumerate(groups):
        row = table[gid]
        if baseline not in row:
            continue
        base = row[baseline]
        for key, v in row.items():
            if key == baseline:
                continue
            parsed = base != INVALID and v != INVALID
            if protocol == "eligible_pairs" and not parsed:
                continue
            den[i] += 1
            num[i] += parsed and v == base
    return GroupRatio(groups, num, den)


def jcr(
    predictions: Sequence[int] | np.ndarray,
    group_ids: Sequence[str],
    presentations: Sequence[str],
    *,
    protocol: str = "all_groups",
) -> tuple[GroupRatio, GroupRatio]:
    """(JCR_F, Flip_F): share of groups whose verdicts agree across all presentations of the
    family (baseline included), and its complement. Groups with fewer than two rows are
    not counted. Range [0, 1]; None when no group counts."""
    groups, table = _by_group(predictions, group_ids, presentations, protocol)
    same, den = np.zeros(len(groups)), np.zeros(len(groups))
    for i, gid in enumerate(groups):
        vals = list(table[gid].values())
        if len(vals) < 2:
            continue
        has_invalid = INVALID in vals
        if protocol == "eligible_pairs" and has_invalid:
            continue
        den[i] = 1
        same[i] = (not has_invalid) and len(set(vals)) == 1
    return GroupRatio(groups, same, den), GroupRatio(groups, den - same, den)


@dataclass(frozen=True)
class VCCResult:
    """VCC between a reference representation and another one, with the forms conditioned
    on the reference verdict (success / failure)."""

    reference: str
    other: str
    vcc: GroupRatio
    given_success: GroupRatio
    given_failure: GroupRatio


def vcc(
    predictions: Sequence[int] | np.ndarray,
    group_ids: Sequence[str],
    representations: Sequence[str],
    *,
    reference_representation: str = "composite",
    pair_ids: Sequence[str] | None = None,
    protocol: str = "all_groups",
) -> VCCResult:
    """Verdict Consistency Coefficient over units judged in both representations.

    A unit is a group (default) or, with ``pair_ids``, any finer key shared by the two
    rows of a pair (e.g. the uid without its representation); CIs still resample groups.
    Exactly two representations are allowed: the reference and one other.
    """
    y, g, r = verdict_columns(
        predictions, protocol=protocol, group_ids=group_ids, representations=representations
    )
    units = g if pair_ids is None else strings(pair_ids, "pair_ids", y.size)
    reps = sorted(set(r.tolist()))
    others = [x for x in reps if x != reference_representation]
    if reps and reference_representation not in reps:
        raise ValueError(
            f"reference representation {reference_representation!r} not among {', '.join(reps)}"
        )
    if len(others) > 1:
        raise ValueError(f"vcc compares two representations; got {', '.join(reps)}")
    other = others[0] if others else ""
    groups, _ = group_index(g)
    gpos = {gid: i for i, gid in enumerate(groups)}
    unit_group: dict[str, str] = {}
    for u, gid in zip(units.tolist(), g.tolist(), strict=True):
        if unit_group.setdefault(u, gid) != gid:
            raise ValueError(f"pair id {u!r} spans groups {unit_group[u]!r} and {gid!r}")
    table = _cells(y, units, r, "unit")
    z = np.zeros(len(groups))
    agree, den = z.copy(), z.copy()
    s_agree, s_den, f_agree, f_den = z.copy(), z.copy(), z.copy(), z.copy()
    for u, row in table.items():
        if reference_representation not in row or other not in row:
            continue
        a, b = row[reference_representation], row[other]
        parsed = a != INVALID and b != INVALID
        if protocol == "eligible_pairs" and not parsed:
            continue
        i = gpos[unit_group[u]]
        ok = parsed and a == b
        den[i] += 1
        agree[i] += ok
        if a == SUCCESS:
            s_den[i] += 1
            s_agree[i] += ok
        elif a == FAILURE:
            f_den[i] += 1
            f_agree[i] += ok
    return VCCResult(
        reference_representation,
        other,
        GroupRatio(groups, agree, den),
        GroupRatio(groups, s_agree, s_den),
        GroupRatio(groups, f_agree, f_den),
    )


def vcc_oracle(
    predictions: Sequence[int] | np.ndarray,
    group_ids: Sequence[str],
    conditions: Sequence[str],
    *,
    pair_ids: Sequence[str] | None = None,
    protocol: str = "all_groups",
) -> VCCResult:
    """VCC_oracle: agreement of "oracle" (state-table) and "pixel" verdicts (eq. 29)."""
    return vcc(
        predictions,
        group_ids,
        conditions,
        reference_representation="pixel",
        pair_ids=pair_ids,
        protocol=protocol,
    )

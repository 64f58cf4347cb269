"""Correctness anchors and causal sensitivity (paper Appendix A.3, eqs. 16-35; Table 5).

Input: one row per (group, variant) at the canonical presentation phi0, verdicts encoded
1 success / 0 failure / -1 invalid. Full and NoCue succeed by construction, CF fails.

Protocols (Appendix A.3 "Task-specific eligibility"):
- ``all_groups`` (Task D, scale-2): every group with a Full and a CF row; an invalid
  verdict is simply not the correct one (A_g = [y_full = 1], C_g = [y_cf = 0]).
- ``eligible_pairs`` (Task C summaries): p_active, G_active, IDR_* and SuccC use only the
  groups whose Full *and* CF verdicts both parse. JAcc_neu and Acc_* always use every group
  of the variant, invalid = incorrect.

``nocue_lift`` = Pr(y_nocue = 1) - Pr(y_full = 1) over the groups with both verdicts, in
[-1, 1]: how much more often NoCue is accepted than its Full twin. NoCue keeps Full's outcome,
so a judge that reads the trajectory has 0; a judge that reads a mark NoCue leaves has more.

Undefined values are ``None`` (documented, never NaN): a metric whose set is empty, and
IDR_cond when G_active = 0. IDR_cond below ``MIN_ACTIVE`` active groups is reported with
status "unstable" (descriptive only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from gridwm_judge.scoring._arrays import (
    FAILURE,
    INVALID,
    SUCCESS,
    GroupRatio,
    group_index,
    per_group_sum,
    verdict_columns,
)
from gridwm_judge.task_table import TaskSpec

VARIANTS = ("full", "nocue", "cf")
GOLD = {"full": SUCCESS, "nocue": SUCCESS, "cf": FAILURE}
MIN_ACTIVE = 10  # IDR_cond reporting rule: G_active below this is descriptive only
ALL_FAIL_P_ACTIVE = 0.1
SUCCESS_BIASED_P_ACTIVE = 0.9
SUCCESS_BIASED_CF_ACCEPT = 0.9
DEGENERATE_FLAGS = ("all_fail", "success_biased", "low_activation")
# Metric names, in report order; every one is a ratio of group sums.
CAUSAL_METRICS = (
    "jacc_neu",
    "acc_full",
    "acc_nocue",
    "acc_cf",
    "succ_c",
    "p_active",
    "idr_raw",
    "idr_cond",
    "idr_rev",
    "nocue_lift",
)
FAMILY_METRICS = ("p_active", "acc_cf", "idr_raw", "nocue_lift")
"""The metrics a per-family causal block carries (what the shortcut ceiling compares)."""


@dataclass(frozen=True)
class CausalResult:
    """Correctness and causal-sensitivity metrics of one judge on one item set."""

    protocol: str
    groups: tuple[str, ...]
    n_groups: int  # groups with a Full row
    n_pairs: int  # groups in the IDR set (complete, or eligible under eligible_pairs)
    g_active: int
    ratios: dict[str, GroupRatio] = field(repr=False)
    idr_cond_status: str  # "undefined" (G_active = 0) | "unstable" (< MIN_ACTIVE) | "ok"
    degenerate_flags: tuple[str, ...]

    def __getattr__(self, name: str):
        ratios = self.__dict__.get("ratios", {})
        if name in ratios:
            return ratios[name].value
        raise AttributeError(name)

    @property
    def degenerate(self) -> str | None:
        """The first flag in DEGENERATE_FLAGS order, or None."""
        return self.degenerate_flags[0] if self.degenerate_flags else None

    def values(self) -> dict[str, float | None]:
        return {name: self.ratios[name].value for name in CAUSAL_METRICS}


def degenerate_flags(
    p_active: float | None, cf_accept: float | None, g_active: int
) -> tuple[str, ...]:
    """Degenerate-judge flags (Appendix A.4), in DEGENERATE_FLAGS order.

    all_fail: p_active < 0.1; success_biased: p_active > 0.9 and Pr(y_cf = 1) > 0.9;
    low_activation: 0 < G_active < 10. Nothing is flagged when p_active is undefined.
    """
    flags = []
    if p_active is not None and p_active < ALL_FAIL_P_ACTIVE:
        flags.append("all_fail")
    if (
        p_active is not None
        and cf_accept is not None
        and p_active > SUCCESS_BIASED_P_ACTIVE
        and cf_accept > SUCCESS_BIASED_CF_ACCEPT
    ):
        flags.append("success_biased")
    if 0 < g_active < MIN_ACTIVE:
        flags.append("low_activation")
    return tuple(flags)


def idr_cond_status(g_active: int) -> str:
    """The IDR_cond reporting rule: undefined at 0, unstable below MIN_ACTIVE, else ok."""
    if g_active == 0:
        return "undefined"
    return "unstable" if g_active < MIN_ACTIVE else "ok"


def protocol_of(spec: TaskSpec) -> str:
    """How a verdict task's rows count (its entry's protocol; all groups when it names none)."""
    return spec.protocol or "all_groups"


def causal_metrics(
    predictions: Sequence[int] | np.ndarray,
    group_ids: Sequence[str],
    variants: Sequence[str],
    *,
    references: Sequence[int] | np.ndarray | None = None,
    protocol: str = "all_groups",
) -> CausalResult:
    """JAcc_neu, Acc_full/nocue/cf, SuccC, p_active, G_active, IDR_raw/cond/rev.

    Rows must be the canonical-presentation rows: at most one per (group, variant).
    ``references`` (optional) are checked against the variant's gold outcome.
    """
    y, g_arr, v_arr = verdict_columns(
        predictions, protocol=protocol, group_ids=group_ids, variants=variants
    )
    n = y.shape[0]
    unknown = sorted(set(v_arr.tolist()) - set(VARIANTS))
    if unknown:
        raise ValueError(f"unknown variant {unknown[0]!r}; expected one of {', '.join(VARIANTS)}")
    if references is not None:
        ref = np.asarray(references).astype(np.int64)
        gold = np.array([GOLD[v] for v in v_arr], dtype=np.int64)
        if ref.shape != (n,):
            raise ValueError(f"references has {ref.size} entries; expected {n}")
        if not np.array_equal(ref, gold):
            bad = int(np.flatnonzero(ref != gold)[0])
            raise ValueError(
                f"reference {int(ref[bad])} at row {bad} does not match variant "
                f"{str(v_arr[bad])!r} (full/nocue succeed = 1, cf fails = 0)"
            )
    groups, inv = group_index(g_arr)
    ng = len(groups)
    # one verdict per (group, variant); missing = None marker -2
    table = {v: np.full(ng, -2, dtype=np.int64) for v in VARIANTS}
    for v in VARIANTS:
        rows = np.flatnonzero(v_arr == v)
        gi = inv[rows]
        if np.unique(gi).size != gi.size:
            dup = groups[_first_dup(gi)]
            raise ValueError(
                f"group {dup!r} has more than one {v!r} row; pass one row per (group, variant) "
                "at the canonical presentation"
            )
        table[v][gi] = y[rows]
    full, nocue, cf = table["full"], table["nocue"], table["cf"]
    has_full, has_nocue, has_cf = full != -2, nocue != -2, cf != -2
    complete = has_full & has_cf
    if protocol == "eligible_pairs":
        pairs = complete & (full != INVALID) & (cf != INVALID)
    else:
        pairs = complete
    a = pairs & (full == SUCCESS)
    c = pairs & (cf == FAILURE)
    one = np.ones(ng)

    def ratio(num, den) -> GroupRatio:
        return GroupRatio(groups, np.asarray(num, dtype=float), np.asarray(den, dtype=float))

    succ_rows = y == SUCCESS
    if protocol == "eligible_pairs":
        counted = y != INVALID
    else:
        counted = np.ones(n, dtype=bool)
    ratios = {
        "jacc_neu": ratio(has_full & (full == SUCCESS), has_full * one),
        "acc_full": ratio(has_full & (full == SUCCESS), has_full * one),
        "acc_nocue": ratio(has_nocue & (nocue == SUCCESS), has_nocue * one),
        "acc_cf": ratio(has_cf & (cf == FAILURE), has_cf * one),
        "succ_c": ratio(
            per_group_sum(inv, ng, succ_rows & counted), per_group_sum(inv, ng, counted)
        ),
        "p_active": ratio(a, pairs * one),
        "idr_raw": ratio(a & c, pairs * one),
        "idr_cond": ratio(a & c, a * one),
        "idr_rev": ratio(pairs & (full == FAILURE) & (cf == SUCCESS), pairs * one),
        "cf_accept": ratio(pairs & (cf == SUCCESS), pairs * one),
        "nocue_lift": ratio(
            (has_full & has_nocue) * ((nocue == SUCCESS).astype(float) - (full == SUCCESS)),
            (has_full & has_nocue) * one),
    }
    g_active = int(a.sum())
    flags = degenerate_flags(ratios["p_active"].value, ratios["cf_accept"].value, g_active)
    return CausalResult(
        protocol=protocol,
        groups=groups,
        n_groups=int(has_full.sum()),
        n_pairs=int(pairs.sum()),
        g_active=g_active,
        ratios=ratios,
        idr_cond_status=idr_cond_status(g_active),
        degenerate_flags=flags,
    )


def _first_dup(idx: np.ndarray) -> int:
    seen: set[int] = set()
    for i in idx.tolist():
        if i in seen:
            return i
        seen.add(i)
    raise AssertionError("no duplicate")

"""Paired significance tests (paper Appendix A.5): McNemar for paired binary outcomes,
Wilcoxon signed-rank across judges, Holm correction over a family of tests.

Degenerate inputs return documented values instead of warnings: McNemar with no
discordant pair has p = 1; Wilcoxon with no non-zero difference has p = 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

EXACT_BELOW = 25  # McNemar: exact binomial test when n01 + n10 < this, else chi2 with correction


@dataclass(frozen=True)
class TestResult:
    """A test's statistic and p-value; ``method`` names the variant used."""

    statistic: float
    p_value: float
    method: str
    n: int  # discordant pairs (McNemar) or non-zero differences (Wilcoxon)


def mcnemar(n01: int, n10: int, *, exact_below: int = EXACT_BELOW) -> TestResult:
    """McNemar's test on the two discordant counts of a paired binary comparison.

    Exact two-sided binomial test (statistic = min(n01, n10)) when n01 + n10 < exact_below,
    else chi2 = (|n01 - n10| - 1)^2 / (n01 + n10) with 1 degree of freedom.
    """
    if n01 < 0 or n10 < 0:
        raise ValueError(f"discordant counts must be >= 0, got n01={n01}, n10={n10}")
    n = int(n01 + n10)
    if n == 0:
        return TestResult(0.0, 1.0, "exact", 0)
    if n < exact_below:
        k = int(min(n01, n10))
        p = min(1.0, 2.0 * sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n)
        return TestResult(float(k), p, "exact", n)
    chi2 = (abs(n01 - n10) - 1) ** 2 / n
    # chi2 survival with 1 degree of freedom: erfc(sqrt(x / 2)); no scipy import needed
    return TestResult(float(chi2), math.erfc(math.sqrt(chi2 / 2.0)), "chi2_cc", n)


def mcnemar_paired(a: Sequence[bool], b: Sequence[bool], **kw) -> TestResult:
    """McNemar from two aligned boolean outcome vectors (e.g. correct under A and under B)."""
    x, y = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    if x.shape != y.shape:
        raise ValueError(f"paired outcomes differ in length: {x.size} vs {y.size}")
    return mcnemar(int((~x & y).sum()), int((x & ~y).sum()), **kw)


EXACT_WILCOXON_MAX = 50  # exact null distribution up to this many non-zero differences
PERMUTATION_MAX = 13  # with tied magnitudes: full sign-flip enumeration up to this many


def _signed_rank_cdf(n: int, t: int) -> float:
    """P(T+ <= t) under H0 for n untied non-zero differences (counting subsets of 1..n)."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for k in range(1, n + 1):
        counts[k:] = counts[k:] + counts[:-k].copy()
    return float(counts[: t + 1].sum() / 2.0**n)


def wilcoxon(x: Sequence[float], y: Sequence[float]) -> TestResult:
    """Two-sided Wilcoxon signed-rank test of paired per-judge summaries x vs y.

    Zero differences are dropped (Wilcoxon's convention); statistic = min(T+, T-). Exact
    null distribution when there are at most 50 differences and no tied magnitudes; with
    ties, an exact sign-flip permutation test up to 13 differences, else the normal
    approximation with the tie-corrected variance and no continuity correction (the same
    choices as ``scipy.stats.wilcoxon``'s defaults, without importing scipy.stats).
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired summaries differ in length: {a.size} vs {b.size}")
    d = a - b
    d = d[d != 0]
    n = int(d.size)
    if n == 0:
        return TestResult(0.0, 1.0, "no_difference", 0)
    mags = np.abs(d)
    order = np.argsort(mags, kind="stable")
    ranks = np.empty(n)
    sorted_m = mags[order]
    i = 0
    tie_term = 0.0
    while i < n:  # average ranks over ties
        j = i
        while j + 1 < n and sorted_m[j + 1] == sorted_m[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j + 2) / 2.0
        t = j - i + 1
        tie_term += t**3 - t
        i = j + 1
    r_plus = float(ranks[d > 0].sum())
    r_minus = float(ranks[d < 0].sum())
    stat = min(r_plus, r_minus)
    if n <= EXACT_WILCOXON_MAX and tie_term == 0:
        p = min(1.0, 2.0 * _signed_rank_cdf(n, int(stat)))
        return TestResult(stat, p, "exact", n)
    if n <= PERMUTATION_MAX:  # ties: enumerate all 2^n sign patterns of the tied ranks
        signs = (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1
        t_plus = signs @ ranks
        eps = 1e-9 * max(1.0, r_plus)
        less, greater = np.mean(t_plus <= r_plus + eps), np.mean(t_plus >= r_plus - eps)
        return TestResult(stat, float(min(1.0, 2.0 * min(less, greater))), "permutation", n)
    mean = n * (n + 1) / 4.0
    var = n * (n + 1) * (2 * n + 1) / 24.0 - tie_term / 48.0
    z = (stat - mean) / math.sqrt(var)
    return TestResult(stat, math.erfc(abs(z) / math.sqrt(2.0)), "normal", n)


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm step-down adjusted p-values (same order as given, each in [0, 1]).

    Reject hypothesis i at family-wise level alpha when ``holm(p)[i] <= alpha``.
    """
    p = np.asarray(p_values, dtype=float)
    if p.size == 0:
        return p
    if np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
        raise ValueError(f"p-values must lie in [0, 1]; got {p.tolist()}")
    m = p.size
    order = np.argsort(p, kind="stable")
    adj_sorted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj_sorted
    return out

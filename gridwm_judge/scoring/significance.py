"""Paired significance tests (paper Appendix A.5): McNemar for paired binary outcomes,
Wilcoxon signed-rank across judges, Holm correction over a family of tests.

The distributions are scipy.stats'; this module picks the variant and names it. Degenerate
inputs return documented values instead of warnings: McNemar with no discordant pair has
p = 1; Wilcoxon with no non-zero difference has p = 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

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
        return TestResult(float(k), float(stats.binomtest(k, n, 0.5).pvalue), "exact", n)
    chi2 = (abs(n01 - n10) - 1) ** 2 / n
    return TestResult(float(chi2), float(stats.chi2.sf(chi2, 1)), "chi2_cc", n)


def mcnemar_paired(a: Sequence[bool], b: Sequence[bool], **kw) -> TestResult:
    """McNemar from two aligned boolean outcome vectors (e.g. correct under A and under B)."""
    x, y = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    if x.shape != y.shape:
        raise ValueError(f"paired outcomes differ in length: {x.size} vs {y.size}")
    return mcnemar(int((~x & y).sum()), int((x & ~y).sum()), **kw)


EXACT_WILCOXON_MAX = 50  # exact null distribution up to this many non-zero differences
PERMUTATION_MAX = 13  # with tied magnitudes: full sign-flip enumeration up to this many


def wilcoxon(x: Sequence[float], y: Sequence[float]) -> TestResult:
    """Two-sided Wilcoxon signed-rank test of paired per-judge summaries x vs y.

    Zero differences are dropped before anything else (Wilcoxon's convention), so a zero
    never moves a small sample off its exact test; statistic = min(T+, T-). Exact null
    distribution when there are at most 50 differences and no tied magnitudes; with ties, an
    exact sign-flip permutation test up to 13 differences (all 2^n patterns), else the normal
    approximation with the tie-corrected variance and no continuity correction.
    """
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired summaries differ in length: {a.size} vs {b.size}")
    d = a - b
    d = d[d != 0]
    n = int(d.size)
    if n == 0:
        return TestResult(0.0, 1.0, "no_difference", 0)
    ties = np.unique(np.abs(d)).size < n
    if n <= EXACT_WILCOXON_MAX and not ties:
        method, how = "exact", "exact"
    elif n <= PERMUTATION_MAX:
        method, how = "permutation", stats.PermutationMethod(n_resamples=2**n)
    else:
        method, how = "normal", "asymptotic"
    # scipy annotates ``method`` as str; it documents and accepts a PermutationMethod
    res = stats.wilcoxon(d, method=how)  # pyright: ignore[reportArgumentType]
    stat, p = np.asarray(res, dtype=float)  # (statistic, pvalue)
    return TestResult(float(stat), float(min(1.0, p)), method, n)


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

"""Input checks and the ratio-of-group-sums record shared by every metric.

Every headline metric is a ratio of sums of per-group numerators and denominators
(``sum_g num_g / sum_g den_g``). Keeping that decomposition explicit is what lets the
bootstrap resample whole groups with one matrix product instead of re-running a metric
per resample.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gridwm_judge.task_table import PROTOCOLS

SUCCESS, FAILURE, INVALID = 1, 0, -1
VERDICT_VALUES = (SUCCESS, FAILURE, INVALID)


@dataclass(frozen=True)
class GroupRatio:
    """A metric as per-group numerators and denominators over ``groups`` (sorted ids).

    ``value`` is ``num.sum() / den.sum()`` or ``None`` when the denominator is 0 (the
    metric is undefined on an empty set; it is never reported as NaN or 0 by accident).
    """

    groups: tuple[str, ...]
    num: np.ndarray
    den: np.ndarray

    @property
    def total_num(self) -> float:
        return float(self.num.sum())

    @property
    def total_den(self) -> float:
        return float(self.den.sum())

    @property
    def value(self) -> float | None:
        den = self.total_den
        return None if den == 0 else self.total_num / den


def verdicts(values: Sequence[int] | np.ndarray, name: str = "predictions") -> np.ndarray:
    """Integer array of verdicts in {1, 0, -1}; anything else is a ValueError naming it."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.isin(arr, VERDICT_VALUES)):
            bad = arr[~np.isin(arr, VERDICT_VALUES)][0]
            raise ValueError(
                f"{name} holds {bad!r}; expected 1 (success), 0 (failure), -1 (invalid)"
            )
    arr = arr.astype(np.int64)
    bad = ~np.isin(arr, VERDICT_VALUES)
    if bad.any():
        raise ValueError(
            f"{name} holds {int(arr[bad][0])!r}; expected 1 (success), 0 (failure), -1 (invalid)"
        )
    return arr


def labels(values: Sequence[int] | np.ndarray, name: str = "references") -> np.ndarray:
    """Integer array of gold labels in {1, 0}."""
    arr = np.asarray(values).astype(np.int64)
    bad = ~np.isin(arr, (0, 1))
    if bad.any():
        raise ValueError(f"{name} holds {int(arr[bad][0])!r}; expected 1 (success) or 0 (failure)")
    return arr


def strings(values: Sequence[str] | np.ndarray, name: str, n: int) -> np.ndarray:
    arr = np.asarray(values, dtype=object)
    if arr.shape != (n,):
        raise ValueError(f"{name} has {arr.shape[0] if arr.ndim else 0} entries; expected {n}")
    return arr.astype(str)


def verdict_columns(
    predictions: Sequence[int] | np.ndarray,
    *,
    protocol: str | None = None,
    **columns: Sequence[str] | np.ndarray,
) -> tuple[np.ndarray, ...]:
    """A verdict metric's checked inputs: ``protocol`` (when given), then the verdicts, then
    each named string column, as long as the verdicts; the first bad one raises, named."""
    if protocol is not None:
        check_protocol(protocol)
    y = verdicts(predictions)
    return (y, *(strings(values, name, y.size) for name, values in columns.items()))


def check_protocol(protocol: str) -> str:
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; expected one of {', '.join(PROTOCOLS)}")
    return protocol


def group_index(group_ids: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
    """Sorted unique group ids and each row's index into them."""
    uniq, inv = np.unique(group_ids, return_inverse=True)
    return tuple(str(g) for g in uniq), inv


def per_group_sum(inv: np.ndarray, n_groups: int, values: np.ndarray) -> np.ndarray:
    return np.bincount(inv, weights=values.astype(float), minlength=n_groups)

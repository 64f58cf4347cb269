"""How many groups (or items) it takes to tell two judges apart, and what a size can resolve.

Every headline figure here is a proportion over units (IDR_raw over groups, Acc_A1 over
questions), so its uncertainty is set by the number of units. Two designs:

- **unpaired**: two judges scored on independent sets of n units each, compared by the
  two-sided normal test on Cohen's arcsine effect size h = |2 asin sqrt(p2) - 2 asin sqrt(p1)|
  (p1 the base rate, p2 = p1 + mde, or p1 - mde past 1). n solves
  ``power = Phi(h sqrt(n/2) - z) + Phi(-h sqrt(n/2) - z)``, z = Phi^-1(1 - alpha/2): the
  formula of statsmodels' ``NormalIndPower`` with ratio 1 (tests check they agree).
- **paired**: two judges on the same n groups, compared on the per-group discrimination
  indicator (Full accepted and CF rejected) by McNemar's test. With psi the share of discordant
  groups (one judge discriminates, the other not) and delta = mde their difference,
  ``n = (z sqrt(psi) + z_power sqrt(psi - delta^2))^2 / delta^2`` (Connor 1987; checked by
  simulating McNemar's test in the tests). It needs delta <= psi.

A profile's resolution is read the other way: the 95% CI half-width of one proportion,
``z sqrt(p (1 - p) / n)``, and the paired MDE, the delta whose paired n equals the size.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

from scipy.optimize import brentq
from scipy.stats import norm

DEFAULTS = {"alpha": 0.05, "power": 0.8, "discordance": 0.2, "base_rate": 0.5}


def _check(alpha: float, power: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    if not 0 < power < 1:
        raise ValueError(f"power must lie in (0, 1), got {power}")


def _check_discordance(discordance: float) -> None:
    if not 0 < discordance <= 1:
        raise ValueError(f"the discordance must lie in (0, 1], got {discordance}")


def _check_base_rate(base_rate: float) -> None:
    if not 0 <= base_rate <= 1:
        raise ValueError(f"the base rate must lie in [0, 1], got {base_rate}")


def check_design(*, alpha: float = 0.05, power: float = 0.8, discordance: float = 0.2,
                 base_rate: float = 0.5) -> None:
    """Every design figure in its range, whichever design uses it: a value out of range is
    refused even where this plan would not read it (it says the user meant something else)."""
    _check(alpha, power)
    _check_discordance(discordance)
    _check_base_rate(base_rate)


def check_mde(mde: float) -> float:
    if not 0 < mde < 1:
        raise ValueError(f"the minimum detectable difference must lie in (0, 1), got {mde}")
    return mde


def other_rate(base_rate: float, mde: float) -> float:
    """The second judge's rate: ``base_rate + mde``, or ``base_rate - mde`` past 1."""
    _check_base_rate(base_rate)
    check_mde(mde)
    p2 = base_rate + mde if base_rate + mde <= 1 else base_rate - mde
    if p2 < 0:
        raise ValueError(f"no rate lies {mde} from the base rate {base_rate}")
    return p2


def cohen_h(p1: float, p2: float) -> float:
    return abs(2 * math.asin(math.sqrt(p2)) - 2 * math.asin(math.sqrt(p1)))


def _root(f: Callable[[float], float], low: float, high: float) -> float:
    """The root of ``f`` between ``low`` and ``high`` (Brent's method)."""
    return float(cast(float, brentq(f, low, high)))


def _unpaired_power(n: float, h: float, alpha: float) -> float:
    z = norm.ppf(1 - alpha / 2)
    shift = h * math.sqrt(n / 2)
    return float(norm.cdf(shift - z) + norm.cdf(-shift - z))


def unpaired_n(mde: float, *, alpha: float = 0.05, power: float = 0.8,
               base_rate: float = 0.5) -> int:
    """Units per judge for two independent proportions ``mde`` apart (see the module)."""
    _check(alpha, power)
    h = cohen_h(base_rate, other_rate(base_rate, mde))
    exact = _root(lambda n: _unpaired_power(n, h, alpha) - power, 1e-6, 1e9)
    return math.ceil(exact)


def paired_n(mde: float, *, alpha: float = 0.05, power: float = 0.8,
             discordance: float = 0.2) -> int:
    """Groups two judges share for McNemar's test to detect ``mde`` (see the module)."""
    _check(alpha, power)
    check_mde(mde)
    _check_discordance(discordance)
    if mde > discordance:
        raise ValueError(f"a difference of {mde} needs at least that share of discordant "
                         f"groups; --discordance is {discordance}")
    za, zb = norm.ppf(1 - alpha / 2), norm.ppf(power)
    exact = (za * math.sqrt(discordance) + zb * math.sqrt(discordance - mde ** 2)) ** 2 / mde ** 2
    return math.ceil(exact - 1e-9)


def paired_n_observed(difference: float, discordance: float, *, alpha: float = 0.05,
                      power: float = 0.8) -> int:
    """Groups for McNemar's test to detect an observed ``difference`` at an observed share of
    discordant groups (Connor's formula as :func:`paired_n`; here the difference may reach the
    discordance, up to 1)."""
    _check(alpha, power)
    if not 0 < difference <= discordance <= 1:
        raise ValueError(f"need 0 < difference <= discordance <= 1, got {difference}, "
                         f"{discordance}")
    za, zb = norm.ppf(1 - alpha / 2), norm.ppf(power)
    exact = (za * math.sqrt(discordance)
             + zb * math.sqrt(max(discordance - difference ** 2, 0.0))) ** 2 / difference ** 2
    return math.ceil(exact - 1e-9)


def ci_half_width(n: int, *, alpha: float = 0.05, base_rate: float = 0.5) -> float:
    """Half-width of the normal CI of one proportion over ``n`` units."""
    _check(alpha, 0.5)
    _check_base_rate(base_rate)
    if n < 1:
        raise ValueError(f"need at least one unit, got {n}")
    return float(norm.ppf(1 - alpha / 2) * math.sqrt(base_rate * (1 - base_rate) / n))


def paired_mde(n: int, *, alpha: float = 0.05, power: float = 0.8,
               discordance: float = 0.2) -> float | None:
    """The smallest difference ``n`` shared groups detect (None: not even ``discordance``)."""
    _check(alpha, power)
    _check_discordance(discordance)
    if n < 1:
        raise ValueError(f"need at least one group, got {n}")
    za, zb = float(norm.ppf(1 - alpha / 2)), float(norm.ppf(power))

    def gap(delta: float) -> float:
        need = (za * math.sqrt(discordance)
                + zb * math.sqrt(max(discordance - delta ** 2, 0.0))) ** 2 / delta ** 2
        return need - n

    if gap(discordance) > 0:
        return None
    return _root(gap, 1e-6, discordance)


def unpaired_mde(n: int, *, alpha: float = 0.05, power: float = 0.8,
                 base_rate: float = 0.5) -> float | None:
    """The smallest difference two independent sets of ``n`` units detect (None: none < 1)."""
    _check(alpha, power)
    if n < 1:
        raise ValueError(f"need at least one unit, got {n}")
    top = (1 - base_rate) if base_rate + 1e-9 < 1 else base_rate

    def gap(d: float) -> float:
        return _unpaired_power(n, cohen_h(base_rate, other_rate(base_rate, d)), alpha) - power

    if gap(top - 1e-9) < 0:
        return None
    return _root(gap, 1e-6, top - 1e-9)

"""How a number is written as text: one rule per kind, for every table, summary and line the
package prints (the report's tables build on these in :mod:`gridwm_judge.report.table`).

- a rate or proportion (IDR, accuracy, NS, a mean score ...) and a difference of two:
  ``RATE_DIGITS`` decimals (``0.500``; a difference signed, ``+0.120`` / ``-0.135``, zero
  unsigned);
- an interval's ends: ``CI_DIGITS`` decimals (``[0.21, 0.79]``; a difference's signed);
- an LES (a coefficient on the logit scale): ``LES_DIGITS`` decimals;
- a p-value: ``P_DIGITS`` decimals, and ``<0.001`` below that (never ``0.000``).
- dollars: cents, and two significant digits below a cent (:func:`fusd`).
"""

from __future__ import annotations

DASH = "–"
"""What an undefined or missing figure prints."""
RATE_DIGITS, CI_DIGITS, LES_DIGITS, P_DIGITS = 3, 2, 2, 3
P_FLOOR = 10.0 ** -P_DIGITS
"""The smallest p-value printed as a number; below it a p-value prints ``<0.001``."""


def fnum(x: float | None, digits: int = RATE_DIGITS) -> str:
    """A rate or proportion: ``0.500``."""
    return DASH if x is None else f"{x:.{digits}f}"


def fsigned(x: float | None, digits: int = RATE_DIGITS) -> str:
    """A signed figure (a difference) in the one format every table uses: ``+0.120``,
    ``-0.135`` (ASCII hyphen-minus), ``0.000`` (zero carries no sign)."""
    if x is None:
        return DASH
    text = f"{x:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def fles(x: float | None) -> str:
    """An LES (largest |beta| of the leakage model, logit scale): ``1.37``."""
    return fnum(x, LES_DIGITS)


def fp(p: float | None) -> str:
    """A p-value for a table cell: ``0.032``, ``1.000``, ``<0.001``."""
    if p is None:
        return DASH
    return f"<{P_FLOOR:.{P_DIGITS}f}" if p < P_FLOOR else f"{p:.{P_DIGITS}f}"


def p_is(p: float | None) -> str:
    """A p-value in a sentence: ``p = 0.032``, ``p < 0.001``."""
    text = fp(p)
    return f"p {text[0]} {text[1:]}" if text.startswith("<") else f"p = {text}"


def fcount(x: float | int | None) -> str:
    """A count: ``12``, a fractional sum ``8.5``."""
    if x is None:
        return DASH
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def fcount_of(n: float | int, unit: str) -> str:
    """A count with its unit, singular for one: ``1 group``, ``52 groups``."""
    return f"{fcount(n)} {unit[:-1] if float(n) == 1 and unit.endswith('s') else unit}"


def fusd(usd: float) -> str:
    """Dollars: cents from one cent up (``1,234.50``), two significant digits below
    (``0.0017``), so a small run's cost never reads as nothing."""
    if usd == 0 or abs(usd) >= 0.01:
        return f"{usd:,.2f}"
    return f"{usd:.2g}" if abs(usd) >= 1e-4 else f"{usd:.1e}"

"""Leakage effect size LES_F from a mixed-effects logistic model (paper eqs. 24-26).

    logit P(y = 1) = b0 + sum_k beta_k [phi_F = k] + u_g,    u_g ~ N(0, sigma^2)

fitted by maximum likelihood with the group random intercept integrated out by
Gauss-Hermite quadrature (``n_nodes`` = 40 nodes; exact gradient, damped Newton; standard
errors from the finite-difference Hessian of the exact gradient; sigma is kept in
[1e-3, 20]). A probe family has a few rows per group, so the per-group posterior of u_g is
broad and fixed nodes integrate it accurately. No scipy needed. Every non-baseline level k of
the family gets its own beta_k, and LES_F = max_k |beta_k|. Unlike a McNemar log-ratio,
one-sided flips (only 1 -> 0) give a non-zero effect.

Status, reported instead of a silent number:
- ``ok``: converged maximum-likelihood fit.
- ``separation``: some level's verdicts are all equal (quasi-complete separation: the MLE
  is infinite). The reported betas are then penalised estimates (independent N(0, 2.5^2)
  priors on the betas, N(0, 10^2) on b0: finite and shrunk toward 0) -- read them as a
  lower bound on the effect, not as an MLE.
- ``constant``: every verdict is the same; no presentation moves the verdict, LES = 0.
- ``not_converged``: the optimiser stopped without converging (numbers kept, flagged).
- ``insufficient``: fewer than two levels or no parseable verdicts; LES is None.
Invalid verdicts (-1) are left out of the fit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from gridwm_judge.scoring._arrays import INVALID, group_index, verdict_columns

LOGIT_SD = math.pi / math.sqrt(3)
PRIOR_SD_BETA = 2.5
PRIOR_SD_B0 = 10.0
SIGMA_BOUNDS = (1e-3, 20.0)
LES_STATUSES = ("ok", "separation", "constant", "not_converged", "insufficient")


@dataclass(frozen=True)
class LESResult:
    """Fit of one probe family: LES, its level, standardised size and per-level effects."""

    les: float | None
    level: str | None  # the level with the largest |beta|
    d_logit: float | None
    status: str
    baseline: str
    betas: dict[str, float] = field(default_factory=dict)
    odds_ratios: dict[str, float] = field(default_factory=dict)
    std_errors: dict[str, float | None] = field(default_factory=dict)
    p_values: dict[str, float | None] = field(default_factory=dict)
    intercept: float | None = None
    sigma: float | None = None
    n_rows: int = 0
    n_groups: int = 0
    message: str = ""

    @property
    def p_value(self) -> float | None:
        """Wald p-value of the level that defines LES."""
        return self.p_values.get(self.level) if self.level is not None else None


class _Model:
    """Negative marginal log-likelihood and its exact gradient by Gauss-Hermite quadrature
    over the group intercept (u = sigma * sqrt(2) * x_q), vectorised over rows x nodes."""

    def __init__(self, y, X, inv, n_groups, n_nodes):
        self.y, self.X, self.inv = y.astype(float), X, inv
        x, w = np.polynomial.hermite.hermgauss(n_nodes)
        self.x, self.log_w = x, np.log(w) - 0.5 * math.log(math.pi)
        self.member = np.zeros((n_groups, y.size))
        self.member[inv, np.arange(y.size)] = 1.0
        self.lo, self.hi = SIGMA_BOUNDS

    def __call__(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        beta, sigma = theta[:-1], theta[-1]
        inside = self.lo <= sigma <= self.hi
        s = min(max(sigma, self.lo), self.hi)
        lin = (self.X @ beta)[:, None] + (math.sqrt(2.0) * s) * self.x[None, :]  # N x Q
        ll_rows = self.y[:, None] * lin - np.logaddexp(0.0, lin)
        a = self.member @ ll_rows + self.log_w[None, :]  # G x Q
        m = a.max(axis=1, keepdims=True)
        lse = m[:, 0] + np.log(np.exp(a - m).sum(axis=1))
        post = np.exp(a - lse[:, None])[self.inv]  # N x Q posterior node weights
        resid = post * (self.y[:, None] - np.exp(-np.logaddexp(0.0, -lin)))  # stable sigmoid
        grad = np.empty_like(theta)
        grad[:-1] = -(self.X.T @ resid.sum(axis=1))
        grad[-1] = -float((resid * self.x[None, :]).sum()) * math.sqrt(2.0) if inside else 0.0
        return float(-lse.sum()), grad


def _hessian(grad, x: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    """Central finite differences of the exact gradient, symmetrised."""
    n = x.size
    H = np.empty((n, n))
    for i in range(n):
        e = np.zeros(n)
        e[i] = eps
        H[i] = (grad(x + e) - grad(x - e)) / (2 * eps)
    return (H + H.T) / 2


def _newton(fun, x0: np.ndarray, max_iter: int = 100, gtol: float = 1e-5):
    """Damped Newton on (value, gradient) with log-sigma kept in its bounds.

    Returns (x, converged, Hessian at x). The Hessian is the central difference of the exact
    gradient; a non-positive-definite one is shifted (Levenberg) and steps backtrack (Armijo).
    """
    lo, hi = SIGMA_BOUNDS
    x = x0.astype(float).copy()
    f, g = fun(x)

    def grad(t):
        return fun(t)[1]

    for _ in range(max_iter):
        H = _hessian(grad, x)
        pg = g.copy()
        if (x[-1] <= lo and g[-1] > 0) or (x[-1] >= hi and g[-1] < 0):
            pg[-1] = 0.0  # pushing against the sigma bound
        if np.max(np.abs(pg)) < gtol:
            return x, True, H
        idx = np.arange(x.size) if pg[-1] != 0 else np.arange(x.size - 1)
        Hs = H[np.ix_(idx, idx)]
        w_min = float(np.linalg.eigvalsh(Hs).min())
        lam = 0.0 if w_min > 1e-8 else 1e-4 - w_min
        step = np.zeros_like(x)
        step[idx] = -np.linalg.solve(Hs + lam * np.eye(idx.size), pg[idx])
        slope = float(pg @ step)
        t = 1.0
        while t > 1e-10:
            xn = x + t * step
            xn[-1] = min(max(xn[-1], lo), hi)
            fn, gn = fun(xn)
            if fn <= f + 1e-4 * t * slope:
                break
            t /= 2
        else:  # no decrease possible: at the optimum up to rounding
            return x, bool(np.max(np.abs(pg)) < 1e-3), H
        done = abs(f - fn) < 1e-12 * (1 + abs(f)) and np.max(np.abs(xn - x)) < 1e-9
        x, f, g = xn, fn, gn
        if done:
            return x, True, _hessian(grad, x)
    return x, False, _hessian(grad, x)


def les(
    predictions: Sequence[int] | np.ndarray,
    group_ids: Sequence[str],
    presentations: Sequence[str],
    baseline: str,
    *,
    n_nodes: int = 40,
) -> LESResult:
    """Fit the family's mixed logistic model and return LES_F with its diagnostics."""
    y_all, g_all, p_all = verdict_columns(
        predictions, group_ids=group_ids, presentations=presentations
    )
    keep = y_all != INVALID
    y, g, pres = y_all[keep], g_all[keep], p_all[keep]
    levels = [lv for lv in sorted(set(pres.tolist())) if lv != baseline]
    groups, inv = group_index(g)
    base = dict(baseline=baseline, n_rows=int(y.size), n_groups=len(groups))
    if y.size == 0 or baseline not in set(pres.tolist()) or not levels:
        why = (
            "no parseable verdicts"
            if y.size == 0
            else (
                f"baseline {baseline!r} absent"
                if baseline not in set(pres.tolist())
                else "no non-baseline level"
            )
        )
        return LESResult(None, None, None, "insufficient", message=why, **base)
    if np.all(y == y[0]):
        zeros = dict.fromkeys(levels, 0.0)
        return LESResult(
            0.0,
            levels[0],
            0.0,
            "constant",
            betas=zeros,
            odds_ratios=dict.fromkeys(levels, 1.0),
            std_errors=dict.fromkeys(levels),
            p_values=dict.fromkeys(levels),
            message="every verdict is identical",
            **base,
        )
    X = np.zeros((y.size, 1 + len(levels)))
    X[:, 0] = 1.0
    for k, lv in enumerate(levels):
        X[pres == lv, 1 + k] = 1.0
    separated = [lv for lv in [baseline, *levels] if len(set(y[pres == lv].tolist())) == 1]
    model = _Model(y, X, inv, len(groups), n_nodes)
    prior_sd = np.array([PRIOR_SD_B0] + [PRIOR_SD_BETA] * len(levels))

    def objective(theta):
        val, grad = model(theta)
        if separated:
            val += 0.5 * float(np.sum((theta[:-1] / prior_sd) ** 2))
            grad = grad.copy()
            grad[:-1] += theta[:-1] / prior_sd**2
        return val, grad

    p_mean = float(np.clip(y.mean(), 0.05, 0.95))
    theta0 = np.zeros(X.shape[1] + 1)
    theta0[0] = math.log(p_mean / (1 - p_mean))
    theta0[-1] = 1.0  # sigma itself (not its log): a boundary optimum at 0 is reached fast
    theta, converged, H = _newton(objective, theta0)
    betas = {lv: float(theta[1 + k]) for k, lv in enumerate(levels)}
    se: dict[str, float | None] = dict.fromkeys(levels)
    pv: dict[str, float | None] = dict.fromkeys(levels)
    notes = []
    try:
        if not SIGMA_BOUNDS[0] < theta[-1] < SIGMA_BOUNDS[1]:  # SEs conditional on sigma
            H = H[:-1, :-1]
            notes.append("sigma on its bound: standard errors conditional on sigma")
        cov = np.linalg.inv(H)
        diag = np.diag(cov)
        for k, lv in enumerate(levels):
            if diag[1 + k] > 0 and np.isfinite(diag[1 + k]):
                se[lv] = float(math.sqrt(diag[1 + k]))
                pv[lv] = math.erfc(abs(betas[lv]) / se[lv] / math.sqrt(2.0))
    except np.linalg.LinAlgError:
        notes.append("singular Hessian: no standard errors")
    status = "ok"
    if separated:
        status = "separation"
        notes.append(f"verdicts constant at level(s) {', '.join(separated)}: penalised estimates")
    elif not converged:
        status = "not_converged"
        notes.append("Newton iterations stopped before the gradient vanished")
    sigma = float(min(max(theta[-1], SIGMA_BOUNDS[0]), SIGMA_BOUNDS[1]))
    if sigma >= SIGMA_BOUNDS[1] * 0.999:
        notes.append("group variance at its upper bound")
    level = max(levels, key=lambda lv: abs(betas[lv]))
    value = abs(betas[level])
    return LESResult(
        value,
        level,
        value / LOGIT_SD,
        status,
        betas=betas,
        odds_ratios={lv: float(math.exp(b)) for lv, b in betas.items()},
        std_errors=se,
        p_values=pv,
        intercept=float(theta[0]),
        sigma=sigma,
        message="; ".join(notes),
        **base,
    )

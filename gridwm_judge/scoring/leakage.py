"""Leakage effect size LES_F from a mixed-effects logistic model (paper eqs. 24-26).

    logit P(y = 1) = b0 + sum_k beta_k [phi_F = k] + u_g,    u_g ~ N(0, sigma^2)

fitted by maximum likelihood with the group random intercept integrated out by
Gauss-Hermite quadrature (``n_nodes`` = 40 nodes). ``scipy.optimize.minimize`` (SLSQP,
sigma kept in [1e-3, 20]) maximises the marginal likelihood from its exact gradient; standard
errors come from its exact Hessian at the optimum. A probe family has a few rows per group, so
the per-group posterior of u_g is broad and fixed nodes integrate it accurately. Every
non-baseline level k of the family gets its own beta_k, and LES_F = max_k |beta_k|. Unlike a
McNemar log-ratio, one-sided flips (only 1 -> 0) give a non-zero effect.

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
from typing import Any

import numpy as np
from scipy import optimize, sparse, stats

from gridwm_judge.scoring._arrays import INVALID, group_index, verdict_columns

LOGIT_SD = math.pi / math.sqrt(3)
PRIOR_SD_BETA = 2.5
PRIOR_SD_B0 = 10.0
SIGMA_BOUNDS = (1e-3, 20.0)


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
    """Negative marginal log-likelihood of theta = (b0, betas, sigma), its exact gradient and
    Hessian, by Gauss-Hermite quadrature over the group intercept (u = sigma sqrt(2) x_q),
    vectorised over rows x nodes. ``prior_sd`` adds independent normal priors on b0 and the
    betas (the penalised fit under separation)."""

    def __init__(self, y, X, inv, n_groups, n_nodes, prior_sd=None):
        self.y, self.X, self.inv = y.astype(float), X, inv
        x, w = np.polynomial.hermite.hermgauss(n_nodes)
        self.x, self.log_w = math.sqrt(2.0) * x, np.log(w) - 0.5 * math.log(math.pi)
        self.member = sparse.csr_array(
            (np.ones(y.size), (inv, np.arange(y.size))), shape=(n_groups, y.size)
        )
        self.precision = None if prior_sd is None else 1.0 / np.asarray(prior_sd) ** 2

    def _nodes(self, theta: np.ndarray):
        """Per group: the log marginal likelihood (G) and each node's posterior weight
        (G x Q); per row and node: the mean (N x Q); per group and node: the score (G x Q x P)."""
        lin = (self.X @ theta[:-1])[:, None] + theta[-1] * self.x[None, :]  # N x Q
        ll_rows = self.y[:, None] * lin - np.logaddexp(0.0, lin)
        a = self.member @ ll_rows + self.log_w[None, :]  # G x Q
        lse = np.logaddexp.reduce(a, axis=1)
        post = np.exp(a - lse[:, None])  # G x Q
        mu = np.exp(-np.logaddexp(0.0, -lin))  # stable sigmoid
        resid = self.y[:, None] - mu
        score = np.concatenate(
            [
                (self.member @ (resid[:, :, None] * self.X[:, None, :]).reshape(self.y.size, -1))
                .reshape(post.shape + (self.X.shape[1],)),
                (self.member @ resid * self.x[None, :])[:, :, None],
            ],
            axis=2,
        )
        return lse, post, mu, score

    def value_and_grad(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        lse, post, _, score = self._nodes(theta)
        val, grad = float(-lse.sum()), -np.einsum("gq,gqp->p", post, score)
        if self.precision is not None:
            val += 0.5 * float(np.sum(self.precision * theta[:-1] ** 2))
            grad[:-1] += self.precision * theta[:-1]
        return val, grad

    def hessian(self, theta: np.ndarray) -> np.ndarray:
        """sum_g [E(J) - E(s s') + E(s) E(s)'] with E over the group's posterior nodes, J the
        rows' information and s the group score at a node (Louis' identity)."""
        _, post, mu, score = self._nodes(theta)
        wgt = post[self.inv] * mu * (1.0 - mu)  # N x Q
        p = self.X.shape[1]
        info = np.empty((p + 1, p + 1))
        info[:p, :p] = self.X.T @ (wgt.sum(axis=1)[:, None] * self.X)
        info[:p, p] = info[p, :p] = self.X.T @ (wgt @ self.x)
        info[p, p] = float((wgt @ self.x**2).sum())
        mean = np.einsum("gq,gqp->gp", post, score)
        H = info - np.einsum("gq,gqa,gqb->ab", post, score, score) + mean.T @ mean
        if self.precision is not None:
            H[:p, :p] += np.diag(self.precision)
        return (H + H.T) / 2


def _fit(model: _Model, theta0: np.ndarray) -> tuple[np.ndarray, bool]:
    """Minimise the model with sigma in its bounds; (theta, converged).

    SLSQP (sequential quadratic programming) takes Newton-like steps from the start. With
    sigma at its upper bound the quadrature leaves ripples in the likelihood along b0, and
    L-BFGS-B's first long gradient steps can end in a ripple of lower likelihood.
    """
    bounds = [(None, None)] * (theta0.size - 1) + [SIGMA_BOUNDS]
    res = optimize.minimize(
        model.value_and_grad, theta0, jac=True, method="SLSQP", bounds=bounds,
        options={"maxiter": 500, "ftol": 1e-14},
    )
    theta = np.asarray(res.x, dtype=float)
    lo, hi = SIGMA_BOUNDS
    for bound in SIGMA_BOUNDS:  # SLSQP returns an active bound to within rounding
        if abs(theta[-1] - bound) <= 1e-9 * bound:
            theta[-1] = bound
    grad = model.value_and_grad(theta)[1]
    if (theta[-1] <= lo and grad[-1] > 0) or (theta[-1] >= hi and grad[-1] < 0):
        grad[-1] = 0.0  # pushing against the sigma bound
    return theta, bool(res.success) or float(np.max(np.abs(grad))) < 1e-5


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
    base: dict[str, Any] = dict(baseline=baseline, n_rows=int(y.size), n_groups=len(groups))
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
    prior_sd = [PRIOR_SD_B0] + [PRIOR_SD_BETA] * len(levels) if separated else None
    model = _Model(y, X, inv, len(groups), n_nodes, prior_sd)
    p_mean = float(np.clip(y.mean(), 0.05, 0.95))
    theta0 = np.zeros(X.shape[1] + 1)
    theta0[0] = math.log(p_mean / (1 - p_mean))
    theta0[-1] = 1.0  # sigma itself (not its log): a boundary optimum at 0 is reached fast
    theta, converged = _fit(model, theta0)
    H = model.hessian(theta)
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
                se[lv] = sd = float(math.sqrt(diag[1 + k]))
                pv[lv] = float(2.0 * stats.norm.sf(abs(betas[lv]) / sd))
    except np.linalg.LinAlgError:
        notes.append("singular Hessian: no standard errors")
    status = "ok"
    if separated:
        status = "separation"
        notes.append(f"verdicts constant at level(s) {', '.join(separated)}: penalised estimates")
    elif not converged:
        status = "not_converged"
        notes.append("the optimiser stopped before the gradient vanished")
    sigma = float(min(max(theta[-1], SIGMA_BOUNDS[0]), SIGMA_BOUNDS[1]))
    if sigma >= SIGMA_BOUNDS[1] * 0.999:
        notes.append("group variance at its upper bound")
    # equal effects (to 1e-6, far below what the data resolve) go to the first level in order
    level = max(levels, key=lambda lv: round(abs(betas[lv]), 6))
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

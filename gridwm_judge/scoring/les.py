"""Leakage effect size LES_F from a mixed-effects logistic model (paper eqs. 24-26).

    logit P(y = 1) = b0 + sum_k beta_k [phi_F = k] + u_g,    u_g ~ N(0, sigma^2)

fitted by maximum likelihood with the group random intercept integrated out by adaptive
Gauss-Hermite quadrature (AGHQ; per-group Newton mode and curvature, then ``n_nodes``
nodes around it; n_nodes = 1 is the Laplace approximation). Every non-baseline level k of
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

from gridwm_judge.scoring._arrays import INVALID, group_index, strings, verdicts

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


def _log1pexp(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x)


class _Model:
    """Negative marginal log-likelihood by AGHQ, vectorised over groups and nodes."""

    def __init__(self, y, X, inv, n_groups, n_nodes):
        self.y, self.X, self.inv, self.G = y.astype(float), X, inv, n_groups
        x, w = np.polynomial.hermite.hermgauss(n_nodes)
        self.nodes, self.log_w = x, np.log(w) + x**2
        self.member = np.zeros((n_groups, y.size))
        self.member[inv, np.arange(y.size)] = 1.0

        self.u = np.zeros(n_groups)  # warm start for the per-group modes

    def _gsum(self, v: np.ndarray) -> np.ndarray:
        if v.ndim == 1:
            return np.bincount(self.inv, weights=v, minlength=self.G)
        return self.member @ v

    def nll(self, theta: np.ndarray) -> float:
        beta, log_s = theta[:-1], theta[-1]
        s2 = math.exp(2 * log_s)
        eta = self.X @ beta
        u = self.u.copy()
        for _ in range(50):  # Newton for each group's mode; concave, converges fast
            p = 1.0 / (1.0 + np.exp(-(eta + u[self.inv])))
            g1 = self._gsum(self.y - p) - u / s2
            h = self._gsum(p * (1 - p)) + 1.0 / s2
            step = g1 / h
            u = u + step
            if np.max(np.abs(step)) < 1e-9:
                break
        if np.all(np.isfinite(u)):
            self.u = u
        p = 1.0 / (1.0 + np.exp(-(eta + u[self.inv])))
        h = self._gsum(p * (1 - p)) + 1.0 / s2
        sd = 1.0 / np.sqrt(h)
        uq = u[:, None] + math.sqrt(2.0) * sd[:, None] * self.nodes[None, :]  # G x Q
        lin = eta[:, None] + uq[self.inv]  # N x Q
        ll_rows = self.y[:, None] * lin - _log1pexp(lin)
        hq = self._gsum(ll_rows) - uq**2 / (2 * s2)
        a = hq + self.log_w[None, :]
        m = a.max(axis=1, keepdims=True)
        lse = m[:, 0] + np.log(np.exp(a - m).sum(axis=1))
        ll = lse + np.log(math.sqrt(2.0) * sd) - 0.5 * math.log(2 * math.pi * s2)
        return float(-ll.sum())


def _hessian(f, x: np.ndarray, eps: float = 1e-4) -> np.ndarray:
    n = x.size
    H = np.empty((n, n))
    for i in range(n):
        for j in range(i, n):
            e_i, e_j = np.eye(n)[i] * eps, np.eye(n)[j] * eps
            v = (f(x + e_i + e_j) - f(x + e_i - e_j) - f(x - e_i + e_j) + f(x - e_i - e_j)) / (
                4 * eps * eps
            )
            H[i, j] = H[j, i] = v
    return H


def les(
    predictions: Sequence[int] | np.ndarray,
    group_ids: Sequence[str],
    presentations: Sequence[str],
    baseline: str,
    *,
    n_nodes: int = 9,
) -> LESResult:
    """Fit the family's mixed logistic model and return LES_F with its diagnostics."""
    y_all = verdicts(predictions)
    n = y_all.size
    g_all = strings(group_ids, "group_ids", n)
    p_all = strings(presentations, "presentations", n)
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
    from scipy import optimize  # lazily: only a real fit needs it

    X = np.zeros((y.size, 1 + len(levels)))
    X[:, 0] = 1.0
    for k, lv in enumerate(levels):
        X[pres == lv, 1 + k] = 1.0
    separated = [lv for lv in [baseline, *levels] if len(set(y[pres == lv].tolist())) == 1]
    model = _Model(y, X, inv, len(groups), n_nodes)
    prior_sd = np.array([PRIOR_SD_B0] + [PRIOR_SD_BETA] * len(levels))

    def objective(theta):
        val = model.nll(theta)
        if separated:
            val += 0.5 * float(np.sum((theta[:-1] / prior_sd) ** 2))
        return val

    p_mean = float(np.clip(y.mean(), 0.05, 0.95))
    theta0 = np.zeros(X.shape[1] + 1)
    theta0[0] = math.log(p_mean / (1 - p_mean))
    bounds = [(-30.0, 30.0)] * X.shape[1] + [tuple(math.log(b) for b in SIGMA_BOUNDS)]
    res = optimize.minimize(objective, theta0, method="L-BFGS-B", bounds=bounds)
    theta = res.x
    betas = {lv: float(theta[1 + k]) for k, lv in enumerate(levels)}
    se: dict[str, float | None] = dict.fromkeys(levels)
    pv: dict[str, float | None] = dict.fromkeys(levels)
    notes = []
    try:
        H = _hessian(objective, theta)
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
    elif not res.success:
        status = "not_converged"
        notes.append(f"optimiser: {res.message}")
    sigma = float(math.exp(theta[-1]))
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

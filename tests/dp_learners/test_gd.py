"""DPGradientDescentLogisticRegression: calibration, neighbours, V/V′ audit.

The audit (TESTING.md P3/P4): d = 1, no intercept, data_norm = 1, one
noisy step (max_iter = 1), rows all zero but row 0 = (1, y) with y = 1 on
V and 0 on V′. From w₀ = 0 the released weight is −η·(G + Z)/n, G the
gradient sum, so the two laws are (discrete) Gaussians of the same σ whose
centres differ by η·|G − G′|/n, |G − G′| = R = Δ/2 (in one dimension the
logistic gradients of two rows differ by at most R: the module docstring
of ``test_audit_dp_learners``). Each side is fitted N times with
production noise (OS CSPRNG).

What is tested: a one-step release with Gaussian noise of sensitivity Δ
and scale σ is μ-GDP with μ = Δ/σ = √(2ρ) (Dong, Roth & Su, JRSS-B 2022,
Theorem 2.7): for every event S, P_V(S) ≤ Φ(Φ⁻¹(P_V′(S)) + μ). This is
sharper than ρ-zCDP (which it implies) and is what the construction
gives (the discrete Gaussian on a grid of σ/2^20 is the continuous one far
below the audit's resolution); the (ε, δ = 10⁻⁵) promise itself lives in
tails no feasible N reaches. For the tail events S = {w ≥ t}, {w ≤ t}
at 12 public thresholds, both directions, the audit computes
CP_lo(P_V(S)) − Φ(Φ⁻¹(CP_hi(P_V′(S))) + μ) with one-sided
Clopper–Pearson bounds at α/(4K) each (family-wise α = 1e-6); a positive
value refutes the declared ρ. Honest: the pair's true shift is μ/2.
Power check: noise σ/4 (true shift 2μ: the loss of 4ρ, e.g. ρ not
divided among the steps) is caught.
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "audits"))
from _audit import ALPHA, cp_lower, cp_upper  # noqa: E402
from scipy.stats import norm  # noqa: E402

import sklearn_dpbo.dp_learners._gd as gd  # noqa: E402
from sklearn_dpbo.dp_learners import DPGradientDescentLogisticRegression  # noqa: E402
from sklearn_dpbo.privacy._discrete_gaussian import grid_rho  # noqa: E402
from sklearn_dpbo.privacy._rdp import zcdp_epsilon  # noqa: E402

N = 1_500
EPSILON, DELTA = 4.0, 1e-5


def _learner(**kw):
    params = dict(
        epsilon=EPSILON, delta=DELTA, data_norm=1.0, fit_intercept=False, max_iter=1
    )
    return DPGradientDescentLogisticRegression(**{**params, **kw})


def _pair():
    X = np.zeros((10, 1))
    X[0, 0] = 1.0
    y, y2 = np.zeros(10, int), np.zeros(10, int)
    y[0] = 1
    return (X, y), (X, y2)


@pytest.mark.parametrize("rho, T, d", [(0.03, 20, 31), (1.0, 1, 1), (1e-4, 500, 3)])
def test_noise_meets_each_steps_share(rho, T, d):
    sigma, h = gd.gd_noise(2.5, rho, T, d)
    share = grid_rho(2.5, sigma, d, h)
    assert share <= rho / T
    assert share == pytest.approx(rho / T, rel=1e-8)
    sigma0 = 2.5 / math.sqrt(2 * rho / T)
    # the grid's inflation: √d·h/Δ with h ≤ σ₀/2^20
    assert sigma0 <= sigma <= sigma0 * (1 + math.sqrt(d) * sigma0 / 2.5 / 2**20 + 1e-8)


def test_rho_from_epsilon_delta():
    rho = gd.rho_for(1.0, 1e-5)
    assert zcdp_epsilon(rho, 1e-5) <= 1.0
    assert rho == pytest.approx(0.0306, abs=5e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = _learner(epsilon=1.0, delta=1e-5).fit(*_pair()[0])
    assert est.rho_ == rho and est.n_iter_ == 1 and est.sensitivity_ == 2.0


def test_delta_zero_is_refused_before_any_row():
    with pytest.raises(ValueError, match="delta"):
        _learner(delta=0.0).fit(np.zeros((2, 1)), [0, 1])


def _first_gradient(data, weights=None, **kw):
    """(G₁, the clean gradient sum of the first step; warnings and fitted
    attributes' shapes) of a seeded ``fit``."""
    seen = []
    real = gd.gaussian_on_grid

    def capture(g, *args):
        seen.append(np.array(g))
        return real(g, *args)

    gd.gaussian_on_grid = capture
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = _learner(noise_random_state=3, **kw).fit(*data, sample_weight=weights)
    finally:
        gd.gaussian_on_grid = real
    state = {k: np.shape(v) for k, v in vars(est).items() if k.endswith("_")}
    return seen[0], (sorted(str(w.message) for w in caught), state)


@pytest.mark.parametrize(
    "row, label, weight",
    [
        ([np.nan, 1.0, 0.0], 1, 1.0),  # NaN row: the zero row
        ([1e300, -1e300, 5.0], 0, 1.0),  # far outside the bounds
        (["abc", 0.2, 0.3], 1, 1.0),  # a non-number entry
        ([0.9, 0.1, 0.5], "x", 1.0),  # a label outside classes
        ([1.0, 1.0, 1.0], 1, 50.0),  # a weight above 1 (counts as 1)
        ([1.0, 1.0, 1.0], 1, np.nan),  # a NaN weight (counts as 0)
    ],
)
def test_replaced_record_moves_the_gradient_by_at_most_delta(row, label, weight):
    """Through ``fit`` (the public checks, then the row map): the same
    warnings, errors and attribute shapes on V and V′, and G₁ moves ≤ 2R."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (30, 3)).astype(object)
    y = np.array((rng.uniform(size=30) > 0.5).astype(int), dtype=object)
    w = rng.uniform(0.2, 1.0, 30)
    X2, y2, w2 = X.copy(), y.copy(), w.copy()
    X2[0], y2[0], w2[0] = row, label, weight
    kw = dict(bounds=(0.0, 1.0), fit_intercept=True, data_norm=None)
    g, out = _first_gradient((X, y), w, **kw)
    g2, out2 = _first_gradient((X2, y2), w2, **kw)
    assert out == out2
    R = math.sqrt((0.5 * math.sqrt(3)) ** 2 + 1)
    assert np.linalg.norm(g - g2) <= 2 * R
    assert np.linalg.norm(g - g2) > 0


def _draw(data, n, broken=False):
    real = gd.gd_noise
    if broken:
        gd.gd_noise = lambda *a: (real(*a)[0] / 4, real(*a)[1])
    out = np.empty(n)
    try:
        for i in range(n):
            out[i] = _learner()._fit_private(*data, None).coef_[0, 0]
    finally:
        gd.gd_noise = real
    return out


def gdp_excess(a, b, mu, thresholds, alpha=ALPHA) -> float:
    """max over tail events and directions of CP_lo(P) − Φ(Φ⁻¹(CP_hi(Q)) + μ)."""
    level = alpha / (4 * 2 * len(thresholds))
    worst = -np.inf
    for x, y in [(a, b), (b, a)]:
        for t in thresholds:
            for p, q in [
                ((x >= t).sum(), (y >= t).sum()),
                ((x <= t).sum(), (y <= t).sum()),
            ]:
                lo = float(cp_lower(p, len(x), level))
                hi = float(cp_upper(q, len(y), level))
                worst = max(worst, lo - norm.cdf(norm.ppf(hi) + mu))
    return worst


def _audit(broken):
    V, V2 = _pair()
    sigma = gd.gd_noise(2.0, gd.rho_for(EPSILON, DELTA), 1, 1)[0]
    lr, n = 1.0 / (0.25 + 1.0 / 10), 10  # "auto": 1/(R²/4 + 1/(C n))
    scale = lr * sigma / n / (4 if broken else 1)  # the released weight's sd
    centre = lr * 0.5 / n  # ±η·G/n, G = ∓σ(0)·1 = ∓1/2
    thresholds = np.linspace(-centre - 2 * scale, centre + 2 * scale, 12)
    mu = math.sqrt(2 * gd.rho_for(EPSILON, DELTA))
    a, b = _draw(V, N, broken), _draw(V2, N, broken)
    return gdp_excess(a, b, mu, thresholds)


@pytest.mark.slow
def test_audit_learner():
    assert _audit(broken=False) <= 0


@pytest.mark.slow
def test_power_quarter_noise_is_caught():
    assert _audit(broken=True) > 0


def test_an_overflowing_step_lets_no_record_decide_whether_fit_raises():
    """Rule 6: a learning rate that makes w overflow gives a zero row (what a
    NaN row becomes) the margin 0·inf = NaN; that row's gradient term is its
    own zero, so V and V′ (one row NaN) both fit, with the same warnings."""
    V = np.array([[0.5], [-0.3], [0.2], [0.4]])
    V2 = V.copy()
    V2[3, 0] = np.nan
    outcomes = []
    for X in (V, V2):
        est = DPGradientDescentLogisticRegression(
            epsilon=0.01,
            data_norm=1.0,
            fit_intercept=False,
            max_iter=2,
            learning_rate=1e308,
            noise_random_state=0,
        )
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            est.fit(X, np.array([0, 1, 0, 1]))
        outcomes.append([str(w.message) for w in seen])
    assert outcomes[0] == outcomes[1]

"""DPLinearSVC: CMS's Huber hinge, its objective perturbation, V/V′, the search.

Expected values are written out by hand from the formulas of
``dp_learners._objective`` (Huber: c = 1/(2h)), not recomputed by it.

The statistical audit (TESTING.md P3/P4) runs in two layers
(``tests/audits/_audit.py``): 1-D, no intercept, ``data_norm=1``, n = 10,
row 0 is (x = 1, y = +1) in V and the zero row in V′ (the nine others are
zero rows), ε = 1, C = 100 (on the plateau: nΛ′ = c/(e^(ε_obj/4) − 1),
ε′ = 3ε_obj/4). Then v̂ solves nΛ′v + ℓ′(v) = −b: on V, v = g⁻¹(−b) with
g(v) = nΛ′v − clip((1 + h − v)/(2h), 0, 1) increasing and piecewise linear
(:func:`_solve`), on V′ v = −b/(nΛ′). Layer 1 checks that
``_objective.fit_objective`` (what ``fit`` runs) returns that v for the b
it drew, on both sides; layer 2 draws b from the production sampler (OS
CSPRNG) N = 3,000 times per side and bins v. Two designs share the draws
(their ε′, and so b's law, are the same):

- h = 0.5 (the default, c = 1, nΛ′ = 3.56), bins cut at 0, 0.5, 1.5 (the
  quadratic piece is (0.5, 1.5], where ℓ″ = c and the Jacobian factor
  1 + c/(nΛ′) = e^(ε_obj/4) acts): exact binned loss 0.48 (0.62 at the
  worst point) against ε = 1, expected ε̂ 0.15. Power: ε′ computed
  without the log term (ε′ = ε_obj, Δ = 0: nΛ′ = 0.01), exact binned loss
  4.4, expected ε̂ 2.7: caught (ε̂ > ε).
- h = 0.05 (c = 10, nΛ′ = 35.6), bins cut at 0.95, 1.05 (the quadratic
  piece): exact binned loss 0.48, expected ε̂ about 0 (the honest release
  rarely reaches the piece). Power: the plan made with the logistic
  c = 1/4 for the Huber loss (the mistake of reusing logistic regression's
  constant): nΛ′ = 0.89, the same ε′, exact binned loss 2.7, expected ε̂
  1.7: caught.
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import replace
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from scipy.optimize import minimize

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "audits"))
from _audit import ALPHA, binned, epsilon_lower_bound  # noqa: E402

import sklearn_dpbo.dp_learners._objective as ob  # noqa: E402
import sklearn_dpbo.model_selection._private_model._fit as pm  # noqa: E402
from sklearn_dpbo import DPBayesSearchCV  # noqa: E402
from sklearn_dpbo.dp_learners import DPLinearSVC, DPLogisticRegression  # noqa: E402
from sklearn_dpbo.model_selection import PrivateModel  # noqa: E402
from sklearn_dpbo.privacy._samplers import secure_source  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::sklearn_dpbo.PrivacyLeakWarning")


# ---------------------------------------------------------------------------
# The loss
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("h", "z", "value", "slope", "curv"),
    [
        # h = 0.5 (c = 1): ℓ = 0 above 1.5, (1.5 − z)²/2 on [0.5, 1.5], 1 − z below
        (0.5, 2.0, 0.0, 0.0, 0.0),
        (0.5, 1.5, 0.0, 0.0, 1.0),  # the upper kink (ℓ″: the quadratic side)
        (0.5, 1.0, 0.125, 0.5, 1.0),  # (0.5)²/2, −ℓ′ = 0.5/1
        (0.5, 0.5, 0.5, 1.0, 1.0),  # the lower kink: 1²/2 = 1 − 0.5
        (0.5, -1.0, 2.0, 1.0, 0.0),  # 1 − (−1)
        # h = 0.25 (c = 2): (1.25 − z)² on [0.75, 1.25]
        (0.25, 1.0, 0.0625, 0.5, 2.0),  # 0.25², −ℓ′ = 0.25/0.5
        (0.25, 0.8, 0.2025, 0.9, 2.0),  # 0.45², 0.45/0.5
        (0.25, 0.0, 1.0, 1.0, 0.0),
    ],
)
def test_huber_values_by_hand(h, z, value, slope, curv):
    loss = ob.Huber(h)
    m = np.array([-z])  # the solver's negated margin
    assert loss.value(m)[0] == pytest.approx(value, abs=1e-15)
    assert loss.slope(m)[0] == pytest.approx(slope, abs=1e-15)  # −ℓ′(z)
    assert loss.curvature(m)[0] == curv
    assert loss.curvature_bound == 1 / (2 * h)


def test_huber_is_c1_with_bounded_slope_and_curvature():
    loss = ob.Huber(0.3)
    m = np.linspace(-3, 3, 60_001)
    v, p, q = loss.value(m), loss.slope(m), loss.curvature(m)
    assert ((0 <= p) & (p <= 1)).all() and ((0 <= q) & (q <= 1 / 0.6)).all()
    step = m[1] - m[0]
    # the slope is the derivative of the value (central differences: exact
    # on each quadratic piece, within c·step/4 across a kink) and
    # continuous; the curvature is the slope's derivative off the kinks
    fd = (v[2:] - v[:-2]) / (2 * step)
    np.testing.assert_allclose(fd, p[1:-1], atol=step)
    assert np.abs(np.diff(p)).max() <= step / 0.6 + 1e-12
    kinks = np.isclose(m[1:-1], -0.7, atol=2 * step) | np.isclose(
        m[1:-1], -1.3, atol=2 * step
    )
    fd = (p[2:] - p[:-2]) / (2 * step)
    np.testing.assert_allclose(fd[~kinks], q[1:-1][~kinks], atol=1e-6)


# ---------------------------------------------------------------------------
# The constants and the proof's Jacobian step
# ---------------------------------------------------------------------------
def test_plan_with_the_huber_curvature():
    # n = 100, R = 2, ε = 1, h = 0.5 (c = 1). C = 0.01: Λ̃ = 1/(0.01·100·4)
    # = 0.25 > 1/(100(e^0.2475 − 1)) = 0.035610, so Δ = 0 and ε′ = 0.99 −
    # log(1 + 1/(100·0.25)) = 0.99 − log 1.04 = 0.950779.
    p = ob.objective_plan(100, 0.01, 2.0, 1.0, curvature=1.0)
    assert p.extra_regularization == 0.0 and p.curvature == 1.0
    assert p.epsilon_prime == pytest.approx(0.950779, rel=1e-6)
    # C = 0.1: Λ̃ = 0.025 < 0.035610: the plateau, Δ = 0.010610, ε′ = 0.7425
    # (the logistic c = 1/4 would give Δ = 0 here).
    q = ob.objective_plan(100, 0.1, 2.0, 1.0, curvature=1.0)
    assert q.extra_regularization == pytest.approx(0.0106101, rel=1e-5)
    assert q.epsilon_prime == pytest.approx(0.7425, rel=1e-11)
    assert ob.objective_plan(100, 0.1, 2.0, 1.0).extra_regularization == 0.0
    # the learner makes its plan with c = 1/(2h)
    X, y = _data()
    est = DPLinearSVC(data_norm=1.0, C=0.5, h=0.2, noise_random_state=0).fit(X, y)
    assert est.plan_ == ob.objective_plan(
        len(y), 0.5, math.sqrt(2.0), 1.0, dim=4, curvature=2.5
    )
    # a plan made for another c is refused by the mechanism
    with pytest.raises(ValueError, match="c = 0.25"):
        ob.fit_objective(X, np.ones(len(y)), q, 1.0, secure_source(), 1, None)
    with pytest.raises(ValueError, match="c = 2.5"):
        ob.fit_objective(X, np.ones(len(y)), est.plan_, 1.0, None, 1, None, ob.LOGISTIC)


def _log_jacobian(X, s, v, lam, loss):
    """log det ∇b(v) = log det(Σ ℓ″(s_i v·x_i) x_i x_iᵀ + nΛ′ I)."""
    curv = loss.curvature(-s * (X @ v))
    H = (X * curv[:, None]).T @ X + len(s) * lam * np.eye(X.shape[1])
    return np.linalg.slogdet(H)[1]


def test_jacobian_ratio_of_neighbours_is_within_the_bound_with_c_1_over_2h():
    rng = np.random.default_rng(1)
    worst, beyond_logistic = 0.0, 0
    for trial in range(400):
        h = float(rng.choice([0.05, 0.5, 2.0]))
        loss = ob.Huber(h)
        n, d = int(rng.integers(1, 8)), int(rng.integers(1, 5))
        lam = float(10.0 ** rng.uniform(-3, 0))
        X = rng.normal(size=(n, d))
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None] * rng.uniform(1, 2)
        s = rng.choice([-1.0, 1.0], size=n)
        X2, s2 = X.copy(), s.copy()
        X2[0] = 0.0 if trial % 4 == 0 else rng.normal(size=d)
        X2[0] /= max(1.0, np.linalg.norm(X2[0]))
        s2[0] = rng.choice([-1.0, 1.0])
        v = rng.normal(size=d) * rng.uniform(0, 3)
        gap = abs(
            _log_jacobian(X, s, v, lam, loss) - _log_jacobian(X2, s2, v, lam, loss)
        )
        bound = math.log1p(loss.curvature_bound / (n * lam))
        assert gap <= bound * (1 + 1e-9) + 1e-12
        worst = max(worst, gap / bound)
        beyond_logistic += gap > math.log1p(0.25 / (n * lam)) * (1 + 1e-9)
    assert worst > 0.5  # random neighbours come near the bound
    assert beyond_logistic > 20  # and often exceed logistic's c = 1/4 (h < 2)
    # Attained: one row x = e₁ in the quadratic piece (margin 1, ℓ″ = c)
    # against the zero row: the ratio is 1 + c/(nΛ′) exactly.
    loss, n, lam = ob.Huber(0.1), 10, 1e-2
    X = np.zeros((n, 1))
    X[0, 0] = 1.0
    v = np.ones(1)
    gap = _log_jacobian(X, np.ones(n), v, lam, loss) - _log_jacobian(
        np.zeros((n, 1)), np.ones(n), v, lam, loss
    )
    assert gap == pytest.approx(math.log1p(5.0 / (n * lam)), rel=1e-12)


# ---------------------------------------------------------------------------
# The learner
# ---------------------------------------------------------------------------
def _data(n=400, seed=0, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / 4
    y = (X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _huber_objective(w, X, s, lam, h):
    z = s * (X @ w)
    u = 1 + h - z
    loss = np.where(u <= 0, 0.0, np.where(u >= 2 * h, u - h, u * u / (4 * h)))
    return loss.mean() + 0.5 * lam * w @ w


def test_tiny_noise_recovers_the_regularised_huber_svm():
    # ε = 1000: Δ = 0 and b/n ~ 1e-5: the model is the non-private minimiser
    # of (1/n) Σ ℓ_h(s w·x) + ‖w‖²/(2Cn), found here by scipy's L-BFGS (no
    # row reaches data_norm = 2, so none is clipped).
    X, y = _data()
    s = np.where(y == 1, 1.0, -1.0)
    dp = DPLinearSVC(
        epsilon=1000.0, data_norm=2.0, C=10.0, fit_intercept=False, noise_random_state=0
    ).fit(X, y)
    assert dp.plan_.extra_regularization == 0.0
    assert np.linalg.norm(X, axis=1).max() < 2.0
    lam = 1.0 / (10.0 * len(y))
    ref = minimize(
        _huber_objective,
        np.zeros(3),
        args=(X, s, lam, 0.5),
        method="L-BFGS-B",
        options=dict(gtol=1e-12, ftol=1e-15, maxiter=10_000),
    ).x
    np.testing.assert_allclose(dp.coef_[0], ref, atol=2e-2)
    assert (dp.predict(X) == y).mean() > 0.9
    assert not hasattr(dp, "predict_proba")
    assert dp.decision_function(X).shape == (len(y),)


def test_multiclass_one_vs_rest_and_string_labels():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 10, size=(300, 2))
    names = np.array(["a", "b", "c"])
    y = names[np.minimum(X[:, 0] // 3.4, 2).astype(int)]
    est = DPLinearSVC(
        epsilon=50.0,
        C=100.0,
        bounds=(0, 10),
        classes=("a", "b", "c"),
        noise_random_state=1,
    ).fit(X, y)
    assert est.coef_.shape == (3, 2) and est.decision_function(X).shape == (300, 3)
    assert (est.predict(X) == y).mean() > 0.9  # 0.95 (three bands of x₀)
    with pytest.raises(ValueError, match="classes"):
        DPLinearSVC(classes=(1,)).fit(X, y)
    with pytest.raises(ValueError, match="h"):
        DPLinearSVC(h=0).fit(X, y)


# ---------------------------------------------------------------------------
# V/V′ over one replaced record
# ---------------------------------------------------------------------------
rng0 = np.random.default_rng(0)
XV = rng0.uniform(0, 10, size=(60, 3))
Y_BIN = (XV[:, 0] > 5).astype(int)
Y_MULTI = np.minimum(XV[:, 1] // 3.4, 2).astype(int)
REPLACEMENTS = {
    "outside the bounds": ([1e6, -1e6, 50.0], None),
    "NaN": ([np.nan, 1.0, 1.0], None),
    "a non-number": (["abc", 1.0, 1.0], None),
    "label outside classes": (None, 7),
}


def _fit(est, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est.fit(X, y)
            error = None
        except Exception as exc:  # noqa: BLE001 - compared between V and V′
            error = repr(exc)
    messages = sorted(str(w.message) for w in caught)
    state = {k: np.shape(v) for k, v in vars(est).items() if k.endswith("_")}
    return messages, error, state


@pytest.mark.parametrize("kind", list(REPLACEMENTS))
@pytest.mark.parametrize(
    ("y", "classes"), [(Y_BIN, (0, 1)), (Y_MULTI, (0, 1, 2))], ids=["binary", "ovr"]
)
def test_one_replaced_record(y, classes, kind):
    # Same seeded noise on both sides (tests only): the same b, so the two
    # exact minimisers are ≤ 2/(nΛ′) apart (one row's gradient moves by ≤ 2/n
    # in the rescaled units; Λ′-strong convexity), each solve ≤ γ/Λ′ from its
    # own, and the same output noise: ‖w − w′‖ ≤ (2/n + 2γ)/Λ′/R + the grid.
    # Everything else (warnings, errors, fitted attributes' shapes) equal.
    row, label = REPLACEMENTS[kind]
    X2, y2 = XV.astype(object), y.astype(object)
    if row is not None:
        X2[5] = row
    if label is not None:
        y2[5] = label
    common = dict(bounds=(0.0, 10.0), classes=classes, noise_random_state=3)
    a, b = DPLinearSVC(**common), DPLinearSVC(**common)
    out_a = _fit(a, XV.astype(object), y.astype(object))
    out_b = _fit(b, X2, y2)
    assert out_a == out_b and out_a[1] is None
    plan, n = a.plan_, len(y)
    R = math.sqrt(0.25 * 3 + 1)  # ball ρ√d = √3/2, intercept appended
    bound = (2 / n + 2 * plan.gradient_bound) / plan.strong_convexity / R
    W = np.c_[a.coef_, a.intercept_]
    W2 = np.c_[b.coef_, b.intercept_]
    gaps = np.linalg.norm(W - W2, axis=1)
    assert (gaps <= bound * (1 + 1e-6)).all()
    # the replaced record moves the model, unless it was already a negative
    # (a label outside two classes is the negative class)
    assert (gaps.max() > 0) == (kind != "label outside classes" or y[5] != 0)


# ---------------------------------------------------------------------------
# The statistical audit (module docstring)
# ---------------------------------------------------------------------------
N, N_CHECK, EPSILON, N_ROWS, C = 3_000, 25, 1.0, 10, 100.0
DESIGNS = {"default h": (0.5, (0.0, 0.5, 1.5)), "small h": (0.05, (0.95, 1.05))}


def _plan(h: float, broken: str | None = None):
    """The honest plan, or a broken variant: "log" (ε′ = ε_obj, Δ = 0) or
    "c" (the logistic c = 1/4 for the Huber loss)."""
    plan = ob.objective_plan(
        N_ROWS, C, 1.0, EPSILON, curvature=0.25 if broken == "c" else 1 / (2 * h)
    )
    if broken == "log":
        eps = plan.epsilon_objective
        plan = replace(
            plan, extra_regularization=0.0, epsilon_prime=eps, noise_scale=2 / eps
        )
    return plan


def _pair():
    X = np.zeros((N_ROWS, 1))
    X[0, 0] = 1.0
    s = -np.ones(N_ROWS)
    s[0] = 1.0
    return (X, s), (np.zeros((N_ROWS, 1)), s)


def _solve(b, k, h, side):
    """v̂ in closed form: k v − p(v) = −b on V, p = clip((1 + h − v)/(2h), 0, 1);
    k v = −b on V′."""
    b = np.asarray(b, dtype=float)
    if side == 1:
        return -b / k
    low = (1 - b) / k  # p = 1: v ≤ 1 − h
    high = -b / k  # p = 0: v ≥ 1 + h
    mid = ((1 + h) / (2 * h) - b) / (k + 1 / (2 * h))
    return np.where(-b <= k * (1 - h) - 1, low, np.where(-b >= k * (1 + h), high, mid))


@pytest.mark.parametrize("h", [0.5, 0.05])
def test_layer_one_fit_objective_is_the_closed_form(h):
    plan, loss = _plan(h), ob.Huber(h)
    k = N_ROWS * plan.strong_convexity
    assert k == pytest.approx(1 / (2 * h) / math.expm1(0.99 / 4), rel=1e-12)
    assert plan.epsilon_prime == pytest.approx(0.7425, rel=1e-11)
    real = ob.sample_gamma_norm_noise
    for side in (0, 1):
        X, s = _pair()[side]
        drawn = []

        def record(*args, drawn=drawn, **kwargs):
            drawn.append(real(*args, **kwargs))
            return drawn[-1]

        with mock.patch.object(ob, "sample_gamma_norm_noise", record):
            got = [
                ob.fit_objective(X, s, plan, 1.0, secure_source(), 100, loss=loss)[0]
                for _ in range(N_CHECK)
            ]
        want = _solve(np.array(drawn)[:, 0], k, h, side)
        # solver ≤ γ/Λ′ ~ 1e-12, output noise of scale S/ε_out ~ 1e-9
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
        assert len(drawn) == N_CHECK


def _draws() -> np.ndarray:
    scale = _plan(0.5).noise_scale
    rng = secure_source()
    return np.array([ob.sample_gamma_norm_noise(1, scale, rng)[0] for _ in range(N)])


@pytest.fixture(scope="module")
def noise():
    """N draws of b per side (V, V′) at the honest plans' scale 2/ε′, which
    every honest plan and the "c" variant share (ε′ = 3ε_obj/4 on the
    plateau); the "log" variant's b is the same draws times ε′/ε_obj."""
    return _draws(), _draws()


def _counts(noise, design, broken=None):
    h, edges = DESIGNS[design]
    plan, honest = _plan(h, broken), _plan(h)
    assert broken == "log" or plan.noise_scale == honest.noise_scale
    k = N_ROWS * plan.strong_convexity
    factor = plan.noise_scale / honest.noise_scale
    return [binned(_solve(factor * noise[i], k, h, i), edges) for i in (0, 1)]


@pytest.mark.parametrize("design", list(DESIGNS))
def test_audit_huber_objective_perturbation(noise, design):
    result = epsilon_lower_bound(*_counts(noise, design), ALPHA)
    assert result.epsilon_hat <= EPSILON, str(result)


@pytest.mark.parametrize(("design", "broken"), [("default h", "log"), ("small h", "c")])
def test_power_broken_variants_are_caught(noise, design, broken):
    result = epsilon_lower_bound(*_counts(noise, design, broken), ALPHA)
    assert result.epsilon_hat > EPSILON, str(result)


# ---------------------------------------------------------------------------
# The private-model mode
# ---------------------------------------------------------------------------
def test_plateau_key_uses_c_1_over_2h():
    # n = 1000, ε = 1, data_norm = 1 with intercept (R² = 2): C* =
    # (e^0.2475 − 1)/(c R²) = 0.1404 for h = 0.5 (c = 1), 0.5616 for the
    # logistic loss (c = 1/4): C = 0.3 is on the SVM's plateau only.
    def key(est, C):
        return est.set_params(C=C)._distribution_key(1000, 1.0)

    svm, lr = DPLinearSVC(data_norm=1.0), DPLogisticRegression(data_norm=1.0)
    assert key(svm, 0.3) == key(svm, 0.15) == key(svm, 1e3) != key(svm, 0.14)
    assert key(lr, 0.3) != key(lr, 1e3)
    cands = [{"C": c} for c in (0.01, 0.1, 0.3, 10.0)]
    assert pm.prune_candidates(svm, cands, 1000, 1.0) == cands[:3]
    assert pm.default_suffices(svm, 1000, 1.0, 3)  # objective perturbation


@pytest.mark.parametrize("strategy", ["random-stopping", "split", "auto"])
def test_private_model_search_releases_a_tuned_svm(strategy):
    X, y = _data(n=600, d=2)
    s = DPBayesSearchCV(
        DPLinearSVC(data_norm=1.0),
        {"C": [0.01, 0.1, 1.0, 10.0]},
        method=PrivateModel(strategy=strategy),
        epsilon=2.0,
        delta=1e-6,
        scoring="accuracy",
        n_iter=4,
        random_state=0,
        noise_random_state=0,  # tests only: random stopping's C varies with it
    ).fit(X, y)
    model = s.best_estimator_
    assert isinstance(model, DPLinearSVC) and model.epsilon <= 2.0
    assert s.best_params_ in s.candidate_params_
    assert len(s.candidate_params_) < 4  # 1 and 10 share the plateau
    assert s.privacy_report_.epsilon == pytest.approx(2.0)
    assert "certified gradient tolerance" in s.privacy_report_.explain()
    assert (s.predict(X) == y).mean() > 0.8
    with pytest.raises(ValueError, match="h"):
        DPBayesSearchCV(
            DPLinearSVC(data_norm=1.0),
            {"h": [0.5, -1.0]},
            method="private-model",
            epsilon=1.0,
            scoring="accuracy",
        ).fit(X, y)

"""DPGaussianNB: its formulas, a V/V′ audit with a power check, one replaced record.

The statistical audit has two layers (``_audit.py``'s design): complete
fits on V and V′ with the production noise source record every draw of the
exact sampler (its scale and value) and check that each released statistic
is the rounded statistic plus its draw times the public step; then the
released integers are drawn N times from the discrete Laplace law at the
recorded scales (NumPy, vectorised: the law of the library's exact
sampler, which ``tests/audits/test_audit_mechanisms.py`` audits itself),
and ε̂ is the Clopper–Pearson lower bound of ``_audit.epsilon_lower_bound``
on the binned privacy-loss statistic. The pair is tight: the replaced record
moves from class 0 at the upper bound to class 1 at the lower bound, so
every block moves by its whole sensitivity. The power check halves the
sensitivities (a true loss of 2ε on this pair), and must be caught; at this
N the audit also catches the sums' or the squares' sensitivity halved alone
(1.6ε, 1.3ε; measured ε̂ 1.06 for the squares), and the deterministic
``test_the_pair_moves_every_block_by_its_sensitivity`` catches any block's.
"""

from __future__ import annotations

import random
import sys
import warnings
from fractions import Fraction
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "audits"))
from _audit import ALPHA, binned, epsilon_lower_bound  # noqa: E402

import sklearn_dpbo.dp_learners._naive_bayes as nbm  # noqa: E402
from sklearn_dpbo import DPBayesSearchCV  # noqa: E402
from sklearn_dpbo.dp_learners import DPGaussianNB  # noqa: E402
from sklearn_dpbo.model_selection import PrivateModel  # noqa: E402
from sklearn_dpbo.privacy._samplers import (  # noqa: E402
    granularity_exponent,
    sample_discrete_laplace,
    secure_source,
)

pytestmark = pytest.mark.filterwarnings("ignore::sklearn_dpbo.PrivacyLeakWarning")

# A hand-computable data set: bounds (0, 10), so u = (x − 5)/5.
X_HAND = np.array([[0.0], [10.0], [5.0], [np.nan], [20.0]])
Y_HAND = np.array([0, 1, 1, 7, 0])  # 7: outside classes, not counted
# u = [−1, 1, 0, 0, 1]; class 0: rows 0, 4; class 1: rows 1, 2.
COUNTS = [2.0, 2.0]
SUMS = [[0.0], [1.0]]  # −1 + 1; 1 + 0
SQUARES = [[1.0], [0.0]]  # (1 − ½) + (1 − ½); (1 − ½) + (0 − ½)
POOLED = [[1.0]]  # both classes' squares (row 3's label is outside)
# means 0 and ½ (θ = 5, 7.5); per class: second moments 1/2 + ½ = 1 and
# 0/2 + ½ = ½, variances 1 − 0 and ½ − ¼; pooled: second moment 1/4 + ½,
# within-class variance ¾ − (2·0 + 2·¼)/4 = 0.625 for both; plus
# var_smoothing 0.1, times h² = 25.
VAR = {False: [[25 * 1.1], [25 * 0.35]], True: [[25 * 0.725], [25 * 0.725]]}


def _hand(**kw):
    return DPGaussianNB(bounds=(0.0, 10.0), classes=(0, 1), **kw)


def _no_noise():
    return mock.patch.object(nbm, "sample_discrete_laplace", lambda scale, rng: 0)


@pytest.mark.parametrize("shared", [False, True])
def test_statistics_and_model_by_hand(shared):
    with _no_noise():
        est = _hand(var_smoothing=0.1, shared_variance=shared).fit(X_HAND, Y_HAND)
    assert est.class_count_.tolist() == COUNTS
    assert est.sums_.tolist() == SUMS
    assert est.squares_.tolist() == (POOLED if shared else SQUARES)
    np.testing.assert_allclose(est.theta_, [[5.0], [7.5]])
    np.testing.assert_allclose(est.var_, VAR[shared])
    np.testing.assert_allclose(est.class_prior_, [0.5, 0.5])
    # Gaussian log-likelihoods by hand (equal priors); NaN is the midpoint 5
    for x in (0.5, 9.0, np.nan):
        at = 5.0 if np.isnan(x) else x
        ll = np.array(
            [
                -0.5 * (np.log(2 * np.pi * v) + (at - m) ** 2 / v)
                for m, v in zip([5.0, 7.5], np.ravel(VAR[shared]))
            ]
        )
        proba = np.exp(ll) / np.exp(ll).sum()
        np.testing.assert_allclose(est.predict_proba([[x]])[0], proba)
        assert est.predict([[x]])[0] == np.argmax(ll)
    assert est.predict([[0.5], [9.0]]).tolist() == [0, 1]


@pytest.mark.parametrize("shared", [False, True])
def test_noise_by_hand_with_a_seeded_source(shared):
    eps, shares = 2.0, (0.05, 0.75, 0.2)  # the default shares
    est = _hand(epsilon=eps, noise_random_state=5, shared_variance=shared)
    est.fit(X_HAND, Y_HAND)
    rng = random.Random(5)  # the same stream: counts, sums, squares, class by class
    n, d = 5, 1
    blocks = [
        (2.0, 2, shares[0], COUNTS),
        (2.0 * d, 2 * d, shares[1], SUMS),
        (1.0 * d, d if shared else 2 * d, shares[2], POOLED if shared else SQUARES),
    ]
    released = [est.class_count_, est.sums_, est.squares_]
    for (sens, changed, share, exact), got, scale in zip(
        blocks, released, est.noise_scales_
    ):
        e = share * eps
        step = 2.0 ** (np.floor(np.log2(sens / e)) - 20)
        steps = (Fraction(sens) + changed * (Fraction(step) + Fraction(n, 2**52))) / (
            Fraction(e) * Fraction(step)
        )
        want = [
            (round(v / step) + sample_discrete_laplace(steps, rng)) * step
            for v in np.ravel(exact)
        ]
        assert np.ravel(got).tolist() == want
        assert scale == float(steps * Fraction(step))


def test_model_never_fails_on_noisy_statistics():
    # tiny ε: counts and variances far below their floors, means far outside
    Xr = np.random.default_rng(0).uniform(0, 10, (30, 4))
    for seed in range(20):
        est = DPGaussianNB(
            epsilon=1e-3, bounds=(0, 10), classes=(0, 1, 2), noise_random_state=seed
        ).fit(Xr, np.arange(30) % 3)
        assert np.isfinite(est.theta_).all() and (est.theta_ >= 0).all()
        assert (est.theta_ <= 10).all() and (est.var_ > 0).all()
        assert np.isclose(est.class_prior_.sum(), 1.0)
        assert np.isfinite(est.predict_log_proba(Xr)).all()
    # no row in any class: every statistic is noise
    est = _hand(noise_random_state=0).fit(np.full((4, 1), np.nan), [9, 9, 9, 9])
    assert np.isfinite(est.predict_proba([[1.0]])).all()


def test_public_checks_before_any_row():
    X = np.zeros((4, 2))
    y = [0, 1, 0, 1]
    with pytest.raises(ValueError, match="epsilon_shares"):
        DPGaussianNB(bounds=(0, 1), epsilon_shares=(1, 0, 1)).fit(X, y)
    with pytest.raises(ValueError, match="two or more distinct"):
        DPGaussianNB(bounds=(0, 1), classes=(1, 1)).fit(X, y)
    with pytest.raises(ValueError, match="one entry per feature"):
        DPGaussianNB(bounds=([0, 0, 0], 1)).fit(X, y)
    with pytest.raises(ValueError, match="Unknown label type"):
        DPGaussianNB(bounds=(0, 1)).fit(X, np.array([0.0, 1.0, 0.5, 1.0]))
    with pytest.warns(UserWarning, match="got no bounds"):
        DPGaussianNB(noise_random_state=0).fit(X, y)
    with pytest.raises(NotFittedError):
        DPGaussianNB().predict(X)


# One replaced record: same seeded noise on V and V′, every other output equal
rng0 = np.random.default_rng(0)
X_V = rng0.uniform(0, 10, size=(40, 3))
Y_V = (X_V[:, 0] > 5).astype(int) + (X_V[:, 1] > 7).astype(int)
REPLACEMENTS = {
    "outside the bounds": ([1e6, -1e6, 50.0], None),
    "NaN": ([np.nan, 1.0, np.inf], None),
    "a non-number": (["abc", None, 1.0], None),
    "label outside classes": (None, 7),
    "a string label": (None, "two"),
}


def _fit_outputs(X, y, shared):
    est = DPGaussianNB(
        bounds=(0.0, 10.0),
        classes=(0, 1, 2),
        shared_variance=shared,
        noise_random_state=3,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est.fit(X, y)
            error = None
        except Exception as exc:  # noqa: BLE001 - compared between V and V′
            error = repr(exc)
    messages = sorted(str(w.message) for w in caught)
    state = {k: np.shape(v) for k, v in vars(est).items() if k.endswith("_")}
    return est, (messages, error, state)


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("kind", list(REPLACEMENTS))
def test_one_replaced_record(kind, shared):
    row, label = REPLACEMENTS[kind]
    X2, y2 = X_V.astype(object), Y_V.astype(object)
    if row is not None:
        X2[5] = row
    if label is not None:
        y2[5] = label
    a, out_a = _fit_outputs(X_V.astype(object), Y_V.astype(object), shared)
    b, out_b = _fit_outputs(X2, y2, shared)
    assert out_a == out_b and out_a[1] is None
    n, d = X_V.shape
    # The same draws on both sides: the releases differ by the rounded
    # statistics' shift, at most Δ + n_changed·(step + n·2⁻⁵²) per block in L1.
    blocks = [(2.0, 2, 0.05), (2.0 * d, 2 * d, 0.75), (1.0 * d, 2 * d, 0.2)]
    if shared:
        blocks[2] = (1.0 * d, d, 0.2)
    for (sens, changed, share), A, B in zip(
        blocks,
        [a.class_count_, a.sums_, a.squares_],
        [b.class_count_, b.sums_, b.squares_],
    ):
        step = 2.0 ** granularity_exponent(sens / share)
        assert np.abs(A - B).sum() <= sens + changed * (step + n * 2.0**-52)
        assert np.count_nonzero(A != B) <= changed


@pytest.mark.parametrize("new_weight", [50.0, np.nan, -3.0])
def test_one_replaced_weighted_record(new_weight):
    # The weight is part of the record: row 5, its label and its weight
    # replaced (50 counts as 1, NaN and −3 as 0); the releases move by at
    # most the sensitivities, with the same draws on both sides.
    w = np.linspace(0.1, 1.0, len(Y_V))
    w2, X2, y2 = w.copy(), X_V.copy(), Y_V.copy()
    w2[5], X2[5], y2[5] = new_weight, [9.0, 0.5, 7.0], (Y_V[5] + 1) % 3
    kw = dict(bounds=(0.0, 10.0), classes=(0, 1, 2), noise_random_state=3)
    a = DPGaussianNB(**kw).fit(X_V, Y_V, sample_weight=w)
    b = DPGaussianNB(**kw).fit(X2, y2, sample_weight=w2)
    d = X_V.shape[1]
    for sens, A, B in zip(
        (2.0, 2.0 * d, 1.0 * d),
        [a.class_count_, a.sums_, a.squares_],
        [b.class_count_, b.sums_, b.squares_],
    ):
        assert 0 < np.abs(A - B).sum() <= sens * (1 + 1e-4)


# The statistical audit (module docstring)
EPSILON = 1.0
N_FITS, N_DRAWS = 60, 400_000
X_PAIR = np.array([[10.0], [5.0], [5.0], [5.0], [5.0], [5.0]])
X_PAIR2 = np.array([[0.0], [5.0], [5.0], [5.0], [5.0], [5.0]])
Y_PAIR, Y_PAIR2 = np.array([0, 0, 0, 1, 1, 1]), np.array([1, 0, 0, 1, 1, 1])


def _recorded_fits(X, y, n_fits, shared, factor=1.0):
    """Complete fits (production noise source), their releases recorded.

    Returns each released entry's centre (its statistic rounded to the
    public step) and the scale of its draw, in value units, after checking
    that in every fit the three calls of ``release_sums`` had the same
    arguments, drew one discrete Laplace per entry, and released centre +
    draw × step. ``factor`` scales every block's sensitivity (the broken
    variant: 0.5)."""
    real = nbm.release_sums
    calls, draws = [], []

    def record_draw(scale, rng):
        z = sample_discrete_laplace(scale, rng)
        draws.append((float(scale), z))
        return z

    def record_release(values, sensitivity, n_changed, n, epsilon, rng):
        first = len(draws)
        out = real(values, sensitivity * factor, n_changed, n, epsilon, rng)
        step = 2.0 ** granularity_exponent(sensitivity * factor / epsilon)
        centre = np.rint(np.ravel(values) / step)
        scale, z = np.array(draws[first:]).T
        assert (np.ravel(out[0]) == (centre + z) * step).all()
        calls.append((tuple(centre * step), tuple(scale * step), step))
        return out

    fits = set()
    with (
        mock.patch.object(nbm, "sample_discrete_laplace", record_draw),
        mock.patch.object(nbm, "release_sums", record_release),
    ):
        for _ in range(n_fits):
            calls.clear()
            est = DPGaussianNB(
                epsilon=EPSILON, bounds=(0.0, 10.0), shared_variance=shared
            )
            est._fit_private(X, y, secure_source())
            assert len(calls) == 3
            fits.add(tuple(calls))
    assert len(fits) == 1  # the same arguments and statistics in every fit
    (call,) = fits
    centres, scales, steps = zip(*call)
    steps = [np.full(len(c), step) for c, step in zip(centres, steps)]
    return tuple(map(np.concatenate, (centres, scales, steps)))


def _losses(around, c, c2, scales, steps, honest, gen):
    """N_DRAWS releases drawn around ``around`` (V's centres ``c`` or V′'s
    ``c2``), each as the honest privacy loss of V against V′ there (the
    audit's outcome is its bin).

    Each entry's noise in steps is Laplace rounded to ℤ, whose law is the
    discrete Laplace's up to a factor 1 ± O(1/t) per integer (t ≈ 2²⁰ steps
    here, far below the audit's resolution); vectorised, entry by entry."""
    out = np.zeros(N_DRAWS)
    for entry in zip(around, c, c2, scales / steps, steps, honest):
        at, v, v2, t, step, h = entry
        m = at + np.rint(gen.laplace(0.0, t, N_DRAWS)) * step
        out += (np.abs(m - v2) - np.abs(m - v)) / h
    return out


def _epsilon_hat(shared, factor):
    c, scales, steps = _recorded_fits(X_PAIR, Y_PAIR, N_FITS, shared, factor)
    c2, scales2, _ = _recorded_fits(X_PAIR2, Y_PAIR2, N_FITS, shared, factor)
    assert (scales == scales2).all()
    honest = _recorded_fits(X_PAIR, Y_PAIR, 1, shared)[1]  # the loss's scales
    top = (np.abs(c - c2) / honest).sum()  # the honest loss's largest value
    gen = np.random.default_rng(7)
    a = _losses(c, c, c2, scales, steps, honest, gen)
    b = _losses(c2, c, c2, scales, steps, honest, gen)
    edges = [0.6 * top, 0.85 * top]
    return epsilon_lower_bound(binned(a, edges), binned(b, edges), ALPHA)


@pytest.mark.parametrize("shared", [False, True])
def test_the_pair_moves_every_block_by_its_sensitivity(shared):
    c, scales, _ = _recorded_fits(X_PAIR, Y_PAIR, 2, shared)
    c2, _, _ = _recorded_fits(X_PAIR2, Y_PAIR2, 2, shared)
    loss = np.abs(c - c2) / scales  # each entry's share of the loss
    blocks = np.array([loss[0:2].sum(), loss[2:4].sum(), loss[4:].sum()])
    # each block's loss is its ε share, less the grid's slack (2⁻²⁰/ε_B
    # relative); pooled squares do not move on this pair (u² = 1 both sides)
    shares = np.array([0.05, 0.75, 0.0 if shared else 0.2]) * EPSILON
    assert (blocks <= shares).all() and (blocks >= shares * (1 - 1e-4)).all()


@pytest.mark.parametrize("shared", [False, True])
def test_audit(shared):
    result = _epsilon_hat(shared, 1.0)
    assert result.epsilon_hat <= EPSILON, str(result)


@pytest.mark.parametrize("shared", [False, True])
def test_power_half_the_sensitivities_is_caught(shared):
    result = _epsilon_hat(shared, 0.5)
    assert result.epsilon_hat > EPSILON, str(result)


def test_private_model_search_end_to_end():
    iris = load_iris(as_frame=True)
    X, y = iris.data, iris.target_names[iris.target]
    learner = DPGaussianNB(
        bounds=(0.0, 10.0), classes=("setosa", "versicolor", "virginica")
    )
    space = {"var_smoothing": [0.01, 0.05, 0.2], "epsilon_shares": [(0.1, 0.6, 0.3)]}
    search = DPBayesSearchCV(
        learner,
        space,
        method=PrivateModel(strategy="split"),
        epsilon=8.0,
        delta=0.0,
        scoring="accuracy",
        noise_random_state=0,
    )
    search.fit(X, y)
    assert search.strategy_ == "split"
    assert search.best_params_["var_smoothing"] in (0.01, 0.05, 0.2)
    model = search.best_estimator_
    assert isinstance(model, DPGaussianNB) and model.epsilon == pytest.approx(8 / 3)
    assert set(model.predict(X)) <= {"setosa", "versicolor", "virginica"}
    assert search.privacy_report_.to_dict()["epsilon"] == pytest.approx(8.0)
    # "auto" fits the untuned model at the whole ε: tuning this learner
    # costs more than it gives (DPGaussianNB._auto_never_tunes)
    auto = DPBayesSearchCV(
        learner, space, method=PrivateModel(), epsilon=2.0, delta=1e-6
    ).fit(X, y)
    assert auto.strategy_ == "default" and auto.best_estimator_.epsilon == 2.0
    # a bad candidate is refused before any row is read
    with pytest.raises(ValueError, match="var_smoothing"):
        DPBayesSearchCV(
            learner,
            {"var_smoothing": [0.01, -1.0]},
            method=PrivateModel(strategy="split"),
            epsilon=1.0,
            scoring="accuracy",
        ).fit(X, y)

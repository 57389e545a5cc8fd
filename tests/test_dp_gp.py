"""DPGaussianProcessRegressor: estimator behaviour, V/V' data independence, budget.

V/V' tests (TESTING.md): every fitted attribute other than the released
vector is identical for two very different output vectors, and with the
same (test-only) noise seed the two releases differ by exactly the
mechanism's linear map applied to the outputs: nothing derived from the
outputs enters the noise, the sensitivity or the noise design.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import RBF
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_dpbo import (
    BudgetAccountant,
    BudgetError,
    DPGaussianProcessRegressor,
    PrivacyLeakWarning,
    PrivateGridSelection,
    PublicDataSelection,
)
from sklearn_dpbo._gaussian_mechanism import analytic_gaussian_scale
from sklearn_dpbo._gp_posterior import ExactPosterior

# One BLAS thread: multi-threaded BLAS on a shared 2-core machine made these
# small dense solves up to 60x slower.
pytestmark = pytest.mark.usefixtures("single_blas_thread")

BOUNDS = (-2.0, 2.0)


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(0, 10, size=(n, 1)), axis=0)
    y = np.sin(X[:, 0]) + 0.2 * rng.normal(size=n)
    return X, y


def _est(**kw):
    params = dict(
        kernel=RBF(1.5),
        alpha=0.2,
        y_bounds=BOUNDS,
        query_points=np.linspace(-1, 11, 15)[:, None],
        epsilon=1.0,
        delta=1e-3,
    )
    params.update(kw)
    return DPGaussianProcessRegressor(**params)


def _fit_quiet(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return est.fit(X, y)


# ---------------------------------------------------------------------------
# scikit-learn conformance
# ---------------------------------------------------------------------------
@parametrize_with_checks(
    # A fixed noise seed makes two fits comparable, which several checks need
    # (e.g. check_regressor_data_not_an_array compares two fits); the
    # PrivacyLeakWarning this triggers is expected.
    [DPGaussianProcessRegressor(y_bounds=(-100.0, 100.0), noise_random_state=0)]
)
@pytest.mark.filterwarnings("ignore::sklearn_dpbo.PrivacyLeakWarning")
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ---------------------------------------------------------------------------
# Settings and budget
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "bounds", [None, (1.0, 1.0), (0.0, float("inf")), (True, 2.0), (3.0, 1.0)]
)
def test_bad_bounds_refused_before_any_spend(bounds):
    X, y = _data()
    acc = BudgetAccountant(epsilon=5.0, delta=0.1)
    with pytest.raises(ValueError, match="y_bounds"):
        _est(y_bounds=bounds, accountant=acc).fit(X, y)
    assert acc.spent == (0.0, 0.0)


def test_accountant_checked_before_outputs_are_read_and_charged_once():
    X, y = _data()
    small = BudgetAccountant(epsilon=0.5, delta=1e-2)
    y_nan = y.copy()
    y_nan[3] = np.nan
    # The refusal comes before y is even validated: BudgetError, not NaN error.
    with pytest.raises(BudgetError):
        _est(accountant=small).fit(X, y_nan)
    assert small.spent == (0.0, 0.0)
    acc = BudgetAccountant(epsilon=2.0, delta=1e-2)
    with pytest.raises(ValueError, match="NaN"):
        _est(accountant=acc).fit(X, y_nan)
    assert acc.spent == (0.0, 0.0)
    _est(accountant=acc).fit(X, y)
    assert acc.spent == pytest.approx((1.0, 1e-3))
    assert len(acc.history) == 1


def test_noise_seed_warns():
    X, y = _data()
    with pytest.warns(PrivacyLeakWarning, match="NOT differentially private"):
        _est(noise_random_state=1).fit(X, y)


def test_paper_faithful_flag():
    X, y = _data()
    est = _est(paper_faithful=True, epsilon=1.0).fit(X, y)
    assert "hall" in est.privacy_report_.releases[0]["mechanism"]
    with pytest.warns(PrivacyLeakWarning, match="NOT differentially private"):
        bad = _est(paper_faithful=True, epsilon=20.0).fit(X, y)
    assert bad.privacy_report_.releases[0]["guarantee"].startswith("NOT DP")
    # The default calibration is the analytic one and is valid.
    ok = _est(epsilon=20.0).fit(X, y)
    assert ok.privacy_report_.releases[0]["guarantee"] == "(ε, δ)-DP"


# ---------------------------------------------------------------------------
# What is released, and post-processing
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["cloaking", "standard"])
def test_release_and_report(method):
    X, y = _data()
    est = _est(method=method).fit(X, y)
    Xq = est.query_points_
    # predict at the query inputs returns the release itself.
    np.testing.assert_array_equal(est.predict(Xq), est.released_mean_)
    rel = est.privacy_report_.releases[-1]
    assert rel["quantity"] == "released_mean_"
    assert (rel["epsilon"], rel["delta"]) == (1.0, 1e-3)
    d = BOUNDS[1] - BOUNDS[0]
    scale = d / 4
    # Noise scale = analytic multiplier of the stated sensitivity.
    expected = analytic_gaussian_scale(rel["sensitivity"] / scale, 1.0, 1e-3) * scale
    assert rel["noise_scale"] == pytest.approx(expected, rel=1e-12)
    assert np.all(est.noise_std_ >= 0) and est.noise_cov_.shape == (15, 15)
    np.testing.assert_allclose(np.sqrt(np.diag(est.noise_cov_)), est.noise_std_)
    # return_std is the GP posterior's, scaled to output units.
    post = ExactPosterior(RBF(1.5), X, 0.2)
    _, std = est.predict(Xq, return_std=True)
    np.testing.assert_allclose(std, scale * np.sqrt(post.variance(Xq)))
    if method == "standard":
        d_n = d / scale
        exact = d_n * post.rkhs_factors().max() * scale
        assert est.sensitivity_ == pytest.approx(exact, rel=1e-8)
    else:
        assert est.sensitivity_ == pytest.approx(d, rel=1e-3)  # Δ₁ ≈ 1
        assert est.solver_["converged"]


def test_predict_off_query_points_interpolates_the_release():
    X, y = _data()
    est = _est().fit(X, y)
    Xq, v = est.query_points_, est.released_mean_
    x_new = np.array([[2.345], [7.5]])
    K = RBF(1.5)
    offset, scale = 0.0, 1.0
    weights = np.linalg.solve(K(Xq), (v - offset) / scale)
    np.testing.assert_allclose(
        est.predict(x_new), offset + scale * K(x_new, Xq) @ weights, rtol=1e-6
    )
    samples = est.sample_y(x_new, n_samples=4, random_state=0)
    assert samples.shape == (2, 4)
    np.testing.assert_array_equal(samples, est.sample_y(x_new, 4, random_state=0))


def test_default_query_points_are_distinct_training_inputs():
    X, y = _data()
    X = np.vstack([X, X[:5]])
    y = np.concatenate([y, y[:5]])
    est = _est(query_points=None).fit(X, y)
    np.testing.assert_array_equal(est.query_points_, np.unique(X, axis=0))


# ---------------------------------------------------------------------------
# V/V': nothing derived from y before the mechanism
# ---------------------------------------------------------------------------
_PUBLIC = (
    "noise_std_",
    "noise_cov_",
    "sensitivity_",
    "solver_",
    "alpha_",
    "query_points_",
)


@pytest.mark.parametrize("method", ["cloaking", "standard"])
@pytest.mark.parametrize("inducing", [None, 8])
def test_outputs_enter_only_through_the_linear_map(method, inducing):
    X, y = _data()
    y2 = -1.9 * np.cos(3 * X[:, 0])  # very different outputs, inside the bounds
    a = _fit_quiet(
        _est(
            method=method,
            inducing_points=inducing,
            noise_random_state=3,
            random_state=0,  # public k-means seed
        ),
        X,
        y,
    )
    b = _fit_quiet(
        _est(
            method=method,
            inducing_points=inducing,
            noise_random_state=3,
            random_state=0,
        ),
        X,
        y2,
    )
    for name in _PUBLIC:
        va, vb = getattr(a, name), getattr(b, name)
        if isinstance(va, np.ndarray):
            np.testing.assert_array_equal(va, vb)
        else:
            assert va == vb
    assert a.privacy_report_.to_dict() == b.privacy_report_.to_dict()
    assert repr(a.kernel_) == repr(b.kernel_)
    # Same noise seed: the releases differ by C (y − y2) projected on U_r only
    # (up to the public rounding grid), i.e. the noise did not depend on y.
    post = a._post
    C = post.mean_map(a.query_points_)
    diff = C @ (np.clip(y, *BOUNDS) - np.clip(y2, *BOUNDS))
    if method == "cloaking":
        U, S, _ = np.linalg.svd(C, full_matrices=False)
        Ur = U[:, : a.solver_["rank"]]
        diff = Ur @ (Ur.T @ diff)
    step = 2.0 ** np.floor(np.log2(a.privacy_report_.releases[0]["noise_scale"]))
    np.testing.assert_allclose(
        a.released_mean_ - b.released_mean_, diff, atol=1e-5 * step + 1e-9
    )


def test_selection_public_parts_do_not_depend_on_outputs():
    X, y = _data(n=30)
    y2 = np.where(X[:, 0] > 5, 1.9, -1.9)
    grid = {"kernel__length_scale": [0.5, 1.5, 4.0], "alpha": [0.05, 0.3]}
    sel = PrivateGridSelection(grid, epsilon_fraction=0.4, n_folds=3)
    a = _fit_quiet(_est(hyperparameter_selection=sel, random_state=0), X, y)
    b = _fit_quiet(_est(hyperparameter_selection=sel, random_state=0), X, y2)
    ra, rb = a.privacy_report_.releases, b.privacy_report_.releases
    assert ra[0]["quantity"] == "selected_params_"
    assert ra[0]["sensitivity"] == rb[0]["sensitivity"]  # Δu: public
    assert ra[0]["epsilon"] == pytest.approx(0.4)
    assert ra[1]["epsilon"] == pytest.approx(0.6)
    assert a.privacy_report_.epsilon == pytest.approx(1.0)
    assert a.selected_params_ in a.candidate_params_
    assert a.kernel_.length_scale == a.selected_params_["kernel__length_scale"]
    assert a.alpha_ == a.selected_params_["alpha"]


def test_selection_prefers_good_configurations():
    """At a large selection ε the CV score picks a sensible length-scale.

    Power check: the true function sin(x) needs ℓ ≈ 1; ℓ = 50 (a constant)
    and ℓ = 0.01 (no smoothing) must essentially never be chosen.
    """
    X, y = _data(n=60, seed=2)
    grid = {"kernel__length_scale": [0.01, 1.0, 50.0]}
    sel = PrivateGridSelection(grid, epsilon_fraction=0.5)
    picks = [
        _fit_quiet(
            _est(hyperparameter_selection=sel, epsilon=200.0, random_state=i), X, y
        ).selected_params_["kernel__length_scale"]
        for i in range(5)
    ]
    assert picks == [1.0] * 5


def test_public_data_selection_spends_nothing_on_selection():
    X, y = _data(n=50, seed=1)
    Xp, yp = _data(n=50, seed=9)  # public data of the same kind
    est = _est(
        kernel=RBF(5.0), hyperparameter_selection=PublicDataSelection(Xp, yp)
    ).fit(X, y)
    assert len(est.privacy_report_.releases) == 1
    assert est.privacy_report_.epsilon == 1.0
    assert 0.3 < est.kernel_.length_scale < 3.0  # fitted on the public data
    # The report states what the released mean's guarantee now assumes.
    assert "PublicDataSelection data" in est.privacy_report_.releases[0]["assumption"]


def test_public_data_selection_refuses_the_private_outputs():
    """Given the very array (or a view of it) passed as the private y, fit
    refuses before anything is charged; identity and memory only, never the
    values (so whether it raises does not depend on the private data)."""
    X, y = _data(n=50, seed=1)
    for public_y in (y, y[:]):
        acc = BudgetAccountant(epsilon=5.0, delta=0.1)
        est = _est(
            kernel=RBF(5.0),
            hyperparameter_selection=PublicDataSelection(X, public_y),
            accountant=acc,
        )
        with pytest.raises(ValueError, match="private outputs"):
            est.fit(X, y)
        assert acc.spent == (0.0, 0.0)
    # Equal values in another array are not refused (values are not read).
    _est(
        kernel=RBF(5.0), hyperparameter_selection=PublicDataSelection(X, y.copy())
    ).fit(X, y)


def test_public_data_selection_is_the_same_for_neighbouring_private_outputs():
    """Private y and y′ differ in one record (pushed to the bound): the
    hyper-parameters fitted on the public data, the warnings and the
    report are the same; only the noisy release may differ."""
    X, y = _data(n=50, seed=1)
    Xp, yp = _data(n=50, seed=9)
    y2 = y.copy()
    y2[7] = BOUNDS[1]
    sides = []
    for y_private in (y, y2):
        est = _est(
            kernel=RBF(5.0),
            hyperparameter_selection=PublicDataSelection(Xp, yp),
            random_state=0,
        )
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            est.fit(X, y_private)
        sides.append(
            (
                repr(est.kernel_),
                est.alpha_,
                sorted(str(w.message) for w in seen),
                sorted(k for k in vars(est) if k.endswith("_")),
                est.privacy_report_.to_dict(),
            )
        )
    assert sides[0] == sides[1]


def test_bad_selection_grid_refused():
    X, y = _data()
    with pytest.raises(ValueError, match="only 'alpha'"):
        _est(hyperparameter_selection=PrivateGridSelection({"C": [1]})).fit(X, y)
    with pytest.raises(ValueError, match="epsilon_fraction"):
        _est(
            hyperparameter_selection=PrivateGridSelection(
                {"alpha": [0.1]}, epsilon_fraction=1.0
            )
        ).fit(X, y)


# ---------------------------------------------------------------------------
# Leaks
# ---------------------------------------------------------------------------
def test_no_output_value_in_pickle_repr_or_report():
    X, y = _data()
    y = y + 1e-7 * np.arange(len(y))  # distinctive bit patterns
    est = _est().fit(X, y)
    blob = pickle.dumps(est)
    y_n = np.clip(y, *BOUNDS) / 1.0
    for v in np.concatenate([y, y_n]):
        assert np.float64(v).tobytes() not in blob
    text = repr(est) + str(est.privacy_report_) + repr(est.privacy_report_)
    for v in y:
        assert f"{v:.6f}" not in text


def test_inducing_points_large_n_runs():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 10, size=(3000, 1))
    y = np.sin(X[:, 0]) + 0.3 * rng.normal(size=3000)
    est = _est(inducing_points=30, random_state=0, epsilon=1.0).fit(X, y)
    assert est.inducing_points_.shape == (30, 1)
    assert est.solver_["converged"]
    err = est.predict(np.linspace(1, 9, 5)[:, None]) - np.sin(np.linspace(1, 9, 5))
    assert np.sqrt(np.mean(err**2)) < 0.5

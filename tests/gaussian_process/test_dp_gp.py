"""DPGaussianProcessRegressor: estimator behaviour, V/V' data independence, budget.

V/V' tests (TESTING.md): every fitted attribute other than the released
vector is identical for two very different output vectors, and with the
same (test-only) noise seed the two releases differ by exactly the
mechanism's linear map applied to the outputs: nothing derived from the
outputs enters the noise, the sensitivity or the noise design.
"""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
from scipy.linalg import solve_triangular
from sklearn.gaussian_process.kernels import RBF
from sklearn.gaussian_process.kernels import ConstantKernel as CK
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import (
    check_fit2d_1sample,
    parametrize_with_checks,
)

from sklearn_dpbo import (
    BudgetAccountant,
    BudgetError,
    DPGaussianProcessRegressor,
    PrivacyLeakWarning,
)
from sklearn_dpbo.bo._gp_posterior import ExactPosterior
from sklearn_dpbo.gaussian_process import PrivateGridSelection, PublicDataSelection
from sklearn_dpbo.privacy._gaussian_mechanism import (
    analytic_gaussian_scale,
    gaussian_delta,
)

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
# The non_deterministic tag (true with fresh noise) makes scikit-learn 1.6.1 to
# 1.9.1 skip only check_methods_sample_order_invariance,
# check_methods_subset_invariance and check_pipeline_consistency; the four
# checks below compare two fits whatever the tag says, so they are listed.
_TWO_FITS = (
    "compares the outputs of two fits on the same data; with fresh CSPRNG "
    "noise (noise_random_state=None, the production setting) two releases "
    "differ by design. It passes with seeded noise (the first instance)."
)


def _expected_failed_checks(estimator):
    expected = {
        "check_supervised_y_no_nan": (
            "the private outputs are never checked for finiteness: whether fit "
            "raises would then depend on one private record. NaN and +-inf are "
            "mapped into y_bounds record by record (see "
            "test_non_finite_or_non_numeric_output_is_its_public_image)."
        )
    }
    if estimator.noise_random_state is None:  # issue 22: fresh noise
        for name in (
            "check_regressor_data_not_an_array",
            "check_supervised_y_2d",
            "check_regressors_int",
            "check_fit_idempotent",
        ):
            expected[name] = _TWO_FITS
    return expected


@parametrize_with_checks(
    # A fixed noise seed makes two fits comparable, which several checks need
    # (e.g. check_regressor_data_not_an_array compares two fits); the
    # PrivacyLeakWarning this triggers is expected. The second instance is
    # the production setting (fresh noise).
    [
        DPGaussianProcessRegressor(y_bounds=(-100.0, 100.0), noise_random_state=0),
        DPGaussianProcessRegressor(y_bounds=(-100.0, 100.0)),
    ],
)
@pytest.mark.filterwarnings("ignore::sklearn_dpbo.PrivacyLeakWarning")
def test_sklearn_compatible(estimator, check):
    name = getattr(check, "func", check).__name__
    if name in _expected_failed_checks(estimator):
        # Must fail, for the reason listed (strict; an xfail's traceback
        # report cost ~0.3 s per check).
        with pytest.raises(AssertionError):
            check(estimator)
        return
    if name == "check_pipeline_consistency" and estimator.noise_random_state is None:
        # scikit-learn skips it for non-deterministic estimators (fresh noise);
        # it runs on the seeded instance. Assert the declaration instead.
        assert get_tags(estimator).non_deterministic
        return
    check(estimator)


def test_non_deterministic_tag_is_true_exactly_with_fresh_noise():
    assert get_tags(_est()).non_deterministic is True
    assert get_tags(_est(noise_random_state=0)).non_deterministic is False


def test_private_selection_on_one_row_refused_as_scikit_learn_expects():
    # scikit-learn's check_fit2d_1sample on the private-selection path. The
    # whole check suite on this instance (7 s, so not run here) fails only
    # this check and the listed check_supervised_y_no_nan. The refusal is
    # decided by the public row count, before any spend.
    est = DPGaussianProcessRegressor(
        y_bounds=(-100.0, 100.0),
        hyperparameter_selection=PrivateGridSelection({"alpha": [0.1, 1.0]}, n_folds=2),
        random_state=0,
    )
    check_fit2d_1sample(type(est).__name__, est)
    acc = BudgetAccountant(epsilon=5.0, delta=0.1)
    with pytest.raises(ValueError, match="n_folds=2 rows .* got n_samples=1"):
        est.set_params(accountant=acc).fit(np.zeros((1, 2)), [0.5])
    assert acc.spent == (0.0, 0.0)


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
    with pytest.raises(BudgetError):
        _est(accountant=small).fit(X, y_nan)
    assert small.spent == (0.0, 0.0)
    # A NaN output is one record's value (the midpoint), not an error.
    acc = BudgetAccountant(epsilon=2.0, delta=1e-2)
    _est(accountant=acc).fit(X, y_nan)
    _est(accountant=acc).fit(X, y)
    assert acc.spent == pytest.approx((2.0, 2e-3))
    assert len(acc.history) == 2


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


def _actual_delta(gp, eps):
    """δ(ε) of the released vector itself: the Gaussian mechanism with the
    fitted noise covariance and mean difference d · c_j (exact, brute force)."""
    X = gp.query_points_  # here the training inputs
    A = np.linalg.inv(gp.kernel_(X) + gp.alpha_ * np.eye(len(X)))
    C = gp.kernel_(gp.query_points_, X) @ A
    d = (BOUNDS[1] - BOUNDS[0]) / gp._scale
    V = solve_triangular(np.linalg.cholesky(gp._noise_cov_n), d * C, lower=True)
    return gaussian_delta(eps, float(np.sqrt(np.max(np.sum(V**2, axis=0)))))


def test_paper_faithful_standard_flags_a_kernel_variance_beyond_max_pn():
    """The paper's max(P, N) assumes kernel values in [0, 1]: for c · RBF it
    is √c too small. Reviewer's repro (pf_kernel_scale.py): at c = 10 the
    release's actual δ was 0.066 against the claimed 1e-3, reported as
    (ε, δ)-DP with no warning. The label must agree with the actual δ."""
    X, y = np.arange(10.0)[:, None] * 10.0, np.zeros(10)
    kw = dict(method="standard", paper_faithful=True, query_points=None)
    labels = {}
    for c in (1.0, 2.0, 10.0):
        est = _est(kernel=CK(c, "fixed") * RBF(1.0, "fixed"), alpha=0.1, **kw)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            est.fit(X, y)
        guarantee = est.privacy_report_.releases[0]["guarantee"]
        dp = _actual_delta(est, 1.0) <= 1e-3
        assert guarantee.startswith("(ε, δ)-DP" if dp else "NOT DP (the paper's")
        assert any("NOT differentially" in str(w.message) for w in seen) == (not dp)
        labels[c] = dp
    # c = 2: max(P, N) is too small, but Hall's slack at ε = 1 covers it.
    assert labels == {1.0: True, 2.0: True, 10.0: False}


def test_paper_faithful_warns_if_any_grid_configuration_is_not_dp():
    """Validity is per configuration: the warning covers the whole grid,
    before any output is read (main checked only the first plan)."""
    X, y = np.arange(10.0)[:, None] * 10.0, np.zeros(10)
    grid = {"kernel__k1__constant_value": [1.0, 10.0]}
    est = _est(
        kernel=CK(1.0, "fixed") * RBF(1.0, "fixed"),
        method="standard",
        paper_faithful=True,
        query_points=None,
        hyperparameter_selection=PrivateGridSelection(grid, n_folds=2),
    )
    with pytest.warns(PrivacyLeakWarning, match="for some candidate configurations"):
        est.fit(X, y)


@pytest.mark.parametrize("method", ["cloaking", "standard"])
def test_non_psd_kernel_refused_before_any_spend(method):
    """k(X_*, X_*) is factored while planning (reviewer's post_spend2.py:
    cloaking factored it after the spend and lost the paid release)."""
    X, y = _data(n=20)
    acc = BudgetAccountant(epsilon=10.0, delta=0.5)
    est = _est(kernel=CK(-0.1) * RBF(1.0), alpha=1.0, method=method, accountant=acc)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        est.fit(X, y)
    assert acc.spent == (0.0, 0.0)


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
    # return_std is the released function's: posterior variance plus the
    # release noise variance at each query input (output units).
    post = ExactPosterior(RBF(1.5), X, 0.2)
    _, std = est.predict(Xq, return_std=True)
    np.testing.assert_allclose(
        std, np.sqrt(scale**2 * post.variance(Xq) + est.noise_std_**2)
    )
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


@pytest.mark.parametrize("method", ["cloaking", "standard"])
def test_return_std_and_cov_are_the_released_functions(method):
    """Issue 24, item 4: return_std / return_cov describe the released
    function, computed here by hand: scikit-learn's posterior variance
    (latent f) plus the release noise carried through the interpolation,
    a(x)ᵀ noise_cov_ a(x), with a(x) = e_j at query input j and
    K_**⁻¹ k(X_*, x) elsewhere. Main returned the posterior's alone, far
    below the release's error."""
    from sklearn.gaussian_process import GaussianProcessRegressor

    X, y = _data()
    y_bounds = (-3.0, 5.0)  # scale 2, offset 1: the units matter
    scale, offset = 2.0, 1.0
    est = _est(method=method, y_bounds=y_bounds).fit(X, y)
    Xq = est.query_points_
    x_new = np.array([[2.345], [7.5], [12.0]])
    Xt = np.vstack([Xq[[0, 4, 9]], x_new])
    gpr = GaussianProcessRegressor(RBF(1.5), alpha=0.2, optimizer=None)
    gpr.fit(X, (np.clip(y, *y_bounds) - offset) / scale)
    _, post_std = gpr.predict(Xt, return_std=True)
    _, post_cov = gpr.predict(Xt, return_cov=True)
    A = np.zeros((6, Xq.shape[0]))
    A[[0, 1, 2], [0, 4, 9]] = 1.0
    A[3:] = np.linalg.solve(RBF(1.5)(Xq), RBF(1.5)(Xq, x_new)).T
    noise_var = np.einsum("ij,jk,ik->i", A, est.noise_cov_, A)
    expected_std = np.sqrt(scale**2 * post_std**2 + noise_var)
    mean, std = est.predict(Xt, return_std=True)
    np.testing.assert_allclose(std, expected_std, rtol=1e-5)
    # At the query inputs: posterior variance + noise_std_², exactly.
    np.testing.assert_allclose(
        std[:3] ** 2,
        scale**2 * post_std[:3] ** 2 + est.noise_std_[[0, 4, 9]] ** 2,
        rtol=1e-9,
    )
    assert np.all(std[:3] > est.noise_std_[[0, 4, 9]])  # the noise is in it
    _, cov = est.predict(Xt, return_cov=True)
    np.testing.assert_allclose(
        cov, scale**2 * post_cov + A @ est.noise_cov_ @ A.T, rtol=1e-5, atol=1e-9
    )
    np.testing.assert_allclose(np.sqrt(np.diag(cov)), std, rtol=1e-6)
    np.testing.assert_allclose(mean, est.predict(Xt))


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


def _misuses(X, y):
    """Selection data that are the private data (issue 19, N5), and whether
    ``fit`` can tell from public objects alone: ``"refused"`` (the very array,
    by identity), ``"warned"`` (its inputs are the public X's rows) or
    ``None`` (undetectable without comparing private values)."""
    perm = np.random.default_rng(5).permutation(len(y))
    return {
        "same array": ((X, y), "refused"),
        "view": ((X, y[:]), "refused"),
        "copy": ((X, y.copy()), "warned"),
        "list": ((X.tolist(), y.tolist()), "warned"),
        "reordered rows": ((X[perm], y[perm]), "warned"),
        "slice": ((X[10:30].copy(), y[10:30].copy()), "warned"),
        "subset": ((X[perm[:7]], y[perm[:7]]), "warned"),
        "clipped copy": ((X, np.clip(y, *BOUNDS)), "warned"),
        "copy with other X": ((X + 100.0, y.copy()), None),
    }


@pytest.mark.parametrize("misuse", sorted(_misuses(*_data(n=50, seed=1))))
def test_public_data_selection_contract_is_checked_on_public_objects(misuse):
    """The very array passed as y is refused before anything is read or
    charged; selection inputs that are the regressor's public inputs row for
    row draw a warning naming the contract; nothing compares the selection
    outputs with the private outputs (issue 19, N5; session 12 dropped that
    comparison: it made whether fit raises depend on the private data)."""
    X, y = _data(n=50, seed=1)
    y = y * 1.3
    (Xs, ys), outcome = _misuses(X, y)[misuse]
    acc = BudgetAccountant(epsilon=5.0, delta=0.1)
    est = _est(
        kernel=RBF(5.0),
        hyperparameter_selection=PublicDataSelection(Xs, ys),
        accountant=acc,
    )
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        if outcome == "refused":
            with pytest.raises(ValueError, match="very array passed to fit as y"):
                est.fit(X, y)
        else:
            est.fit(X, y)
    contract = [w for w in seen if "row for row, inputs passed" in str(w.message)]
    assert len(contract) == (outcome == "warned")
    if outcome == "refused":
        assert acc.spent == (0.0, 0.0) and acc.history == ()
        fitted = {k for k in vars(est) if k.endswith("_") and not k.startswith("_")}
        assert fitted <= {"n_features_in_"}  # public (from X), nothing else
    else:
        assert acc.spent == pytest.approx((1.0, 1e-3))


def test_public_data_selection_in_another_column_of_the_same_table_is_accepted():
    """Public outputs stored next to the private ones (two columns of one
    Fortran-ordered table: interleaved bounds, no shared element) are not
    taken for the private array."""
    X, y = _data(n=50, seed=1)
    Xp, yp = _data(n=50, seed=9)
    table = np.ascontiguousarray(np.column_stack([y, yp]))  # interleaved rows
    est = _est(
        kernel=RBF(5.0),
        hyperparameter_selection=PublicDataSelection(Xp, table[:, 1]),
    )
    est.fit(X, table[:, 0])
    assert "PublicDataSelection data" in est.privacy_report_.releases[0]["assumption"]


def test_public_data_selection_bad_public_data_error_names_it():
    """A NaN in the public selection inputs: the error names
    PublicDataSelection (not scikit-learn's bare message), before anything
    is charged."""
    X, y = _data(n=50, seed=1)
    Xp, yp = _data(n=50, seed=9)
    Xp[0, 0] = np.nan
    acc = BudgetAccountant(epsilon=5.0, delta=0.1)
    est = _est(hyperparameter_selection=PublicDataSelection(Xp, yp), accountant=acc)
    with pytest.raises(ValueError, match="PublicDataSelection's public data"):
        est.fit(X, y)
    assert acc.spent == (0.0, 0.0)


def _selection_sides(X, ys_private, Xs, ys):
    """What a fit with ``PublicDataSelection(Xs, ys)`` shows for each private
    output vector: fitted kernel and noise, warnings, fitted attribute
    names and the report without the noisy values."""
    sides = []
    for y_private in ys_private:
        est = _est(
            kernel=RBF(5.0),
            hyperparameter_selection=PublicDataSelection(Xs, ys),
            random_state=0,
        )
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            est.fit(X, y_private)
        report = est.privacy_report_.to_dict()
        for r in report["releases"]:
            r.pop("value", None)
        sides.append(
            (
                repr(est.kernel_),
                est.alpha_,
                sorted(str(w.message) for w in seen),
                sorted(k for k in vars(est) if k.endswith("_")),
                report,
            )
        )
    return sides


def _same_public_view(a, b) -> bool:
    """``a == b`` with floats compared to 1e-9 relative: both sides are
    computed from the same public inputs, but threaded LAPACK may round them
    differently from run to run (seen at 2e-12 relative on numpy 1.23.2)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_public_view(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(map(_same_public_view, a, b))
    return bool(np.all(a == b))


def test_public_data_selection_misuse_is_the_same_for_neighbouring_outputs():
    """An attacker's pair: the selection data are a copy of the private rows
    of V; V′ differs from V in one output (the selection data unchanged).
    Whether fit raises, its warnings, the fitted hyper-parameters and the
    report's fields other than the noisy value are the same on both sides:
    the misuse check reads no private output."""
    X, y = _data(n=50, seed=1)
    y2 = y.copy()
    y2[7] = BOUNDS[1] if y[7] < 0 else BOUNDS[0]
    sides = _selection_sides(X, (y, y2), X.copy(), y.copy())  # V's own rows
    assert _same_public_view(*sides)
    assert any("row for row" in m for m in sides[0][2])


def test_public_data_selection_accepts_public_data_sharing_some_rows():
    """Independent public data are accepted even when some rows coincide with
    private rows (no warning either: their inputs are not all private
    inputs)."""
    X, y = _data(n=50, seed=1)
    Xp, yp = _data(n=50, seed=9)
    Xp[:5], yp[:5] = X[:5], y[:5]  # five coincident rows
    acc = BudgetAccountant(epsilon=5.0, delta=0.1)
    est = _est(
        kernel=RBF(5.0),
        hyperparameter_selection=PublicDataSelection(Xp, yp),
        accountant=acc,
    ).fit(X, y)
    assert acc.spent == pytest.approx((1.0, 1e-3))
    assert "PublicDataSelection data" in est.privacy_report_.releases[0]["assumption"]


def test_public_data_selection_is_the_same_for_neighbouring_private_outputs():
    """Private y and y′ differ in one record (pushed to the bound): the
    hyper-parameters fitted on the public data, the warnings and the
    report are the same; only the noisy release may differ."""
    X, y = _data(n=50, seed=1)
    Xp, yp = _data(n=50, seed=9)
    y2 = y.copy()
    y2[7] = BOUNDS[1]
    sides = _selection_sides(X, (y, y2), Xp, yp)
    assert _same_public_view(*sides)


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
# V/V': one private output, whatever its value or type, is one record's value
# (issue 19, N3: main raised on a NaN or +-inf output and released otherwise)
# ---------------------------------------------------------------------------
class _WarningFloat:
    """A record of a user type whose conversion warns."""

    def __float__(self):
        warnings.warn("converted a record", UserWarning, stacklevel=2)
        return 0.3


J = 7  # the record that differs
# (value at J, its public image in BOUNDS = (-2, 2))
_ODD = {
    "nan": (np.nan, 0.0),
    "+inf": (np.inf, 2.0),
    "-inf": (-np.inf, -2.0),
    "string": ("abc", 0.0),
    "None": (None, 0.0),
    "two-element list": ([1.0, 2.0], 0.0),
    "complex": (1.0 + 2.0j, 0.0),
    "numeric string": ("1.25", 1.25),
    "one-element array": (np.array([0.7]), 0.7),
    "huge int": (10**400, 2.0),
    "warning __float__": (_WarningFloat(), 0.3),
}
_CONTAINERS = ("list", "object array", "float array")


def _with_record(y, value, container):
    records = [float(v) for v in y]
    records[J] = value
    if container == "list":
        return records
    if container == "object array":
        out = np.empty(len(records), dtype=object)
        out[:] = records
        return out
    return np.asarray(records, dtype=float)


def _observe(X, y, capsys, **kw):
    """Everything a user of the fit can see (noise seeded the same on both sides)."""
    est = _est(noise_random_state=3, random_state=0, **kw)
    capsys.readouterr()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            est.fit(X, y)
            raised = None
        except Exception as exc:  # noqa: BLE001 - the outcome is compared
            raised = f"{type(exc).__name__}: {exc}"
    printed = capsys.readouterr()
    fitted = sorted(k for k in vars(est) if k.endswith("_") and not k.startswith("_"))
    return est, {
        "raised": raised,
        "warnings": sorted(f"{w.category.__name__}: {w.message}" for w in seen),
        "printed": (printed.out, printed.err),
        "attributes": fitted,
        "report": est.privacy_report_.to_dict() if raised is None else None,
    }


_CONFIGS = {
    "cloaking": {},
    "standard": {"method": "standard"},
    "cloaking + private selection": {
        "hyperparameter_selection": PrivateGridSelection(
            {"kernel__length_scale": [0.7, 1.5, 3.0]}, n_folds=3
        )
    },
}


_IMAGE_FITS: dict = {}


def _image_config(config):
    """``_CONFIGS[config]`` on 6 query points instead of 15: the test compares
    two fits, whose cost (the cloaking design) grows with the query points;
    the outputs' mapping into y_bounds comes before any of it."""
    return dict(_CONFIGS[config], query_points=np.linspace(-1, 11, 6)[:, None])


def _public_image_fit(image, config, capsys):
    """``_observe`` of the data set with ``image`` at J (a float array), fitted
    once per (image, config): several odd values share a public image, and
    the fit is deterministic (seeded noise), so it is reused (read only)."""
    key = (image, config)
    if key not in _IMAGE_FITS:
        X, y = _data()
        y_image = _with_record(y, image, "float array")
        _IMAGE_FITS[key] = _observe(X, y_image, capsys, **_image_config(config))
    return _IMAGE_FITS[key]


@pytest.mark.parametrize("config", sorted(_CONFIGS))
@pytest.mark.parametrize(
    "odd, container",
    [
        (odd, container)
        for odd in sorted(_ODD)
        for container in _CONTAINERS
        if container != "float array" or isinstance(_ODD[odd][0], float)
    ],
)
def test_non_finite_or_non_numeric_output_is_its_public_image(
    odd, container, config, capsys
):
    """An odd output (NaN, +-inf, a string, None, a user type...) gives exactly
    the fit of a data set with its public image there (NaN and non-numbers:
    the midpoint of y_bounds; +-inf: the nearest bound): same outcome (no
    raise), warnings, printed output, attributes, report, and the same
    release bit for bit with the same noise seed."""
    value, image = _ODD[odd]
    X, y = _data()
    kw = _image_config(config)
    a, seen_a = _observe(X, _with_record(y, value, container), capsys, **kw)
    b, seen_b = _public_image_fit(image, config, capsys)
    assert seen_a == seen_b
    assert seen_a["raised"] is None
    np.testing.assert_array_equal(a.released_mean_, b.released_mean_)
    assert getattr(a, "selected_index_", None) == getattr(b, "selected_index_", None)


def _longdouble_beyond_float64(y):
    """A long double output beyond float64's range (+inf where long double
    is float64)."""
    huge = np.longdouble("1e4000") if np.finfo(np.longdouble).max > 1e308 else np.inf
    return y.astype(np.longdouble), huge


def _subnormal(y):
    return y, 1e-308


@pytest.mark.parametrize("odd", [_longdouble_beyond_float64, _subnormal])
def test_an_extreme_output_under_the_users_seterr_raise_releases(odd):
    """V has a finite output at J, V' a long double beyond float64's range
    (the cast ran without errstate and raised on V' only before session 12's
    review) or 1e-308, whose scaling underflows (it ran outside the silent
    section and raised on V' only before the seventh review of 2026-11-25):
    with the user's ``np.seterr(all="raise")`` both fits release and charge
    the same."""
    X, y = _data()
    ya, value = odd(y)
    yb = ya.copy()
    yb[7] = value
    spent = []
    with np.errstate(all="raise"):
        for y_private in (ya, yb):
            acc = BudgetAccountant(epsilon=5.0, delta=0.1)
            _est(accountant=acc).fit(X, y_private)
            spent.append(acc.spent)
    assert spent[0] == spent[1] == pytest.approx((1.0, 1e-3))


@pytest.mark.parametrize("method", ["cloaking", "standard"])
@pytest.mark.parametrize("odd", ["nan", "+inf", "-inf", "string"])
def test_non_finite_or_non_numeric_output_vs_a_finite_one(odd, method, capsys):
    """V has a finite output at J, V' a NaN / +-inf / "abc" (a list): both
    fits release; warnings, printed output, attribute names, report and
    every public attribute are equal, and the releases differ by the
    mechanism's linear map of the mapped outputs only."""
    X, y = _data()
    container = "list" if odd == "string" else "float array"
    a, seen_a = _observe(X, _with_record(y, 0.9, container), capsys, method=method)
    b, seen_b = _observe(
        X, _with_record(y, _ODD[odd][0], container), capsys, method=method
    )
    assert seen_a == seen_b
    assert seen_a["raised"] is None
    for name in _PUBLIC:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    mapped_a = np.clip(_with_record(y, 0.9, "float array"), *BOUNDS)
    mapped_b = np.clip(_with_record(y, _ODD[odd][1], "float array"), *BOUNDS)
    C = a._post.mean_map(a.query_points_)
    diff = C @ (mapped_a - mapped_b)
    if method == "cloaking":
        U, _, _ = np.linalg.svd(C, full_matrices=False)
        Ur = U[:, : a.solver_["rank"]]
        diff = Ur @ (Ur.T @ diff)
    step = 2.0 ** np.floor(np.log2(a.privacy_report_.releases[0]["noise_scale"]))
    np.testing.assert_allclose(
        a.released_mean_ - b.released_mean_, diff, atol=1e-5 * step + 1e-9
    )


@pytest.mark.parametrize("dtype", ["Float64", "object", "string"])
def test_pandas_missing_output_is_the_midpoint(dtype, capsys):
    """A pandas Series with one missing output (pd.NA / None): the fit of the
    midpoint there, bit for bit, with nothing raised, warned or printed."""
    pd = pytest.importorskip("pandas")
    X, y = _data()
    values = [str(v) if dtype == "string" else float(v) for v in y]
    values[J] = None
    a, seen_a = _observe(X, pd.Series(values, dtype=dtype), capsys)
    b, seen_b = _observe(X, _with_record(y, 0.0, "float array"), capsys)
    assert seen_a == seen_b and seen_a["raised"] is None
    np.testing.assert_array_equal(a.released_mean_, b.released_mean_)


def test_report_states_the_mapping_of_odd_outputs():
    X, y = _data()
    est = _est().fit(X, y)
    assumption = est.privacy_report_.releases[-1]["assumption"]
    assert "NaN or a record that does not convert" in assumption
    assert "midpoint of y_bounds" in assumption


class _SpyOutput:
    """A private output that notes how many warnings were seen when read."""

    def __init__(self, value, seen, reads):
        self.value, self.seen, self.reads = value, seen, reads

    def __float__(self):
        self.reads.append(len(self.seen))
        return float(self.value)


@pytest.mark.parametrize(
    "kw",
    [
        {"paper_faithful": True, "epsilon": 20.0},  # Hall's multiplier warning
        # Noise-free public outputs: scikit-learn warns that the fitted noise
        # level is at its lower bound (a figure, but of public data).
        {
            "hyperparameter_selection": PublicDataSelection(
                np.linspace(0, 10, 30)[:, None], np.sin(np.linspace(0, 10, 30))
            )
        },
    ],
    ids=["hall", "public-selection"],
)
def test_every_warning_precedes_the_first_read_of_the_outputs(kw, capsys):
    """Issue 19, item 4 for DP GP: nothing is printed, and every warning
    (all of them public) is emitted before the first private output is read,
    so none can carry a figure measured after the read (main read y before
    the public planning that warns)."""
    X, y = _data()
    capsys.readouterr()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        reads: list[int] = []
        y_spy = [_SpyOutput(v, seen, reads) for v in y]
        _est(noise_random_state=3, **kw).fit(X, y_spy)
    assert len(seen) >= 2  # the noise-seed warning and the configuration's
    assert reads and set(reads) == {len(seen)}  # no warning after the first read
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize(
    "y, error",
    [
        (None, "requires y to be passed"),
        (np.zeros((40, 2)), "1d array"),
        (np.zeros(39), "inconsistent numbers of samples"),
        ([0.0] * 41, "inconsistent numbers of samples"),
        (np.zeros(40, dtype="datetime64[D]"), "must hold numbers"),
        ("abc", "1-d array-like"),
    ],
)
def test_output_container_checked_without_reading_values(y, error):
    """Only the container of the private y is validated (public: type, shape,
    an array's dtype), before any charge."""
    X, _ = _data()
    acc = BudgetAccountant(epsilon=5.0, delta=0.1)
    with pytest.raises((ValueError, TypeError), match=error):
        _est(accountant=acc).fit(X, y)
    assert acc.spent == (0.0, 0.0)


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
    report = est.privacy_report_
    text = repr(est) + str(report) + report.explain() + repr(report)
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

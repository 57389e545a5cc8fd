"""estimate_dataset_kernel: the paper's Section 6 experiment (DPBO.md §7)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_dpbo import DPBayesSearchCV, make_dp_scorer
from sklearn_dpbo.bo._gp import kernel_matrix
from sklearn_dpbo.model_selection import DPGPUCB, estimate_dataset_kernel
from sklearn_dpbo.model_selection._dataset_kernel import (
    _neighbour,
    multitask_log_likelihood,
)

pytestmark = pytest.mark.usefixtures("single_blas_thread")


def test_likelihood_matches_scipy_multivariate_normal():
    rng = np.random.default_rng(0)
    X = rng.random((4, 2))
    K2 = kernel_matrix(X, X, "matern52", 0.3)
    F, G = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    grid = [0.05, 0.5, 0.95]
    noise = 0.02
    got = multitask_log_likelihood(F, G, K2, grid, noise)
    for k1, value in zip(grid, got):
        cov = np.block([[K2, k1 * K2], [k1 * K2, K2]]) + noise * np.eye(8)
        want = sum(
            multivariate_normal(np.zeros(8), cov).logpdf(np.r_[F[i], G[i]])
            for i in range(3)
        )
        assert value == pytest.approx(want, rel=1e-10)


@pytest.mark.parametrize("k1_true", [0.3, 0.8])
def test_known_k1_is_recovered_from_synthetic_data(k1_true):
    rng = np.random.default_rng(1)
    X = rng.random((30, 2))
    K2 = kernel_matrix(X, X, "matern52", 0.2)
    noise = 0.01
    cov = np.block([[K2, k1_true * K2], [k1_true * K2, K2]]) + noise * np.eye(60)
    draws = rng.multivariate_normal(np.zeros(60), cov, size=200)
    grid = np.round(np.arange(1, 20) * 0.05, 2)
    ll = multitask_log_likelihood(draws[:, :30], draws[:, 30:], K2, grid, noise)
    best = grid[int(np.argmax(ll))]
    assert abs(best - k1_true) <= 0.1


def test_neighbours():
    rng = np.random.default_rng(0)
    rows = rng.choice(50, 10, replace=False)
    sizes = {len(_neighbour(rows, 50, "add-remove", rng)) for _ in range(40)}
    assert sizes == {9, 11}
    swapped = _neighbour(rows, 50, "swap", rng)
    assert len(swapped) == 10 and len(set(swapped) - set(rows)) == 1
    # The whole pool: only removal is possible.
    full = np.arange(20)
    assert len(_neighbour(full, 20, "add-remove", rng)) == 19


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:200], y[:200], X[200:], y[200:]


SPACE = {"logisticregression__C": (1e-3, 1e2, "log-uniform")}


def estimator():
    return make_pipeline(StandardScaler(), LogisticRegression())


def test_end_to_end_units_match_gp_ucb(data):
    X_tr, y_tr, X_pool, y_pool = data
    args = (estimator(), SPACE, X_tr, y_tr, X_pool, y_pool)
    kw = dict(validation_size=[50, 150], n_sets=12, n_candidates=8, random_state=3)
    res = estimate_dataset_kernel(*args, **kw)
    assert res.log_likelihood.shape == (2, 19)
    assert res.best_k1.shape == (2,) and set(res.best_k1) <= set(res.k1_grid)
    assert res.scores_V[0].shape == (12, 8)
    plan = DPBayesSearchCV(
        estimator(), SPACE, method=DPGPUCB(), n_candidates=8, random_state=3
    )._check_settings()
    assert (
        (res.score_offset, res.score_scale) == (plan.offset, plan.scale) == (0.5, 0.25)
    )
    assert res.candidate_params == plan.candidates.params
    # GP units of accuracy: (acc - 0.5) / 0.25, so within [-2, 2].
    assert np.all(np.abs(res.scores_V[1]) <= 2)
    # The built-in accuracy equals a user's per-record accuracy.
    direct = estimate_dataset_kernel(
        *args,
        **kw,
        scoring=make_dp_scorer(lambda y, p: (y == p).astype(float), bounds=(0, 1)),
    )
    for a, b in zip(
        res.scores_V + res.scores_V_prime, direct.scores_V + direct.scores_V_prime
    ):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(res.log_likelihood, direct.log_likelihood)


def test_bad_arguments(data):
    X_tr, y_tr, X_pool, y_pool = data
    with pytest.raises(ValueError, match="pool size"):
        estimate_dataset_kernel(
            estimator(), SPACE, X_tr, y_tr, X_pool, y_pool, validation_size=10_000
        )
    with pytest.raises(ValueError, match="swap"):
        estimate_dataset_kernel(
            estimator(),
            SPACE,
            X_tr,
            y_tr,
            X_pool,
            y_pool,
            validation_size=len(y_pool),
            neighbours="swap",
        )
    with pytest.raises(ValueError, match="neighbours"):
        estimate_dataset_kernel(
            estimator(),
            SPACE,
            X_tr,
            y_tr,
            X_pool,
            y_pool,
            validation_size=10,
            neighbours="other",
        )

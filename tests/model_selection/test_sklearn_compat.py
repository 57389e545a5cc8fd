"""scikit-learn conformance of DPBayesSearchCV (TESTING.md S1-S3)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import sklearn
from _modekw import with_mode
from conftest import NOISE_SEED_WARNING
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.exceptions import NotFittedError
from sklearn.gaussian_process.kernels import RBF
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import ShuffleSplit, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import get_tags
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_dpbo import DPBayesSearchCV, PrivacyLeakWarning, make_dp_scorer
from sklearn_dpbo.model_selection import DPGPUCB, PrivateSelection

pytestmark = [
    pytest.mark.usefixtures("single_blas_thread"),
    pytest.mark.filterwarnings(NOISE_SEED_WARNING),
]

CV1 = ShuffleSplit(n_splits=1, test_size=0.3, random_state=0)


def within_half(y_true, y_pred):
    """Per record: 1 if every prediction is within 0.5 of the target.

    Each record contributes a term in {0, 1}, so the mean is a bounded score
    in [0, 1] with swap-one sensitivity 1/m: a legitimate private regression
    score (R^2 is not: one record can move it without bound).
    """
    y_true = np.asarray(y_true, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float).reshape(y_true.shape)
    close = np.abs(y_true - y_pred) <= 0.5
    return close.reshape(len(close), -1).all(axis=1).astype(float)


def _instances():
    # noise_random_state (tests only): check_fit_idempotent needs reproducible
    # releases; random_state seeds only the public randomness.
    common = dict(
        cv=CV1, n_iter=2, error_score="raise", random_state=0, noise_random_state=0
    )
    return [
        # Private grid search: every candidate scored on the validation set.
        DPBayesSearchCV(
            LogisticRegression(),
            {"C": [0.1, 1.0]},
            method=PrivateSelection(shortlist="grid"),
            **common,
        ),
        # Default private selection: public BO shortlist inside the training set.
        DPBayesSearchCV(
            make_pipeline(StandardScaler(), LogisticRegression()),
            {"logisticregression__C": [0.1, 1.0, 10.0]},
            method=PrivateSelection(shortlist_size=2, public_cv=2),
            **common,
        ),
        # Kusner et al. GP-UCB, classifier and regressor.
        DPBayesSearchCV(
            LogisticRegression(), {"C": [0.1, 1.0]}, method=DPGPUCB(), **common
        ),
        DPBayesSearchCV(
            Ridge(),
            {"alpha": [0.1, 1.0]},
            method="gp-ucb",
            scoring=make_dp_scorer(within_half, bounds=(0.0, 1.0)),
            **common,
        ),
    ]


# The checks that compare the outputs of two fits (or of a fit and a refit
# on the same data in another container). With fresh CSPRNG noise two fits
# release differently by design (the non_deterministic tag); the same checks
# pass with seeded noise (the instances of _instances()).
TWO_FITS_COMPARED = (
    "compares the outputs of two fits on the same data; with fresh CSPRNG "
    "noise (noise_random_state=None, the production setting) the releases "
    "differ by design, so the refitted best_estimator_ may differ. It passes "
    "with seeded noise (see _instances)."
)
FRESH_NOISE_FAILURES = {
    name: TWO_FITS_COMPARED
    for name in (
        "check_fit_idempotent",
        "check_classifier_data_not_an_array",
        "check_regressor_data_not_an_array",
        "check_supervised_y_2d",
        "check_regressors_int",
    )
}


def _fresh_noise_instances():
    # issue 22: check_estimator on the production setting (fresh noise), one
    # split from a public splitter; a classifier and a regressor search.
    common = dict(cv=CV1, n_iter=2, error_score="raise", random_state=0)
    return [
        DPBayesSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, **common),
        DPBayesSearchCV(
            Ridge(),
            {"alpha": [0.1, 1.0]},
            scoring=make_dp_scorer(within_half, bounds=(0.0, 1.0)),
            **common,
        ),
    ]


def _expected_failed_checks(estimator):
    """With seeded noise, no check is expected to fail.

    Earlier failures were genuine incompatibilities and were fixed in
    ``_search.py`` instead of being listed here: objects without ``len``
    (``check_*_data_not_an_array``), target tags not forwarded
    (``check_supervised_y_2d``), a missing "requires y" error
    (``check_requires_y_none``) and an unhelpful error for object-dtype labels
    in the public cross-validation (``check_dtype_object``). With fresh
    noise, only the checks comparing two fits (:data:`FRESH_NOISE_FAILURES`;
    non-strict: two fits may still agree by chance).
    """
    if estimator.noise_random_state is None:
        return FRESH_NOISE_FAILURES
    return {}


@parametrize_with_checks(
    _instances() + _fresh_noise_instances(),
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_estimator_checks(estimator, check):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        # As sklearn's own test_search_cv does.
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", FutureWarning)
        # The instances seed the noise (tests only); fit says so every time.
        warnings.filterwarnings(
            "ignore", "noise_random_state is set", PrivacyLeakWarning
        )
        if _skipped_as_non_deterministic(estimator, check):
            return
        check(estimator)


def _skipped_as_non_deterministic(estimator, check) -> bool:
    """scikit-learn skips check_pipeline_consistency for non-deterministic
    estimators (fresh noise); it runs on the seeded instances. Instead of a
    skip, assert the declaration that makes scikit-learn skip it."""
    name = getattr(check, "func", check).__name__
    if name == "check_pipeline_consistency" and estimator.noise_random_state is None:
        assert get_tags(estimator).non_deterministic
        return True
    return False


# ---------------------------------------------------------------------------
# Parameters, clone, pickle
# ---------------------------------------------------------------------------


def _lr_search(**kw):
    params = dict(cv=CV1, n_iter=3, random_state=0, noise_random_state=0)
    params.update(kw)
    params = with_mode(params.pop("method", "private-selection"), params, public_cv=2)
    return DPBayesSearchCV(
        make_pipeline(StandardScaler(), LogisticRegression()),
        {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]},
        **params,
    )


@pytest.fixture(scope="module")
def cancer_all(cancer_split):
    X_tr, y_tr, X_va, y_va = cancer_split
    return np.vstack([X_tr, X_va]), np.concatenate([y_tr, y_va])


def test_parameter_constraints_match_get_params():
    search = _lr_search()
    assert set(search._parameter_constraints) == set(search.get_params(deep=False))


def test_get_set_params_nested():
    search = _lr_search()
    deep = search.get_params(deep=True)
    assert deep["estimator__logisticregression__C"] == 1.0
    assert deep["epsilon"] == 1.0
    out = search.set_params(estimator__logisticregression__C=3.0, epsilon=2.5)
    assert out is search
    assert search.estimator.named_steps["logisticregression"].C == 3.0
    assert search.epsilon == 2.5
    with pytest.raises(ValueError, match="Invalid parameter"):
        search.set_params(no_such_param=1)


def test_clone_unfitted_and_fitted(cancer_all):
    X, y = cancer_all
    search = _lr_search(epsilon=3.0)
    c = clone(search)
    assert c is not search and c.estimator is not search.estimator
    assert c.get_params(deep=False).keys() == search.get_params(deep=False).keys()
    assert c.epsilon == 3.0 and c.cv is not None

    search.fit(X, y)
    c = clone(search)
    assert not hasattr(c, "best_params_")
    assert not hasattr(c, "privacy_report_")
    with pytest.raises(NotFittedError):
        c.predict(X)
    # The clone reproduces the fit exactly (fixed random_state).
    c.fit(X, y)
    assert c.best_index_ == search.best_index_
    assert c.best_score_ == search.best_score_


def test_fit_returns_self_and_leaves_params_alone(cancer_all):
    X, y = cancer_all
    search = _lr_search()
    before = copy.deepcopy(search.get_params(deep=False))
    spaces = copy.deepcopy(search.search_spaces)
    assert search.fit(X, y) is search
    after = search.get_params(deep=False)
    assert search.search_spaces == spaces
    for key in before:
        if key in ("estimator", "cv"):
            continue
        assert after[key] == before[key], key
    # The user's estimator was cloned, never fitted.
    assert not hasattr(search.estimator.named_steps["logisticregression"], "coef_")


@pytest.mark.parametrize("method", ["private-selection", "gp-ucb"])
def test_pickle_round_trip(cancer_all, method):
    X, y = cancer_all
    search = _lr_search(method=method).fit(X, y)
    restored = pickle.loads(pickle.dumps(search))
    assert restored.best_params_ == search.best_params_
    assert restored.best_index_ == search.best_index_
    assert restored.best_score_ == search.best_score_
    assert restored.candidate_params_ == search.candidate_params_
    assert str(restored.privacy_report_) == str(search.privacy_report_)
    assert restored.privacy_report_.to_dict() == search.privacy_report_.to_dict()
    np.testing.assert_array_equal(restored.predict(X), search.predict(X))
    np.testing.assert_array_equal(restored.predict_proba(X), search.predict_proba(X))
    # A restored search can be fitted again.
    restored.fit(X, y)
    assert restored.best_index_ == search.best_index_


def test_tags_forward_the_wrapped_estimator():
    clf = _lr_search()
    assert is_classifier(clf) and not is_regressor(clf)
    reg = DPBayesSearchCV(
        Ridge(),
        {"alpha": [1.0]},
        scoring=make_dp_scorer(within_half, bounds=(0.0, 1.0)),
    )
    assert is_regressor(reg) and not is_classifier(reg)
    assert get_tags(reg).target_tags.multi_output
    assert get_tags(reg).target_tags.required
    assert not get_tags(clf).target_tags.multi_output


def test_cross_val_score_with_single_split_search(cancer_all):
    """cross_val_score calls fit(X, y): the search's cv gives its validation set."""
    X, y = cancer_all
    scores = cross_val_score(_lr_search(), X, y, cv=3)
    assert scores.shape == (3,)
    assert np.all((scores > 0.8) & (scores <= 1.0))

    # Without cv (and so without a validation set) the refusal is clear.
    with pytest.raises(ValueError, match="needs a validation set"):
        cross_val_score(_lr_search(cv=None), X, y, cv=2, error_score="raise")


def test_privacy_parameters_checked_with_validation_switched_off(cancer_all):
    """epsilon and delta are re-checked even with skip_parameter_validation."""
    X, y = cancer_all
    with sklearn.config_context(skip_parameter_validation=True):
        for bad in (0.0, -1.0, float("nan"), float("inf"), True, "1"):
            with pytest.raises((ValueError, TypeError), match="epsilon"):
                _lr_search(epsilon=bad).fit(X, y)
        for bad in (-0.1, 1.0, float("nan"), True):
            with pytest.raises((ValueError, TypeError), match="delta"):
                _lr_search(delta=bad).fit(X, y)


@pytest.mark.parametrize(
    "param, value",
    [
        ("epsilon", 0),
        ("epsilon", -1.0),
        ("epsilon", float("nan")),
        ("delta", -0.1),
        ("delta", 1.5),
        ("n_iter", 0),
        ("n_iter", 2.5),
        ("budget_split", 1.0),
        ("method", "lipschitz-typo"),
        ("random_state", "abc"),
        ("method__kernel", RBF(length_scale=0.0)),
    ],
)
def test_invalid_constructor_params_raise_invalid_parameter_error(
    cancer_all, param, value
):
    X, y = cancer_all
    with pytest.raises(InvalidParameterError, match=param):
        if param.startswith("method__"):
            _lr_search(method=PrivateSelection()).set_params(**{param: value}).fit(X, y)
        else:
            _lr_search(**{param: value}).fit(X, y)


def test_fresh_noise_is_declared_non_deterministic():
    """Issue 22: fresh CSPRNG noise every fit is declared in the tags (so
    check_estimator does not expect equal outputs from two fits); a seeded
    (tests-only) noise source is deterministic."""
    from sklearn.utils import get_tags

    from sklearn_dpbo import DPGaussianProcessRegressor

    search = DPBayesSearchCV(LogisticRegression(), {"C": [0.1, 1.0]})
    assert get_tags(search).non_deterministic
    assert not get_tags(search.set_params(noise_random_state=0)).non_deterministic
    gp = DPGaussianProcessRegressor(y_bounds=(-1, 1))
    assert get_tags(gp).non_deterministic
    assert not get_tags(gp.set_params(noise_random_state=0)).non_deterministic

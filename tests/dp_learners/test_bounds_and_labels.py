"""Public bounds map raw rows into the learners' ball; labels match public classes.

Issue 37 item 1 and issue 36 (string labels): ``bounds=(lower, upper)``
maps each row on its own, ``target_bound=(low, high)`` the targets; with
neither bounds nor ``data_norm`` a ``UserWarning`` says so before any row
is read; string labels work when ``classes`` declares them and are
refused from the container's dtype (public) when it does not.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_diabetes

from sklearn_dpbo.dp_learners import (
    DPGaussianNB,
    DPGradientDescentLogisticRegression,
    DPLinearRegression,
    DPLinearSVC,
    DPLogisticRegression,
)
from sklearn_dpbo.dp_learners._base import BOUNDS_NORM_SHARE

LEARNERS = [
    DPLogisticRegression(bounds=(-3, 3)),
    DPGaussianNB(bounds=(-3, 3)),
    DPLinearSVC(bounds=(-3, 3)),
    DPGradientDescentLogisticRegression(bounds=(-3, 3), delta=1e-5),
    DPLinearRegression(bounds=(-3, 3)),
]


def _quiet(est):
    return est.set_params(noise_random_state=0)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X, y, (0.0, 1.25 * X.max(axis=0))


def test_bounds_map_each_row_on_its_own():
    est = DPLogisticRegression(bounds=([0, -2], [4, 2]))
    X = np.array([[1.0, 0.0], [4.0, 2.0], [1e9, -1e9], [np.nan, 0.0]])
    Z = est._rows(X)
    # (x − mid)/half = ((1 − 2)/2, 0) = (−0.5, 0); the ball's norm is ρ√2
    norm = BOUNDS_NORM_SHARE * np.sqrt(2)
    assert Z[0].tolist() == [-0.5, 0.0, 1.0]
    assert np.allclose(Z[1, :2], np.array([1.0, 1.0]) / np.sqrt(2) * norm)
    assert np.allclose(Z[2, :2], np.array([1.0, -1.0]) / np.sqrt(2) * norm)
    assert Z[3].tolist() == [0.0, 0.0, 1.0]  # a NaN row is the zero row
    X2 = X.copy()
    X2[2] = [np.inf, 3.0]  # replacing one row moves that row only
    Z2 = est._rows(X2)
    assert (Z2[[0, 1, 3]] == Z[[0, 1, 3]]).all()


@pytest.mark.parametrize(
    ("params", "match"),
    [
        (dict(bounds=(0, 1), data_norm=1.0), "not both"),
        (dict(bounds=(1, 0)), "lower < upper"),
        (dict(bounds=([0, 0, 0], 1)), r"shape \(2,\)"),
        (dict(bounds=(0, np.inf)), "finite"),
        (dict(bounds=(0, 1, 2)), "pair"),
    ],
)
def test_bad_bounds_are_refused_before_any_row_is_read(params, match):
    with pytest.raises(ValueError, match=match):
        DPLogisticRegression(**params).fit(np.zeros((3, 2)), [0, 1, 0])


def test_no_bounds_warns_before_any_row_is_read():
    class Rows:
        shape = (3, 2)

        def __array__(self, *a, **k):
            raise RuntimeError("rows read")

    with pytest.warns(UserWarning, match="got no bounds"):
        with pytest.raises(RuntimeError, match="rows read"):
            DPLogisticRegression().fit(Rows(), [0, 1, 0])


@pytest.mark.parametrize(
    "X",
    [
        np.array([0.5, -1.25, 3.0]),
        np.array([[0.5 + 1j], [-1.25], [3.0]]),
    ],
)
def test_a_bad_X_is_refused_without_its_values(X):
    # scikit-learn's messages for a 1-D or complex X print the values: private.
    with pytest.raises(ValueError, match="Reshape your data") as info:
        DPLogisticRegression(data_norm=1.0).fit(X, [0, 1, 0][: np.size(X)])
    assert "1.25" not in str(info.value) and "0.5" not in str(info.value)


def _rows_with(record):
    rows = [[0.5, -1.25], [3.0, 0.25], [1.0, 1.0]]
    return [record, *rows[1:]] if record is not None else rows


@pytest.mark.parametrize("learner", LEARNERS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize(
    "record", [None, [0.5], [0.5, [1.0, 2.0]], [0.5 + 1j, 1.0]], ids=str
)
def test_a_list_of_rows_is_refused_whatever_its_records(learner, record):
    """Rule 6: NumPy converts a list in one pass, so one ragged, nested or
    complex row would decide whether fit raises; a list is refused from its
    type with the same message whatever its rows, before any noise is drawn;
    the same rows in an object array fit."""
    with pytest.raises(TypeError) as info:
        clone(learner).fit(_rows_with(record), [0, 1, 0])
    assert str(info.value) == (
        f"{type(learner).__name__}.fit needs X as a NumPy array or a pandas "
        "DataFrame of shape (n_samples, n_features); got list. NumPy would "
        "convert it in one pass over every entry (one ragged, nested or complex "
        "row could change how every row is read, or make fit raise): convert "
        "it yourself, e.g. np.asarray(X, dtype=float), and check its shape."
    )
    X = np.empty((3, 2), dtype=object)
    for i, row in enumerate(_rows_with(record)):
        for j, v in enumerate(row):
            X[i, j] = v
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert clone(learner).fit(X, [0, 1, 0]).n_features_in_ == 2


def test_raw_data_with_declared_bounds(cancer):
    # ε huge: the model is the non-private one on the mapped rows.
    X, y, bounds = cancer
    est = _quiet(DPLogisticRegression(epsilon=1e6, bounds=bounds, C=100))
    with pytest.warns(Warning):
        assert est.fit(X, y).score(X, y) > 0.9


def test_string_labels_with_declared_classes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = np.where(X[:, 0] > 0, "yes", "no")
    est = _quiet(
        DPLogisticRegression(epsilon=1e6, bounds=(-3, 3), classes=("no", "yes"))
    )
    with pytest.warns(Warning):
        est.fit(X, y)
    assert est.classes_.tolist() == ["no", "yes"]
    assert est.score(X, y) > 0.95


@pytest.mark.parametrize(
    ("y", "classes"),
    [(np.array(["no", "yes"] * 5), (0, 1)), (np.arange(10) % 2, ("no", "yes"))],
)
def test_label_types_against_classes_are_refused_from_the_dtype(y, classes):
    with pytest.raises(TypeError, match="Declare the classes"):
        DPLogisticRegression(classes=classes, data_norm=1.0).fit(np.zeros((10, 1)), y)


def test_a_list_of_labels_is_read_label_by_label():
    # one label of another type in a list changes no other label's reading
    est = DPLogisticRegression(data_norm=1.0, classes=("a", "b"))
    base = ["a", "b", "a", "b", "a", "b"]
    odd = ["a", "b", "a", "b", "a", 7]
    codes = [est._binary_problems(np.asarray(v, dtype=object))[0] for v in (base, odd)]
    assert (codes[0][:5] == codes[1][:5]).all() and codes[1][5] == -1


def test_target_range_pair(cancer):
    X, y = load_diabetes(return_X_y=True)
    est = _quiet(
        DPLinearRegression(
            epsilon=1e9, bounds=(-0.2, 0.2), target_bound=(0, 400), alpha=1e-3
        )
    )
    with pytest.warns(Warning):
        est.fit(X, y)
    assert est.score(X, y) > 0.4
    # the intercept is in y's units: near the targets' mean
    assert 100 < est.intercept_ < 250
    with pytest.raises(ValueError, match="low < high"):
        DPLinearRegression(target_bound=(1, 0), data_norm=1.0).fit(X, y)


@pytest.mark.filterwarnings("ignore::sklearn_dpbo.PrivacyLeakWarning")  # the seed
def test_checked_rows_skip_validation_of_that_array_only(monkeypatch):
    """``checked_rows`` (the private-model runs' validation rows): that very
    array is predicted without ``validate_data``, with the public path's
    values; another array, another width or an unfitted learner is checked."""
    from sklearn.exceptions import NotFittedError

    import sklearn_dpbo.dp_learners._base as base

    X = np.random.default_rng(0).normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    est = DPLogisticRegression(data_norm=2.0, noise_random_state=0).fit(X, y)
    public = est.decision_function(X), est.predict_proba(X), est.predict(X)
    narrow = DPLogisticRegression(data_norm=2.0, noise_random_state=0)
    narrow.fit(X[:, :2], y)

    def refused(*args, **kwargs):
        raise AssertionError("validate_data called")

    monkeypatch.setattr(base, "validate_data", refused)
    with base.checked_rows(X):
        fast = est.decision_function(X), est.predict_proba(X), est.predict(X)
        for call in (
            lambda: est.predict(X.copy()),
            lambda: narrow.predict(X),
        ):
            with pytest.raises(AssertionError, match="validate_data called"):
                call()
        with pytest.raises(NotFittedError):
            DPLogisticRegression().predict(X)
    with pytest.raises(AssertionError, match="validate_data called"):
        est.predict(X)
    for a, b in zip(public, fast):
        np.testing.assert_array_equal(a, b)


def test_bounds_whose_width_overflows_are_refused():
    # (1e307 − (−1e307))² overflows: every mapped feature would be 0 and
    # DPGaussianNB's variances inf; refused from the parameters alone.
    for learner in LEARNERS:
        est = clone(learner).set_params(bounds=(-1e307, 1e307))
        with pytest.raises(ValueError, match="squared finite|² finite"):
            est.fit(np.zeros((3, 2)), [0, 1, 0])


@pytest.mark.parametrize("learner", LEARNERS, ids=lambda e: type(e).__name__)
def test_a_list_column_target_is_read_as_its_entries(learner):
    """y (and sample_weight) given as a list of one-element lists, e.g.
    y.reshape(-1, 1).tolist(): each entry is its element, read on its own."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    w = np.ones(40)
    flat = clone(learner).set_params(noise_random_state=0)
    column = clone(learner).set_params(noise_random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        flat.fit(X, y.tolist(), sample_weight=w.tolist())
        column.fit(
            X,
            y.reshape(-1, 1).tolist(),
            sample_weight=w.reshape(-1, 1).tolist(),
        )
    assert pickle.dumps(vars(flat)) == pickle.dumps(vars(column))

"""The private-model mode with declared bounds, string classes and 3+ classes.

The learners map raw rows into their ball by public ``bounds``; the mode
checks the bounds against d and warns when there are none, before any row
is read; labels are matched with declared string classes one by one. V/V′:
one replaced row (far outside the bounds, NaN, a label outside
``classes``) changes the releases only.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV
from sklearn_dpbo.dp_learners import DPLogisticRegression
from sklearn_dpbo.model_selection import PrivateModel
from sklearn_dpbo.model_selection._private_model._fit import split_rows

N = 240
RELEASED = {"best_params_", "best_index_", "best_estimator_", "best_score_"}
NAMES = np.array(["setosa", "versicolor", "virginica"])


def _data(n_classes=2, seed=0):
    """Raw features in [0, 100] (bounds declared (0, 100)); labels as strings."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 100, size=(N, 4))
    y = np.minimum((X[:, 0] / 100 * n_classes).astype(int), n_classes - 1)
    return X, NAMES[:n_classes][y].astype(object)


def _search(classes=("setosa", "versicolor"), **kw):
    learner = DPLogisticRegression(bounds=(0.0, 100.0), classes=classes)
    return DPBayesSearchCV(
        kw.pop("estimator", learner),
        {"C": [0.1, 1.0, 10.0]},
        method=PrivateModel(strategy=kw.pop("strategy", "split")),
        epsilon=kw.pop("epsilon", 4.0),
        delta=1e-6,
        scoring="accuracy",
        n_iter=3,
        random_state=0,
        **kw,
    )


@pytest.mark.parametrize("n_classes", [2, 3])
def test_string_classes_and_three_classes_are_tuned(n_classes):
    X, y = _data(n_classes)
    s = _search(classes=tuple(NAMES[:n_classes]), epsilon=8.0).fit(X, y)
    model = s.best_estimator_
    assert model.classes_.tolist() == NAMES[:n_classes].tolist()
    assert model.coef_.shape == (1 if n_classes == 2 else n_classes, 4)
    assert set(model.predict(X)) <= set(NAMES[:n_classes])
    assert model.score(X, y) > 1.0 / n_classes + 0.1  # learns, above chance


def test_bounds_are_checked_against_d_and_a_missing_bound_warns_before_any_read():
    X, y = _data()
    acc = BudgetAccountant(epsilon=4.0, delta=1e-6)
    bad = DPLogisticRegression(bounds=([0.0] * 3, [100.0] * 3), classes=NAMES[:2])
    with pytest.raises(ValueError, match="before any budget is spent"):
        _search(estimator=bad, accountant=acc).fit(X, y)
    assert acc.spent[0] == 0.0
    unbounded = DPLogisticRegression(classes=tuple(NAMES[:2]))
    search = _search(estimator=unbounded, accountant=acc, verbose=1)
    with pytest.warns(UserWarning, match="got no bounds") as caught:
        search.fit(X, y)
    assert acc.spent[0] == 4.0
    assert len([w for w in caught if "got no bounds" in str(w.message)]) == 1


def _fit(X, y, classes):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = _search(classes=classes, noise_random_state=3).fit(X, y)
    return s, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("change", ["far", "nan", "label"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_neighbours_differ_in_the_releases_only(n_classes, change):
    X, y = _data(n_classes)
    classes = tuple(NAMES[:n_classes])
    train, val = split_rows(N, 0.3, 0)
    for row in (int(train[0]), int(val[0])):
        X2, y2 = X.copy(), y.copy()
        if change == "far":
            X2[row] = [1e9, -1e9, 1e300, -5.0]  # far outside the bounds
        elif change == "nan":
            X2[row, 2] = np.nan
        else:
            y2[row] = "not a class"
        (a, wa), (b, wb) = _fit(X, y, classes), _fit(X2, y2, classes)
        assert wa == wb
        assert str(a.privacy_report_) == str(b.privacy_report_)
        for s in (a, b):
            for name in RELEASED:
                vars(s).pop(name, None)
        assert pickle.dumps(a) == pickle.dumps(b)


def test_a_dataframe_gives_the_released_model_its_column_names():
    pd = pytest.importorskip("pandas")
    X, y = _data()
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    model = _search().fit(df, y).best_estimator_
    assert model.feature_names_in_.tolist() == ["a", "b", "c", "d"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "fitted without feature names"
        model.predict(df)


def test_mixed_column_name_types_do_not_fail_after_the_charge():
    pd = pytest.importorskip("pandas")
    X, y = _data()
    df = pd.DataFrame(X, columns=["a", 1, "c", "d"])
    model = _search().fit(df, y).best_estimator_
    assert not hasattr(model, "feature_names_in_")

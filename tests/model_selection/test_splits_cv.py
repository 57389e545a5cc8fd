"""The ``cv=`` split: row indices checked and each part typed from its own rows.

V/V' pairs differ in one validation record; everything released (the fitted
model, the error raised) must not tell them apart beyond the noisy scores.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import NOISE_SEED_WARNING
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression

from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV

pytestmark = [
    pytest.mark.filterwarnings(NOISE_SEED_WARNING),
    pytest.mark.filterwarnings("ignore::sklearn_dpbo.UselessReleaseWarning"),
]

RNG = np.random.RandomState(0)
X = RNG.randn(60, 2)
Y = (X[:, 0] > 0).astype(int)
TRAIN, VAL = np.arange(20, 60), np.arange(20)


def _search(cv, **kw):
    return DPBayesSearchCV(
        LogisticRegression(), {"C": [1.0]}, cv=cv, random_state=0, **kw
    )


def _neighbour(y):
    y2 = y.copy()
    y2[0] = 1 - y2[0]  # row 0: a validation row
    return y2


@pytest.mark.parametrize(
    "split, why",
    [
        ((TRAIN, np.r_[VAL, 0, 0]), "repeats a row in its validation part"),
        ((np.r_[TRAIN, 30], VAL), "repeats a row in its training part"),
        ((TRAIN, np.r_[VAL, 19 - len(X)]), "repeats a row in its validation part"),
        ((TRAIN, np.arange(30)), "both its training and validation parts"),
        ((TRAIN, np.r_[VAL, 99]), "not two arrays of row indices"),
    ],
)
def test_bad_indices_refused_before_any_read_alike_on_neighbours(split, why):
    """A repeated validation row would move the score by k/m with noise for 1/m;
    a row in both parts is fitted without noise. Refused from the (public)
    indices, the same error on V and V', before any budget is spent."""
    errors = []
    for y in (Y, _neighbour(Y)):
        acc = BudgetAccountant(epsilon=10.0)
        with pytest.raises(ValueError, match=why) as info:
            _search([split], accountant=acc).fit(X, y)
        assert acc.spent == (0.0, 0.0)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_negative_indices_and_masks_are_the_same_rows():
    mask = np.zeros(len(X), dtype=bool)
    mask[VAL] = True
    cvs = [[(TRAIN, VAL)], [(TRAIN - len(X), VAL)], [(~mask, mask)]]
    fits = [_search(cv, noise_random_state=0).fit(X, Y) for cv in cvs]
    assert {f.n_validation_ for f in fits} == {len(VAL)}
    assert len({f.best_score_ for f in fits}) == 1
    for f in fits[1:]:
        np.testing.assert_array_equal(
            f.best_estimator_.coef_, fits[0].best_estimator_.coef_
        )


class _Recorder(ClassifierMixin, BaseEstimator):
    """Stores what it is fitted on: the dtypes, categories and labels."""

    def fit(self, X, y):
        self.dtypes_ = [str(t) for t in X.dtypes]
        self.categories_ = [
            list(X[c].cat.categories) for c in X.columns if X[c].dtype == "category"
        ]
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def _fitted(X, y):
    s = DPBayesSearchCV(
        _Recorder(), {}, cv=[(TRAIN, VAL)], random_state=0, noise_random_state=0
    )
    return s.fit(X, y).best_estimator_


def test_training_part_typed_from_training_rows_only():
    """One validation cell must not retype the public training part (nor the
    released best_estimator_): a string in a float column, a category only a
    validation row has, a mistyped validation label (an object array, or a
    Series); the training part's values and other types stay as given."""
    frame = pd.DataFrame(
        {"a": X[:, 0], "c": pd.Categorical(np.where(X[:, 1] > 0, "p", "n"))}
    )
    other = frame.copy()
    other["a"] = other["a"].astype(object)
    other.loc[5, "a"] = "x"  # row 5: a validation row
    other["c"] = other["c"].cat.add_categories("v")
    other.loc[5, "c"] = "v"
    labels = Y.astype(object)
    odd = labels.copy()
    odd[5] = "x"
    for wrap in (np.asarray, pd.Series):
        a, b = _fitted(frame, wrap(labels)), _fitted(other, wrap(odd))
        assert a.dtypes_ == b.dtypes_ == ["float64", "category"]
        assert a.categories_ == b.categories_ == [["n", "p"]]
        np.testing.assert_array_equal(a.classes_, b.classes_)
        assert a.classes_.dtype == b.classes_.dtype


def test_training_part_keeps_its_values_and_types():
    """Only what validation rows decided is undone: whole-valued floats stay
    float, bools bool, and string labels that spell numbers stay strings."""
    frame = pd.DataFrame({"age": np.round(X[:, 0] * 10) + 40, "flag": X[:, 1] > 0})
    labels = np.where(Y == 1, "01", "1")
    fitted = _fitted(frame, labels)
    assert fitted.dtypes_ == ["float64", "bool"]
    assert sorted(fitted.classes_.tolist()) == ["01", "1"]


class _WeightRecorder(_Recorder):
    """Stores the dtype of the weights it is fitted with."""

    def fit(self, X, y, sample_weight=None):
        self.weight_dtype_ = np.asarray(sample_weight).dtype
        return super().fit(X, y)


def test_training_weights_typed_from_training_rows_only():
    """A validation row's weight (here complex) must not retype the training
    rows' weights, which the public fits and best_estimator_ see."""
    frame = pd.DataFrame({"a": X[:, 0]})
    w = np.ones(len(X))
    odd = w.astype(complex)
    odd[5] = 1 + 1j  # row 5: a validation row
    seen = []
    for weights in (w, odd):
        s = DPBayesSearchCV(
            _WeightRecorder(),
            {},
            cv=[(TRAIN, VAL)],
            random_state=0,
            noise_random_state=0,
        )
        seen.append(s.fit(frame, Y, sample_weight=weights).best_estimator_)
    assert seen[0].weight_dtype_ == seen[1].weight_dtype_ == np.float64


@pytest.mark.parametrize("odd", ["x", 1 + 1j], ids=["string", "complex"])
def test_a_validation_cell_neither_retypes_categories_nor_makes_fit_raise(odd):
    """One validation cell made int categories object, or a column complex:
    the released model's categories and whether the public fit raises must
    not tell (the categories' dtype is re-inferred, a complex column with no
    imaginary part in the training rows is real)."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    cats = pd.Series(pd.Categorical(RNG.randint(1, 4, len(X))))
    frame = pd.DataFrame({"c": cats, "a": X[:, 0]})
    other = frame.copy()
    if odd == "x":
        other["c"] = other["c"].cat.add_categories("x")
        other.loc[5, "c"] = "x"
    else:
        other["a"] = other["a"].astype(complex)
        other.loc[5, "a"] = odd
    fitted = []
    for data in (frame, other):
        pipe = make_pipeline(
            OneHotEncoder(handle_unknown="ignore"), LogisticRegression()
        )
        s = DPBayesSearchCV(
            pipe,
            {"logisticregression__C": [1.0]},
            cv=[(TRAIN, VAL)],
            random_state=0,
            noise_random_state=0,
        )
        fitted.append(s.fit(data, Y).best_estimator_)
    enc = [f.named_steps["onehotencoder"].categories_[0] for f in fitted]
    assert enc[0].dtype == enc[1].dtype and enc[0].tolist()[:3] == [1, 2, 3]

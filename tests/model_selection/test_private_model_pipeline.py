"""Pipelines in the private-model mode: public steps, applied one row at a time.

Accepted: steps that learn nothing from the rows (``Normalizer``,
``FunctionTransformer``, ``OneHotEncoder`` with every category given and
``handle_unknown="ignore"``, a ``ColumnTransformer`` of these); refused
before the charge: a step that learns from the rows. V/V′: neighbours that
differ in one row (far outside any bound, NaN, an unknown category, a label
outside ``classes``) give the same everything but the three releases.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    Normalizer,
    OneHotEncoder,
    StandardScaler,
)

import sklearn_dpbo.model_selection._private_model._public_steps as ps
from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV
from sklearn_dpbo.dp_learners import DPLogisticRegression
from sklearn_dpbo.model_selection import PrivateModel
from sklearn_dpbo.model_selection._entries import float_entries
from sklearn_dpbo.model_selection._private_model._fit import split_rows

pd = pytest.importorskip("pandas")

LR = "dplogisticregression"
GRID = {f"{LR}__C": [0.1, 1.0, 10.0]}
N = 200
RELEASED = {"best_params_", "best_index_", "best_estimator_", "best_score_"}


def _centred(X):
    """A batch statistic: applied to the batch, one row would move every other."""
    return X - np.asarray(X, dtype=float).mean(axis=0)


def _frame(n=N, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {"a": rng.normal(size=n) / 2, "c": rng.choice(["u", "v", "w"], n)}
    )
    y = ((df["a"] > 0) ^ (df["c"] == "u")).astype(int).to_numpy()
    return df, y


def _encoder():
    onehot = OneHotEncoder(categories=[["u", "v", "w"]], handle_unknown="ignore")
    return ColumnTransformer([("oh", onehot, ["c"])], remainder="passthrough")


PIPES = {
    "normalizer": lambda: make_pipeline(
        Normalizer(), DPLogisticRegression(data_norm=1.0)
    ),
    "function": lambda: make_pipeline(
        FunctionTransformer(_centred), DPLogisticRegression(data_norm=2.0)
    ),
    "onehot": lambda: make_pipeline(_encoder(), DPLogisticRegression(data_norm=2.0)),
}


def _data(kind):
    if kind == "onehot":
        return _frame()
    rng = np.random.default_rng(1)
    X = rng.normal(size=(N, 3))
    return X, (X[:, 0] > 0).astype(int)


def _search(kind, **kw):
    return DPBayesSearchCV(
        PIPES[kind](),
        GRID,
        method=PrivateModel(strategy=kw.pop("strategy", "split")),
        epsilon=2.0,
        delta=1e-6,
        scoring="accuracy",
        n_iter=3,
        random_state=0,
        **kw,
    )


@pytest.mark.parametrize("kind", sorted(PIPES))
def test_public_steps_are_accepted_and_the_pipeline_is_released(kind):
    X, y = _data(kind)
    acc = BudgetAccountant(epsilon=2.0, delta=1e-6)
    s = _search(kind, accountant=acc).fit(X, y)
    assert acc.spent[0] == pytest.approx(2.0)
    assert isinstance(s.best_estimator_, Pipeline)
    assert set(s.best_params_) == {f"{LR}__C"}
    assert s.best_estimator_.named_steps[LR].C == s.best_params_[f"{LR}__C"]
    assert set(s.cv_results_) == {f"param_{LR}__C", "params"}
    assert s.best_estimator_.predict(X).shape == (N,)  # a fitted pipeline


@pytest.mark.parametrize(
    "step, match",
    [
        (StandardScaler(), "learns its centre and scale"),
        (OneHotEncoder(handle_unknown="ignore"), "categories='auto'"),
        (OneHotEncoder(categories=[[0.0, 1.0]] * 3), "handle_unknown='error'"),
        (
            OneHotEncoder(
                categories=[[0.0, 1.0]] * 3, handle_unknown="ignore", min_frequency=2
            ),
            "infrequent",
        ),
        (
            ColumnTransformer([("n", Normalizer(), lambda X: [0, 1])]),
            "with a callable",
        ),
    ],
)
def test_a_step_that_learns_from_rows_is_refused_before_the_charge(step, match):
    X, y = _data("normalizer")
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    search = DPBayesSearchCV(
        make_pipeline(step, DPLogisticRegression()),
        GRID,
        method=PrivateModel(),
        epsilon=1.0,
        delta=1e-6,
        scoring="accuracy",
        n_iter=3,
        accountant=acc,
    )
    with pytest.raises(TypeError, match=match) as info:
        search.fit(X, y)
    assert "bounds=(lower, upper)" in str(info.value)  # the public alternative
    assert acc.spent[0] == 0.0


def test_searching_a_step_parameter_or_a_numeric_string_category_is_refused():
    X, y = _data("normalizer")
    search = _search("normalizer")
    with pytest.raises(ValueError, match="learner's parameters only"):
        search.set_params(search_spaces={"normalizer__norm": ["l1", "l2"]}).fit(X, y)
    onehot = OneHotEncoder(categories=[["1", "2"]] * 3, handle_unknown="ignore")
    search = _search("normalizer").set_params(
        estimator=make_pipeline(onehot, DPLogisticRegression())
    )
    with pytest.raises(ValueError, match="spells a number"):
        search.fit(X, y)


@pytest.mark.parametrize("selector", [slice(1, 2), [False, True], slice("c", "c")])
def test_columns_selected_as_scikit_learn_selects_them(selector):
    # a slice or a boolean mask selects what the list ["c"] selects (a slice
    # was not iterable; a mask's entries were taken for column keys)
    df, y = _frame()
    models = []
    for cols in (["c"], selector):
        onehot = OneHotEncoder(categories=[["u", "v", "w"]], handle_unknown="ignore")
        ct = ColumnTransformer([("oh", onehot, cols)], remainder="passthrough")
        s = _search("onehot", noise_random_state=0)
        s.set_params(estimator=make_pipeline(ct, DPLogisticRegression(data_norm=2.0)))
        with warnings.catch_warnings():  # noise_random_state: for tests only
            warnings.simplefilter("ignore")
            models.append(s.fit(df, y).best_estimator_[-1].coef_)
    assert models[0].shape == (1, 4) and np.array_equal(*models)


def test_rows_are_transformed_one_at_a_time():
    # A batch statistic (the column means) couples records in the step's own
    # transform; the library applies it to each row alone, so row 0's output
    # depends on row 0 only (here: row minus its own mean, zero).
    X, _ = _data("function")
    steps, _, width = ps.fit_public_steps([("f", FunctionTransformer(_centred))], X)
    X2 = X.copy()
    X2[5] = 1e6
    out, out2 = ps.transform_rows(steps, X, width), ps.transform_rows(steps, X2, width)
    assert width == 3
    assert np.array_equal(np.delete(out, 5, 0), np.delete(out2, 5, 0))
    assert np.array_equal(out.astype(float), np.zeros_like(X))
    # Row-wise steps take the rows at once; a row that makes that call raise
    # (NaN in Normalizer) sends every row through alone: the same values.
    steps, _, width = ps.fit_public_steps([("n", Normalizer())], X)
    X2[5] = np.nan
    out, out2 = ps.transform_rows(steps, X, width), ps.transform_rows(steps, X2, width)
    assert np.array_equal(np.delete(out, 5, 0), np.delete(out2, 5, 0))
    assert np.isnan(out2[5].astype(float)).all()


def test_an_unknown_category_or_a_failing_row_is_its_own_row():
    df, _ = _frame(n=4)
    steps, _, width = ps.fit_public_steps([("ct", _encoder())], df)
    df2 = df.astype(object)
    df2.loc[1, "c"], df2.loc[2, "a"] = "zzz", "not a number"
    out = float_entries(ps.transform_rows(steps, df, width))
    out2 = float_entries(ps.transform_rows(steps, df2, width))
    assert width == 4
    assert np.array_equal(out[[0, 3]], out2[[0, 3]])
    assert np.array_equal(out2[1], [0.0, 0.0, 0.0, df["a"][1]])  # all-zero code
    assert np.array_equal(out2[2, :3], out[2, :3]) and np.isnan(out2[2, 3])


def _neighbour(kind, X, y, row, change):
    X2, y2 = X.copy(), y.copy()
    if change == "label":
        y2[row] = 7  # outside classes=(0, 1)
    elif kind == "onehot":
        X2 = X2.astype({"c": object, "a": float})
        if change == "far":
            X2.loc[row, "a"] = 1e6
        elif change == "nan":
            X2.loc[row, "a"] = np.nan
        else:
            X2.loc[row, "c"] = "unknown"
    else:
        X2[row] = {"far": 1e6, "nan": np.nan, "unknown": -1e300}[change]
    return X2, y2


@pytest.mark.parametrize("change", ["far", "nan", "unknown", "label"])
@pytest.mark.parametrize("kind", sorted(PIPES))
def test_neighbours_differ_in_the_releases_only(kind, change):
    X, y = _data(kind)
    train, val = split_rows(N, 0.3, 0)
    for row in (int(train[0]), int(val[0])):
        fitted = []
        for Xs, ys in ((X, y), _neighbour(kind, X, y, row, change)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                s = _search(kind, noise_random_state=5).fit(Xs, ys)
            fitted.append((s, [(w.category, str(w.message)) for w in caught]))
        (a, wa), (b, wb) = fitted
        assert wa == wb  # the same warnings (the seeded noise's), nothing more
        assert str(a.privacy_report_) == str(b.privacy_report_)
        for s in (a, b):
            for name in RELEASED:
                vars(s).pop(name, None)
        assert set(vars(a)) == set(vars(b))
        assert pickle.dumps(a) == pickle.dumps(b)

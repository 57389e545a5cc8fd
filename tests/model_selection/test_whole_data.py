"""The whole-data mode: ``fit(X, y)`` with every row private (issue 20).

Public plan (parts, inner splits, k, the fallback rule), the GridSearchCV
call, what the fit publishes and says about it, refusals before any read,
and the by-construction property: one row moves one part's scores only,
whatever the row is (non-finite, mistyped, failing) and whatever the
estimator does with its batch.
"""

from __future__ import annotations

import pickle
import sys
import warnings
from datetime import datetime, timedelta

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import sklearn_dpbo.model_selection._whole_data._fit as wd
import sklearn_dpbo.model_selection._whole_data._releases as wdr
from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV
from sklearn_dpbo.model_selection import WholeData
from sklearn_dpbo.privacy._builtin_scores import get_dp_scorer
from sklearn_dpbo.privacy._validation import PrivacyLeakWarning

SPACE = {"C": [0.01, 0.1, 1.0, 10.0]}


@pytest.fixture(scope="module")
def data():
    return make_classification(600, 5, n_informative=3, random_state=0)


# ---------------------------------------------------------------------------
# The public plan
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("n,k", [(10, 3), (1000, 7), (1001, 1000)])
def test_partition_is_public_disjoint_and_balanced(n, k):
    parts = wd.partition(n, k, seed=5)
    assert len(parts) == k
    joined = np.concatenate(parts)
    np.testing.assert_array_equal(np.sort(joined), np.arange(n))  # cover, disjoint
    sizes = [len(p) for p in parts]
    assert max(sizes) - min(sizes) <= 1
    again = wd.partition(n, k, seed=5)
    assert all(np.array_equal(a, b) for a, b in zip(parts, again))
    other = wd.partition(n, k, seed=6)
    assert k == n or not all(np.array_equal(a, b) for a, b in zip(parts, other))


def test_inner_splits_holdout_and_folds():
    ((tr, te),) = wd.inner_splits(10, 0.3, seed=1)
    assert len(te) == 3 and len(tr) == 7  # ⌈0.3 · 10⌉ held out
    assert set(tr).isdisjoint(te) and set(tr) | set(te) == set(range(10))
    folds = wd.inner_splits(10, 3, seed=1)
    assert len(folds) == 3
    held = np.concatenate([te for _, te in folds])
    np.testing.assert_array_equal(np.sort(held), np.arange(10))
    assert wd.inner_splits(1, 0.3, seed=1) == []  # too small: scores low
    assert wd.inner_splits(2, 5, seed=1) == []
    ((tr, te),) = wd.inner_splits(2, 0.9, seed=1)  # one row on each side
    assert len(tr) == 1 and len(te) == 1


def test_n_parts_rule():
    mode = WholeData()
    assert wd.n_parts_for(mode, 10_000) == 50  # n // 200
    assert wd.n_parts_for(mode, 150) == 1
    assert wd.n_parts_for(mode, 10**7) == wd.MAX_PARTS
    assert wd.n_parts_for(WholeData(n_parts=7), 100) == 7
    with pytest.raises(ValueError, match="larger than the number of rows"):
        wd.n_parts_for(WholeData(n_parts=11), 10)


def test_fallback_rule_is_the_selection_temperature():
    # 2 / (k ε₁): k = 50, ε₁ = 1 gives 0.04 <= 0.05 (tunes); k = 35: 0.057.
    assert wd.selection_temperature(50, 1.0) == pytest.approx(0.04)
    assert wd.tunes(WholeData(), 50, 1.0)
    assert not wd.tunes(WholeData(), 35, 1.0)
    assert not wd.tunes(WholeData(), 50, 0.5)
    assert wd.tunes(WholeData(max_selection_noise=None), 1, 0.01)


# ---------------------------------------------------------------------------
# The GridSearchCV call
# ---------------------------------------------------------------------------
def test_gridsearchcv_call_runs_the_whole_data_mode(data):
    X, y = data
    search = DPBayesSearchCV(LogisticRegression(), SPACE, random_state=0)
    with pytest.warns(PrivacyLeakWarning, match="NOT covered"):
        search.fit(X, y)
    report = search.privacy_report_
    assert report.method == "whole-data"
    assert report.neighbouring == wd.WHOLE_DATA_RELATION
    assert "best_estimator_" in report.uncovered
    assert (
        "- best_estimator_: NOT covered by the guarantee (refit on every row of X, y)"
        in str(report)
    )
    assert wd._NOT_COVERED in report.explain()
    assert report.to_dict()["not_covered"]["best_estimator_"].startswith("refit")
    assert search.cv_results_["params"][search.best_index_] == search.best_params_
    assert search.n_parts_ == 3  # 600 // 200
    assert 0.0 <= search.best_score_ <= 1.0
    assert search.best_estimator_.predict(X[:3]).shape == (3,)
    assert np.isnan(search.refit_time_)  # measured after the private read
    assert report.epsilon == pytest.approx(1.0)


def test_refit_false_publishes_only_the_releases(data):
    X, y = data
    search = DPBayesSearchCV(
        LogisticRegression(),
        SPACE,
        refit=False,
        random_state=0,
        method=WholeData(max_selection_noise=None),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        search.fit(X, y)
    assert not hasattr(search, "best_estimator_")
    assert search.privacy_report_.uncovered == {}
    assert search.privacy_report_.releases[0]["epsilon"] == pytest.approx(0.5)
    # Public table: the evaluated candidates, no score column.
    table = search.cv_results_
    assert not any("score" in key for key in table)
    assert table["is_default"].sum() == 1
    assert table["params"][int(np.flatnonzero(table["is_default"])[0])] == {"C": 1.0}


def test_too_few_parts_release_the_estimators_values(data):
    X, y = data
    search = DPBayesSearchCV(
        LogisticRegression(C=0.5), SPACE, refit=False, random_state=0
    )
    with pytest.warns(Warning, match="no tuning"):
        search.fit(X, y)  # k = 3, ε₁ = 0.5: temperature 1.33 > 0.05
    assert search.best_params_ == {"C": 0.5}
    params, score = search.privacy_report_.releases
    assert params["epsilon"] == 0.0 and score["epsilon"] == pytest.approx(1.0)
    assert search.privacy_report_.epsilon == pytest.approx(1.0)


def test_no_tuning_and_no_score_reads_and_charges_nothing(data, monkeypatch):
    """Found on 2026-11-29: with too few parts to tune and release_score=False
    nothing private is released (best_params_ at epsilon 0), yet every part
    was fitted on the rows and the accountant charged the whole epsilon."""
    X, y = data

    def no_read(*args, **kwargs):
        raise AssertionError("a row was read")

    monkeypatch.setattr(wd, "part_score_matrix", no_read)
    acct = BudgetAccountant(epsilon=10)
    search = DPBayesSearchCV(
        LogisticRegression(C=0.5),
        SPACE,
        refit=False,
        release_score=False,
        accountant=acct,
        random_state=0,
    )
    with pytest.warns(Warning, match="no row is read and no budget is spent"):
        search.fit(X, y)  # k = 3, epsilon_1 = 1: temperature 0.67 > 0.05
    assert search.best_params_ == {"C": 0.5} and not hasattr(search, "best_score_")
    assert acct.spent == (0.0, 0.0)
    assert search.privacy_report_.epsilon == 0.0


@pytest.mark.parametrize(
    "kwargs, fit_kwargs, match",
    [
        ({"method": "whole-data"}, {"X_val": "X", "y_val": "y"}, "without X_val"),
        ({"method": "whole-data", "cv": 3}, {}, "cv"),
        ({}, {"groups": "y"}, "groups"),
        ({"scoring": ["accuracy", "neg_brier_score"]}, {}, "one metric"),
        (
            {"estimator": LogisticRegression(verbose=1)},
            {},
            "verbose would print",
        ),
    ],
)
def test_refusals_before_any_charge(data, kwargs, fit_kwargs, match):
    X, y = data
    acct = BudgetAccountant(epsilon=10)
    kwargs = {"estimator": LogisticRegression(), **kwargs}
    if "scoring" in kwargs:
        kwargs["refit"] = "accuracy"
    search = DPBayesSearchCV(search_spaces=SPACE, accountant=acct, **kwargs)
    fit_kwargs = {k: {"X": X, "y": y}[v] for k, v in fit_kwargs.items()}
    with pytest.raises(ValueError, match=match):
        search.fit(X, y, **fit_kwargs)
    assert acct.spent == (0.0, 0.0)


def test_accountant_is_charged_the_planned_cost(data):
    X, y = data
    acct = BudgetAccountant(epsilon=3)
    DPBayesSearchCV(
        LogisticRegression(), SPACE, refit=False, accountant=acct, epsilon=0.7
    ).fit(X, y)
    assert acct.spent[0] == pytest.approx(0.7)


# ---------------------------------------------------------------------------
# One row moves one part (by construction, whatever the row)
# ---------------------------------------------------------------------------
def _scores(X, y, estimator=None, fit_params=None, k=6, key="C"):
    estimator = estimator if estimator is not None else LogisticRegression()
    search = DPBayesSearchCV(estimator, SPACE, n_jobs=1)
    parts = wd.partition(len(y), k, seed=3)
    cands = [{key: c} for c in SPACE["C"]]
    scorer = get_dp_scorer("accuracy", LogisticRegression())
    return (
        wd.part_score_matrix(
            search, cands, X, y, fit_params or {}, parts, 0.3, 3, scorer
        ),
        parts,
    )


def _row_part(parts, row):
    return next(j for j, p in enumerate(parts) if row in p)


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e300, "oops"])
def test_one_bad_row_changes_only_its_part(data, bad):
    X, y = data
    X = X[:240]
    y = y[:240]
    rows = [list(map(float, r)) for r in X]  # a list: converted per part
    s, parts = _scores(rows, y)
    changed = [list(r) for r in rows]
    changed[17][2] = bad
    s2, _ = _scores(changed, y)
    j = _row_part(parts, 17)
    others = [i for i in range(len(parts)) if i != j]
    np.testing.assert_array_equal(s[others], s2[others])
    assert np.all((s2 >= 0) & (s2 <= 1))


def test_mistyped_label_changes_only_its_part(data):
    X, y = data
    X, y = X[:240], list(y[:240])
    s, parts = _scores(X, y)
    y2 = list(y)
    y2[5] = "seven"  # np.asarray(y2) would make every label a string
    s2, _ = _scores(X, y2)
    j = _row_part(parts, 5)
    others = [i for i in range(len(parts)) if i != j]
    np.testing.assert_array_equal(s[others], s2[others])


def test_batch_statistics_stay_inside_the_part(data):
    # A scaler fitted on the part: a huge value in one row rescales its part
    # only. The sample weight of a row reaches its own part only.
    X, y = data
    X, y = X[:240], y[:240]
    est = make_pipeline(StandardScaler(), LogisticRegression())
    space_est = DPBayesSearchCV(est, {"logisticregression__C": [0.1, 1.0]})
    parts = wd.partition(240, 4, seed=0)
    scorer = get_dp_scorer("accuracy", LogisticRegression())
    cands = [{"logisticregression__C": c} for c in (0.1, 1.0)]
    w = np.ones(240)

    def run(X_, w_):
        return wd.part_score_matrix(
            space_est,
            cands,
            X_,
            y,
            {"logisticregression__sample_weight": w_},
            parts,
            0.3,
            0,
            scorer,
        )

    base = run(X, w)
    X2 = X.copy()
    X2[100] = 1e6
    w2 = w.copy()
    w2[100] = 1e9
    j = _row_part(parts, 100)
    for changed in (run(X2, w), run(X, w2)):
        others = [i for i in range(4) if i != j]
        np.testing.assert_array_equal(base[others], changed[others])


class _Loud(ClassifierMixin, BaseEstimator):
    """Prints, warns and fails depending on its private rows."""

    def __init__(self, C=1.0):
        self.C = C

    def fit(self, X, y):
        X = np.asarray(X, dtype=float)
        print(f"secret first value {X[0, 0]!r}")
        sys.stderr.write(f"secret {X.sum()!r}\n")
        warnings.warn(f"secret mean {X.mean()!r}", UserWarning, stacklevel=2)
        if X[:, 0].max() > 50:
            raise RuntimeError(f"secret row {X[:, 0].argmax()}")
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def test_prints_warnings_and_failures_of_private_fits_are_withheld(data, capfd):
    X, y = data
    X = X.copy()
    X[11, 0] = 99.0  # one part's fits fail
    search = DPBayesSearchCV(_Loud(), {"C": [1.0, 2.0]}, refit=False, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y)
    out, err = capfd.readouterr()
    assert "secret" not in out + err
    assert not [w for w in caught if "secret" in str(w.message)]
    blob = (
        pickle.dumps(search)
        + repr(search).encode()
        + str(search.privacy_report_).encode()
        + search.privacy_report_.explain().encode()
    )
    assert b"secret" not in blob


def test_scores_stay_in_range_when_every_fit_fails(data):
    X, y = data
    X = X.copy()
    X[:, 0] = 99.0
    s, _ = _scores(X, y, estimator=_Loud(), k=3)
    np.testing.assert_array_equal(s, 0.0)  # low, never NaN


def test_progress_prints_no_figure_after_the_read(data, capsys):
    X, y = data
    DPBayesSearchCV(
        LogisticRegression(), SPACE, refit=False, verbose=2, random_state=0
    ).fit(X, y)
    lines = capsys.readouterr().out.strip().splitlines()
    i = next(i for i, line in enumerate(lines) if "whole-data" in line)
    assert lines[i + 1 :] and all(
        not any(ch.isdigit() for ch in line) for line in lines[i + 1 :]
    ), lines


def test_dataframe_part_sees_only_its_categories():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {"a": pd.Categorical(["x", "y", "z", "x"]), "b": [1, "2", 3.0, 4]}
    )
    part = wd._part_view(frame.iloc[[0, 1]])
    assert list(part["a"].cat.categories) == ["x", "y"]
    assert str(wd._part_view(frame.iloc[[0, 3]])["b"].dtype) == "int64"


def _mistyped(y, kind):
    pd = pytest.importorskip("pandas")
    labels = [int(v) for v in y]
    odd = list(labels)
    odd[5] = {"str": "x", "none": None, "float": 0.5}[kind.split("-")[1]]
    if kind.startswith("series"):
        return pd.Series(labels), pd.Series(odd)  # int64, then object/float64
    if kind.startswith("frame"):
        return pd.DataFrame({"t": labels}), pd.DataFrame({"t": odd})
    return np.array(labels, dtype=object), np.array(odd, dtype=object)


@pytest.mark.parametrize(
    "kind", ["series-str", "series-none", "series-float", "frame-str", "array-str"]
)
def test_batch_typed_label_changes_only_its_part(data, kind):
    """One label that makes pandas retype the whole ``y`` (object dtype for a
    string, float64 for a missing label): only its own part may change. Before
    the fix every part's y was an object array of integers ("unknown" to
    scikit-learn), every fit failed and every part scored ``low``."""
    X, y = data
    X, y = X[:240], y[:240]
    y_v, y_w = _mistyped(y, kind)
    s, parts = _scores(X, y_v)
    s2, _ = _scores(X, y_w)
    assert s.min() > 0 and s.mean() > 0.6  # every part learns on V
    others = [i for i in range(len(parts)) if i != _row_part(parts, 5)]
    np.testing.assert_array_equal(s[others], s2[others])


def test_batch_upcast_integer_column_changes_only_its_part():
    """One missing value makes pandas store an integer column as float64 for
    every row; a pipeline that one-hot encodes integer columns must still see
    it as integers in every other part."""
    pd = pytest.importorskip("pandas")
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(0)
    n = 240
    code = rng.integers(0, 5, size=n)
    y = (np.isin(code, [1, 3]) ^ (rng.random(n) < 0.1)).astype(int)
    frame = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
    frame["k"] = code
    odd = frame.copy()
    odd["k"] = pd.Series([None if i == 5 else int(v) for i, v in enumerate(code)])
    assert str(odd["k"].dtype) == "float64"
    est = make_pipeline(
        ColumnTransformer(
            [
                (
                    "codes",
                    OneHotEncoder(handle_unknown="ignore"),
                    make_column_selector(dtype_include=np.integer),
                ),
                ("num", "passthrough", make_column_selector(dtype_include=np.floating)),
            ]
        ),
        LogisticRegression(),
    )
    search = DPBayesSearchCV(est, {"logisticregression__C": [0.01, 1.0]}, n_jobs=1)
    parts = wd.partition(n, 6, seed=3)
    cands = [{"logisticregression__C": c} for c in (0.01, 1.0)]
    scorer = get_dp_scorer("accuracy", LogisticRegression())

    def run(X_):
        return wd.part_score_matrix(search, cands, X_, y, {}, parts, 0.3, 3, scorer)

    s, s2 = run(frame), run(odd)
    others = [i for i in range(len(parts)) if i != _row_part(parts, 5)]
    np.testing.assert_array_equal(s[others], s2[others])


def test_part_types_come_from_the_parts_values():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {
            "f": [1.0, 2.0, 2.5, None],  # float64 for the batch
            "i": pd.array([1, 2, None, 4], dtype="Int64"),
            "b": [True, False, True, False],
        }
    )
    whole = wd._part_view(frame.iloc[[0, 1]])
    assert str(whole["f"].dtype) == "int64" and list(whole["f"]) == [1, 2]
    assert str(wd._part_view(frame.iloc[[0, 2]])["f"].dtype) == "float64"
    assert str(wd._part_view(frame.iloc[[0, 3]])["f"].dtype) == "float64"  # NaN
    assert str(wd._part_view(frame.iloc[[0, 2]])["i"].dtype) == "Int64"
    assert str(wd._part_view(frame)["b"].dtype) == "int64"  # bools as numbers
    assert wd._part_target(np.array([0, 1, 1], dtype=object)).dtype == np.int64
    assert wd._part_target(np.array([0.0, 1.0])).dtype == np.int64
    assert wd._part_target(np.array([0.5, 1.0])).dtype == np.float64
    assert wd._part_target(np.array(["a", "b"])).dtype.kind == "U"
    labels = wd._part_target(pd.Series([0, 1, "x"], dtype=object).iloc[:2])
    assert str(labels.dtype) == "int64" and list(labels.index) == [0, 1]
    assert wd._part_target([0, "x"]) == [0, "x"]  # lists stay lists


def _batch_typed(X, y, kind):
    """(X, y) on V and V': one row's value retypes the whole container."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    if kind == "complex-column":
        odd = frame.copy()
        odd["x1"] = [1j if i == 5 else v for i, v in enumerate(frame["x1"])]
        return (frame, y), (odd, y)
    if kind == "categorical-y":
        labels = [int(v) for v in y]
        odd = ["x" if i == 5 else v for i, v in enumerate(labels)]
        as_cat = pd.Series(labels).astype("category")
        return (frame, as_cat), (frame, pd.Series(odd).astype("category"))
    if kind == "complex-y":
        odd = [1j if i == 5 else int(v) for i, v in enumerate(y)]
        return (frame, pd.Series(y)), (frame, pd.Series(odd))
    if kind == "sparse-column":  # one complex value: Sparse[complex128]
        values = list(frame["x1"])
        odd = frame.copy()
        frame["x1"] = pd.arrays.SparseArray(values)
        odd["x1"] = pd.arrays.SparseArray(
            [v + 1j * (i == 5) for i, v in enumerate(values)]
        )
        return (frame, y), (odd, y)
    if kind == "scipy-sparse":  # one complex entry: a complex128 matrix
        import scipy.sparse as sp

        odd = X.astype(complex)
        odd[5, 1] += 1j
        return (sp.csr_matrix(X), y), (sp.csr_matrix(odd), y)
    if kind in ("datetime", "timedelta"):  # one nanosecond: every row in ns
        rng = np.random.default_rng(0)
        secs = [timedelta(seconds=int(v)) for v in rng.integers(0, 10**5, len(y))]
        start = datetime(2020, 1, 1) if kind == "datetime" else timedelta(0)
        times = [start + v for v in secs]
        odd = frame.copy()
        frame["t"] = times
        odd["t"] = [
            (pd.Timestamp(v) if kind == "datetime" else pd.Timedelta(v))
            + pd.Timedelta(int(i == 5), "ns")
            for i, v in enumerate(times)
        ]
        assert odd["t"].dtype != frame["t"].dtype  # the batch's unit
        return (frame, y), (odd, y)
    rows = [list(map(float, r)) for r in X]  # "string-array": np.array(rows)
    rows_odd = [list(r) for r in rows]
    rows_odd[5][1] = "oops"
    return (np.array(rows), y), (np.array(rows_odd), y)


def _time_residue(frame):
    """The times as integers of their unit, mod 7: a unit-sensitive feature."""
    return frame.astype("int64") % 7


@pytest.mark.parametrize(
    "kind",
    [
        "complex-column",
        "categorical-y",
        "complex-y",
        "string-array",
        "sparse-column",
        "scipy-sparse",
        "datetime",
        "timedelta",
    ],
)
def test_batch_retyped_container_changes_only_its_part(data, kind):
    """More batch types found by a second review (2026-11-25): a complex value
    makes a pandas column or y complex128, an odd label makes a categorical
    y's categories objects, np.array(rows) with one string makes every entry
    a string. Before the fix every part failed (all scored low). Found on
    2026-11-29: one complex value makes a SciPy matrix or a pandas sparse
    column complex (every part failed), one nanosecond puts a datetime or
    timedelta column in ns (every part's integers changed)."""
    from sklearn.compose import make_column_transformer
    from sklearn.preprocessing import FunctionTransformer

    X, y = data
    (X_v, y_v), (X_w, y_w) = _batch_typed(X[:240], y[:240], kind)
    est, key = None, "C"
    if kind in ("datetime", "timedelta"):
        key = "logisticregression__C"
        est = make_pipeline(
            make_column_transformer(
                (FunctionTransformer(_time_residue), ["t"]), remainder="passthrough"
            ),
            LogisticRegression(),
        )
    s, parts = _scores(X_v, y_v, est, key=key)
    s2, _ = _scores(X_w, y_w, est, key=key)
    assert s.min() > 0 and s.mean() > 0.6
    others = [i for i in range(len(parts)) if i != _row_part(parts, 5)]
    np.testing.assert_array_equal(s[others], s2[others])


@pytest.mark.parametrize("container", ["array", "series"])
def test_batch_retyped_sample_weight_changes_only_its_part(data, container):
    """Found on 2026-11-29: one row's weight 1+1j made the weights complex for
    every row (np.array or a Series), and the parts' slices were not retyped:
    every part's fit failed and scored low."""
    pd = pytest.importorskip("pandas")
    X, y = data
    X, y = X[:240], y[:240]
    weights = [1.0] * 240
    s, parts = _scores(X, y, fit_params={"sample_weight": np.array(weights)})
    weights[5] = 1 + 1j
    odd = pd.Series(weights) if container == "series" else np.array(weights)
    assert odd.dtype == complex
    s2, _ = _scores(X, y, fit_params={"sample_weight": odd})
    assert s.min() > 0 and s.mean() > 0.6
    others = [i for i in range(len(parts)) if i != _row_part(parts, 5)]
    np.testing.assert_array_equal(s[others], s2[others])


def test_part_categories_index_and_2d_targets_come_from_the_part():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {
            "c": pd.Categorical([2, 1, "x", 1]),  # object categories
            "o": pd.Categorical(["lo", "hi", "lo", "hi"], ["lo", "hi"], ordered=True),
        },
        index=[10, 11, "a", 13],
    )
    part = wd._part_view(frame.iloc[[0, 1, 3]])
    assert list(part["c"].cat.categories) == [1, 2]
    assert part["c"].cat.categories.dtype == np.int64
    assert list(part["o"].cat.categories) == ["lo", "hi"] and part["o"].cat.ordered
    assert part.index.dtype == np.int64
    y2 = np.array([[0, 1], [1, 0], ["x", 1]], dtype=object)
    assert wd._part_target(y2[:2]).dtype == np.int64
    assert wd._part_target(np.array(["0.5", "2"])).tolist() == [0.5, 2.0]
    assert wd._part_target(np.array(["a", "2"])).dtype.kind == "U"


def _whole_fit(estimator, X, y, n_jobs=1):
    """A whole-data search over SPACE in 4 parts, seeded, refit=False."""
    search = DPBayesSearchCV(
        estimator,
        SPACE,
        method=WholeData(n_parts=4),
        refit=False,
        random_state=0,
        noise_random_state=0,
        n_jobs=n_jobs,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return search.fit(X, y)


def test_unpicklable_row_fails_its_own_part_only(data):
    """A row holding an object no pickler can serialise (a lock): with a
    process backend the part's job could not be dispatched and the whole fit
    failed on that side only. Each part is serialised on its own, in every
    backend: that part scores ``low``, the others are unchanged, and a fit
    with two loky workers releases on both sides."""
    import threading

    X, y = data
    rows = [list(map(float, r)) for r in X[:240]]
    odd = [list(r) for r in rows]
    odd[17][1] = threading.Lock()
    s, parts = _scores(rows, y[:240])
    s2, _ = _scores(odd, y[:240])
    j = _row_part(parts, 17)
    others = [i for i in range(len(parts)) if i != j]
    np.testing.assert_array_equal(s[others], s2[others])
    np.testing.assert_array_equal(s2[j], 0.0)
    fitted = [
        _whole_fit(LogisticRegression(), X_, y[:240], n_jobs=2) for X_ in (rows, odd)
    ]
    assert sorted(vars(fitted[0])) == sorted(vars(fitted[1]))


class _DelPrints:
    """A cell that prints when freed (the part's unpickled copy is freed
    inside the part's job, while its output is withheld)."""

    def __float__(self):
        return 0.0

    def __del__(self):
        print("secret: a copy of the odd row was freed")


class _SideEffects(LogisticRegression):
    """Draws from NumPy's global generator and logs when a value is huge."""

    def fit(self, X, y, **kw):
        import logging

        if np.abs(np.asarray(X, dtype=float)).max() > 50:
            np.random.rand(7)  # noqa: NPY002 - a user's estimator
            logging.getLogger("sklearn_dpbo_test_user").warning("huge value seen")
        return super().fit(X, y, **kw)


def test_side_effects_of_private_fits_do_not_show(data, capfd, caplog):
    """An odd part leaves no trace in the outputs of a fit that released the
    same values: log records, a __del__ print after the part's output
    redirection. (The global NumPy generator's state is process state, out
    of scope: docs/threat_model.md.)"""
    import logging

    X, y = data
    rows = [list(map(float, r)) for r in X[:240]]
    odd = [list(r) for r in rows]
    odd[17][0] = 99.0
    odd[18][1] = _DelPrints()
    seen = []
    for X_ in (rows, odd):
        with caplog.at_level(logging.DEBUG):
            _whole_fit(_SideEffects(), X_, y[:240])
        del X_
        seen.append(([r.getMessage() for r in caplog.records], capfd.readouterr()))
        caplog.clear()
    assert seen[0] == seen[1]


def test_failure_after_the_read_is_sealed(data, monkeypatch):
    import traceback

    from sklearn_dpbo import PrivateComputationError

    X, y = data

    def broken(scores, *args, **kwargs):
        raise RuntimeError(f"SECRET {scores.sum()!r}")

    monkeypatch.setattr(wd, "releases_from_scores", broken)
    acct = BudgetAccountant(epsilon=5)
    search = DPBayesSearchCV(
        LogisticRegression(), SPACE, refit=False, accountant=acct, random_state=0
    )
    with pytest.raises(PrivateComputationError) as info:
        search.fit(X, y)
    text = "".join(traceback.format_exception(info.value))
    assert "SECRET" not in text and info.value.__context__ is None
    assert acct.spent[0] == pytest.approx(1.0)  # charged at the read, kept
    assert not hasattr(search, "best_params_")


def test_votes_share_ties_and_move_by_at_most_one():
    scores = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.2, 0.9, 0.9]])
    votes = wdr._votes(scores)
    np.testing.assert_allclose(votes, [0.5, 1.0, 1.5])
    changed = scores.copy()
    changed[0] = [0.0, 0.0, 1.0]  # one part (one row) changes its vote
    assert np.abs(wdr._votes(changed) - votes).max() <= 1.0


def test_part_reads_stringified_or_complex_numpy_arrays_back():
    """Fourth review (2026-11-25): a part of np.array(rows) with one string
    elsewhere holds "True" where V held 1.0; a complex NumPy X with one
    complex entry elsewhere is complex in every part."""
    strings = np.array([[True, 0.25], ["x", 1.0]], dtype=object).astype(str)
    part = wd._part_view(strings[:1])
    assert part.tolist() == [[1, 0.25]]
    assert wd._part_view(strings[1:]).dtype.kind == "U"  # its own "x": as given
    cplx = np.array([[0.5, 1.0], [2.0, 3.0 + 1j]])
    assert wd._part_view(cplx[:1]).dtype == np.float64
    assert wd._part_view(cplx[1:]).dtype.kind == "c"


def test_part_bools_categories_and_index_are_typed_alike_whatever_the_odd_row():
    """Ninth review (2026-11-25): a part's bools, a categorical's categories
    and the index labels took their type from a row outside the part."""
    pd = pytest.importorskip("pandas")
    seen = []
    for odd in (2.5, 3, "x", True):
        cats = pd.DataFrame({"c": pd.Categorical([1, 2, odd])}, index=[1, 2, odd])
        part = wd._part_view(cats.iloc[:2])
        bools = wd._part_target(np.array([True, False, odd])[:2])
        rows = wd._part_view(np.array([[True, False], [True, odd]])[:1])
        seen.append(
            (
                str(part["c"].cat.categories.dtype),
                part["c"].tolist(),
                str(part.index.dtype),
                bools.tolist(),
                str(bools.dtype),
                rows.tolist(),
                str(rows.dtype),
            )
        )
    assert len(set(map(str, seen))) == 1, seen


def test_part_times_are_typed_alike_whatever_the_odd_row():
    """Datetimes and timedeltas take their unit from the part: one value with
    a nanosecond elsewhere puts the batch in ns, never the other parts."""
    pd = pytest.importorskip("pandas")
    base = pd.Timestamp("2020-01-01 00:00:01")
    seen = []
    for odd in (base, base + pd.Timedelta(1, "ns")):
        t = pd.Series([base, base + pd.Timedelta(1, "s"), odd])
        frame = pd.DataFrame(
            {
                "t": t,
                "utc": t.dt.tz_localize("UTC"),
                "dt": t - base,
                "cat": pd.Categorical(t),
                "ordered": pd.Categorical(t, ordered=True),
            }
        ).set_axis(pd.DatetimeIndex(t))
        part = wd._part_view(frame.iloc[:2])
        times = wd._part_view(t.to_numpy().reshape(-1, 1)[:2])
        seen.append(
            [str(part[c].dtype) for c in ("t", "utc", "dt")]
            + [str(part[c].cat.categories.dtype) for c in ("cat", "ordered")]
            + [str(part.index.dtype), str(times.dtype), part["t"].tolist()]
        )
        own = wd._part_view(frame.iloc[1:])  # the odd value in the part itself
    assert seen[0] == seen[1] and seen[0][0] == "datetime64[us]", seen
    assert str(own["t"].dtype) == "datetime64[ns]"  # its own nanosecond


# ---------------------------------------------------------------------------
# Fit parameters: routed as scikit-learn routes them, or refused before a read
# ---------------------------------------------------------------------------
_PIPE_SPACE = {"logisticregression__C": [0.1, 1.0]}


class _WeightSpy(LogisticRegression):
    seen: list = []

    def fit(self, X, y, sample_weight=None):
        _WeightSpy.seen.append((len(X), len(sample_weight)))
        return super().fit(X, y, sample_weight=sample_weight)


@pytest.mark.parametrize(
    "make, fit_kwargs, match",
    [
        (  # scikit-learn's Pipeline refuses a bare name without routing
            lambda: make_pipeline(StandardScaler(), LogisticRegression()),
            {"sample_weight": 1},
            "logisticregression__sample_weight",
        ),
        (
            lambda: make_pipeline(StandardScaler(), LogisticRegression()),
            {"scaler__sample_weight": 1},
            "no fitted step 'scaler'",
        ),
        (lambda: LogisticRegression(), {"weights": 1}, "takes no parameter"),
    ],
)
def test_fit_params_the_fit_would_refuse_are_refused_before_the_charge(
    data, make, fit_kwargs, match
):
    X, y = data
    acct = BudgetAccountant(epsilon=10)
    space = _PIPE_SPACE if "pipeline" in type(make()).__name__.lower() else SPACE
    search = DPBayesSearchCV(make(), space, accountant=acct, refit=False)
    fit_kwargs = {k: np.ones(len(y)) for k in fit_kwargs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(ValueError, match=match):
            search.fit(X, y, **fit_kwargs)
    assert acct.spent == (0.0, 0.0)


def test_sample_weight_reaches_every_parts_fit_in_a_pipeline(data):
    # The step form (no routing) and metadata routing both weight every
    # part's fits with the part's own weights; before, a bare sample_weight
    # made every part's fit fail (best_score_ near 0) and this raised nothing.
    import sklearn

    X, y = data
    kw = dict(refit=False, release_score=False, random_state=0)
    mode = WholeData(n_parts=3, max_selection_noise=None)
    space = {"_weightspy__C": [0.1, 1.0]}
    _WeightSpy.seen = []
    pipe = make_pipeline(StandardScaler(), _WeightSpy())
    DPBayesSearchCV(pipe, space, method=mode, **kw).fit(
        X, y, _weightspy__sample_weight=np.ones(len(y))
    )
    # 3 parts x 2 candidates, each fit on 140 rows (70 % of a 200-row part)
    assert _WeightSpy.seen == [(140, 140)] * 6
    with sklearn.config_context(enable_metadata_routing=True):
        _WeightSpy.seen = []
        spy = _WeightSpy().set_fit_request(sample_weight=True)
        pipe = make_pipeline(StandardScaler().set_fit_request(sample_weight=False), spy)
        DPBayesSearchCV(pipe, space, method=mode, **kw).fit(
            X, y, sample_weight=np.ones(len(y))
        )
        assert _WeightSpy.seen == [(140, 140)] * 6
        unset = make_pipeline(StandardScaler(), spy)
        with pytest.raises(ValueError, match="StandardScaler"):
            DPBayesSearchCV(unset, space, method=mode, **kw).fit(
                X, y, sample_weight=np.ones(len(y))
            )


def test_verbose_names_what_is_read(data, capsys):
    X, y = data
    DPBayesSearchCV(
        LogisticRegression(), SPACE, refit=False, verbose=1, random_state=0
    ).fit(X, y)
    out = capsys.readouterr().out
    assert "reading the rows of X, y" in out
    assert "validation" not in out


# ---------------------------------------------------------------------------
# Default anchoring (issue 38): a non-default release needs a public margin
# ---------------------------------------------------------------------------
def test_anchor_margin_formula():
    # τ = (2Δ/ε₁)·ln(L/β): Δ = 0.01, ε₁ = 2, L = 30, β = 0.05 -> 0.01·ln 600
    assert wd.anchor_margin(0.01, 2.0, 30, 0.05) == pytest.approx(0.0639693, rel=1e-6)
    assert wd.anchor_margin(0.02, 1.0, 1, 0.5) == pytest.approx(0.04 * np.log(2))


@pytest.mark.parametrize("selection", ["permute-and-flip", "exponential"])
@pytest.mark.parametrize("n_cands, gap", [(2, 0.0), (21, 0.0), (21, -0.01)])
def test_anchored_release_of_a_no_better_candidate_is_rare(selection, n_cands, gap):
    # Every other candidate scores S(d) + gap (gap <= 0: no better than the
    # defaults): the exact probability of releasing one of them is <= β; the
    # same matrix without the anchor releases one with probability > β.
    from sklearn_dpbo.privacy._mechanisms import (
        permute_and_flip_probabilities,
    )

    k, eps, beta = 100, 0.5, 0.05
    scorer = get_dp_scorer("accuracy", LogisticRegression())
    scores = np.full((k, n_cands), 0.8 + gap)
    scores[:, 3 % n_cands] = 0.8  # the defaults' column
    mode = WholeData(max_worse_probability=beta, selection=selection)
    u, sens, tau, note = wdr._anchored(
        scores.mean(0), scorer.sensitivity_for(k), eps, 3 % n_cands, mode, 1.0
    )
    assert tau == pytest.approx(2 * sens / eps * np.log((n_cands - 1) / beta))
    assert f"{tau:.4g}" in note and "<= 0.05" in note
    if selection == "permute-and-flip":
        p = permute_and_flip_probabilities(u, eps, sens)
        p0 = permute_and_flip_probabilities(scores.mean(0), eps, sens)
    else:
        w = np.exp(eps * (u - u.max()) / (2 * sens))
        p = w / w.sum()
        p0 = np.full(n_cands, 1.0 / n_cands) if gap == 0 else None
    others = np.arange(n_cands) != 3 % n_cands
    assert p[others].sum() <= beta
    if p0 is not None and gap == 0:
        assert p0[others].sum() > beta  # the power check: unanchored fails


def test_anchored_fit_states_the_margin_and_can_release_a_better_candidate(data):
    # A candidate far better than the defaults (C = 1e-4 predicts one class)
    # on 600 rows, k = 3, ε = 40: the gap beats the margin and is released.
    X, y = data
    s = DPBayesSearchCV(
        LogisticRegression(C=1e-6),
        {"C": [1e-6, 1.0]},
        method=WholeData(n_parts=3, max_selection_noise=None),
        epsilon=40.0,
        refit=False,
        release_score=False,
        random_state=0,
    ).fit(X, y)
    assert s.best_params_ == {"C": 1.0}
    text = str(s.privacy_report_)
    assert "anchored at the estimator's own values" in text
    assert "P[best_params_ scores no better than the defaults" in text
    unanchored = WholeData(
        n_parts=3, max_selection_noise=None, max_worse_probability=None
    )
    s.set_params(method=unanchored).fit(X, y)
    assert "anchored" not in str(s.privacy_report_)


# ---------------------------------------------------------------------------
# Said before the read (issue 38): whether tuning can help, and what size
# best_score_ holds for
# ---------------------------------------------------------------------------
def test_noise_floor_formula():
    # 2·ln(21)/(100·1) ≈ 0.061: about 6 points at k = 100, 21 candidates, ε = 1
    assert wd.noise_floor(100, 1.0, 21) == pytest.approx(0.0608904, rel=1e-6)


def _warned(X, y, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = DPBayesSearchCV(LogisticRegression(), refit=False, random_state=0, **kw)
        s.fit(X, y)
    return s, [str(w.message) for w in caught if "noise floor" in str(w.message)]


def test_warns_up_front_when_candidates_cannot_be_told_apart(data, monkeypatch):
    X, y = data
    # The warning comes from public numbers only: no part is scored before.
    calls = []
    real = wd.part_score_matrix
    monkeypatch.setattr(
        wd, "part_score_matrix", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    mode = WholeData(n_parts=3, max_selection_noise=None)
    s, said = _warned(X, y, search_spaces=SPACE, method=mode)
    assert len(said) == 1
    # 5 candidates (4 + the defaults C=1.0 is among them: 4), k = 3, ε₁ = 0.5
    assert "2*ln(4)/(3*0.5)" in said[0] and "expect the defaults" in said[0]
    assert f"{wd.noise_floor(3, 0.5, 4):.3g}" in said[0]
    # Enough parts and budget (the floor and margin fall as 1/(k*epsilon):
    # k = 10 at epsilon = 400 as k = 100 at 40, on 10x fewer part fits).
    mode = WholeData(n_parts=10, max_selection_noise=None, min_part_size=2)
    X2, y2 = make_classification(200, 5, random_state=1)
    _, said = _warned(X2, y2, search_spaces=SPACE, method=mode, epsilon=400.0)
    assert said == []
    # No tuning at all (max_selection_noise): the warning says the floor too.
    _, said = _warned(X, y, search_spaces=SPACE)
    assert len(said) == 1 and "no tuning" in said[0]


def test_best_score_names_the_training_size_it_holds_for(data):
    X, y = data
    s = DPBayesSearchCV(LogisticRegression(), SPACE, refit=False, random_state=0).fit(
        X, y
    )
    # 600 rows, k = 3 parts of 200, 30 % held out: 140 fit rows
    assert s.best_score_train_size_ == 140
    assert "models fit on about 140 rows" in str(s.privacy_report_)
    s.set_params(method=WholeData(inner_split=4)).fit(X, y)
    assert s.best_score_train_size_ == 150  # 4 folds of 200 rows


# ---------------------------------------------------------------------------
# Cost: a Pipeline's shared leading steps are fitted once per fold
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("odd", ["none", "missing value", "unseen category"])
def test_shared_pipeline_steps_score_as_the_whole_pipeline(monkeypatch, odd):
    """Part scores with the shared steps fitted once equal the whole pipeline's.

    The held-out rows include, per case, a missing value (the transform
    passes it, the model's predict fails: the records are isolated through
    the whole pipeline) or a category unseen in training (the transform
    fails).
    """
    pd = pytest.importorskip("pandas")
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {
            "a": rng.normal(size=60),
            "b": rng.normal(size=60),
            "c": np.array(rng.choice(["u", "v", "w"], 60), dtype=object),
        }
    )
    y = (X["a"] + rng.normal(size=60) > 0).astype(int).to_numpy()
    if odd == "missing value":
        X.loc[[45, 50], "a"] = np.nan
    elif odd == "unseen category":
        X.loc[[45, 50], "c"] = "z"
    pre = ColumnTransformer(
        [("num", StandardScaler(), ["a", "b"]), ("cat", OneHotEncoder(), ["c"])]
    )
    pipe = Pipeline([("pre", pre), ("lr", LogisticRegression())])
    cands = [{"lr__C": c} for c in (0.001, 1.0, 100.0)]
    assert wd._shared_steps(pipe, cands, {}) == 1
    assert wd._shared_steps(pipe, cands + [{"pre__num__with_mean": False}], {}) == 0
    assert wd._shared_steps(pipe, cands, {"lr__sample_weight": np.ones(60)}) == 0
    splits = [(np.arange(40), np.arange(40, 60))]
    scorer = get_dp_scorer("accuracy", pipe)
    payload = wd._part_payload(pipe, X, y, {}, np.arange(60), 60)
    shared = wd._score_part(pipe, cands, payload, splits, scorer)
    monkeypatch.setattr(wd, "_shared_steps", lambda *args: 0)
    whole = wd._score_part(pipe, cands, payload, splits, scorer)
    np.testing.assert_array_equal(shared, whole)
    assert len(np.unique(whole)) > 1  # informative: the candidates differ
    if odd != "none":  # the two odd records score low, the others do not
        assert np.all(whole <= 18 / 20) and np.all(whole > 0)


# ---------------------------------------------------------------------------
# Cost: a part's fits run on one BLAS/OpenMP thread
# ---------------------------------------------------------------------------
def _threaded_estimators():
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier

    return [
        (
            HistGradientBoostingClassifier(max_iter=3, random_state=0),
            [{"learning_rate": 0.1}, {"learning_rate": 1.0, "max_leaf_nodes": 4}],
        ),
        (
            RandomForestClassifier(n_estimators=4, n_jobs=2, random_state=0),
            [{"max_depth": 2}, {"max_depth": None}],
        ),
        (LogisticRegression(), [{"C": 0.01}, {"C": 10.0}]),
    ]


@pytest.mark.parametrize("which", range(3))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_part_scores_do_not_depend_on_the_thread_count(monkeypatch, which, seed):
    """Pinned to one thread, a part scores as its estimator with two.

    And the caller's thread limits are as they were after the parts.
    """
    from contextlib import nullcontext

    from threadpoolctl import threadpool_info, threadpool_limits

    estimator, cands = _threaded_estimators()[which]
    X, y = make_classification(80, 6, n_informative=4, random_state=seed)
    search = DPBayesSearchCV(estimator, {}, n_jobs=1)
    parts = wd.partition(len(y), 1, seed=seed)
    scorer = get_dp_scorer("accuracy", estimator)

    def scores():
        return wd.part_score_matrix(search, cands, X, y, {}, parts, 0.3, seed, scorer)

    with threadpool_limits(limits=2):
        before = [p["num_threads"] for p in threadpool_info()]
        pinned = scores()
        after = [p["num_threads"] for p in threadpool_info()]
        assert after == before
        monkeypatch.setattr(wd, "_one_thread", nullcontext)
        two = scores()
    np.testing.assert_array_equal(pinned, two)
    assert len(np.unique(two)) > 1  # informative: the candidates differ


class _ThreadProbe(ClassifierMixin, BaseEstimator):
    """Records the largest BLAS/OpenMP thread count its fit runs with."""

    seen: list = []

    def __init__(self, C=1.0):
        self.C = C

    def fit(self, X, y):
        from threadpoolctl import threadpool_info

        _ThreadProbe.seen.append(max(p["num_threads"] for p in threadpool_info()))
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def test_parts_fit_on_one_thread_and_the_callers_limits_stay(data):
    from threadpoolctl import threadpool_info, threadpool_limits

    X, y = data
    _ThreadProbe.seen = []
    with threadpool_limits(limits=2):
        before = [p["num_threads"] for p in threadpool_info()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # refit=True and k=3: announced
            DPBayesSearchCV(_ThreadProbe(), SPACE, refit=True).fit(X, y)
        after = [p["num_threads"] for p in threadpool_info()]
        assert after == before
    assert max(before) == 2 and len(_ThreadProbe.seen) > 2
    assert _ThreadProbe.seen[:-1] == [1] * (len(_ThreadProbe.seen) - 1)
    assert _ThreadProbe.seen[-1] == 2  # the refit: the caller's own threads


class _GlobalPool:
    """A thread pool whose limit is process-wide (OpenBLAS with pthreads,
    MKL, BLIS), with threadpoolctl's controller and limiter interface."""

    threads = 2

    def limit(self, limits):
        return _GlobalLimiter(limits)


class _GlobalLimiter:
    def __init__(self, limits):
        self.original = _GlobalPool.threads
        _GlobalPool.threads = limits

    def restore_original_limits(self):
        _GlobalPool.threads = self.original

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.restore_original_limits()


def test_one_thread_pins_of_two_threads_restore_the_callers_limits(monkeypatch):
    """Parts run side by side (joblib's threading backend): thread A pins,
    B pins, A ends, B ends. A process-wide limit must come back to the
    caller's 2, not to the 1 that B found while A's pin was open."""
    import threading

    monkeypatch.setattr(wd, "_POOLS", [_GlobalPool(), len(sys.modules)])
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = []

    def part_a():
        with wd._one_thread():
            seen.append(_GlobalPool.threads)
            a_in.set()
            b_in.wait(10)
        a_out.set()

    def part_b():
        a_in.wait(10)
        with wd._one_thread():
            seen.append(_GlobalPool.threads)
            b_in.set()
            a_out.wait(10)

    threads = [threading.Thread(target=f) for f in (part_a, part_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert a_out.is_set() and seen == [1, 1]
    assert _GlobalPool.threads == 2


class _FitTakesY(BaseEstimator):
    """Unsupervised, but its ``fit`` takes ``y`` positionally (no default):
    ``Pipeline.fit(X)`` passes ``y=None`` to its last step."""

    def __init__(self, shift=0.0):
        self.shift = shift

    def fit(self, X, y):
        self.mean_ = np.asarray(X)[:, 0].mean() + self.shift
        return self

    def predict(self, X):
        return (np.asarray(X)[:, 0] > self.mean_).astype(float)


def test_one_step_rest_is_fitted_as_pipeline_fit_fits_its_last_step(monkeypatch):
    """Without y, the shared steps' one-step rest gets ``fit(Xt, None)``, as
    ``Pipeline.fit(X)`` calls it: the same scores as the whole pipeline."""
    from sklearn.pipeline import Pipeline

    from sklearn_dpbo import make_dp_scorer

    X = np.random.default_rng(0).normal(size=(60, 3))
    pipe = Pipeline([("sc", StandardScaler()), ("m", _FitTakesY())])
    cands = [{"m__shift": s} for s in (-0.5, 0.0, 0.5)]
    assert wd._shared_steps(pipe, cands, {}) == 1
    scorer = make_dp_scorer(lambda y, out: out, bounds=(0, 1))
    splits = [(np.arange(40), np.arange(40, 60))]
    payload = wd._part_payload(pipe, X, None, {}, np.arange(60), 60)
    shared = wd._score_part(pipe, cands, payload, splits, scorer)
    monkeypatch.setattr(wd, "_shared_steps", lambda *args: 0)
    whole = wd._score_part(pipe, cands, payload, splits, scorer)
    assert len(np.unique(whole)) > 1  # informative: the candidates differ
    np.testing.assert_array_equal(shared, whole)


@pytest.mark.parametrize("max_selection_noise", ["default", None])
def test_setting_warnings_point_at_the_callers_fit(data, max_selection_noise):
    # Every warning about the settings names the line that called fit: no
    # tuning, the noise of best_score_, refit=True; tuning forced: the floor.
    X, y = data
    kw = {} if max_selection_noise else {"method": WholeData(max_selection_noise=None)}
    s = DPBayesSearchCV(LogisticRegression(), SPACE, epsilon=0.5, refit=True, **kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s.fit(X, y)
    ours = [w for w in caught if "method='whole-data'" in str(w.message)]
    assert len(ours) == 3
    assert {w.filename for w in ours} == {__file__}, [str(w.message) for w in ours]


def test_fit_parameters_reach_each_part_as_float64():
    """Typed like X: a whole-valued float weight stays float64 (an estimator
    normalising its weights in place works), a boolean one too, a complex
    one without imaginary part in the part float64; a Series keeps its index."""
    pd = pytest.importorskip("pandas")
    assert wd.part_fit_param(np.ones(3)).dtype == np.float64
    assert wd.part_fit_param(np.array([True, False])).tolist() == [1.0, 0.0]
    odd = pd.Series([1 + 0j, 2 + 0j], index=[7, 9])
    part = wd.part_fit_param(odd)
    assert part.dtype == np.float64 and part.index.tolist() == [7, 9]


def test_a_list_of_rows_for_a_dp_learner_is_refused_before_any_read():
    """A DP learner's fit refuses X as a list (one conversion of the whole
    batch): every part would fail and score low, so the whole-data mode
    refuses it from its type, before the budget is spent."""
    from sklearn_dpbo.dp_learners import DPLogisticRegression

    ledger = BudgetAccountant(epsilon=1.0)
    search = DPBayesSearchCV(
        DPLogisticRegression(bounds=(0.0, 1.0)),
        {"C": [0.1, 1.0]},
        method="whole-data",
        epsilon=1.0,
        accountant=ledger,
        refit=False,
    )
    X = np.random.default_rng(0).uniform(size=(200, 2))
    with pytest.raises(TypeError, match="got list"):
        search.fit(X.tolist(), (X[:, 0] > 0.5).astype(int))
    assert ledger.spent == (0.0, 0.0)

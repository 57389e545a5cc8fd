"""Private-model mode: what X, y may be, and what one entry of them can do.

Every row is private, so whether ``fit`` raises or warns, and what it keeps,
must not depend on one record, even a mistyped one. A DataFrame built from
records takes its dtypes from all of them (one ``None`` makes a bool column
object), so the mode reads every entry on its own as a float64 and checks
only the container's type and shape (``_entries.check_containers``,
``float_entries``). Settings that cannot run are refused before the
accountant is charged.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import sklearn_dpbo.model_selection._entries as entries
import sklearn_dpbo.model_selection._private_model._fit as pm
from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV, make_dp_scorer
from sklearn_dpbo.dp_learners import DPLinearRegression, DPLogisticRegression
from sklearn_dpbo.model_selection import PrivateModel

pd = pytest.importorskip("pandas")

ODD = 7  # the row whose entry is odd in V'


def _search(**kw):
    return DPBayesSearchCV(
        kw.pop("estimator", DPLogisticRegression(data_norm=2.0)),
        kw.pop("grid", {"C": [0.01, 0.1, 1.0]}),
        method=PrivateModel(strategy=kw.pop("strategy", "split")),
        epsilon=2.0,
        delta=1e-6,
        scoring=kw.pop("scoring", "accuracy"),
        n_iter=3,
        random_state=0,
        noise_random_state=kw.pop("noise_random_state", 3),
        release_score=kw.pop("release_score", True),
        **kw,
    )


def _fit(X, y, **kw):
    search = _search(**kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y)
    return search, [(w.category, str(w.message)) for w in caught]


def _released(search):
    return (
        search.best_params_,
        search.best_score_,
        np.asarray(search.best_estimator_.coef_).tolist(),
        float(np.ravel(search.best_estimator_.intercept_)[0]),
    )


def _records(n=160, seed=0):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=n) / 3, rng.normal(size=n) / 3
    flag, code = rng.random(n) < 0.5, rng.integers(0, 3, n)
    y = (a + 0.2 * rng.normal(size=n) > 0).astype(int)
    rows = [
        {"a": float(a[i]), "b": float(b[i]), "flag": bool(flag[i]), "code": int(c)}
        for i, c in enumerate(code)
    ]
    return rows, y


def _with(rows, column, value):
    out = [dict(r) for r in rows]
    out[ODD][column] = value
    return out


def _nan_at(df, column):
    """V'': the numeric frame with the odd entry replaced by its image, NaN."""
    out = df.astype({column: float})
    out.loc[ODD, column] = np.nan
    return out


def _case(kind):
    """(V, V', V'') as (X, y) pairs."""
    rows, y = _records()
    V = pd.DataFrame(rows)
    if kind == "none-in-bool-column":
        Vp, Vpp = pd.DataFrame(_with(rows, "flag", None)), _nan_at(V, "flag")
        return (V, y), (Vp, y), (Vpp, y)
    if kind == "string-in-int-column":
        Vp, Vpp = pd.DataFrame(_with(rows, "code", "x")), _nan_at(V, "code")
        return (V, y), (Vp, y), (Vpp, y)
    if kind == "pd.NA-in-Int64-column":
        V = V.astype({"code": "Int64", "flag": "boolean"})
        Vp = V.copy()
        Vp.loc[ODD, "code"] = pd.NA
        return (V, y), (Vp, y), (_nan_at(V.astype({"flag": float}), "code"), y)
    assert kind == "string-label-in-y-Series"
    labels = list(y)
    labels[ODD] = "x"
    y_img = y.astype(float)
    y_img[ODD] = np.nan
    return (V, pd.Series(y)), (V, pd.Series(labels)), (V, y_img)


KINDS = [
    "none-in-bool-column",
    "string-in-int-column",
    "pd.NA-in-Int64-column",
    "string-label-in-y-Series",
]


@pytest.mark.parametrize("kind", KINDS)
def test_one_odd_record_changes_its_own_entry_only(kind):
    # On the code before float_entries, V' (and for Int64 also V) was
    # refused from its dtype: TypeError on one side of the pair only.
    V, Vp, Vpp = _case(kind)
    s, w = _fit(*V)
    sp, wp = _fit(*Vp)
    spp, _ = _fit(*Vpp)
    assert w == wp  # the same warnings: category and message
    assert sorted(vars(s)) == sorted(vars(sp))
    assert s.privacy_report_.explain() == sp.privacy_report_.explain()
    # The odd entry became its own NaN and nothing else: V' releases
    # exactly what V'' (that NaN, numeric) releases with the same noise.
    assert _released(sp) == _released(spp)


class _Raises:
    def __float__(self):
        raise RuntimeError("a record that fails")


class _Warns:
    def __float__(self):
        warnings.warn("a record that warns", UserWarning, stacklevel=1)
        return 0.25


def test_entries_that_raise_overflow_or_warn_stay_in_their_row():
    rows, y = _records()
    V = pd.DataFrame(rows)
    odd = V.astype({"a": object})
    odd.loc[ODD, "a"] = _Raises()  # -> NaN
    odd.loc[ODD + 1, "a"] = 10**400  # float() overflows -> NaN
    odd.loc[ODD + 2, "a"] = _Warns()  # -> 0.25, its warning withheld
    odd.loc[ODD + 3, "a"] = "1.5"  # a numeric string -> 1.5
    odd.loc[ODD + 4, "a"] = 1 + 0j  # no imaginary part -> 1.0
    odd.loc[ODD + 5, "a"] = 1 + 2j  # complex -> NaN
    img = V.copy()
    img.loc[[ODD, ODD + 1, ODD + 5], "a"] = np.nan
    img.loc[ODD + 2, "a"], img.loc[ODD + 3, "a"] = 0.25, 1.5
    img.loc[ODD + 4, "a"] = 1.0
    s, w = _fit(V, y)
    so, wo = _fit(odd, y)
    si, _ = _fit(img, y)
    assert w == wo and s.privacy_report_.explain() == so.privacy_report_.explain()
    assert _released(so) == _released(si)


def test_each_learner_receives_float64_arrays(monkeypatch):
    # The learners (diffprivlib's too: fit_dp_learner dispatches to
    # _fit_diffprivlib) get the converted arrays, never the containers.
    seen = []
    fit = pm.fit_dp_learner

    def spy(est, X, y, rng):
        seen.append((type(X), str(X.dtype), X.ndim, type(y), str(y.dtype), y.ndim))
        return fit(est, X, y, rng)

    monkeypatch.setattr(pm, "fit_dp_learner", spy)
    _, Vp, _ = _case("string-label-in-y-Series")
    _fit(*Vp)
    assert seen
    assert set(seen) == {(np.ndarray, "float64", 2, np.ndarray, "float64", 1)}


@pytest.mark.parametrize(
    "dtype",
    [bool, np.int8, np.int64, np.uint64, np.float16, np.float32, np.float64],
)
def test_numeric_arrays_convert_as_float_of_each_entry(dtype):
    # The vectorised path (NumPy-numeric dtypes) gives float(v) per entry.
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else None
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
    if dtype is bool:
        A = np.array([[True, False], [False, True]])
    elif info is not None and np.dtype(dtype).kind == "f":
        A = np.array([[info.max, info.min], [info.tiny, -0.0], [np.nan, np.inf]])
        A = A.astype(dtype)
    else:
        A = np.array([[info.max, info.min], [0, 1]], dtype=dtype)
    fast = entries.float_entries(A)
    slow = np.array([[float(v) for v in row] for row in A.tolist()])
    assert fast.dtype == np.float64
    np.testing.assert_array_equal(fast, slow)
    np.testing.assert_array_equal(entries.float_entries(pd.DataFrame(A)), slow)


def test_longdouble_overflow_is_inf_on_both_paths():
    A = np.array([[np.longdouble("1e4000"), 1.0]], dtype=np.longdouble)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slow = np.array([[float(v) for v in A[0]]])
    np.testing.assert_array_equal(entries.float_entries(A), slow)


def test_entry_conversion_never_raises():
    A = np.array(
        [None, pd.NA, pd.NaT, "x", "1.5", b"2", True, 10**400, _Raises(), 1j, [1]],
        dtype=object,
    )
    out = entries.float_entries(A)
    expected = [np.nan, np.nan, np.nan, np.nan, 1.5, 2.0, 1.0]
    np.testing.assert_array_equal(out, expected + [np.nan] * 4)


# ---------------------------------------------------------------------------
# Numeric input: unchanged
# ---------------------------------------------------------------------------
def _numeric(n=160, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) / 3
    X[3, 1], X[5, 0] = np.nan, 1e300
    y = (X[:, 0] + 0.2 * rng.normal(size=n) > 0).astype(int)
    return X, y


# The releases for the configuration below, NumPy array input: the
# conversion changes no bit. (Re-pinned when the learners' noise radius
# became an exact Gamma sampler, branch dplearn bd2b205: other seeded draws.)
PINNED = (
    "({'C': 0.01}, 0.5891222506761551, [[0.1855705294109725, "
    "-0.08930596756045861, 0.071698962496608]], -0.04111001695626595)"
)


def test_numeric_array_and_dataframe_release_the_same():
    X, y = _numeric()
    a, _ = _fit(X, y, strategy="random-stopping")
    b, _ = _fit(pd.DataFrame(X), pd.Series(y), strategy="random-stopping")
    with np.errstate(over="ignore"):  # 1e300 -> inf in float32, before fit
        X32 = X.astype(np.float32)
    c, _ = _fit(X32.astype(np.float64), y.astype(bool))
    d, _ = _fit(X32, y.astype(np.int8))
    assert _released(a) == _released(b)
    assert _released(c) == _released(d)
    assert repr(_released(a)) == PINNED


# ---------------------------------------------------------------------------
# Refused from the container's type and shape, before any charge
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("odd", [False, True])
@pytest.mark.parametrize("which", ["X-list", "X-tuple", "y-list"])
def test_lists_are_refused_with_one_message_whatever_they_hold(which, odd):
    X, y = _numeric()
    Xl, yl = X.tolist(), y.tolist()
    if odd:
        Xl[ODD][0], yl[ODD] = "x", None
    args = {
        "X-list": (Xl, y),
        "X-tuple": (tuple(map(tuple, Xl)), y),
        "y-list": (X, yl),
    }[which]
    acct = BudgetAccountant(epsilon=10.0, delta=1e-3)
    with warnings.catch_warnings(), pytest.raises(TypeError) as info:
        warnings.simplefilter("ignore")  # noise_random_state's warning
        _search(accountant=acct).fit(*args)
    name, kind = ("y", "list") if which == "y-list" else ("X", which[2:])
    assert str(info.value).startswith(
        f"method='private-model' needs {name} as a NumPy array or a pandas "
        f"{'Series' if name == 'y' else 'DataFrame'}; got {kind}."
    )
    assert "numeric NumPy array" in str(info.value)
    assert acct.spent == (0.0, 0.0)


def _sparse(X):
    sparse = pytest.importorskip("scipy.sparse")
    return sparse.csr_matrix(X)


REFUSED = {
    # (estimator, scoring, X -> X, y -> y, error, message)
    "mse-auto-clip": (
        "linear",
        "neg_mean_squared_error",
        None,
        None,
        ValueError,
        r"no clip can be derived.*make_dp_scorer\('neg_mean_squared_error', "
        r"error_clip=c\)",
    ),
    "mae-auto-clip": (
        "linear",
        "neg_mean_absolute_error",
        None,
        None,
        ValueError,
        r"make_dp_scorer\('neg_mean_absolute_error', error_clip=c\)",
    ),
    "r2-auto": (
        "linear",
        "r2",
        None,
        None,
        ValueError,
        r"make_dp_scorer\('r2', error_clip=c, target_variance=v\)",
    ),
    "sparse-X": (
        "logistic",
        "accuracy",
        _sparse,
        None,
        TypeError,
        r"does not take a sparse X \(csr_matrix\): pass a dense array, e\.g\. "
        r"X\.toarray\(\)",
    ),
    # A column vector (n, 1) is made 1-D with a DataConversionWarning, as in
    # every mode (tests/model_selection/test_correctness_round.py).
    "y-two-columns": (
        "logistic",
        "accuracy",
        None,
        lambda y: np.column_stack([y, y]),
        ValueError,
        r"y has shape \(160, 2\), but the estimator takes one target per row",
    ),
    "y-two-column-frame": (
        "logistic",
        "accuracy",
        None,
        lambda y: pd.DataFrame({"a": y, "b": y}),
        ValueError,
        r"y has shape \(160, 2\), but the estimator takes one target per row",
    ),
    "X-3d": (
        "logistic",
        "accuracy",
        lambda X: X[:, :, None],
        None,
        ValueError,
        r"needs X of shape \(n_samples, n_features\); got shape \(160, 3, 1\)",
    ),
    "X-1d": (
        "logistic",
        "accuracy",
        lambda X: X[:, 0],
        None,
        ValueError,
        r"needs X of shape \(n_samples, n_features\); got shape \(160,\)",
    ),
    "huge-int-classes": (
        DPLogisticRegression(data_norm=2.0, classes=(0, 2**60 + 1)),
        "accuracy",
        None,
        None,
        ValueError,
        r"must hold numbers that float64 holds exactly \(\|c\| < 2\*\*53\)",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_unrunnable_settings_are_refused_before_the_charge(case):
    est, scoring, fx, fy, error, message = REFUSED[case]
    X, y = _numeric()
    if est == "linear":
        est, y = DPLinearRegression(data_norm=1.0), X[:, 0] * 0.5
        grid = {"alpha": [0.1, 1.0, 10.0]}
    else:
        est = DPLogisticRegression(data_norm=2.0) if est == "logistic" else est
        grid = {"C": [0.01, 0.1, 1.0]}
    X = X if fx is None else fx(X)
    y = y if fy is None else fy(y)
    acct = BudgetAccountant(epsilon=10.0, delta=1e-3)
    search = _search(estimator=est, grid=grid, scoring=scoring, accountant=acct)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error, match=message):
            search.fit(X, y)
    assert acct.spent == (0.0, 0.0)


def test_public_clip_runs_where_auto_is_refused():
    X, y = _numeric()
    scorer = make_dp_scorer("neg_mean_squared_error", error_clip=1.0)
    s, _ = _fit(
        X,
        X[:, 0] * 0.5,
        estimator=DPLinearRegression(data_norm=1.0),
        grid={"alpha": [0.1, 1.0, 10.0]},
        scoring=scorer,
    )
    assert -1.0 <= s.best_score_ <= 0.0


def test_batch_complex_or_string_arrays_read_each_entry_back():
    """Fourth review (2026-11-25): one complex entry made the whole column
    complex and every entry NaN; one string turned another row's True into
    "True", then NaN. Each entry is now read back on its own."""
    col = np.array([0.5, 1.5, 2.0 + 1j, 3.0])  # complex128 for the batch
    out = entries.float_entries(col)
    np.testing.assert_array_equal(out[[0, 1, 3]], [0.5, 1.5, 3.0])
    assert np.isnan(out[2])
    frame = pd.DataFrame({"a": [0.5, 1.5, 2.0 + 1j, 3.0], "b": [1.0, 2.0, 3.0, 4.0]})
    assert np.isnan(entries.float_entries(frame)).sum() == 1
    strings = np.array([[True, 0.25], ["x", 0.5 + 0j]], dtype=object).astype(str)
    out = entries.float_entries(strings)
    assert out[0].tolist() == [1.0, 0.25] and np.isnan(out[1, 0]) and out[1, 1] == 0.5

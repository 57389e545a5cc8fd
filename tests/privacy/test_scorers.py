"""Per-record private scores: values, sensitivity by construction, failures."""

from __future__ import annotations

import math
import threading
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import (
    accuracy_score,
    brier_score_loss,
    hinge_loss,
    log_loss,
    mean_absolute_error,
    mean_squared_error,
    r2_score,
)

from sklearn_dpbo.privacy import RowIndependenceError
from sklearn_dpbo.privacy._builtin_scores import (
    BUILTIN_SCORES,
    get_dp_scorer,
    make_dp_scorer,
)
from sklearn_dpbo.privacy._scorers import DPScorer
from sklearn_dpbo.privacy._silence import quiet


class Lookup(ClassifierMixin, BaseEstimator):
    """Predicts the label in column 0; proba/decision from column 1.

    A row whose column 0 is NaN makes predict raise (like an unseen
    category or a NaN feature does in a real pipeline).
    """

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def _rows(self, X):
        X = np.asarray(X, dtype=float)
        if np.isnan(X[:, 0]).any():
            raise ValueError("Input contains NaN")
        return X

    def predict(self, X):
        return self._rows(X)[:, 0].astype(int)

    def predict_proba(self, X):
        p = np.clip(self._rows(X)[:, 1], 0, 1)
        return np.column_stack([1 - p, p])

    def decision_function(self, X):
        return self._rows(X)[:, 1]


class LookupRegressor(RegressorMixin, BaseEstimator):
    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0]


class BatchCentred(LookupRegressor):
    """Transductive: predictions centred on the batch's own mean."""

    def predict(self, X):
        x = np.asarray(X, dtype=float)[:, 0]
        return x - x.mean()


BINARY = Lookup().fit(None, np.array([0, 1]))


# ---------------------------------------------------------------------------
# Values against scikit-learn's metrics
# ---------------------------------------------------------------------------
def _binary_data(m=200, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, m)
    p = np.clip(0.5 * y + rng.uniform(0, 0.5, m), 0.01, 0.99)
    pred = (p > 0.5).astype(int)
    return np.column_stack([pred, p]), y, p


def test_builtin_values_equal_sklearn_metrics():
    X, y, p = _binary_data()
    proba = np.column_stack([1 - p, p])
    score = {name: get_dp_scorer(name, BINARY) for name in ("accuracy", "neg_log_loss")}
    assert score["accuracy"](BINARY, X, y) == pytest.approx(
        accuracy_score(y, X[:, 0].astype(int)), abs=1e-15
    )
    # p ≥ 0.01 > floor 1e-3: no record is floored.
    assert score["neg_log_loss"](BINARY, X, y) == pytest.approx(-log_loss(y, proba))
    brier = get_dp_scorer("neg_brier_score", BINARY)
    assert brier(BINARY, X, y) == pytest.approx(-brier_score_loss(y, p))
    hinge = make_dp_scorer("neg_hinge_loss", clip=100.0)
    assert hinge(BINARY, X, y) == pytest.approx(-hinge_loss(2 * y - 1, p))


def test_regression_values_equal_sklearn_when_nothing_is_clipped():
    rng = np.random.default_rng(1)
    y = rng.normal(size=300)
    pred = y + rng.normal(scale=0.3, size=300)
    X = pred[:, None]
    est = LookupRegressor()
    mae = make_dp_scorer("neg_mean_absolute_error", error_clip=10.0)
    mse = make_dp_scorer("neg_mean_squared_error", error_clip=10.0)
    assert mae(est, X, y) == pytest.approx(-mean_absolute_error(y, pred))
    assert mse(est, X, y) == pytest.approx(-mean_squared_error(y, pred))
    var = float(np.var(y))  # here the "public" variance is the true one
    r2 = make_dp_scorer("r2", error_clip=10.0, target_variance=var)
    assert r2(est, X, y) == pytest.approx(r2_score(y, pred))
    huber = make_dp_scorer("neg_huber_loss", error_clip=10.0, huber_delta=0.5)
    e = np.abs(y - pred)
    expected = -np.mean(np.where(e <= 0.5, 0.5 * e**2, 0.5 * (e - 0.25)))
    assert huber(est, X, y) == pytest.approx(expected)
    # Clipping: an error of 100 counts as the clip.
    assert mae(est, np.array([[100.0]]), np.array([0.0])) == -10.0
    assert mse.bounds == (-100.0, 0.0) and r2.bounds == (1 - 100 / var, 1.0)


@pytest.mark.parametrize(
    "clip, delta, low",
    [(1.0, 1e300, -0.5), (1e200, 1.0, -(1e200 - 0.5)), (1e200, 1e-300, -1e-100)],
)
def test_huber_bounds_are_silent_when_one_branch_overflows(clip, delta, low):
    # Huber's bounds come from its record function at errors c and 0, which
    # evaluates both branches of np.where: the unused one may overflow. That
    # must not warn, nor raise under a user's np.seterr(all="raise"); the
    # bound is the one of the branch that applies (0.5 c² or d (c − d/2)).
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        s = make_dp_scorer("neg_huber_loss", error_clip=clip, huber_delta=delta)
    assert s.bounds == (low, 0.0)


def test_log_loss_floor_and_unknown_label_get_the_worst_value():
    s = make_dp_scorer("neg_log_loss", floor=0.01)
    X = np.array([[1, 1.0], [0, 0.0]])
    # Record 1 has p(y)=1 -> 0; record 2 has p(true=1)=0 -> log(0.01).
    assert s.record_values(BINARY, X, np.array([1, 1])).tolist() == [
        0.0,
        math.log(0.01),
    ]
    # A label the model never saw has probability 0: the floor.
    assert s.record_values(BINARY, X[:1], np.array([7]))[0] == math.log(0.01)


def test_metric_is_unclipped():
    s = make_dp_scorer(lambda y, p: y - p, bounds=(-1.0, 1.0))
    est = LookupRegressor()
    X, y = np.array([[0.0], [0.0]]), np.array([5.0, 1.0])
    assert s(est, X, y) == 1.0  # clipped per record
    assert s.metric(est, X, y) == 3.0  # the user's own data: as is


# ---------------------------------------------------------------------------
# Sensitivity holds by construction, for every score and adversarial records
# ---------------------------------------------------------------------------
ADVERSARIAL = [np.nan, np.inf, -np.inf, 1e300, -1e300, 0.5]


def _neighbours(rng, m, make_row, make_label):
    X = np.array([make_row() for _ in range(m)], dtype=float)
    y = np.array([make_label() for _ in range(m)])
    i = int(rng.integers(m))
    X2, y2 = X.copy(), y.copy()
    X2[i] = make_row()
    y2[i] = make_label()
    return X, y, X2, y2


@pytest.mark.parametrize("name", BUILTIN_SCORES)
def test_one_swapped_record_moves_every_builtin_by_at_most_delta(name):
    params = {}
    if name in ("neg_mean_absolute_error", "neg_mean_squared_error", "neg_huber_loss"):
        params = {"error_clip": 2.0}
    if name == "r2":
        params = {"error_clip": 2.0, "target_variance": 0.5}
    s = make_dp_scorer(name, **params)
    regression = name.startswith("neg_m") or name in ("r2", "neg_huber_loss")
    est = LookupRegressor() if regression else BINARY
    rng = np.random.default_rng(7)

    def row():
        if rng.random() < 0.2:  # a failing or absurd record
            return [rng.choice(ADVERSARIAL), rng.choice(ADVERSARIAL)]
        return [rng.integers(0, 2), rng.uniform(-3, 3)]

    def label():
        if regression:
            return rng.choice([rng.normal(), 1e9, np.nan])
        return rng.choice([0, 1, 1, 7])

    worst = 0.0
    for _ in range(150):
        m = int(rng.choice([1, 2, 3, 7, 40]))
        X, y, X2, y2 = _neighbours(rng, m, row, label)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing may warn either
            change = abs(s(est, X, y) - s(est, X2, y2))
        delta = s.sensitivity_for(m)
        assert change <= delta, (name, m)
        worst = max(worst, change / delta)
    assert worst > 0.5  # some pairs come close to Δ: the check has teeth


def test_aggregate_clipping_breaks_the_bound():
    """Power check: clipping only the mean (the old ``sensitivity="mean"``)
    lets one record move the score far more than (high − low)/m."""
    est = LookupRegressor()
    X = np.zeros((10, 1))
    y, y2 = np.zeros(10), np.zeros(10)
    y2[0] = 100.0
    per_record = make_dp_scorer(lambda t, p: -np.abs(t - p), bounds=(-1.0, 0.0))

    def aggregate(t, p):
        return np.clip(-np.mean(np.abs(t - p)), -1.0, 0.0)

    delta = per_record.sensitivity_for(10)
    assert abs(per_record(est, X, y) - per_record(est, X, y2)) <= delta
    assert abs(aggregate(y, X[:, 0]) - aggregate(y2, X[:, 0])) > 5 * delta


def test_accuracy_sensitivity_exhaustive_small_m():
    """All m ≤ 2000: one swap moves the float mean of 0/1 terms by ≤ Δ(m).

    The float mean is the trap: 1 − fl(2/3) > fl(1/3) (opendp#2923). The
    mean of k ones and m − k zeros is fl(k/m) (the sum is exact), checked
    bit for bit on a sample; the sweep then uses k/m.
    """
    s = get_dp_scorer(None, BINARY)
    rng = np.random.default_rng(0)
    for _ in range(60):
        m = int(rng.integers(1, 400))
        k = int(rng.integers(0, m + 1))
        y = np.ones(m, dtype=int)
        X = np.column_stack([np.r_[np.ones(k), np.zeros(m - k)], np.zeros(m)])
        assert s(BINARY, X, y) == k / m
    for m in range(1, 2001):
        acc = np.arange(m + 1) / m
        assert np.abs(np.diff(acc)).max() <= s.sensitivity_for(m), m


# ---------------------------------------------------------------------------
# Failing records are isolated: each costs at most its own term
# ---------------------------------------------------------------------------
def test_failing_records_get_the_worst_value_and_nothing_else_changes():
    s = get_dp_scorer("accuracy", BINARY)
    X = np.column_stack([np.r_[np.ones(20)], np.full(20, 0.7)])
    y = np.ones(20, dtype=int)
    base = s.record_values(BINARY, X, y)
    for bad in ([3], [0, 19], [4, 5, 6, 11]):
        X2 = X.copy()
        X2[bad, 0] = np.nan  # predict raises on any batch containing them
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            vals = s.record_values(BINARY, X2, y)
        expected = base.copy()
        expected[bad] = 0.0
        np.testing.assert_array_equal(vals, expected)


def test_a_scorer_that_raises_is_isolated_per_record():
    def fragile(y, p):
        y = np.asarray(y)
        if (y == 9).any():
            raise RuntimeError("one record breaks the whole batch")
        return (y == p).astype(float)

    s = make_dp_scorer(fragile, bounds=(0, 1))
    X = np.column_stack([np.ones(9), np.zeros(9)])
    y = np.ones(9, dtype=int)
    y2 = y.copy()
    y2[4] = 9
    assert s(BINARY, X, y) == 1.0
    assert s(BINARY, X, y2) == pytest.approx(8 / 9)


# ---------------------------------------------------------------------------
# Public pre-flight: the score works and is row independent
# ---------------------------------------------------------------------------
def test_row_dependent_model_is_refused():
    s = make_dp_scorer("neg_mean_absolute_error", error_clip=5.0)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(50, 1)), rng.normal(size=50)
    s.check_public_rows(LookupRegressor(), X, y)  # row-wise: accepted
    with pytest.raises(RowIndependenceError, match="depend on that record"):
        s.check_public_rows(BatchCentred(), X, y)


def test_batch_level_user_score_is_refused():
    """A 'per-record' function that really returns a batch statistic."""
    s = make_dp_scorer(lambda y, p: np.full(len(y), np.mean(y == p)), bounds=(0.0, 1.0))
    X = np.column_stack([np.r_[np.ones(30), np.zeros(30)], np.zeros(60)])
    with pytest.raises(RowIndependenceError):
        s.check_public_rows(BINARY, X, np.ones(60, dtype=int))


def test_score_failing_on_public_rows_is_a_clear_error():
    s = make_dp_scorer(lambda y, p: np.mean(y == p), bounds=(0.0, 1.0))  # scalar
    X = np.column_stack([np.ones(10), np.zeros(10)])
    with pytest.raises(ValueError, match="one value per record"):
        s.check_public_rows(BINARY, X, np.ones(10, dtype=int))


# ---------------------------------------------------------------------------
# Declarations and refusals
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(bounds=(1.0, 0.0)), "low < high"),
        (dict(bounds=(0.0, np.inf)), "finite"),
        (dict(bounds=(0.0, 1.0), response_method="transform"), "response_method"),
    ],
)
def test_dp_scorer_bad_declarations(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DPScorer(lambda y, p: y, **kwargs)


def test_sensitivity_is_range_over_m_rounded_up():
    for bounds in [(0.0, 1.0), (-1.0, 1.0), (-3.0, -0.5)]:
        s = DPScorer(lambda y, p: y, bounds=bounds)
        for m in (1, 3, 7, 449, 10**6):
            exact = (bounds[1] - bounds[0]) / m
            slack = 4 * math.ulp(max(abs(b) for b in bounds))
            assert exact < s.sensitivity_for(m) <= exact * (1 + 1e-15) + slack


@pytest.mark.parametrize(
    "name",
    ["f1", "f1_macro", "roc_auc", "roc_auc_ovr", "balanced_accuracy", "precision"],
)
def test_non_decomposable_classification_scores_are_refused_with_reason(name):
    with pytest.raises(ValueError) as info:
        get_dp_scorer(name, LogisticRegression())
    msg = str(info.value)
    assert "per-record" in msg and "1/m" in msg and "instead" in msg


@pytest.mark.parametrize("name", ["explained_variance", "neg_median_absolute_error"])
def test_non_decomposable_regression_scores_are_refused_with_reason(name):
    with pytest.raises(ValueError) as info:
        get_dp_scorer(name, Ridge())
    assert "per-record" in str(info.value) and "instead" in str(info.value)
    with pytest.raises(ValueError, match="neg_mean_squared_error"):
        get_dp_scorer(None, Ridge())  # a regressor has no default score


REGRESSION = ["neg_mean_absolute_error", "neg_mean_squared_error", "neg_huber_loss"]


@pytest.mark.parametrize("name", [*REGRESSION, "r2"])
def test_regression_strings_take_their_clip_from_the_training_targets(name):
    """A bare regression name is error_clip="auto": it scores nothing until
    the public training targets give it its clip (and r2 its variance)."""
    s = get_dp_scorer(name, Ridge())
    assert "error_clip='auto'" in s.name and s.public_note is None
    X, y = np.zeros((3, 1)), np.array([0.0, 1.0, 2.0])
    est = LookupRegressor().fit(X, y)
    for score in (
        lambda: s(est, X, y),
        lambda: s.metric(est, X, y),
        lambda: s.check_public_rows(est, X, y),
    ):
        with pytest.raises(ValueError, match="no clip yet"):
            score()
    y_train = np.arange(11.0)  # median 5; |y - 5| = 0, 1, 1, ..., 5, 5
    bound = s.for_training_targets(y_train)
    assert "error_clip=5" in bound.name  # the 0.95-quantile: position 9.5
    assert "training targets" in bound.public_note
    assert bound.for_training_targets(y_train * 100) is bound  # set once
    if name == "r2":
        assert bound.bounds == (1 - 25 / 10.0, 1.0)  # var(0..10) = 10
    variance = {"target_variance": 10.0} if name == "r2" else {}
    explicit = make_dp_scorer(name, error_clip=5.0, **variance)
    assert bound.bounds == explicit.bounds
    X2 = np.array([[0.0], [9.0], [3.0]])
    np.testing.assert_array_equal(
        bound.record_values(est, X2, y), explicit.record_values(est, X2, y)
    )


def test_public_error_clip_by_hand():
    """c = the 0.95-quantile (linear interpolation) of |y_i - median(y)|."""
    from sklearn_dpbo.privacy._builtin_scores import public_error_clip

    # median 2; distances 1, 0, 0, 1, 8 -> sorted 0, 0, 1, 1, 8; position
    # 0.95 * 4 = 3.8: 1 + 0.8 * (8 - 1) = 6.6.
    assert public_error_clip([1.0, 2.0, 2.0, 3.0, 10.0]) == pytest.approx(6.6)
    assert public_error_clip(np.arange(11.0)) == 5.0
    # Scale-free: an affine change of the target scales the clip.
    y = np.random.default_rng(0).standard_t(3, size=500)
    c = public_error_clip(y)
    assert public_error_clip(-40.0 * y + 7.0) == pytest.approx(40.0 * c)
    # Several outputs: a record's distance is the mean over its outputs
    # (medians 2 and 4: distances 3, 0, 3 -> 0.95-quantile 3).
    assert public_error_clip([[0.0, 0.0], [2.0, 4.0], [4.0, 8.0]]) == 3.0
    # Most targets at the median: the largest distance instead of 0.
    assert public_error_clip([0.0] * 39 + [5.0]) == 5.0  # position 37.05
    for bad in ([3.0] * 10, [1.0, np.nan], None):
        with pytest.raises(ValueError, match="error_clip"):
            public_error_clip(bad)
    with pytest.raises(ValueError, match="'auto'.*or a number"):
        make_dp_scorer("neg_mean_squared_error", error_clip=None)
    with pytest.raises(ValueError, match="'auto'.*or a number"):
        make_dp_scorer("neg_mean_absolute_error", error_clip="scale")


def test_plain_callables_and_unknown_strings_are_refused():
    from sklearn.metrics import make_scorer

    with pytest.raises(TypeError, match="per-record"):
        get_dp_scorer(make_scorer(accuracy_score), LogisticRegression())
    with pytest.raises(ValueError, match="not a private score"):
        get_dp_scorer("no_such_score", LogisticRegression())
    with pytest.raises(TypeError, match="public constants"):
        make_dp_scorer("accuracy", floor=0.1)
    with pytest.raises(TypeError, match="bounds are fixed"):
        make_dp_scorer("accuracy", bounds=(0, 1))
    with pytest.raises(ValueError, match="bounds"):
        make_dp_scorer(lambda y, p: y)


def test_defaults_and_passthrough():
    s = get_dp_scorer(None, LogisticRegression())
    assert s.name == "accuracy" and s.bounds == (0.0, 1.0)
    custom = make_dp_scorer(lambda y, p: y == p, bounds=(0, 1))
    assert get_dp_scorer(custom, LogisticRegression()) is custom
    assert repr(custom).startswith("DPScorer(name='<lambda>', bounds=(0.0, 1.0)")


# ---------------------------------------------------------------------------
# Silence: thread-safe, no filter left behind
# ---------------------------------------------------------------------------
def test_quiet_leaves_filters_unchanged_under_racing_threads():
    before = list(warnings.filters)
    leaked = []

    def private_work():
        for _ in range(200):
            with quiet():
                warnings.warn("PRIVATE", UserWarning, stacklevel=1)

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        inside = list(warnings.filters)
        threads = [threading.Thread(target=private_work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        leaked = [w for w in seen if "PRIVATE" in str(w.message)]
        assert list(warnings.filters) == inside
    assert leaked == []
    assert list(warnings.filters) == before


def _std4_task():
    """A regression target with standard deviation ~4 (public train, private val)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(900, 4))
    y = 2.5 * X[:, 0] + X[:, 1] + rng.normal(scale=3.0, size=900)
    return X[:600], y[:600], X[600:], y[600:]


def test_auto_clip_releases_the_clipped_score_within_its_stated_noise():
    """scoring="neg_mean_squared_error" on a target with std ~4: the clip is
    the hand-computed 0.95-quantile of |y_train - median(y_train)|, stated in
    privacy_report_, independent of the validation set; each released score
    is the selected model's true clipped validation MSE plus noise of the
    stated scale b (30 fits with the production noise: median |error| ~
    0.69 b for Laplace), and at this clip the clipped MSE is most of the
    true MSE (a fixed error_clip=3 keeps about half of it here)."""
    from sklearn_dpbo import DPBayesSearchCV
    from sklearn_dpbo.model_selection import PrivateSelection

    X_tr, y_tr, X_va, y_va = _std4_task()
    assert 3.5 < np.std(y_tr) < 4.5
    c = np.quantile(np.abs(y_tr - np.median(y_tr)), 0.95)  # by hand
    search = DPBayesSearchCV(
        Ridge(),
        {"alpha": [0.1, 30.0, 300.0, 3000.0]},
        scoring="neg_mean_squared_error",
        method=PrivateSelection(shortlist="grid"),
        n_iter=4,
        epsilon=2.0,
        random_state=0,
    )
    errors, ratios = [], []
    for _ in range(30):
        search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
        assert search.scorer_.bounds == pytest.approx((-(c**2), 0.0), rel=1e-12)
        err = np.abs(y_va - search.best_estimator_.predict(X_va))
        clipped = -np.mean(np.minimum(err, c) ** 2)
        (b,) = [
            r["noise_scale"]
            for r in search.privacy_report_.to_dict()["releases"]
            if r["quantity"] == "best_score_"
        ]
        errors.append(abs(search.best_score_ - clipped) / b)
        ratios.append(clipped / -np.mean(err**2))
    assert np.median(errors) < 2.0 and max(errors) < 12.0, errors
    assert min(ratios) > 0.9
    report = search.privacy_report_.explain()
    assert f"error_clip={c:.6g}" in report and "public training targets" in report
    # The clip reads the training targets only.
    search.fit(X_tr, y_tr, X_val=X_va, y_val=10 * y_va)
    assert search.scorer_.bounds == pytest.approx((-(c**2), 0.0), rel=1e-12)
    fixed = np.mean(np.minimum(err, 3.0) ** 2) / np.mean(err**2)
    assert fixed < 0.7  # what the former README's error_clip=3.0 released


def test_auto_clip_is_derived_before_the_validation_read():
    """Constant training targets give no clip: the fit refuses before anything
    is charged (the budget is untouched)."""
    from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV

    X_tr, _, X_va, y_va = _std4_task()
    acc = BudgetAccountant(epsilon=1.0)
    search = DPBayesSearchCV(
        Ridge(), {"alpha": [1.0, 10.0]}, scoring="r2", accountant=acc, n_iter=2
    )
    with pytest.raises(ValueError, match="constant"):
        search.fit(X_tr, np.full(len(X_tr), 2.0), X_val=X_va, y_val=y_va)
    assert acc.spent == (0.0, 0.0)


def test_auto_clip_is_refused_when_the_targets_are_private():
    """method='whole-data' (fit without a validation set) protects every row,
    targets included: error_clip='auto' is refused there before any charge,
    and an explicit clip works."""
    from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV

    X_tr, y_tr, _, _ = _std4_task()
    acc = BudgetAccountant(epsilon=10.0)
    search = DPBayesSearchCV(
        Ridge(),
        {"alpha": [1.0, 10.0]},
        scoring="neg_mean_squared_error",
        accountant=acc,
        refit=False,
    )
    with pytest.raises(ValueError, match="whole-data.*error_clip=c"):
        search.fit(X_tr, y_tr)
    assert acc.spent == (0.0, 0.0)
    search.set_params(scoring=make_dp_scorer("neg_mean_squared_error", error_clip=8.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the mode's announcements
        search.fit(X_tr, y_tr)
    assert search.scorer_.bounds == (-64.0, 0.0) and acc.spent[0] > 0


def test_gp_units_are_checked_with_the_derived_bounds():
    """gp-ucb's GP units follow the bounds the training targets give the score
    (defaults) or are checked against them (given), before any charge."""
    from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV
    from sklearn_dpbo.model_selection import DPGPUCB

    X_tr, y_tr, X_va, y_va = _std4_task()
    c = np.quantile(np.abs(y_tr - np.median(y_tr)), 0.95)
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3)

    def fit(**units):
        search = DPBayesSearchCV(
            Ridge(),
            {"alpha": [1.0, 10.0, 100.0]},
            scoring="neg_mean_squared_error",
            method=DPGPUCB(**units),
            delta=1e-5,
            n_iter=2,
            random_state=0,
            accountant=acc,
            refit=False,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # useless-release notes
            return search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)

    assert (
        "(score - " + f"{-(c**2) / 2:g})/{c**2 / 4:g}"
        in fit().privacy_report_.explain()
    )
    spent = acc.spent
    # A given offset that fits a clip of 1 but not the derived one.
    with pytest.raises(ValueError, match="GP units"):
        fit(score_offset=-0.5, score_scale=0.25)
    assert acc.spent == spent

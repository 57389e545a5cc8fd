"""A record that makes its batch raise moves no other record's value.

A model on the row-wise list scores batches of validation records; a record
that makes a batch raise (a NaN, an unknown category) must not change how
the other records of its batch are computed. Scoring a row alone rounds
differently from scoring it in a batch (a matrix-vector instead of a matrix
product, and the batch's memory layout), so records on a public model's
decision boundary flip their 0/1 accuracy when re-scored alone. V/V' tests
on such records (V' swaps one record for a failing one), a property test
against the definition (each record's value is the one it gets at its
position in a batch of copies of itself), and power checks: the previous
fallback (the batch again, record by record) and sub-batches of other
sizes are caught.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression

from sklearn_dpbo import make_dp_scorer
from sklearn_dpbo.privacy import _rowwise, _scorers
from sklearn_dpbo.privacy._records import RecordSchema, _take
from sklearn_dpbo.privacy._scorers import DPScorer
from sklearn_dpbo.privacy._silence import quiet


def _boundary(d=40, n=300, m=1000, seed=0, frame=False):
    """A public model and m validation records on its decision boundary,
    labelled with its batch predictions (the reviewer's repro)."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    as_given = (lambda a: pd.DataFrame(a).add_prefix("c")) if frame else np.asarray
    model = LogisticRegression(fit_intercept=False).fit(as_given(X), y)
    u = model.coef_[0] / np.linalg.norm(model.coef_[0])
    P = rng.randn(m, d)
    X_val = P - np.outer(P @ u, u)
    return as_given(X), y, model, X_val, model.predict(as_given(X_val))


def _values(scorer, model, X, y, X_val, y_val):
    records = RecordSchema.from_training(X, y, classes=True).map(X_val, y_val)
    return scorer.private_values(model, records)


def _swap_changes(scorer, model, X, y, X_val, y_val, swapped, container=None):
    """Values on V and on V' (records ``swapped`` made NaN), both passed as
    ``container(array)``: how many other records changed, and |f_V − f_V'|."""
    X_bad = X_val.copy()
    X_bad[swapped, 0] = np.nan
    container = container or (lambda a: a)
    v = _values(scorer, model, X, y, container(X_val), y_val)
    w = _values(scorer, model, X, y, container(X_bad), y_val)
    assert (w[swapped] == scorer.bounds[0]).all()  # a failing record scores low
    others = np.ones(len(v), dtype=bool)
    others[swapped] = False
    return int(np.sum(v[others] != w[others])), abs(v.mean() - w.mean())


def _at_offset(a):
    """``a`` C-contiguous at an address 8 bytes past a fresh allocation."""
    out = np.empty(a.size + 1)[1:].reshape(a.shape)
    out[...] = a
    return out


CONTAINERS = {
    "C": np.ascontiguousarray,
    "F": np.asfortranarray,
    "offset": _at_offset,
    "strided": lambda a: np.repeat(a, 2, axis=1)[:, ::2],  # not contiguous
    "frame": lambda a: pd.DataFrame(a).add_prefix("c"),
    "csr": sp.csr_matrix,
    "coo": sp.coo_matrix,  # no rows by index
}


@pytest.mark.parametrize("container", list(CONTAINERS))
def test_a_nan_record_moves_no_other_record_on_the_boundary(container):
    """The reviewer's repro: 86 of 999 other records flipped on main (C)."""
    X, y, model, X_val, y_val = _boundary(frame=container == "frame")
    scorer = make_dp_scorer("accuracy")
    changed, moved = _swap_changes(
        scorer, model, X, y, X_val, y_val, [999], CONTAINERS[container]
    )
    assert changed == 0
    assert moved <= scorer.sensitivity_for(len(X_val))  # 1/m, rounded up


def test_failing_records_in_several_batches_move_no_other_record(monkeypatch):
    """Batches of a size m fixes (300, 300, 300, 100): a failing record in
    three of them, one at a batch's first position."""
    monkeypatch.setattr(_scorers, "BATCH_ROWS", 300)
    X, y, model, X_val, y_val = _boundary()
    scorer = make_dp_scorer("accuracy")
    swapped = [5, 300, 950]
    changed, moved = _swap_changes(scorer, model, X, y, X_val, y_val, swapped)
    assert changed == 0
    assert moved <= len(swapped) * scorer.sensitivity_for(len(X_val))


class SizeRounding(ClassifierMixin, BaseEstimator):
    """Predicts ``x₀ + ε(n, p) > 0`` for row p of a batch of n rows, with a
    tiny ε that depends on both (as BLAS rounding may); raises on a
    non-finite row, on a batch mixing rows with x₁ < −5 and x₁ > 5 (a
    failure that no record has alone) and on one row with x₁ > 3 alone (a
    failure of a record alone only)."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        if not np.isfinite(X).all():
            raise ValueError("non-finite input")
        if (X[:, 1] < -5).any() and (X[:, 1] > 5).any():
            raise ValueError("a batch-wide failure")
        if len(X) == 1 and X[0, 1] > 3:
            raise ValueError("a failure alone")
        n = len(X)
        eps = 1e-12 * ((np.arange(n) + n) % 3 - 1)
        return (X[:, 0] + eps > 0).astype(int)


@pytest.fixture
def size_rounding(monkeypatch):
    """:class:`SizeRounding` scored in batches, as a listed model."""
    classes = _rowwise.rowwise_classes() | {SizeRounding}
    monkeypatch.setitem(_rowwise._CACHE, "classes", frozenset(classes))
    return SizeRounding().fit(None, None)


def _rounding_records(rng, m):
    X = np.column_stack([np.zeros(m), rng.normal(size=m)])  # all on the boundary
    X[1, 1] = 4.0  # fails alone only
    return X, np.ones(m, dtype=int)


def _by_definition(scorer, model, X, y, batch_rows):
    """Record i's value at its position p in a batch of copies of itself."""
    m, out = len(X), np.empty(len(X))
    for i in range(m):
        start = i - i % batch_rows
        n, p = min(batch_rows, m - start), i % batch_rows
        try:
            value = scorer._raw(model, np.repeat(X[i : i + 1], n, 0), [y[i]] * n)[p]
        except ValueError:
            value = -np.inf
        out[i] = value
    return scorer._clip(out)


def test_each_record_gets_its_value_in_a_batch_of_copies_of_itself(
    size_rounding, monkeypatch
):
    """Random failing records (NaN), records failing only together or only
    alone: every record's value is its value by definition, whatever the
    others."""
    monkeypatch.setattr(_scorers, "BATCH_ROWS", 8)
    rng = np.random.default_rng(0)
    scorer = make_dp_scorer("accuracy")
    X, y = _rounding_records(rng, 21)  # batches of 8, 8, 5
    reference = _by_definition(scorer, size_rounding, X, y, 8)
    for _ in range(30):
        X2 = X.copy()
        X2[rng.random(21) < 0.2, 0] = np.nan
        X2[rng.random(21) < 0.2, 1] = rng.choice([-9.0, 9.0])  # together: raise
        X2[rng.random(21) < 0.2, 1] = 4.0  # raises alone only
        expected = _by_definition(scorer, size_rounding, X2, y, 8)
        ok = np.isfinite(X2[:, 0])
        np.testing.assert_array_equal(expected[ok], reference[ok])
        np.testing.assert_array_equal(
            _values(scorer, size_rounding, X, y, X2, y), expected
        )


def _alone(self, estimator, batch, idx, out):
    """The previous fallback: the batch that raised, again record by record."""
    for p, i in enumerate(idx.tolist()):
        X, y = _take(batch.X, [p]), batch.y[p : p + 1]
        try:
            out[i] = self._raw(estimator, X, y)[0]
        except Exception:
            out[i] = -np.inf


def _halves(self, estimator, batch, idx, out):
    """Bisection into sub-batches of smaller sizes (not padded)."""
    stack = [np.arange(len(idx))]
    while stack:
        part = stack.pop()
        try:
            out[idx[part]] = self._raw(estimator, _take(batch.X, part), batch.y[part])
        except Exception:
            if len(part) > 1:
                stack += [part[len(part) // 2 :], part[: len(part) // 2]]


def _trusted_screen(self, estimator, batch, idx, out):
    """The records that fail alone get low; the others in one padded batch."""
    pos = np.arange(len(idx))
    alone = np.array([self._passes_alone(estimator, batch, p) for p in pos])
    keep = pos[alone]
    rows = np.where(alone, pos, keep[0])
    try:
        values = self._raw(estimator, batch.X[rows], batch.y[rows])
        out[idx[keep]] = values[alone]
    except Exception:
        pass


@pytest.mark.parametrize(
    "broken", [_alone, _halves, _trusted_screen], ids=["alone", "halves", "screen"]
)
def test_power_a_fallback_at_other_batch_sizes_is_caught(
    broken, size_rounding, monkeypatch
):
    """Both V/V' checks above catch a fallback that scores the other
    records of a failing batch at another size, or that gives ``low`` to a
    record that fails alone but not in a batch."""
    monkeypatch.setattr(DPScorer, "_fill_batch", broken)
    rng = np.random.default_rng(1)
    scorer = make_dp_scorer("accuracy")
    X, y = _rounding_records(rng, 40)
    changed, moved = _swap_changes(scorer, size_rounding, X, y, X, y, [39])
    assert changed > 0
    with pytest.raises(AssertionError):
        test_each_record_gets_its_value_in_a_batch_of_copies_of_itself(
            size_rounding, monkeypatch
        )


def test_one_failing_record_costs_a_logarithmic_number_of_calls(size_rounding):
    """After the batch that raised: about 2 log₂(n / SCREEN_ROWS) calls at the
    batch's size, then at most SCREEN_ROWS records scored alone (the
    screen) and two calls; not one call per record."""
    calls = []
    real = SizeRounding.predict
    SizeRounding.predict = lambda self, X: calls.append(len(X)) or real(self, X)
    try:
        scorer = make_dp_scorer("accuracy")
        X, y = _rounding_records(np.random.default_rng(2), _scorers.BATCH_ROWS)
        clean = _values(scorer, size_rounding, X, y, X, y)
        X[123, 0] = np.nan
        calls.clear()
        with quiet():
            values = _values(scorer, size_rounding, X, y, X, y)
    finally:
        SizeRounding.predict = real
    assert values[123] == 0.0
    np.testing.assert_array_equal(np.delete(values, 123), np.delete(clean, 123))
    n, screen = len(X), _scorers.SCREEN_ROWS
    assert set(calls) == {1, n}  # the batch's size, or alone in the screen
    assert calls.count(1) <= screen
    assert calls.count(n) <= 1 + 2 * int(np.log2(n / screen)) + 2


@pytest.mark.parametrize("container", ["C", "F", "frame"])
def test_rows_read_by_the_caller_are_split_the_same_way(container):
    """``record_values(private=False)`` scores rows the caller already read per
    record (the private-model mode's validation part, a whole-data part):
    a NaN record scores low and moves no other record on the boundary (the
    previous bisection into halves re-scored the others at other sizes)."""
    scorer = make_dp_scorer("accuracy")
    X, y, model, X_val, y_val = _boundary(frame=container == "frame")
    as_given = CONTAINERS[container]
    X_bad = X_val.copy()
    X_bad[[5, 700], 0] = np.nan
    v = scorer.record_values(model, as_given(X_val), y_val, private=False)
    w = scorer.record_values(model, as_given(X_bad), y_val, private=False)
    others = np.ones(len(v), dtype=bool)
    others[[5, 700]] = False
    assert (w[~others] == 0.0).all()
    np.testing.assert_array_equal(v[others], w[others])


class _Boom(BaseException):
    """Not an Exception: what a hostile record's ``__hash__`` may raise."""


class _Hostile:
    def __hash__(self):
        raise _Boom("hash")

    def __eq__(self, other):
        raise _Boom("eq")


def test_a_record_raising_a_base_exception_scores_low_alone():
    """A record whose __hash__ raises a BaseException (not an Exception) inside
    the model fails alone: the fit releases, as on its neighbour."""
    import warnings

    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    from sklearn_dpbo import DPBayesSearchCV

    rng = np.random.RandomState(0)
    X = rng.choice(list("abc"), size=(200, 1)).astype(object)
    X_val = rng.choice(list("abc"), size=(60, 1)).astype(object)
    y, y_val = (X[:, 0] == "a").astype(int), (X_val[:, 0] == "a").astype(int)
    odd = X_val.copy()
    odd[3, 0] = _Hostile()
    released = []
    for Xv in (X_val, odd):
        search = DPBayesSearchCV(
            make_pipeline(OneHotEncoder(handle_unknown="ignore"), LogisticRegression()),
            {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]},
            refit=False,
            random_state=0,
            noise_random_state=0,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            search.fit(X, y, X_val=Xv, y_val=y_val)
        released.append(search.best_params_)
    assert released[0] == released[1]

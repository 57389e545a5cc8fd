"""Issue 19: one validation record can only ever move its own value.

V/V' tests for findings N1 (a batch's dtype inference decided how every
record was scored) and N2 (a batch-dependent step in the user's pipeline,
e.g. ``df.fillna(df.mean())`` as a ``FunctionTransformer``, let one record
move others), plus crafted batch-dependent steps that the public-rows check
cannot see. Each compares what an attacker sees (outcome, warnings,
printed output, fitted attribute names) and the validation utilities the
mechanisms receive, which must move by at most one record's Δ. A
statistical audit (Clopper–Pearson ε̂ of the joint release of best_index_
and the binned best_score_) with a power check per finding runs the
library's exact selection distribution on the utilities of real fits; the
power check restores the batch scoring of the previous engine and must be
detected.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

from sklearn_dpbo import DPBayesSearchCV, make_dp_scorer
from sklearn_dpbo.model_selection import PrivateSelection, _private_selection
from sklearn_dpbo.privacy._mechanisms import permute_and_flip_probabilities
from sklearn_dpbo.privacy._numbers import label_key
from sklearn_dpbo.privacy._records import RecordSchema
from sklearn_dpbo.privacy._rowwise import is_rowwise
from sklearn_dpbo.privacy._scorers import DPScorer
from sklearn_dpbo.privacy._silence import quiet

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "audits"))
from _audit import epsilon_lower_bound  # noqa: E402

M = 40
GRID = {"logisticregression__C": [1e-3, 1e-2, 0.1, 1.0, 10.0]}


def _data(seed=0, n=200, m=M):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + m, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    return X[:n], y[:n], X[n:], y[n:]


def _search(estimator=None, scoring="accuracy", **kw):
    estimator = estimator or make_pipeline(StandardScaler(), LogisticRegression())
    params = dict(
        method=PrivateSelection(shortlist="grid"),
        scoring=scoring,
        epsilon=1.0,
        random_state=0,
        noise_random_state=0,
    )
    params.update(kw)
    return DPBayesSearchCV(estimator, GRID, **params)


def observe(search, X, y, X_val, y_val):
    """Everything a fit shows, plus the utilities the selection received."""
    seen = {}
    original = _private_selection.release_best_params_selection

    def spy(utilities, **kw):
        seen["utilities"] = np.array(utilities, dtype=float)
        return original(utilities, **kw)

    out = io.StringIO()
    _private_selection.release_best_params_selection = spy
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                try:
                    search.fit(X, y, X_val=X_val, y_val=y_val)
                    outcome = "ok"
                except Exception as exc:  # pragma: no cover - compared below
                    outcome = type(exc).__name__
    finally:
        _private_selection.release_best_params_selection = original
    return {
        "outcome": outcome,
        "warnings": [(w.category, str(w.message)) for w in caught],
        "printed": out.getvalue(),
        "attributes": sorted(k for k in vars(search) if k.endswith("_")),
        "utilities": seen.get("utilities"),
        "sensitivity": search.scorer_.sensitivity_for(len(y_val))
        if outcome == "ok"
        else None,
    }


def assert_neighbours(a, b):
    """Same outcome, warnings, printed output and attribute names; utilities
    within one record's sensitivity."""
    assert a["outcome"] == b["outcome"] == "ok"
    assert a["warnings"] == b["warnings"]
    assert a["printed"] == b["printed"]
    assert a["attributes"] == b["attributes"]
    gap = np.max(np.abs(a["utilities"] - b["utilities"]))
    assert gap <= a["sensitivity"], (gap, a["sensitivity"])


# ---------------------------------------------------------------------------
# N1: per-record coercion against the training schema
# ---------------------------------------------------------------------------

SCORES = ["accuracy", "neg_log_loss", "neg_brier_score", "neg_hinge_loss"]


@pytest.mark.parametrize("scoring", SCORES + ["neg_zero_one_loss"])
def test_one_mistyped_label_in_a_list_moves_only_itself(scoring):
    X, y, X_val, y_val = _data()
    V = y_val.tolist()
    W = list(V)
    W[7] = str(W[7])  # read from JSON/CSV as "1" instead of 1
    a = observe(_search(scoring=scoring), X, y, X_val, V)
    b = observe(_search(scoring=scoring), X, y, X_val, W)
    assert_neighbours(a, b)
    # The mistyped record scores the worst value, the others as before.
    assert np.all(a["utilities"] >= b["utilities"] - 1e-12)


def test_string_labels_against_integer_classes_are_read_one_by_one():
    # Since 2026-11-25 a string spelling a number is that number when every
    # class is a number: np.array(labels) with one string label makes every
    # label a string, and each record must still be read as itself (before,
    # every record then scored low: the batch's dtype decided them all).
    X, y, X_val, y_val = _data()
    schema = RecordSchema.from_training(X, y, classes=True)
    records = schema.map(X_val, np.array([str(v) for v in y_val]))
    assert records.ok.all()
    np.testing.assert_array_equal(records.y, y_val)
    mixed = np.array(["a" if i == 3 else v for i, v in enumerate(y_val.tolist())])
    assert mixed.dtype.kind == "U"  # one string: every label a string
    records = schema.map(X_val, mixed)
    assert records.ok.sum() == M - 1 and not records.ok[3]
    np.testing.assert_array_equal(np.delete(records.y, 3), np.delete(y_val, 3))


def test_labels_match_training_classes_by_value():
    schema = RecordSchema.from_training(np.zeros((3, 1)), [0, 1, 2], classes=True)
    rec = schema.map(
        np.zeros((7, 1)), [1.0, np.int64(2), True, "2", "x", None, float("nan")]
    )
    assert rec.ok.tolist() == [True, True, True, True, False, False, False]
    assert rec.y[:4].tolist() == [1, 2, 1, 2]
    numeric = RecordSchema.from_training(np.zeros((3, 1)), [0.5, 1, 2], classes=False)
    rec = numeric.map(np.zeros((4, 1)), ["2.5", 3, "x", None])
    assert rec.ok.tolist() == [True, True, False, False]
    assert rec.y[:2].tolist() == [2.5, 3.0]
    named = RecordSchema.from_training(np.zeros((2, 1)), ["1", "b"], classes=True)
    rec = named.map(np.zeros((3, 1)), [1, "1", "c"])  # keyed alike: 1 is "1"
    assert rec.ok.tolist() == [True, True, False]


def test_mixed_training_labels_are_refused_before_the_read():
    with pytest.raises(ValueError, match="training labels mix types"):
        labels = np.array([1, "a", 2], dtype=object)  # np.unique cannot order them
        RecordSchema.from_training(np.zeros((3, 1)), labels, classes=True)


def test_list_inputs_are_converted_record_by_record():
    X, y, X_val, y_val = _data()
    rows = X_val.tolist()
    rows_bad = [list(r) for r in rows]
    rows_bad[5][1] = "not a number"  # np.asarray would make every row a string
    schema = RecordSchema.from_training(X, y, classes=True)
    good, bad = schema.map(rows, y_val), schema.map(rows_bad, y_val)
    assert good.X.dtype == float and bad.X.dtype == float
    assert bad.ok.sum() == M - 1 and not bad.ok[5]
    np.testing.assert_array_equal(np.delete(good.X, 5, 0), np.delete(bad.X, 5, 0))


def test_one_mistyped_feature_in_a_list_moves_only_itself():
    X, y, X_val, y_val = _data()
    V = X_val.tolist()
    W = [list(r) for r in V]
    W[11][0] = "oops"
    assert_neighbours(
        observe(_search(), X, y, V, y_val), observe(_search(), X, y, W, y_val)
    )


def test_dataframe_category_set_of_the_batch_does_not_matter():
    """A categorical column's category set is a batch property: the records
    are cast into the training frame's dtypes, value by value."""
    rng = np.random.default_rng(1)
    n = 200
    train = pd.DataFrame(
        {"a": rng.normal(size=n), "b": pd.Categorical(rng.choice(["u", "v"], n))}
    )
    val = pd.DataFrame(
        {"a": rng.normal(size=M), "b": pd.Categorical(rng.choice(["u", "v"], M))}
    )
    val_w = val.copy()
    val_w["b"] = pd.Categorical(
        val["b"].astype(object).where(val.index != 0, "w")
    )  # one new category: the column's category set changes for every row
    schema = RecordSchema.from_training(train, np.zeros(n), classes=False)
    a, b = schema.map(val, np.zeros(M)), schema.map(val_w, np.zeros(M))
    assert a.X["b"].dtype == train["b"].dtype == b.X["b"].dtype
    pd.testing.assert_frame_equal(a.X.iloc[1:], b.X.iloc[1:])


# ---------------------------------------------------------------------------
# N2: row independence by construction (isolation), not by the check
# ---------------------------------------------------------------------------


def _fillna_mean(df):
    return df.fillna(df.mean())


class BigBatchCentring(StandardScaler):
    """Transductive only on batches of more than 32 rows (passes the check)."""

    def transform(self, X, copy=None):
        Z = super().transform(X, copy=copy)
        return Z - Z.mean(axis=0) if len(Z) > 32 else Z


class UnseenRowsCentring(StandardScaler):
    """Transductive only on rows not seen in training (passes the check)."""

    def fit(self, X, y=None):
        self.seen_ = {tuple(np.round(r, 12)) for r in np.asarray(X).tolist()}
        return super().fit(X, y)

    def transform(self, X, copy=None):
        Z = super().transform(X, copy=copy)
        new = [tuple(np.round(r, 12)) not in self.seen_ for r in np.asarray(X).tolist()]
        new = np.asarray(new)
        if new.any():
            Z = Z.copy()
            Z[new] += 3.0 * np.asarray(X)[new].mean(axis=0)
        return Z


def _fillna_pipeline():
    return make_pipeline(
        FunctionTransformer(_fillna_mean), StandardScaler(), LogisticRegression()
    )


def _n2_pair():
    X, y, X_val, y_val = _data(seed=2)
    cols = ["a", "b", "c"]
    X, X_val = pd.DataFrame(X, columns=cols), pd.DataFrame(X_val, columns=cols)
    X_val.iloc[:10, 0] = np.nan  # ten records to impute
    W = X_val.copy()
    W.iloc[20, 0] = 400.0  # one other record: moves the batch mean
    return X, y, X_val, W, y_val


def test_fillna_mean_function_transformer_moves_only_one_record():
    assert not is_rowwise(_fillna_pipeline())
    assert_neighbours(*_n2_fits_once())


@pytest.mark.parametrize("step", [BigBatchCentring, UnseenRowsCentring])
def test_crafted_batch_dependent_steps_move_only_one_record(step):
    X, y, X_val, y_val = _data(seed=3)
    W = X_val.copy()
    W[0] = [60.0, -60.0, 60.0]
    est = make_pipeline(step(), LogisticRegression())
    assert not is_rowwise(est)  # a subclass is not on the list
    a = observe(_search(est), X, y, X_val, y_val)
    b = observe(_search(est), X, y, W, y_val)
    assert_neighbours(a, b)


def test_isolated_scoring_uses_a_fresh_copy_per_record():
    """State a predict call leaves in the model never reaches the next record."""

    class Remembers(LogisticRegression):
        def predict(self, X):
            calls = getattr(self, "calls_", 0)
            self.calls_ = calls + 1
            out = super().predict(X)
            return out if calls == 0 else 1 - out  # wrong after the first call

    X, y, X_val, y_val = _data()
    model = Remembers().fit(X, y)
    scorer = make_dp_scorer("accuracy")
    values = scorer.record_values(model, X_val, y_val)
    expected = (LogisticRegression().fit(X, y).predict(X_val) == y_val).astype(float)
    np.testing.assert_array_equal(values, expected)
    assert not hasattr(model, "calls_")  # the model scored was never touched


def test_rowwise_list_is_exact_types_without_user_callables():
    assert is_rowwise(make_pipeline(StandardScaler(), LogisticRegression()))
    assert not is_rowwise(_fillna_pipeline())
    assert not is_rowwise(make_pipeline(BigBatchCentring(), LogisticRegression()))
    assert not is_rowwise(FunctionTransformer(np.log1p))  # even a NumPy function
    from sklearn.svm import SVC

    assert not is_rowwise(SVC(kernel=lambda a, b: a @ b.T))
    assert is_rowwise(SVC(kernel="rbf"))
    from sklearn.preprocessing import OneHotEncoder

    cats = [np.array(["a", "b"], dtype=object)]
    assert is_rowwise(OneHotEncoder(categories=cats))
    assert not is_rowwise(OneHotEncoder(categories=[np.array([len], dtype=object)]))


def test_batches_of_a_rowwise_model_equal_records_alone():
    """The batched path gives the isolated path's values (public batch sizes)."""
    X, y, X_val, y_val = _data(m=300)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
    scorer = make_dp_scorer("neg_log_loss")
    batched = scorer.record_values(model, X_val, y_val)
    schema = RecordSchema.from_training(X, y, classes=True)
    records = schema.map(X_val, y_val)
    alone = np.empty(len(records))
    with quiet():
        scorer._fill_alone(model, records, alone)
    np.testing.assert_allclose(batched, scorer._clip(alone), rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------
# Statistical audit with power checks (N1, N2)
# ---------------------------------------------------------------------------

N_AUDIT = 20_000
EDGES = np.linspace(-0.5, 1.5, 21)  # public bins of the released score


def _joint_counts(utilities, sensitivity, seed):
    """Counts of (best_index_, binned best_score_) over N_AUDIT releases:
    the library's exact permute-and-flip distribution at ε₁ = 0.5 and a
    Laplace score at ε₂ = 0.5 (the budget split of these fits)."""
    rng = np.random.default_rng(seed)
    p = permute_and_flip_probabilities(utilities, 0.5, sensitivity)
    idx = rng.choice(len(p), size=N_AUDIT, p=p)
    score = utilities[idx] + rng.laplace(scale=sensitivity / 0.5, size=N_AUDIT)
    bins = np.digitize(score, EDGES)
    outcome = idx * (len(EDGES) + 1) + bins
    return np.bincount(outcome, minlength=len(p) * (len(EDGES) + 1))


def _audit(a, b):
    s = max(a["sensitivity"], b["sensitivity"])
    return epsilon_lower_bound(
        _joint_counts(a["utilities"], s, 0), _joint_counts(b["utilities"], s, 1)
    ).epsilon_hat


def _batch_scoring(self, estimator, records):
    """The previous engine: the whole (batch-coerced) validation set at once."""
    return self.record_values(estimator, records.X_raw, records.y_raw, private=False)


@pytest.fixture
def raw_records(monkeypatch):
    """Keep the unmapped inputs beside the mapped ones (for the power check)."""
    original = RecordSchema.map

    def map_keep(self, X, y):
        rec = original(self, X, y)
        rec.X_raw, rec.y_raw = X, (None if y is None else np.asarray(y))
        return rec

    monkeypatch.setattr(RecordSchema, "map", map_keep)


def _n1_fits():
    X, y, X_val, y_val = _data(seed=5)
    V = y_val.tolist()
    W = list(V)
    W[0] = str(W[0])
    return (
        observe(_search(), X, y, X_val, V),
        observe(_search(), X, y, X_val, W),
    )


def _n2_fits():
    X, y, V, W, y_val = _n2_pair()
    return (
        observe(_search(_fillna_pipeline()), X, y, V, y_val),
        observe(_search(_fillna_pipeline()), X, y, W, y_val),
    )


@functools.cache
def _n2_fits_once():
    """The N2 pair's seeded fits, observed once for the N2 test and its audit
    (the power check refits: it patches the scorer)."""
    return _n2_fits()


@pytest.mark.parametrize("fits", [_n1_fits, _n2_fits_once], ids=["N1", "N2"])
def test_audit_isolation(fits, raw_records):
    a, b = fits()
    assert _audit(a, b) <= 1.0


@pytest.mark.parametrize("fits", [_n1_fits, _n2_fits], ids=["N1", "N2"])
def test_audit_power_batch_scoring_is_detected(fits, raw_records, monkeypatch):
    monkeypatch.setattr(DPScorer, "private_values", _batch_scoring)
    a, b = fits()
    assert _audit(a, b) > 1.0


def test_record_blocks_in_workers_give_the_in_thread_values(monkeypatch):
    """A model scored record by record is split over loky workers in public
    blocks of records: the utilities are exactly those computed in-thread."""
    from sklearn_dpbo.model_selection import _evaluation

    # Smaller blocks than the library's (public, per-block cost only): four
    # blocks of 50 records over two workers instead of two blocks of 300.
    monkeypatch.setattr(_evaluation, "BLOCK_ROWS", 50)
    X, y, X_val, y_val = _data(seed=6, m=200)
    assert len(_evaluation.record_blocks(len(y_val), 2)) == 4
    est = make_pipeline(FunctionTransformer(np.tanh), LogisticRegression())
    here = observe(_search(est, n_jobs=1), X, y, X_val, y_val)
    monkeypatch.setattr(_evaluation, "_score_here", lambda *a, **k: False)
    blocks = observe(_search(est, n_jobs=2), X, y, X_val, y_val)
    np.testing.assert_array_equal(here["utilities"], blocks["utilities"])


# ---------------------------------------------------------------------------
# What a private section leaves behind: nothing that changes what the user's
# own code shows later
# ---------------------------------------------------------------------------
def _warn_x(text):
    warnings.warn(text, UserWarning, stacklevel=1)


class _WarnsX(LogisticRegression):
    """Warns the text of its ``note`` parameter whenever it predicts."""

    def __init__(self, C=1.0, note="x"):
        super().__init__(C=C)
        self.note = note

    def predict(self, X):
        _warn_x(self.note)
        return super().predict(X)


@pytest.mark.parametrize("action", ["default", "once", "module"])
def test_a_later_user_warning_is_shown_after_private_work(action):
    """A warning withheld in private work (same text, category and line)
    must not make a later warning of the user's code count as already shown
    under the user's "default", "once" or "module" filter, and the filters
    must be the user's again."""
    text = f"sklearn_dpbo test {action}"
    X, y, X_val, y_val = _data(m=20)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(action)
        before = list(warnings.filters)
        with quiet():
            _warn_x(text)
        search = DPBayesSearchCV(
            _WarnsX(note=text), {"C": [0.1, 1.0]}, refit=False, random_state=0
        ).fit(X, y, X_val=X_val, y_val=y_val)
        assert list(warnings.filters) == before
        public = [str(w.message) for w in caught]  # the public fits' warnings
        _warn_x(text)
    assert search.best_params_["C"] in (0.1, 1.0)
    assert len(caught) == len(public) + 1
    assert str(caught[-1].message) == text


@pytest.mark.filterwarnings("ignore::sklearn_dpbo.UselessReleaseWarning")
def test_what_a_callback_prints_warns_or_logs_in_private_fits_is_withheld(
    capsys, caplog
):
    """scikit-learn >= 1.9's ``clone`` copies an estimator's callbacks by
    reference: a callback on the searched estimator runs inside the
    whole-data mode's fits on private parts and is handed their rows. What
    it prints, warns or logs there is withheld like the estimator's own."""
    callback = pytest.importorskip("sklearn.callback")
    import logging

    class Talks:
        calls = 0

        def setup(self, estimator, context):
            pass

        def teardown(self, estimator, context):
            pass

        def on_fit_task_begin(self, estimator, context, *, X=None, y=None, **kw):
            if X is not None:
                Talks.calls += 1
                secret = f"CALLBACK-SAW {float(np.asarray(X)[0, 0])!r}"
                print(secret)
                print(secret, file=sys.stderr)
                warnings.warn(secret, UserWarning, stacklevel=1)
                logging.getLogger("sklearn_dpbo_test_cb").warning(secret)

        def on_fit_task_end(self, estimator, context, **kw):
            return False

    assert isinstance(Talks(), callback.FitCallback)
    estimator = LogisticRegression().set_callbacks(Talks())
    X = np.random.default_rng(0).normal(size=(2000, 3))
    y = (X[:, 0] > 0).astype(int)
    with caplog.at_level(logging.DEBUG), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        search = DPBayesSearchCV(
            estimator, {"C": [0.1, 1.0]}, refit=False, random_state=0
        ).fit(X, y)
    assert search.privacy_report_.neighbouring.startswith("replace any one row")
    assert Talks.calls > 0  # it ran on private rows
    shown = [str(m.message) for m in w] + [r.getMessage() for r in caplog.records]
    out, err = capsys.readouterr()
    assert "CALLBACK-SAW" not in out + err + "\n".join(shown)


def test_private_section_withholds_log_records(caplog):
    import logging

    logger = logging.getLogger("sklearn_dpbo_test_private")
    with caplog.at_level(logging.DEBUG):
        with quiet():
            logger.warning("secret 0.4242")
        logger.warning("public")
    assert [r.getMessage() for r in caplog.records] == ["public"]
    assert logging.root.manager.disable == logging.NOTSET


# ---------------------------------------------------------------------------
# Records that raise, print or come in a batch-typed container (third
# review of 2026-11-25): each is its own record's failure, nothing else
# ---------------------------------------------------------------------------
class _RaisingHash:
    def __hash__(self):
        raise RuntimeError("secret")


class _LikeOne:
    """Hashes like class 1; comparing it raises."""

    def __hash__(self):
        return hash(1)

    def __eq__(self, other):
        raise ValueError("secret")


class _RaisingFloat:
    def __float__(self):
        raise RuntimeError("secret")


class _Printing:
    def __hash__(self):
        print("secret printed")
        return hash("odd")


def _only_record_3_fails(records, y_val=None):
    assert records.ok.sum() == M - 1 and not records.ok[3]
    if y_val is not None:
        np.testing.assert_array_equal(np.delete(records.y, 3), np.delete(y_val, 3))


@pytest.mark.parametrize("odd", [_RaisingHash(), _LikeOne()])
def test_a_label_whose_lookup_raises_fails_alone(odd):
    X, y, X_val, y_val = _data()
    schema = RecordSchema.from_training(X, y, classes=True)
    labels = [odd if i == 3 else v for i, v in enumerate(y_val.tolist())]
    _only_record_3_fails(schema.map(X_val, labels), y_val)


def test_a_cell_or_target_whose_conversion_raises_fails_alone():
    X, y, X_val, y_val = _data()
    rows = [
        [_RaisingFloat(), *r[1:]] if i == 3 else r for i, r in enumerate(X_val.tolist())
    ]
    _only_record_3_fails(
        RecordSchema.from_training(X, y, classes=True).map(rows, y_val)
    )
    targets = [_RaisingFloat() if i == 3 else v for i, v in enumerate(X_val[:, 0])]
    numeric = RecordSchema.from_training(X, X[:, 0], classes=False)
    _only_record_3_fails(numeric.map(X_val, targets))
    frame = pd.DataFrame(X, columns=list("abc"))
    cells = pd.DataFrame(X_val, columns=list("abc")).astype(object)
    cells.iloc[3, 1] = _RaisingHash()
    mapped = RecordSchema.from_training(frame, y, classes=True).map(cells, y_val)
    assert mapped.X.iloc[:, 1].isna().tolist() == [i == 3 for i in range(M)]


@pytest.mark.parametrize("kind", ["labels", "rows", "complex", "frame"])
def test_a_batch_typed_by_one_record_is_read_record_by_record(kind):
    """np.array with one string makes every entry a string, one complex value
    makes the whole array (or a frame's column) complex: before, every record
    then failed (the batch's dtype decided them all)."""
    X, y, X_val, y_val = _data()
    schema = RecordSchema.from_training(X, y, classes=True)
    if kind == "labels":
        labels = np.array(["a" if i == 3 else v for i, v in enumerate(y_val.tolist())])
        _only_record_3_fails(schema.map(X_val, labels), y_val)
        return
    rows = X_val.astype(object)
    rows[3, 1] = "abc" if kind == "rows" else 1 + 1j
    X_odd = np.array(rows.tolist()) if kind != "frame" else pd.DataFrame(rows)
    if kind == "frame":
        X_odd[1] = X_odd[1].astype(complex)
    assert kind == "frame" or X_odd.dtype.kind in "Uc"
    records = schema.map(X_odd, y_val)
    _only_record_3_fails(records, y_val)
    np.testing.assert_array_equal(
        np.delete(records.X, 3, axis=0), np.delete(X_val, 3, axis=0)
    )


def test_prints_and_high_level_logs_of_a_private_section_are_withheld(capsys, caplog):
    import logging

    X, y, X_val, y_val = _data()
    schema = RecordSchema.from_training(X, y, classes=True)
    labels = [_Printing() if i == 3 else v for i, v in enumerate(y_val.tolist())]
    with caplog.at_level(logging.DEBUG), quiet():
        schema.map(X_val, labels)
        print("secret 2", file=sys.stderr)
        logging.getLogger("sklearn_dpbo_test_private").log(60, "secret 3")
    assert capsys.readouterr() == ("", "")
    assert caplog.records == []
    # A private section nested in a public one withholds its own output.
    with caplog.at_level(logging.DEBUG), quiet(private=False):
        print("public")
        with quiet():
            print("secret 4")
            logging.getLogger("sklearn_dpbo_test_private").warning("secret 5")
    assert capsys.readouterr() == ("public\n", "")
    assert caplog.records == []


def test_nested_quiet_withholds_until_the_outer_exit_and_restores_the_user_state():
    """A section nested in this thread's private quiet() leaves the state to
    the outer one: a warning after an inner section closes is still withheld
    by the outer one, and afterwards the user's filters, showwarning, logging
    level and errstate are back, with no "once" state hiding a public warning."""
    import logging

    def state():
        disabled = logging.root.manager.disable
        return list(warnings.filters), warnings.showwarning, disabled, np.geterr()

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning that escapes fails the test
        before = state()
        with quiet():
            with quiet(private=False):
                with quiet():
                    warnings.warn("secret 1", stacklevel=2)
                warnings.warn("secret 2", stacklevel=2)
            np.log(np.zeros(1))
            warnings.warn("secret 3", stacklevel=2)
        assert state() == before
    with warnings.catch_warnings(record=True) as log:
        warnings.simplefilter("once")
        with quiet(), quiet():
            warnings.warn("public later", UserWarning, stacklevel=2)
        warnings.warn("public later", UserWarning, stacklevel=2)
    assert [str(w.message) for w in log] == ["public later"]


def test_dp_gp_output_raising_a_base_exception_is_its_own_nan():
    from sklearn_dpbo.gaussian_process._regressor import _output_value

    class Boom(BaseException):
        pass

    class Odd:
        def __float__(self):
            raise Boom

    assert np.isnan(_output_value(Odd()))


def test_entries_stringified_by_one_string_read_back_as_their_numbers():
    """Fourth review (2026-11-25): np.array with one string turns True into
    "True" and 0.5+0j into "(0.5+0j)" for every other entry: they must read
    back as 1.0 and 0.5 (each entry on its own), not fail."""
    from sklearn_dpbo.privacy._numbers import number

    X, y, X_val, y_val = _data()
    rows = X_val.astype(object)
    rows[1, 0], rows[2, 1], rows[3, 2] = True, 0.5 + 0j, "x"
    odd = np.array(rows.tolist())
    assert odd.dtype.kind == "U" and odd[1, 0] == "True" and odd[2, 1] == "(0.5+0j)"
    labels = np.array(
        [True if i == 1 else v for i, v in enumerate(y_val.tolist())] + ["x"]
    )
    records = RecordSchema.from_training(X, y, classes=True).map(odd, labels[:-1])
    _only_record_3_fails(records)
    assert records.X[1, 0] == 1.0 and records.X[2, 1] == 0.5 and records.y[1] == 1
    assert [number(v) for v in ("True", "False", "(2+0j)", " 3 ")] == [1, 0, 2, 3]
    for bad in ("x", "(1+1j)", None, 1 + 1j):
        with pytest.raises((TypeError, ValueError)):
            number(bad)


# Fifth review (2026-11-25)
def test_labels_and_classes_are_keyed_the_same_whichever_their_type():
    big = [2**53 + 1, 2**53 + 3]
    for classes, labels in (
        (["0", "1"], [0, 1, 1]),  # string classes, integer labels
        ([0, 1], ["0", "1", "1"]),
        (big, [str(big[0]), str(big[1]), str(big[1])]),  # exact above 2**53
    ):
        schema = RecordSchema.from_training(np.zeros((2, 1)), classes, classes=True)
        for y_val in (labels, np.array(labels), np.array([*labels, "x"])[:-1]):
            rec = schema.map(np.zeros((3, 1)), y_val)
            assert rec.ok.all(), (classes, y_val)
            assert [str(v) for v in rec.y] == [str(classes[i]) for i in (0, 1, 1)]


def test_classes_sharing_a_key_match_only_exactly():
    """ "01" and "1" are both keyed 1: each matches itself and a label 1 neither
    (ambiguous); a key no other class shares still matches ("2" for 2)."""
    classes = np.array(["01", "1", "2"])
    schema = RecordSchema.from_training(np.zeros((3, 1)), classes, classes=True)
    labels = ["01", "1", "2", 1, 2, " 1", "x"]
    for y_val in (labels, np.array(labels, dtype=object)):
        rec = schema.map(np.zeros((7, 1)), y_val)
        assert rec.ok.tolist() == [True, True, True, False, True, False, False]
        assert rec.y[rec.ok].tolist() == ["01", "1", "2", "2"]
    rec = schema.map(np.zeros((2, 1)), np.array([1, 2]))  # the integer-array path
    assert rec.ok.tolist() == [False, True] and rec.y[1] == "2"
    frame = pd.DataFrame({"f": pd.Categorical(["01", "1", "2"])})
    cats = RecordSchema.from_training(frame, [0, 1, 1], classes=True)
    cells = pd.DataFrame({"f": ["1", "01", 1, 2]}, dtype=object)
    assert cats.map(cells, [0, 1, 1, 0]).X["f"].tolist()[:2] == ["1", "01"]
    assert cats.map(cells, [0, 1, 1, 0]).X["f"].isna().tolist() == [0, 0, 1, 0]


def test_a_class_spelled_nan_matches_its_labels():
    """Every NaN is one key (NaN != NaN): a class "nan" (pandas .astype(str)
    of a missing label) or NaN matches its labels, each read on its own."""
    assert label_key("nan") is label_key(float("nan")) is label_key(np.float64("nan"))
    schema = RecordSchema.from_training(
        np.zeros((3, 1)), np.array(["cat", "dog", "nan"]), classes=True
    )
    labels = ["cat", "nan", "dog", float("nan"), " NaN", "x"]
    for y_val in (labels, np.array(labels, dtype=object)):
        rec = schema.map(np.zeros((6, 1)), y_val)
        assert rec.ok.tolist() == [True] * 5 + [False]
        assert rec.y[:5].tolist() == ["cat", "nan", "dog", "nan", "nan"]
    floats = np.array([0.0, 1.0, np.nan])
    schema = RecordSchema.from_training(np.zeros((3, 1)), floats, classes=True)
    rec = schema.map(np.zeros((4, 1)), [np.nan, "nan", 1.0, 2.0])
    assert rec.ok.tolist() == [True, True, True, False]
    assert np.isnan(rec.y[:2]).all() and rec.y[2] == 1.0


def test_integer_and_float_target_arrays_map_as_their_records_one_by_one():
    """The array paths of RecordSchema.map (integer labels, numeric targets)
    give every record what the same values read one by one (a list) give: an
    unknown label fails alone, a non-finite target stays itself."""
    classes = RecordSchema.from_training(np.zeros((3, 1)), [0, 1, 2], classes=True)
    labels = [0, 2, 7, 1, -1]
    for dtype in (np.int64, np.int8, np.uint16):
        values = [v for v in labels if v >= 0] if dtype is np.uint16 else labels
        X = np.zeros((len(values), 1))
        a = classes.map(X, np.array(values, dtype=dtype))
        b = classes.map(X, [int(v) for v in values])
        assert a.ok.tolist() == b.ok.tolist() == [v in (0, 1, 2) for v in values]
        assert a.y[a.ok].tolist() == b.y[b.ok].tolist()
    numeric = RecordSchema.from_training(np.zeros((3, 1)), [0.5, 1, 2], classes=False)
    targets = [2.5, 0.1, np.nan, np.inf, -3.0, 2**53 + 1]
    for dtype in (np.float64, np.float32, np.int64):
        values = [2, -3, 2**53 + 1] if dtype is np.int64 else targets
        X = np.zeros((len(values), 1))
        a = numeric.map(X, np.array(values, dtype=dtype))
        b = numeric.map(X, np.array(values, dtype=dtype).tolist())
        assert a.ok.tolist() == b.ok.tolist()
        np.testing.assert_array_equal(a.y, b.y)


def test_integer_rows_above_2_53_are_read_exactly_from_strings():
    X = np.array([[2**53 + 1], [2**53 + 3]], dtype=np.int64)
    schema = RecordSchema.from_training(X, [0, 1], classes=True)
    odd = np.array([[str(2**53 + 1)], [str(2**53 + 3)], ["x"]])
    rec = schema.map(odd, [0, 1, 1])
    assert rec.ok.tolist() == [True, True, False]
    assert rec.X[:2, 0].tolist() == [2**53 + 1, 2**53 + 3]


def test_category_cast_does_not_depend_on_the_other_values_types():
    frame = pd.DataFrame({"f": pd.Categorical([0, 1, 1])})
    schema = RecordSchema.from_training(frame, [0, 1, 1], classes=True)
    bools = pd.DataFrame({"f": [True, False, True]})
    mixed = pd.DataFrame({"f": [True, False, 1]}, dtype=object)
    a = schema.map(bools, [1, 0, 1]).X["f"].tolist()
    b = schema.map(mixed, [1, 0, 1]).X["f"].tolist()
    assert a == b == [1, 0, 1]


def test_a_record_no_pickler_can_send_fails_alone():
    import threading

    from sklearn_dpbo.privacy._records import Records

    X = np.array([["a", 1.0], ["b", 2.0], ["c", 3.0]], dtype=object)
    X[1, 0] = threading.Lock()
    rec = Records(X=X, y=np.array([0, 1, 0]), ok=np.ones(3, dtype=bool)).picklable()
    assert rec.ok.tolist() == [True, False, True]
    import pickle

    pickle.dumps(rec.X)  # the block now travels
    frame = pd.DataFrame({"c": ["a", lambda: 0, "c"], "v": [1.0, 2.0, 3.0]})
    rec = Records(X=frame, y=None, ok=np.ones(3, dtype=bool)).picklable()
    assert rec.ok.tolist() == [True, False, True] and rec.X["v"].tolist() == [1, 2, 3]


def test_object_schema_and_repeated_index_labels_read_each_record_alone():
    """Ninth review (2026-11-25): with an object training set a string array
    was passed as given (the stray string retyped every record), and
    picklable() wiped every row sharing a failing record's index label."""
    import threading

    from sklearn_dpbo.privacy._records import Records

    X_obj = np.array([[1, "a"], [2, "b"]], dtype=object)
    schema = RecordSchema.from_training(X_obj, [0, 1], classes=True)
    typed = schema.map(np.array([[1, 4], [3, "x"]]), [0, 1]).X[0].tolist()
    plain = schema.map(np.array([[1, 4], [3, 5]]), [0, 1]).X[0].tolist()
    assert typed == plain == [1, 4] and type(typed[0]) is type(plain[0])
    frame = pd.DataFrame({"s": ["a", threading.Lock(), "b"]}, index=[0, 0, 1])
    rec = Records(X=frame, y=None, ok=np.ones(3, dtype=bool)).picklable()
    assert rec.ok.tolist() == [True, False, True]
    assert rec.X["s"].tolist() == ["a", None, "b"]


def test_knn_imputer_is_scored_record_by_record():
    """KNNImputer computes distances only for the rows with a missing value, in
    one block: a neighbour whose record 1 gains a NaN changed record 0's
    rounding and, on a near-tie, its donor and 0/1 value (77 of 300 pairs)
    while it was on the row-wise list. Off the list, each record is scored
    alone: no other record moves."""
    from sklearn.impute import KNNImputer

    d, m = 8, 40
    rng = np.random.RandomState(0)
    centres, deltas = rng.randn(60, d), rng.randn(60, d) * 0.3
    D1, D2 = centres + deltas, centres - deltas  # donors symmetric: near-ties
    D1[:, 0], D2[:, 0] = 1.0, -1.0
    X = np.vstack([D1, D2])
    y = (X[:, 0] > 0).astype(int)
    model = make_pipeline(KNNImputer(n_neighbors=1), LogisticRegression()).fit(X, y)
    assert not is_rowwise(model)
    scorer = make_dp_scorer("accuracy")
    schema = RecordSchema.from_training(X, y, classes=True)
    X_val = rng.randn(m, d)
    X_val[:, 0] = np.sign(X_val[:, 0])
    y_val = np.ones(m, dtype=int)
    for c in range(20):
        V = X_val.copy()
        V[0], V[0, 0] = centres[c], np.nan
        W = V.copy()
        W[1], W[1, 0] = centres[c + 1], np.nan
        v = scorer.private_values(model, schema.map(V, y_val))
        w = scorer.private_values(model, schema.map(W, y_val))
        np.testing.assert_array_equal(np.delete(v, 1), np.delete(w, 1))


@pytest.mark.parametrize("frame", [False, True], ids=["array", "frame"])
def test_digit_string_categories_stay_the_training_values(frame):
    """An object entry maps to the training value it matches: "02134" and "1"
    stay strings when the training column holds them (they became ints,
    unknown to a OneHotEncoder); a validation "7" still meets a training 7."""
    import pandas as pd

    X = np.array([["02134", 7], ["1", 8], ["02134", 8]], dtype=object)
    X_val = np.array([["02134", "7"], ["1", 8.0], ["2134", 9]], dtype=object)
    if frame:
        X, X_val = pd.DataFrame(X, columns=["zip", "n"]), pd.DataFrame(X_val)
        X_val.columns = ["zip", "n"]
    rec = RecordSchema.from_training(X, np.array([0, 1, 0]), classes=True)
    mapped = rec.map(X_val, np.array([0, 1, 0]))
    rows = np.asarray(mapped.X, dtype=object).tolist()
    assert rows[0] == ["02134", 7] and rows[1] == ["1", 8]
    assert rows[2][0] == "02134"  # an alias only "02134" has
    assert mapped.ok.all()


def test_a_private_row_label_never_travels_with_the_records():
    """The mapped frame has a fresh 0..m-1 index: an unpicklable label in
    X_val's index cannot fail the block sent to a worker."""
    import pickle
    import threading

    import pandas as pd

    X = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    X_val = pd.DataFrame({"a": [1.5, 2.5]}, index=[0, threading.Lock()])
    rec = RecordSchema.from_training(X, np.array([0, 1, 0]), classes=True)
    mapped = rec.map(X_val, np.array([0, 1])).picklable()
    assert list(mapped.X.index) == [0, 1]
    pickle.loads(pickle.dumps(mapped))


def test_coo_rows_read_by_the_caller_fail_alone():
    """record_values(private=False) reads a COO matrix's rows as CSR: one
    failing record scores low alone (every record did)."""
    import scipy.sparse as sp

    class NoNaN(LogisticRegression):
        def predict(self, X):
            if np.isnan(X.toarray() if sp.issparse(X) else X).any():
                raise ValueError("NaN")
            return super().predict(X)

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    y = (X[:, 0] > 0).astype(int)
    model = NoNaN().fit(X, y)
    X_val = X.copy()
    X_val[7, 1] = np.nan
    values = make_dp_scorer("accuracy").record_values(
        model, sp.coo_matrix(X_val), y, private=False
    )
    assert values[7] == 0.0 and (np.delete(values, 7) == 1.0).sum() >= 45


def test_a_fractional_entry_for_integer_training_rows_fails_alone():
    """An integer training array maps object entries exactly (above 2**53
    too); a non-integral entry fails its record (a cast truncated 2.5 to 2)."""
    X = np.array([[1, 2], [3, 2**60]])
    X_val = np.array([[2.5, 1], [3, 2**60 + 1], [2, "7"]], dtype=object)
    mapped = RecordSchema.from_training(X, np.array([0, 1]), classes=True).map(
        X_val, np.array([0, 1, 0])
    )
    assert mapped.ok.tolist() == [False, True, True]
    assert mapped.X[1:].tolist() == [[3, 2**60 + 1], [2, 7]]

"""A validation record no pickler can send fails alone when scoring runs in
worker processes (rule 3): it never decides whether ``fit`` raises.

With an object-typed training set a record's values are kept as given, so one
record may hold e.g. a ``threading.Lock``. Sent to a loky worker with its
block, it made the whole job fail (``PrivateComputationError``) where the
neighbour without it released normally.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
from conftest import UnpicklesBadly
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.model_selection import _evaluation

CATS = np.array(["a", "b", "c"], dtype=object)


@pytest.fixture(scope="module")
def categorical():
    rng = np.random.RandomState(0)
    X = CATS[rng.randint(0, 3, 200)].reshape(-1, 1)
    X_va = CATS[rng.randint(0, 3, 50)].reshape(-1, 1)
    return X, (X[:, 0] == "a").astype(int), X_va, (X_va[:, 0] == "a").astype(int)


def _releases(method, X, y, X_va, y_va, **kw):
    search = DPBayesSearchCV(
        make_pipeline(OneHotEncoder(handle_unknown="ignore"), LogisticRegression()),
        {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]},
        method=method,
        n_iter=3,
        epsilon=1.0,
        random_state=0,
        noise_random_state=1,
        n_jobs=2,
        **kw,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y, X_val=X_va, y_val=y_va)
    report = [
        {k: r[k] for k in ("quantity", "sensitivity", "noise_scale")}
        for r in search.privacy_report_.releases
    ]
    released = (search.best_params_, getattr(search, "best_score_", None))
    return report, released, sorted(str(w.message) for w in caught)


def test_gp_ucb_unpicklable_record_scores_as_a_failing_one(categorical):
    """V' (one record holds a Lock) releases exactly what V'' (the same record
    with a label outside the training classes, which fails to map) releases:
    both records score ``low`` and nothing else changes."""
    X, y, X_va, y_va = categorical
    X_lock = X_va.copy()
    X_lock[0, 0] = threading.Lock()
    y_unknown = y_va.copy()
    y_unknown[0] = 7
    locked = _releases("gp-ucb", X, y, X_lock, y_va)
    failing = _releases("gp-ucb", X, y, X_va, y_unknown)
    assert locked == failing
    assert _releases("gp-ucb", X, y, X_va, y_va)[2] == locked[2]  # same warnings


def test_private_selection_unpicklable_record_does_not_raise(categorical):
    """The same neighbour in the paths through ``score_validation``."""
    X, y, X_va, y_va = categorical
    X_lock = X_va.copy()
    X_lock[0, 0] = threading.Lock()
    plain = _releases("private-selection", X, y, X_va, y_va)
    locked = _releases("private-selection", X, y, X_lock, y_va)
    assert [r["quantity"] for r in plain[0]] == [r["quantity"] for r in locked[0]]
    assert plain[2] == locked[2]


@pytest.mark.parametrize("method", ["gp-ucb", "private-selection"])
def test_unpicklable_in_worker_scores_as_a_failing_record(
    method, categorical, monkeypatch, capfd
):
    """V' (one record does not unpickle in the worker) releases exactly what
    V'' (the same record with a label outside the training classes) does;
    the unpickling's print is withheld."""
    monkeypatch.setattr(_evaluation, "_score_here", lambda *a, **k: False)
    X, y, X_va, y_va = categorical
    X_evil = X_va.copy()
    X_evil[0, 0] = UnpicklesBadly()
    y_unknown = y_va.copy()
    y_unknown[0] = 7
    evil = _releases(method, X, y, X_evil, y_va)
    assert evil == _releases(method, X, y, X_va, y_unknown)
    assert "unpickled in the worker" not in capfd.readouterr().out

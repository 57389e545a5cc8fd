"""Leak audit of the private-model mode (issue 21; TESTING.md P6).

The scanners of ``test_leak_audit.py`` for ``fit(X, y)`` with a DP learner
and random stopping. What is private:

- every run's clean validation score (captured by wrapping
  ``_private_model._fit_and_score``) and every noisy score but the released
  one (wrapping ``_private_model._noisy``);
- the models of the runs that were not selected (their weights), and the
  sequence of candidates the runs drew (random stopping's K and its draws
  are never released);

and what is released: ``best_params_``, ``best_estimator_`` (the selected
run's model, its weights public) and ``best_score_``. Scanned: the fitted
search, its report, parameters, pickle and unpickled copy, its texts
(verbose output, warnings, logs, repr), and for a run that fails after the
first read, the exception and the library's frame locals. The validation
part has 61 rows (a prime), so clean scores are fractions k/61.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest
import test_leak_audit as tla
from _audit import Secrets, public_texts
from sklearn.datasets import make_classification

import sklearn_dpbo.model_selection._private_model._fit as pm
from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.dp_learners import DPLogisticRegression
from sklearn_dpbo.model_selection import PrivateModel
from sklearn_dpbo.model_selection._sealed import PrivateComputationError

N = 203  # validation part: ⌈0.3 · 203⌉ = 61 rows
GRID = {"C": [0.003, 0.01, 0.03, 0.1, 0.3, 1.0]}
RUNS: list = []  # (candidate params, model weights, clean score)
FAIL_AT = [None]  # the run after which a failure is raised, when armed
SEED = 1  # a noise seed whose K is ≥ 3 (checked below)


def _record_runs(real):
    def wrapper(learner, params, *args, **kwargs):
        model, value = real(learner, params, *args, **kwargs)
        weights = np.concatenate([model.coef_.ravel(), model.intercept_.ravel()])
        RUNS.append((dict(params), weights, float(value)))
        if FAIL_AT[0] is not None and len(RUNS) == FAIL_AT[0]:
            raise ValueError(f"run failed on purpose: clean score {value!r}")
        return model, value

    return wrapper


@pytest.fixture
def recorders(monkeypatch):
    monkeypatch.setattr(pm, "_fit_and_score", _record_runs(pm._fit_and_score))
    monkeypatch.setattr(pm, "_noisy", tla._record_noise(pm._noisy))
    RUNS.clear(), tla.NOISE.clear()
    FAIL_AT[0] = None
    yield
    RUNS.clear(), tla.NOISE.clear()
    FAIL_AT[0] = None


def make_search(**kw):
    return DPBayesSearchCV(
        DPLogisticRegression(data_norm=2.0),
        GRID,
        method=kw.pop("method", PrivateModel(strategy="random-stopping", mean_runs=8)),
        epsilon=4.0,
        delta=1e-6,
        scoring="accuracy",
        n_iter=len(GRID["C"]),
        random_state=0,
        verbose=10,
        **kw,
    )


def _data():
    X, y = make_classification(N, 6, n_informative=4, flip_y=0.2, random_state=3)
    return X / np.abs(X).max(), y


def _secrets(released_model=None, released_score=None):
    """Clean scores and unreleased noisy scores; unselected runs' weights."""
    scores = [v for _, _, v in RUNS]
    scores += [noisy for _, noisy in tla.NOISE if noisy != released_score]
    keep = [w for _, w, _ in RUNS]
    if released_model is not None:
        keep = [w for w in keep if not np.array_equal(w, released_model)]
    weights = keep
    state = np.concatenate(weights) if weights else []
    return Secrets(scores), Secrets(state)


def test_leak_audit_private_model(capfd, caplog, recwarn, recorders):
    X, y = _data()
    caplog.set_level(logging.DEBUG)
    search = make_search(noise_random_state=SEED).fit(X, y)  # warns: seeded
    out, err = capfd.readouterr()
    assert "[DPBayesSearchCV]" in out  # verbose output was produced
    assert len(RUNS) >= 3 and len(tla.NOISE) == len(RUNS)  # this seed runs K ≥ 3
    clean = np.array([v for _, _, v in RUNS])
    np.testing.assert_allclose(clean * 61, np.round(clean * 61), atol=1e-9)
    model = search.best_estimator_
    released = np.concatenate([model.coef_.ravel(), model.intercept_.ravel()])
    assert sum(np.array_equal(w, released) for _, w, _ in RUNS) == 1
    assert search.best_score_ in [noisy for _, noisy in tla.NOISE]
    scores, state = _secrets(released, search.best_score_)
    assert len(state) > 0 and not scores.match_float(search.best_score_)
    order = [GRID["C"].index(p["C"]) for p, _, _ in RUNS]

    # The scanners can fail: an unselected run's weights and a clean score
    # are flagged where they are planted.
    unselected = next(w for _, w, _ in RUNS if not np.array_equal(w, released))
    with pytest.raises(AssertionError):
        tla.scan_graph({"w": unselected}, "planted", scores, state, [])
    with pytest.raises(AssertionError):
        tla.scan_texts({"planted": (f"score {clean[0]:.4f}", 2)}, scores, state)

    # best_estimator_ is released: its weights are public, nothing else is.
    tla.scan_fitted_search(search, scores, state, order, "private-model")
    tla.scan_texts(public_texts(search, out, err, recwarn, caplog), scores, state)


def test_leak_audit_private_model_failing_run(capfd, recorders):
    # A run that fails after the first read: the sealed fit raises a public
    # error; neither its texts nor the library's frames hold a private value.
    X, y = _data()
    FAIL_AT[0] = 1  # the first run, after the first read
    failing = make_search()
    with pytest.raises(PrivateComputationError) as info:
        failing.fit(X, y)
    out, err = capfd.readouterr()
    assert len(RUNS) == 1
    scores, state = _secrets()
    texts = {
        f"exception {i}": (t, 3) for i, t in enumerate(tla.exception_texts(info.value))
    }
    texts["stdout"], texts["stderr"] = (out, 2), (err, 2)
    tla.scan_texts(texts, scores, state)
    for frame_name, local_vars in tla.library_frame_locals(info.value).items():
        for user_input in ("X", "y", "Xp", "yp"):
            local_vars.pop(user_input, None)
        tla.scan_graph(local_vars, frame_name, scores, state, [], names=False)
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert not [a for a in vars(failing) if a.endswith("_")]
    tla.scan_graph(failing, "failed search", scores, state, [])


@pytest.mark.parametrize(
    "method, strategy",
    [
        (PrivateModel(strategy="random-stopping", mean_runs=8), "random-stopping"),
        # n_fit·ε/d = 142·4/6 ≥ 60: "auto" runs the public default
        (PrivateModel(), "default"),
        # E[K] = 1: K is the point mass 1
        (PrivateModel(strategy="random-stopping", mean_runs=1), "random-stopping"),
    ],
)
@pytest.mark.parametrize("change", ["flipped", "non-finite"])
def test_neighbours_differ_in_the_releases_only(recorders, method, strategy, change):
    # V and V' differ in one row (a training row, then a validation row):
    # flipped (−x, 1 − y), or non-finite features with a label outside
    # ``classes`` (that row alone becomes a zero row and a negative). With
    # the same noise seed every fitted attribute but the three releases is
    # equal, and so is the pickle once they are removed.
    import pickle

    X, y = _data()
    train, val = pm.split_rows(N, 0.3, make_search().random_state)
    released = {"best_params_", "best_index_", "best_estimator_", "best_score_"}
    for row in (int(train[0]), int(val[0])):
        X2, y2 = X.copy(), y.copy()
        if change == "flipped":
            X2[row], y2[row] = -X[row], 1 - y[row]
        else:
            X2[row], y2[row] = np.nan, 7
        fitted = []
        for Xs, ys in ((X, y), (X2, y2)):
            with pytest.warns(Warning):  # seeded noise: PrivacyLeakWarning
                s = make_search(method=method, noise_random_state=11).fit(Xs, ys)
            assert s.strategy_ == strategy
            for name in released:
                vars(s).pop(name, None)
            fitted.append(s)
        a, b = fitted
        assert set(vars(a)) == set(vars(b))
        for name in vars(a):
            if name.endswith("_"):
                assert repr(getattr(a, name)) == repr(getattr(b, name)), name
        assert pickle.dumps(a) == pickle.dumps(b)

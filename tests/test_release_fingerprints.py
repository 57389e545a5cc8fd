"""Releases of fixed configurations with seeded noise, against stored values.

A change that should not alter what is computed (a new layout, a
refactor, a faster scheduler) must reproduce every release bit for bit for
the same seeds. Each configuration below is fitted with public seeds
(``random_state``) and seeded noise (``noise_random_state``, a test-only
setting); its fingerprint (released index and parameters, ``repr`` of the
released floats, the privacy report's full text) is compared with
``tests/release_fingerprints.json``.

A change that is meant to alter releases regenerates the file, and says so
in its commit::

    python tests/test_release_fingerprints.py --write
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, make_regression
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, Normalizer, StandardScaler
from sklearn.svm import SVC

import sklearn_dpbo as dpbo
from sklearn_dpbo.ldp import ldp_maximize
from sklearn_dpbo.model_selection import PrivateSelection

STORE = Path(__file__).with_name("release_fingerprints.json")


def _digits():
    X, y = load_digits(return_X_y=True)
    X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.3, random_state=0)
    return X_tr[:400], y_tr[:400], X_va[:200], y_va[:200]


def _cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0)


def _search(estimator, space, data, **kw):
    X_tr, y_tr, X_va, y_va = data
    params = dict(n_iter=6, random_state=0, noise_random_state=1)
    params.update(kw)
    groups = params.pop("val_groups", None)
    extra = {} if groups is None else {"val_groups": groups}
    search = dpbo.DPBayesSearchCV(estimator, space, **params)
    search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va, **extra)
    out = {
        # The released candidate's index in candidate_params_ (the key
        # predates best_candidate_index_; best_index_ is now a cv_results_ row).
        "best_index_": int(search.best_candidate_index_),
        "best_params_": {k: repr(v) for k, v in search.best_params_.items()},
        "report": search.privacy_report_.explain(),
    }
    if hasattr(search, "best_score_"):
        out["best_score_"] = repr(float(search.best_score_))
    if hasattr(search, "best_scores_"):
        out["best_scores_"] = {
            k: repr(float(v)) for k, v in search.best_scores_.items()
        }
    return out


def _svc_digits(**kw):
    return _search(
        make_pipeline(StandardScaler(), SVC()),
        {"svc__C": (1e-2, 1e3, "log-uniform"), "svc__gamma": (1e-5, 1, "log-uniform")},
        _digits(),
        **kw,
    )


def _lr_cancer(**kw):
    X_tr, X_va, y_tr, y_va = _cancer()
    return _search(
        make_pipeline(StandardScaler(), LogisticRegression()),
        {"logisticregression__C": (1e-3, 1e2, "log-uniform")},
        (X_tr, y_tr, X_va, y_va),
        **kw,
    )


def _ridge(**kw):
    X, y = make_regression(n_samples=300, n_features=5, noise=5.0, random_state=0)
    y = y / np.std(y)
    return _search(
        Ridge(),
        {"alpha": (1e-3, 1e3, "log-uniform")},
        (X[:200], y[:200], X[200:], y[200:]),
        scoring=dpbo.make_dp_scorer("neg_mean_squared_error", error_clip=3.0),
        **kw,
    )


def _isolated(**kw):
    return _search(
        make_pipeline(FunctionTransformer(np.tanh), LogisticRegression()),
        {"logisticregression__C": (1e-3, 1e2, "log-uniform")},
        _cancer_split(),
        **kw,
    )


def _cancer_split():
    X_tr, X_va, y_tr, y_va = _cancer()
    return X_tr, y_tr, X_va, y_va


def _lipschitz():
    X_tr, X_va, y_tr, y_va = _cancer()
    return _search(
        make_pipeline(
            StandardScaler(), Normalizer(), LogisticRegression(fit_intercept=False)
        ),
        {"logisticregression__C": (1e-2, 1e2, "log-uniform")},
        (X_tr, y_tr, X_va, y_va),
        method="lipschitz",
        scoring="neg_sigmoid_loss",
        n_candidates=16,
    )


def _federated():
    X_tr, X_va, y_tr, y_va = _cancer()
    owners = np.arange(len(y_va)) % 40
    return _search(
        make_pipeline(StandardScaler(), LogisticRegression()),
        {"logisticregression__C": (1e-3, 1e2, "log-uniform")},
        (X_tr, y_tr, X_va, y_va),
        method="federated-ldp",
        n_iter=10,
        val_groups=owners,
    )


def _dp_gp():
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(60, 1))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=60)
    X_test = np.linspace(-2, 2, 7)[:, None]
    gp = dpbo.DPGaussianProcessRegressor(
        epsilon=1.0,
        delta=0.01,
        y_bounds=(-1.5, 1.5),
        query_points=X_test,
        noise_random_state=3,
    )
    gp.fit(X, y)
    mean = gp.predict(X_test)
    return {
        "mean": [repr(float(v)) for v in mean],
        "report": gp.privacy_report_.explain(),
    }


def _ldp():
    rng_env = np.random.default_rng(0)
    centre = rng_env.uniform(0.2, 0.8)

    def objective(p):
        return float(np.exp(-((p["x"] - centre) ** 2) / 0.02))

    result = ldp_maximize(
        objective,
        {"x": (0.0, 1.0)},
        n_calls=200,
        epsilon=1.0,
        random_state=0,
        noise_random_state=4,
    )
    return {
        "x": repr(float(result.x["x"])),
        "mean": repr(float(result.mean)),
        "reports": [repr(float(r)) for r in result.reports[:20]],
    }


CONFIGS = {
    "svc-digits-default": lambda: _svc_digits(),
    "svc-digits-grid-shortlist": lambda: _svc_digits(
        method=PrivateSelection(shortlist="random", shortlist_size=8)
    ),
    "svc-digits-n_jobs-2": lambda: _svc_digits(n_jobs=2),
    "lr-cancer-default": lambda: _lr_cancer(),
    "lr-cancer-gp-ucb": lambda: _lr_cancer(method="gp-ucb"),
    "lr-cancer-no-score": lambda: _lr_cancer(release_score=False),
    "lr-cancer-two-metrics": lambda: _lr_cancer(
        scoring={"acc": "accuracy", "ll": "neg_log_loss"}, refit="acc"
    ),
    "ridge-mse": lambda: _ridge(),
    "isolated-function-transformer": lambda: _isolated(),
    "lipschitz": _lipschitz,
    "federated-ldp": _federated,
    "dp-gp": _dp_gp,
    "ldp-maximize": _ldp,
}


def fingerprint(name: str) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return json.loads(json.dumps(CONFIGS[name]()))


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_releases_match_the_stored_fingerprints(name):
    stored = json.loads(STORE.read_text())
    assert name in stored, f"no stored fingerprint for {name}: run with --write"
    assert fingerprint(name) == stored[name]


if __name__ == "__main__":
    if "--write" not in sys.argv:
        sys.exit(__doc__)
    out = {name: fingerprint(name) for name in sorted(CONFIGS)}
    STORE.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(out)} fingerprints to {STORE}")

"""The private-model mode prunes duplicate candidates from public values only."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sklearn_dpbo.model_selection._private_model._fit as pm
from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.dp_learners import (
    DPGaussianNB,
    DPLinearRegression,
    DPLogisticRegression,
)
from sklearn_dpbo.model_selection import PrivateModel

# data_norm = 1, intercept: R² = 2, so with c = 1/4 the plateau starts at
# C* = (e^(ε_obj/4) − 1)/(c R²) = 2(e^(0.99 ε/4) − 1).
GRID = [1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0]


def _plateau(eps_fit):
    return 2 * math.expm1(0.99 * eps_fit / 4)


def _data(n=500, seed=0, d=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / (3 * np.sqrt(d / 2))
    return X, (X[:, 0] > 0).astype(int)


def _search(strategy, grid=GRID, estimator=None, epsilon=1.0, release_score=True):
    return DPBayesSearchCV(
        estimator or DPLogisticRegression(data_norm=1.0, C=1.0),  # numeric: the window
        {"C": grid},
        method=PrivateModel(strategy=strategy),
        epsilon=epsilon,
        delta=1e-6,
        scoring="accuracy",
        n_iter=len(grid),
        release_score=release_score,
        random_state=0,
    )


def test_prune_keeps_one_candidate_on_the_plateau():
    learner = DPLogisticRegression(data_norm=1.0)
    cands = [{"C": c} for c in GRID]
    eps_fit = 0.4
    kept = pm.prune_candidates(learner, cands, 350, eps_fit)
    star = _plateau(eps_fit)  # ≈ 0.21
    below = [c for c in GRID if c < star]
    assert [p["C"] for p in kept][: len(below)] == below
    assert len(kept) == len(below) + 1  # one representative of the plateau
    assert kept[-1]["C"] == 1.0  # the first plateau candidate in the order
    # Output perturbation and ridge have no plateau: nothing is pruned.
    out = DPLogisticRegression(data_norm=1.0, mechanism="output")
    assert pm.prune_candidates(out, cands, 350, eps_fit) == cands
    ridge = [{"alpha": a} for a in (0.1, 1.0)]
    assert pm.prune_candidates(DPLinearRegression(), ridge, 350, eps_fit) == ridge


@pytest.mark.parametrize("strategy", ["random-stopping", "split"])
def test_search_prunes_before_reading_rows(strategy, monkeypatch):
    X, y = _data()
    events = []
    real_prune, real_run = pm.prune_candidates, pm.wd.run_sealed

    def spy(learner, candidates, n_fit, eps_fit):
        events.append((n_fit, eps_fit))
        return real_prune(learner, candidates, n_fit, eps_fit)

    def run(*args, **kwargs):
        events.append("first read")
        return real_run(*args, **kwargs)

    monkeypatch.setattr(pm, "prune_candidates", spy)
    monkeypatch.setattr(pm.wd, "run_sealed", run)  # the sealed run
    s = _search(strategy).fit(X, y)
    n_fit = len(y) - math.ceil(0.3 * len(y))
    kept = sorted(p["C"] for p in s.candidate_params_)
    assert events[-1] == "first read"
    if strategy == "random-stopping":
        assert events[:-1] == [(n_fit, 0.5)]  # ε₀ = ε/2 (logarithmic law)
        eps_fit = 0.5
    else:  # ε/1, ε/2, … until the pruning leaves at most L candidates
        sizes = [round(1.0 / e) for _, e in events[:-1]]
        assert sizes == list(range(1, len(sizes) + 1))
        assert len(kept) <= sizes[-1]
        eps_fit = 1.0 / sizes[-1]
    star = _plateau(eps_fit)
    assert [c for c in kept if c < star] == [c for c in GRID if c < star]
    assert sum(c >= star for c in kept) == 1
    assert s.best_params_ in s.candidate_params_


def test_auto_rule_counts_distinct_candidates():
    # Six candidates, ε = 1, η = 0 (the default law): random stopping
    # (L = 6 > 3) at ε₀ = 0.5, where the plateau (C* ≈ 0.26) merges 1, 10
    # and 100: L = 4 > 3 still, random stopping. Twenty columns: n·ε/d =
    # 500/20 = 25 in [15, 30), so the "default suffices" rule does not apply
    # (test below).
    X, y = _data(d=20)
    s = _search("auto").fit(X, y)
    assert s.strategy_ == "random-stopping" and len(s.candidate_params_) == 4
    # C ∈ {0.1, 1, 10, …}: at ε₀ only 0.1 and one plateau candidate remain
    # (L = 2 ≤ 3): split, pruned at ε/L for the smallest L whose pruning
    # leaves ≤ L: at ε/2 (C* ≈ 0.26), 0.1 and the first plateau candidate
    # in the public order.
    s = _search("auto", grid=[0.1, 1.0, 10.0, 100.0, 1e3, 1e4]).fit(X, y)
    assert s.strategy_ == "split"
    kept = sorted(p["C"] for p in s.candidate_params_)
    assert kept[0] == 0.1 and kept[1] >= 1.0 and len(kept) == 2
    # Every candidate on the plateau at ε₀: one left, fitted at ε.
    s = _search("auto", grid=[10.0, 100.0, 1e3, 1e4]).fit(X, y)
    assert s.strategy_ == "default" and len(s.candidate_params_) == 1
    assert s.best_estimator_.C == s.candidate_params_[0]["C"] >= 10.0
    assert s.best_estimator_.epsilon == 1.0


def test_split_fits_each_kept_candidate_at_the_epsilon_it_was_pruned_at():
    # C in {0.3, 0.5, 0.55}, data_norm = 1 (C* = 2(e^(0.99 eps/4) - 1)):
    # at eps/1 = 1, C* = 0.563: three laws, more than 1; at eps/2, C* = 0.263:
    # all three on the plateau, one law: one kept, fitted at eps/2 (at
    # eps = 1 the three would be different models).
    X, y = _data()
    s = _search("split", grid=[0.3, 0.5, 0.55]).fit(X, y)
    assert len(s.candidate_params_) == 1
    assert s.best_estimator_.epsilon == 0.5
    assert "epsilon=0.5 each" in s.privacy_report_.releases[0]["mechanism"]


def test_auto_releases_its_default_when_candidates_differ_at_the_whole_eps():
    # Twenty columns (n eps/d = 25: the window tunes). Split at eps/2 keeps
    # one law of the three (above); at the whole eps they are three laws, so
    # "auto" does not pass one off as all three: it releases the
    # learner's own C = 1 at eps. On the plateau at eps too, one is fitted.
    X, y = _data(d=20)
    s = _search("auto", grid=[0.3, 0.5, 0.55]).fit(X, y)
    assert s.strategy_ == "default" and s.best_estimator_.C == 1.0
    assert s.best_estimator_.epsilon == 1.0
    s = _search("auto", grid=[0.6, 0.7]).fit(X, y)  # C* = 0.563 at eps = 1
    assert s.strategy_ == "default" and s.best_estimator_.C in (0.6, 0.7)


def test_auto_report_names_what_it_fitted():
    # The report says which parameters were fitted: the learner's own C = 1
    # when the candidates differ at the whole eps, the first candidate when
    # all of them are one law there (C = 0.6, not the learner's own C = 1).
    X, y = _data(d=20)
    own = _search("auto", grid=[0.3, 0.5, 0.55]).fit(X, y)
    text = own.privacy_report_.releases[0]["mechanism"]
    assert "the estimator's own parameters" in text
    kept = _search("auto", grid=[0.6, 0.7]).fit(X, y)
    text = kept.privacy_report_.releases[0]["mechanism"]
    assert kept.best_params_ == {"C": 0.6}
    assert "the estimator's own" not in text and "the first candidate" in text


def test_auto_tunes_only_when_n_eps_over_d_is_in_its_window():
    # n = 500 rows (m = 150). With d = 14 columns n·ε/d = 500ε/14, so the
    # rule tunes for ε in [0.42, 0.84) only: by hand 500·0.42/14 = 15 and
    # 500·0.84/14 = 30 (the limits), 500·0.41/14 ≈ 14.6, 500·0.83/14 ≈ 29.6.
    assert (pm.TUNE_FROM, pm.DEFAULT_SUFFICES) == (15.0, 30.0)
    lr = DPLogisticRegression(data_norm=1.0, C=1.0)  # C="scale" never tunes:
    assert pm.default_suffices(DPLogisticRegression(data_norm=1.0), 500, 0.6, 14)
    assert pm.default_suffices(lr, 500, 0.84, 14)
    assert not pm.default_suffices(lr, 500, 0.83, 14)
    assert not pm.default_suffices(lr, 500, 0.42, 14)
    assert pm.default_suffices(lr, 500, 0.41, 14)  # noise-dominated
    out = DPLogisticRegression(data_norm=1.0, mechanism="output")
    assert not pm.default_suffices(out, 500, 100.0, 14)  # objective only
    assert not pm.default_suffices(out, 500, 0.01, 14)
    assert not pm.default_suffices(DPLinearRegression(), 500, 100.0, 14)
    assert not pm.default_suffices(lr, 500, 100.0, None)
    # Gaussian naive Bayes never tunes under "auto", inside the window too
    # (its measured tuning lost 8 and 11 points).
    nb = DPGaussianNB(bounds=(0.0, 1.0))
    assert pm.default_suffices(nb, 500, 0.6, 14)
    assert pm.default_suffices(nb, 500, 0.6, None)
    X, y = _data(d=14)
    grid = [1e-3, 1e-2, 0.1]  # below the plateau: three distinct candidates
    # (the score-noise rule alone tunes from ε = 0.27: 1/(150·ε/2) ≤ 5 %);
    # n counts every row whether or not a score is released
    for release in (True, "auto"):
        for eps, tuned in [(0.41, False), (0.42, True), (0.83, True), (0.84, False)]:
            s = _search("auto", grid=grid, epsilon=eps, release_score=release)
            s.fit(X, y)
            assert (s.strategy_ != "default") == tuned, (eps, release)
            assert tuned or s.best_estimator_.epsilon == eps
            assert hasattr(s, "best_score_") == (release is True)
    s = _search("auto", grid=grid, epsilon=0.84, estimator=out).fit(X, y)
    assert s.strategy_ != "default"


def test_auto_window_counts_the_learners_features_after_public_steps(monkeypatch):
    """d is the width the learner receives: 2 columns of X one-hot encoded
    into 20 (public categories) give n·ε/d = 300·1/20 = 15, inside the
    window (300/2 = 150 would release the default)."""
    import warnings

    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    seen = []
    rule = pm.default_suffices

    def spy(learner, n, epsilon, n_features):
        seen.append((n, epsilon, n_features))
        return rule(learner, n, epsilon, n_features)

    monkeypatch.setattr(pm, "default_suffices", spy)
    X = np.random.default_rng(0).integers(0, 10, size=(300, 2))
    y = (X[:, 0] > 4).astype(int)
    onehot = OneHotEncoder(
        categories=[list(range(10))] * 2, sparse_output=False, handle_unknown="ignore"
    )
    pipe = make_pipeline(onehot, DPLogisticRegression(data_norm=2.0, C=1.0))
    s = DPBayesSearchCV(
        pipe,
        {"dplogisticregression__C": [0.01, 0.1, 1.0, 10.0, 100.0]},
        method=PrivateModel(),
        epsilon=1.0,
        delta=1e-6,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s.fit(X, y)
    assert seen == [(300, 1.0, 20)]
    assert not rule(pipe[-1], 300, 1.0, 20) and rule(pipe[-1], 300, 1.0, 2)

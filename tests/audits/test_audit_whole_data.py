"""Statistical audit of the whole-data mode: a *training* row differs.

TESTING.md P3/P4 for ``DPBayesSearchCV(...).fit(X, y)`` with every row
private (issue 20). The estimator is a flag oracle: a fitted model
remembers whether a poison row (x₀ = 1) was among its training rows;
candidate ``a`` predicts class ``flag XOR a`` for every row, and a poison
row itself is predicted wrongly. All rows have x₀ = 0 and y = 0 in V; V′
replaces one row by a poison row. Depending on where the public partition
and the public inner split put that row, it is

- an inner *training* row of its part: both candidates' part scores flip
  between 0 and 1, in opposite directions, so S moves by exactly Δ = 1/k
  for both candidates (the worst case of the sensitivity bound, and the
  best candidate changes its margin by 2Δ);
- an inner *validation* row: its own prediction only, 1/m_j of its part.

The part-score matrices are computed by the real ``fit`` path on V and V′
(``releases_from_scores`` is wrapped to capture them), and the release
stage is then drawn N times on each side with production noise (OS
CSPRNG). Outcomes: (released index, bin of the released score). The audit
passes when ε̂ ≤ ε (=1 in total); the power check runs the same pair with
a broken sensitivity 1/n (as if one row moved S by 1/n) and must be
caught (ε̂ > ε).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _audit import ALPHA, epsilon_lower_bound, resolution
from sklearn.base import BaseEstimator, ClassifierMixin

import sklearn_dpbo.model_selection._whole_data._fit as wd
from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.model_selection import WholeData

N = 20_000  # draws per side
N_ROWS, K = 16, 4  # 4 parts of 4 rows; inner split 0.3: 2 train + 2 test
EPSILON = 1.0


class FlagOracle(ClassifierMixin, BaseEstimator):
    def __init__(self, a=0):
        self.a = a

    def fit(self, X, y):
        X = np.asarray(X, dtype=float)
        self.flag_ = bool((X[:, 0] > 0.5).any())
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        base = int(self.flag_) ^ int(self.a)
        poison = X[:, 0] > 0.5
        return np.where(poison, 1, base)  # y = 0: a poison row is wrong


def _mode(anchored=False):
    if anchored:  # a = 0 is FlagOracle's own value: the anchor
        return WholeData(n_parts=K, max_selection_noise=None, max_worse_probability=0.5)
    return WholeData(n_parts=K, max_selection_noise=None, include_default=False)


def _search(anchored=False):
    return DPBayesSearchCV(
        FlagOracle(),
        {"a": [0, 1]},
        method=_mode(anchored),
        n_iter=2,
        epsilon=EPSILON,
        refit=False,
        random_state=7,
    )


def _role_rows():
    """(a row that is an inner training row, one that is an inner test row)."""
    search = _search()
    plan_seed = search._check_settings().seed
    parts = wd.partition(N_ROWS, K, plan_seed)
    ((tr, te),) = wd.inner_splits(len(parts[0]), 0.3, plan_seed + 0)
    return int(parts[0][tr[0]]), int(parts[0][te[0]])


def _captured(X, y, anchored=False):
    """The part-score matrix and release settings of the real fit path."""
    seen = {}
    real = wd.releases_from_scores

    def spy(scores, *args, **kwargs):
        seen["scores"] = scores.copy()
        seen["args"], seen["kwargs"] = args, kwargs
        return real(scores, *args, **kwargs)

    wd.releases_from_scores = spy
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _search(anchored).fit(X, y)
    finally:
        wd.releases_from_scores = real
    return seen


@pytest.fixture(scope="module")
def neighbours():
    X = np.zeros((N_ROWS, 2))
    y = np.zeros(N_ROWS, dtype=int)
    train_row, test_row = _role_rows()
    out = {"V": _captured(X, y), "anchored V": _captured(X, y, anchored=True)}
    for role, row in (("train", train_row), ("test", test_row)):
        X2 = X.copy()
        X2[row, 0] = 1.0
        out[role] = _captured(X2, y)
    X2 = X.copy()
    X2[train_row, 0] = 1.0
    out["anchored train"] = _captured(X2, y, anchored=True)
    return out


EDGES = np.linspace(-0.5, 1.5, 9)  # public bins of the released score
N_BINS = len(EDGES) + 1


def _draws(seen, n, sensitivity_override=None):
    scores, args, kwargs = seen["scores"], seen["args"], dict(seen["kwargs"])
    mode, scorer = args
    if sensitivity_override is not None:

        class Broken(type(scorer)):
            pass

        broken = scorer.__class__.__new__(Broken)
        broken.__dict__.update(scorer.__dict__)
        Broken.sensitivity_for = lambda self, k: sensitivity_override
        scorer = broken
    kwargs["rng"] = None  # production noise: the OS CSPRNG
    index, score = np.empty(n, dtype=int), np.empty(n)
    for i in range(n):
        params, released = wd.releases_from_scores(scores, mode, scorer, **kwargs)
        index[i], score[i] = params.value, released.value
    # The bin of each released score, as _audit.binned counts them:
    # (−∞, e₁], (e₁, e₂], …, (e_last, ∞).
    bins = np.searchsorted(EDGES, score, side="left")
    return np.bincount(index * N_BINS + bins, minlength=2 * N_BINS)


def test_training_row_moves_one_part_by_the_whole_range(neighbours):
    v, v2 = neighbours["V"]["scores"], neighbours["train"]["scores"]
    np.testing.assert_array_equal(v, [[1.0, 0.0]] * K)
    diff = np.abs(v - v2)
    assert (diff.sum(axis=1) > 0).sum() == 1  # one part
    assert diff.max() == 1.0  # the whole range, both candidates
    assert np.abs(v.mean(0) - v2.mean(0)).max() == pytest.approx(1.0 / K)


@pytest.fixture(scope="module")
def counts_on_v(neighbours):
    """The N draws on V, shared by the two neighbours' audits: each still
    compares N independent draws on V with N on its own V′ at α (the two
    audits' false alarms add up to 2α whatever their dependence, as when
    each drew V itself)."""
    return _draws(neighbours["V"], N)


@pytest.mark.xdist_group("audit_whole_data")  # one worker: V drawn once
@pytest.mark.parametrize("role", ["train", "test"])
def test_audit_whole_data(neighbours, counts_on_v, role):
    counts = counts_on_v
    counts2 = _draws(neighbours[role], N)
    result = epsilon_lower_bound(counts, counts2, ALPHA)
    assert result.epsilon_hat <= EPSILON, str(result)


@pytest.mark.xdist_group("audit_whole_data")
def test_audit_whole_data_default_anchored(neighbours):
    # The anchored selection (issue 38): the other candidate's score lowered
    # by the public margin τ, with the score release, ε₁ + ε₂ = 1 in total.
    # The training-row role moves both candidates by Δ in opposite
    # directions: the worst case for the selection.
    counts = _draws(neighbours["anchored V"], N)
    counts2 = _draws(neighbours["anchored train"], N)
    result = epsilon_lower_bound(counts, counts2, ALPHA)
    assert result.epsilon_hat <= EPSILON, str(result)
    other = 1 - neighbours["anchored V"]["kwargs"]["default_row"]
    released = counts2.reshape(2, N_BINS).sum(axis=1)
    assert released[other] > 0.05 * N  # both outcomes are exercised


def test_power_broken_sensitivity_is_caught(neighbours):
    # The tempting wrong constant: one row moves S by 1/n (it is 1/k).
    broken = 1.0 / N_ROWS
    counts = _draws(neighbours["V"], N, broken)
    counts2 = _draws(neighbours["train"], N, broken)
    result = epsilon_lower_bound(counts, counts2, ALPHA)
    assert result.epsilon_hat > EPSILON, str(result)
    # The audit's resolution at this N is well below the excess it catches.
    assert resolution(N, 0.05, EPSILON, 2 * N_BINS) < 0.5

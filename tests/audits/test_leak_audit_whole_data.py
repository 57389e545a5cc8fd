"""Leak audit of the whole-data mode (issue 20; TESTING.md P6).

The same scanners as ``test_leak_audit.py``, for ``fit(X, y)`` with every
row private: the fitted search, its pickle, its texts (verbose output,
warnings, logs, repr, the report) and, for a refit that fails after the
releases, its warning and the search left behind (the releases stand).
What is private here:

- every part's score of every candidate (the k × |Λ| matrix), captured by
  wrapping ``_whole_data.part_score_matrix``, and its column means (the
  utilities of the selection);
- the Laplace noise of ``best_score_`` (captured by wrapping the grid
  sampler, whose output is the released value).

The parts' hold-outs have 61 rows (a prime), so part scores are fractions
k/61 with many decimals: a printed or stored copy cannot hide behind a
round public number.
"""

from __future__ import annotations

import logging
import os
import sys

import numpy as np
import pytest
from _audit import Secrets, public_texts
from sklearn.datasets import make_classification
from sklearn.exceptions import FitFailedWarning
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from test_leak_audit import (
    NOISE,
    _record_noise,
    scan_fitted_search,
    scan_graph,
    scan_texts,
)

import sklearn_dpbo.model_selection._releases as releases
import sklearn_dpbo.model_selection._whole_data._fit as wd
from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.model_selection import WholeData

pytestmark = pytest.mark.usefixtures("single_blas_thread")

K, PART = 7, 203  # k parts of 203 rows: hold-outs of ⌈0.3 · 203⌉ = 61 rows
SPACE = {"refitfails__C": [0.001, 0.01, 0.1, 1.0, 10.0]}
MATRICES: list = []  # NOISE: test_leak_audit's recorder of the grid sampler
FAIL_REFIT = [False]


class RefitFails(LogisticRegression):
    """Fails, when armed, outside the parts' fits: the refit on every row."""

    def fit(self, X, y, **kw):
        if FAIL_REFIT[0] and not _in_part_fit():
            raise RuntimeError(f"refit failed on purpose (C={self.C!r})")
        return super().fit(X, y, **kw)


def _in_part_fit() -> bool:
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "_score_part" and frame.f_code.co_filename.endswith(
            os.path.join("model_selection", "_whole_data", "_fit.py")
        ):
            return True
        frame = frame.f_back
    return False


def _record_matrix(real):
    def wrapper(*args, **kwargs):
        out = real(*args, **kwargs)
        MATRICES.append(np.array(out, dtype=float))
        return out

    return wrapper


def make_search():
    return DPBayesSearchCV(
        make_pipeline(StandardScaler(), RefitFails(max_iter=500)),
        SPACE,
        method=WholeData(max_selection_noise=None),  # tune: the selection runs
        epsilon=1.0,
        random_state=0,
        verbose=10,
    )


@pytest.fixture
def recorders():
    for box in (MATRICES, NOISE):
        box.clear()
    FAIL_REFIT[0] = False
    yield
    for box in (MATRICES, NOISE):
        box.clear()
    FAIL_REFIT[0] = False


def _secrets(matrix, noise_pairs):
    # The sampler's output is the released value (clipped inside it).
    values = [matrix.ravel(), matrix.mean(axis=0)]
    values += [[noisy - value] for value, noisy in noise_pairs]
    return Secrets(np.concatenate([np.ravel(v) for v in values]))


def _parameter_numbers(search) -> set:
    """The search's numeric parameters and candidate values as a message
    writes them (public; e.g. C=0.001 in a repr, which a noise draw near
    0.001 would otherwise match)."""
    params = search.get_params(deep=True)
    params.update(search.method.__dict__)
    values = [*params.values(), *(v for vs in SPACE.values() for v in vs)]
    return {
        format(v, "g")
        for v in values
        if isinstance(v, (int, float)) and not isinstance(v, bool)
    }


def test_leak_audit_whole_data(monkeypatch, capfd, caplog, recwarn, recorders):
    X, y = make_classification(K * PART, 8, n_informative=4, flip_y=0.2, random_state=3)
    caplog.set_level(logging.DEBUG)
    monkeypatch.setattr(wd, "part_score_matrix", _record_matrix(wd.part_score_matrix))
    monkeypatch.setattr(
        releases, "_grid_laplace", _record_noise(releases._grid_laplace)
    )

    search = make_search().fit(X, y)
    out, err = capfd.readouterr()
    assert "[DPBayesSearchCV]" in out  # verbose output was produced
    assert search.n_parts_ == K and len(MATRICES) == 1 and len(NOISE) == 1
    matrix = MATRICES[0]
    assert matrix.shape == (K, len(SPACE["refitfails__C"]))
    # The secrets are informative: many distinct fractions of 61 rows.
    assert len(np.unique(matrix)) >= 10
    np.testing.assert_allclose(matrix * 61, np.round(matrix * 61), atol=1e-9)
    secrets = _secrets(matrix, NOISE)
    assert NOISE[0][1] == search.best_score_
    public = Secrets([], public=())
    assert not secrets.match_float(search.best_score_), "released a raw score"

    # The scanners can fail: the captured matrix itself is flagged.
    with pytest.raises(AssertionError):
        scan_graph({"m": matrix}, "matrix", secrets, public, [])

    scan_fitted_search(search, secrets, public, [], "whole-data")
    allowed = _parameter_numbers(search)
    texts = public_texts(search, out, err, recwarn, caplog)
    scan_texts(texts, secrets, public, allowed)

    # A refit that fails after the releases were drawn.
    MATRICES.clear()
    NOISE.clear()
    FAIL_REFIT[0] = True
    failing = make_search()
    with pytest.warns(FitFailedWarning, match="refit failed on purpose") as w:
        failing.fit(X, y)
    FAIL_REFIT[0] = False
    out, err = capfd.readouterr()
    assert len(MATRICES) == 1 and len(NOISE) == 1  # the releases were drawn
    fail_secrets = _secrets(MATRICES[0], NOISE)
    texts = {f"warning {i}": (str(x.message), 3) for i, x in enumerate(w)}
    texts["stdout"], texts["stderr"] = (out, 2), (err, 2)
    scan_texts(texts, fail_secrets, public, allowed)
    # The releases are paid for and stand; best_estimator_ is not set.
    assert "best_params_" in vars(failing) and "best_estimator_" not in vars(failing)
    scan_fitted_search(failing, fail_secrets, public, [], "failed whole-data")

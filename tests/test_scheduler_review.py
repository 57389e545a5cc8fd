"""Review of the asynchronous stream (issue 13): how it stops, and racing.

- When the driver raises while the joblib generator is live (a public
  check failing between the stages, an interruption during the validation
  scores), the stream stops without joblib's "tasks ... cancelled"
  UserWarning: that warning would be noise on a public error, and after the
  validation read its counts come from the timing of private work.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
from conftest import NOISE_SEED_WARNING
from sklearn.base import BaseEstimator, ClassifierMixin

from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo._scheduler import Job, run_ordered

pytestmark = [
    pytest.mark.usefixtures("single_blas_thread"),
    pytest.mark.filterwarnings(NOISE_SEED_WARNING),
]

JOBLIB_EARLY_EXIT = "adjusting the input task iterator"


class _RaisesOnResult:
    """Submits short jobs; raises ``error`` when the 3rd result is processed."""

    def __init__(self, error: BaseException):
        self.error = error
        self.n = 0

    def next_job(self):
        if self.n >= 20:
            return None
        self.n += 1
        return Job(time.sleep, (0.005,), tag=self.n)

    def process(self, job, result):
        if job.tag == 3:
            raise self.error


@pytest.mark.parametrize("backend", ["loky", "threading"])
@pytest.mark.parametrize("error", [ValueError("public check"), KeyboardInterrupt()])
def test_a_driver_error_stops_the_stream_without_a_joblib_warning(backend, error):
    import joblib

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with joblib.parallel_config(backend=backend):
            with pytest.raises(type(error)):
                run_ordered(_RaisesOnResult(error), window=4, n_jobs=2)
    assert not [w for w in seen if JOBLIB_EARLY_EXIT in str(w.message)]


class _NeverFits(ClassifierMixin, BaseEstimator):
    def __init__(self, C=1.0):
        self.C = C

    def fit(self, X, y):
        raise RuntimeError("cannot fit")


def test_every_public_fit_failing_raises_only_the_librarys_error(cancer_split):
    X_tr, y_tr, X_va, y_va = cancer_split
    search = DPBayesSearchCV(
        _NeverFits(),
        {"C": (1e-3, 1e2, "log-uniform")},
        n_iter=4,
        n_candidates=8,
        random_state=0,
        noise_random_state=1,
        error_score=np.nan,
        n_jobs=2,
    )
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="Every candidate evaluated"):
            search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    assert not [w for w in seen if JOBLIB_EARLY_EXIT in str(w.message)]

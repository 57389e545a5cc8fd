"""A sleep-bound classifier for the scheduling benchmark (bench_scaling.py).

``SleepyClassifier.fit`` only sleeps (``time.sleep`` releases the GIL and
uses no CPU), so the wall time of a search measures how well it keeps its
workers busy, not how many cores the machine has. It lives in its own
module, not in the benchmark script, so that worker processes (loky, Dask)
can unpickle it by reference: ``bench_scaling.py`` puts this folder on
``PYTHONPATH`` before any worker starts.

Fits are counted in :attr:`SleepyClassifier.n_fits`, a class attribute
updated under a lock: the count is exact for in-process runs (``n_jobs=1``
and a threaded Dask cluster in this process), and zero in the parent for
fits done in other processes.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

__all__ = ["SleepyClassifier", "worker_can_import"]


class SleepyClassifier(ClassifierMixin, BaseEstimator):
    """Sleeps ``sleep`` seconds in ``fit``; ``predict`` is cheap.

    Predicts ``X[:, 0] > threshold_`` with a threshold that is a smooth
    function of the two hyper-parameters (the landscape of the overhead
    benchmark's ``TinyClassifier``: ``a`` in [0, 1], ``b`` log-scaled in
    [1e-2, 1e2]), so the search sees a non-trivial accuracy landscape.
    """

    n_fits = 0
    _lock = threading.Lock()

    @classmethod
    def reset(cls) -> None:
        with cls._lock:
            cls.n_fits = 0

    def __init__(self, a=0.5, b=1.0, sleep=0.04):
        self.a = a
        self.b = b
        self.sleep = sleep

    def fit(self, X, y):
        time.sleep(self.sleep)
        self.classes_ = np.array([0, 1])
        self.threshold_ = 0.5 + 0.35 * math.sin(2.0 * math.pi * self.a) * math.cos(
            math.log10(self.b)
        )
        self.n_features_in_ = X.shape[1]
        with SleepyClassifier._lock:
            SleepyClassifier.n_fits += 1
        return self

    def predict(self, X):
        return (X[:, 0] > self.threshold_).astype(np.int64)


def worker_can_import() -> str:
    """Run in a worker: the module it imported this function from."""
    return SleepyClassifier.__module__

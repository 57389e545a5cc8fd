"""Shared fixtures for the search, compatibility and privacy-rule tests.

The spy estimator and scorer below record every call in module-level logs
(not in the estimator: ``clone`` deep-copies parameters, and anything stored
on the search object would itself become reachable from it). They are used
with the sequential backend only.
"""

from __future__ import annotations

import os

# scikit-learn's check_array_api_input (run by parametrize_with_checks) needs
# scipy's array-API mode, which must be switched on before scipy is imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_digits  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from sklearn_dpbo.privacy import DPScorer

# ---------------------------------------------------------------------------
# Subprocess-bound tests (the benchmark smoke runs) start in the
# background when collection finishes (_background.py).
# ---------------------------------------------------------------------------


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "background(key, argv, **popen_kwargs): a subprocess the test reads with "
        "_background.result(key), started when collection finishes",
    )
    # pytest-xdist registers it too; here for runs without xdist (strict).
    config.addinivalue_line(
        "markers", "xdist_group(name): tests run by one pytest-xdist worker"
    )
    config.addinivalue_line(
        "markers",
        "ends_loky_pool: an error inside a loky Parallel (joblib ends the "
        "reusable worker pool); run after the other tests",
    )
    _choose_distribution(config)


def pytest_collection_finish(session):
    if session.config.option.collectonly or _xdist_worker(session.config):
        return
    import _background

    for item in session.items:
        marker = item.get_closest_marker("background")
        if marker is not None:
            _background.submit(*marker.args, **marker.kwargs)


def _xdist_worker(config) -> bool:
    """Under pytest-xdist every worker collects every test but runs a share:
    there a marked command starts when its own test does (the other workers
    go on meanwhile), not at collection."""
    return hasattr(config, "workerinput")


# ---------------------------------------------------------------------------
# Order and distribution under pytest-xdist (the README's ``-n auto``).
# xdist's default (``--dist load``) sends each worker long runs of
# consecutive tests; with ``-n`` and no ``--dist`` of the user's, the run
# uses ``--dist loadgroup`` instead: every test is its own unit, handed to
# whichever worker is free, in collection order, and tests sharing an
# expensive module fixture are one unit (``xdist_group``; such units go
# first). The long tests (subprocesses, statistical audits) are collected
# first, so the many short ones fill the gaps and the workers finish
# together instead of one running a minute-long audit at the end. Tests
# marked ``ends_loky_pool`` go last: joblib ends its reusable loky pool on
# an error inside a Parallel (joblib 1.6: any job or driver error), and the
# next test using loky would start new workers, each importing
# sklearn_dpbo (~2.5 s of CPU a worker); run last, the other tests share
# one pool per process. Only the order changes (a stable sort). Set here
# rather than in setup.cfg's addopts: .ci/version_smoke.py runs pytest with
# that setup.cfg and without xdist, where ``--dist`` is not an option.
# ---------------------------------------------------------------------------
_DIST_FLAGS = ("--dist", "-d", "--distload")


def _dist_given(config) -> bool:
    """Whether the user chose a distribution mode (then it is kept)."""
    import shlex

    args = [str(a) for a in config.invocation_params.args]
    args += shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))
    args += list(config.getini("addopts"))
    return any(a in _DIST_FLAGS or a.startswith("--dist=") for a in args)


def _choose_distribution(config) -> None:
    if _xdist_worker(config):
        # A worker groups the tests by xdist_group when the controller
        # schedules by group (it reads that from the command line only).
        if config.workerinput.get("dpbo_loadgroup"):
            config.option.loadgroup = True
    elif getattr(config.option, "dist", "no") == "load" and not _dist_given(config):
        config.option.dist = "loadgroup"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist: tell each worker the controller's distribution mode."""
    node.workerinput["dpbo_loadgroup"] = node.config.option.dist == "loadgroup"


def _start_rank(item) -> int:
    if item.get_closest_marker("background") is not None:
        return 0  # a subprocess (benchmark smoke run)
    if item.get_closest_marker("slow") is not None:
        return 1  # a statistical audit
    if item.get_closest_marker("ends_loky_pool") is not None:
        return 3  # after every test that could reuse the loky pool
    return 2


def pytest_collection_modifyitems(session, config, items):
    items.sort(key=_start_rank)


def pytest_runtest_setup(item):
    marker = item.get_closest_marker("background")
    if marker is not None:
        import _background

        _background.submit(*marker.args, **marker.kwargs)  # no-op if queued


def pytest_sessionfinish(session, exitstatus):
    import _background

    _background.shutdown()


# ---------------------------------------------------------------------------
# Speed: BLAS threads oversubscribe a shared 2-core machine badly (a
# LogisticRegression fit is ~6x slower with 2 OpenBLAS threads under load).
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def single_blas_thread():
    with threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="session", autouse=True)
def _one_blas_thread_for_every_test():
    """The same limit for every test (in this process; workers and
    subprocesses keep their own): on the loaded 2-core machine a test fitting
    a few small LogisticRegressions through estimate_dataset_kernel took
    12-24 s with 2 OpenBLAS threads and 0.3 s with one. The release
    fingerprints are the same with 1 and 2 threads."""
    with threadpool_limits(limits=1):
        yield


# ---------------------------------------------------------------------------
# Data: the training part is public, the validation part is the private one.
# Validation sizes are odd primes so that no accuracy k/m equals a "round"
# public constant such as 0.5.
# ---------------------------------------------------------------------------


def _split(X, y, n_train, n_val, seed):
    X_tr, X_rest, y_tr, y_rest = train_test_split(
        X, y, train_size=n_train, random_state=seed, stratify=y
    )
    X_va, _, y_va, _ = train_test_split(
        X_rest, y_rest, train_size=n_val, random_state=seed, stratify=y_rest
    )
    return X_tr, y_tr, X_va, y_va


@pytest.fixture(scope="session")
def cancer_split():
    X, y = load_breast_cancer(return_X_y=True)
    return _split(X, y, 300, 173, seed=0)


@pytest.fixture(scope="session")
def scaled_cancer_split(cancer_split):
    """``cancer_split`` standardised with the training part's (public) means
    and deviations: a LogisticRegression fit converges in tens of iterations
    instead of running to ``max_iter`` on the raw features (~5x cheaper)."""
    X_tr, y_tr, X_va, y_va = cancer_split
    mean, std = X_tr.mean(axis=0), X_tr.std(axis=0)
    return (X_tr - mean) / std, y_tr, (X_va - mean) / std, y_va


@pytest.fixture(scope="session")
def digits_split():
    X, y = load_digits(return_X_y=True)
    return _split(X, y, 400, 211, seed=0)


# Tests that seed the noise (noise_random_state, tests only) get this
# PrivacyLeakWarning on every fit; they silence exactly this one.
NOISE_SEED_WARNING = "ignore:noise_random_state is set:sklearn_dpbo.PrivacyLeakWarning"

# ---------------------------------------------------------------------------
# Spies
# ---------------------------------------------------------------------------

SPY_LOG: list = []
"""Entries ("fit" | "predict", ids, in_scorer) and ("score", ids)."""

_IN_SCORER = [False]


class RowSpyClassifier(ClassifierMixin, BaseEstimator):
    """LogisticRegression on X[:, 1:] that logs the row ids in X[:, 0].

    Column 0 holds a unique row id (a marker, ignored by the model), so every
    call records exactly which rows it received.
    """

    def __init__(self, C=1.0):
        self.C = C

    def fit(self, X, y):
        X = np.asarray(X, dtype=float)
        ids = X[:, 0].astype(int)
        SPY_LOG.append(("fit", tuple(ids.tolist()), _IN_SCORER[0]))
        self.fit_row_ids_ = np.sort(ids)
        self.model_ = LogisticRegression(C=self.C, max_iter=200).fit(X[:, 1:], y)
        self.classes_ = self.model_.classes_
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        SPY_LOG.append(("predict", tuple(X[:, 0].astype(int).tolist()), _IN_SCORER[0]))
        return self.model_.predict(X[:, 1:])


class SpyAccuracy(DPScorer):
    """Accuracy whose every scored batch logs the row ids it scores on."""

    def __init__(self):
        super().__init__(
            lambda y, p: (np.asarray(y) == np.asarray(p)).astype(float),
            bounds=(0.0, 1.0),
            name="spy",
        )

    def _raw(self, estimator, X, y):
        ids = tuple(np.asarray(X, dtype=float)[:, 0].astype(int).tolist())
        SPY_LOG.append(("score", ids))
        _IN_SCORER[0] = True
        try:
            return super()._raw(estimator, X, y)
        finally:
            _IN_SCORER[0] = False


def make_spy_scorer():
    return SpyAccuracy()


@pytest.fixture
def spy_log():
    SPY_LOG.clear()
    yield SPY_LOG
    SPY_LOG.clear()


@pytest.fixture(scope="session")
def id_data():
    """Breast-cancer rows with a row-id column 0: (X, y, train_ids, val_ids)."""
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:240], y[:240]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    X = np.column_stack([np.arange(len(X)), X])
    rng = np.random.RandomState(0)
    perm = rng.permutation(len(X))
    return X, y, np.sort(perm[:160]), np.sort(perm[160:])


class CallbackScorer(DPScorer):
    """A DPScorer whose values come from ``fn(estimator, X, y)`` (test spies).

    ``fn`` returns one value per record of the batch it is given.
    """

    def __init__(self, fn, bounds=(0.0, 1.0), name="callback"):
        super().__init__(_unused_record_score, bounds=bounds, name=name)
        self.fn = fn

    def _raw(self, estimator, X, y):
        return np.asarray(self.fn(estimator, X, y), dtype=float)


def _unused_record_score(y, out):  # pragma: no cover - replaced by _raw
    raise AssertionError("CallbackScorer computes its values in _raw")


class JobList:
    """A driver with a fixed list of jobs; ``results`` in submission order."""

    def __init__(self, jobs):
        self.jobs = list(jobs)
        self.results: list = []

    def next_job(self):
        return self.jobs.pop(0) if self.jobs else None

    def process(self, job, result) -> None:
        self.results.append(result)

    def finished(self) -> bool:
        return not self.jobs


def _boom():
    print("unpickled in the worker")
    raise RuntimeError("cannot rebuild this record")


class UnpicklesBadly:
    """A record that pickles fine; unpickling it prints and raises."""

    def __reduce__(self):
        return (_boom, ())

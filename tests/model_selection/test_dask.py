"""Scale-out: the same releases under joblib's Dask backend.

A ``dask.distributed`` LocalCluster of 2 worker *processes* (one thread
each) runs the fits; the releases must equal those of a sequential run
(``n_jobs=1``: no process pool to start; loky and the other joblib
backends are compared in test_search.py) for the same seeds. Skipped when
``dask[distributed]`` is not installed (``pip install
"sklearn-dpbo[dask]"``; the ``test`` extra has it).
"""

from __future__ import annotations

import inspect
import warnings

import joblib
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.model_selection import PrivateSelection

SPACE = {"svc__C": (1e-2, 1e3, "log-uniform"), "svc__gamma": (1e-5, 1e0, "log-uniform")}


def _data():
    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_va, y_tr, y_va = train_test_split(
        X, y, test_size=0.4, random_state=0, stratify=y
    )
    return X_tr, y_tr, X_va, y_va


def _search(seed, n_jobs, **kwargs):
    params = dict(
        epsilon=1.0,
        n_iter=4,
        n_candidates=64,
        n_jobs=n_jobs,
        random_state=seed,
        **kwargs,
    )
    if "noise_random_state" in inspect.signature(DPBayesSearchCV).parameters:
        # random_state seeds the public randomness only; the test-only noise
        # seed makes the noisy releases reproducible too.
        params["noise_random_state"] = seed
    return DPBayesSearchCV(make_pipeline(StandardScaler(), SVC()), SPACE, **params)


def _releases(search):
    out = {"best_index_": search.best_index_, "best_score_": search.best_score_}
    if hasattr(search, "shortlist_"):
        out["shortlist_"] = np.asarray(search.shortlist_).tolist()
    return out


CONFIGS = [
    {
        "method": PrivateSelection(batch_size=2)
    },  # private-selection; GP-BUCB batches of the public search
    {"method": "gp-ucb"},  # validation-set BO, one candidate per step
]


def test_dask_backend_gives_the_same_releases():
    # Imported here, not at collection: distributed's import costs every
    # pytest-xdist worker ~0.4 s of CPU, and only this test's worker needs it.
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster, get_task_stream

    data = _data()
    X_tr, y_tr, X_va, y_va = data
    expected = []
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="noise_random_state is set")
        for seed, cfg in enumerate(CONFIGS):
            search = _search(seed, 1, **cfg).fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
            expected.append(_releases(search))

        with (
            LocalCluster(
                n_workers=2,
                processes=True,
                threads_per_worker=1,
                dashboard_address=None,
                host="127.0.0.1",
            ) as cluster,
            Client(cluster) as client,
        ):
            assert len(client.scheduler_info()["workers"]) == 2
            got = []
            with joblib.parallel_backend("dask"), get_task_stream(client) as ts:
                for seed, cfg in enumerate(CONFIGS):
                    search = _search(seed, 2, **cfg).fit(
                        X_tr, y_tr, X_val=X_va, y_val=y_va
                    )
                    got.append(_releases(search))
            # The fits ran on the cluster's worker processes.
            workers = {t["worker"] for t in ts.data}
            assert len(ts.data) > 0 and workers <= set(
                client.scheduler_info()["workers"]
            )
    assert got == expected

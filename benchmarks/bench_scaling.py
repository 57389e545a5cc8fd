"""Speed and scaling benchmark of DPBayesSearchCV (issue 13).

Four sections, every searcher measured in the same run (ratios within a run
only; the machine is shared, so timings are noisy).

1. README task: exactly the data and space of ``sklearn_dpbo/demo.py``
   (``load_digits``, stratified split with seed 0: 50 % public training set,
   25 % validation set, 25 % test set; ``make_pipeline(StandardScaler(),
   SVC())`` tuning ``svc__C`` in 1e-2..1e3 and ``svc__gamma`` in 1e-5..1e0,
   both log-uniform; ``n_iter=30``; ``epsilon=1``, ``delta=1e-5``).
   Searchers: ``DPBayesSearchCV`` (the library's default method),
   ``RandomizedSearchCV(n_iter=30)`` with scipy ``loguniform`` and
   ``OptunaSearchCV(n_trials=30)`` (TPE; skipped with a note when not
   importable), both with ``cv=PredefinedSplit`` over training + validation
   rows: one split, the same training/validation rows the private search
   uses. All with their default ``refit=True`` (scikit-learn and Optuna refit
   on training + validation, the private search on the training set only).
   ``n_jobs`` in {1, 2}; the loky workers are started by a trivial
   ``Parallel`` call first, then for each (searcher, n_jobs) one first run
   (cold: the searcher's imports in this process and the workers) is
   reported apart and ``--repeats`` timed
   runs follow, searchers interleaved; the tables give the median. The test
   accuracy of each run's refit model is recorded (utility comparable).
2. Larger task: ``HistGradientBoostingClassifier(random_state=0)`` on
   ``make_classification(n_samples=50_000, n_features=20, n_informative=10,
   random_state=0)``, split 50/25/25 the same way; ``learning_rate``
   0.01..0.3 and ``l2_regularization`` 1e-4..10 log-uniform,
   ``max_leaf_nodes`` 8..128 log-uniform integer, ``min_samples_leaf``
   5..100 integer; ``n_iter=20``; same three searchers and n_jobs (25 000
   public training rows: 8 333 per public fold, so
   ``--variant public_budget=auto`` runs a single public hold-out here,
   while on the README task, 299-300 rows per fold, it races as the
   default ``public_budget=None``). No cold
   run here (imports are done and the loky workers are started by a trivial
   ``Parallel`` call before each series); ``--repeats-large`` runs (default
   2) so that the full run stays under ~10 minutes.
3. Scheduling efficiency: ``SleepyClassifier`` (``benchmarks/_sleepy.py``),
   whose ``fit`` only sleeps 40 ms and whose ``predict`` is cheap, on 200
   training + 100 validation rows, two float hyper-parameters, ``n_iter=24``,
   ``refit=False`` (the search alone). Wall time for k in {1, 2, 4, 8} on
   joblib's default loky backend (``n_jobs=k``) and on Dask: a
   ``distributed.LocalCluster(n_workers=1, threads_per_worker=k,
   processes=False)`` in this process (``--dask-processes``: k worker
   processes with one thread each) used through
   ``joblib.parallel_config("dask")``; the Dask backend ignores ``n_jobs``
   and uses the cluster's k threads. Speed-up = time of the sequential
   in-process run (``n_jobs=1``, default backend) ÷ time at k, for the
   default search and for ``RandomizedSearchCV`` (the reference).
   Efficiency = speed-up ÷ k. The default window of the private search is
   max(4, 2 x k), so for k > 2 it runs a different (equally valid) search
   from the sequential run; ``DPBayesSearchCV, fixed batch_size`` fixes the
   window to 2 x max(k) at every k, so that the same search (same fits,
   same releases) runs at every k and its speed-up is the scheduler's alone.
   F, the fits of the sequential run, is counted in-process (class counter).
   First run of each (searcher, backend, k) reported apart. Reference row
   ``joblib.Parallel, independent sleeps``: as many independent 40 ms
   sleeps as the sequential fixed-window search's (last) run fitted,
   through plain ``joblib.Parallel(n_jobs=k)`` on the same backend: the
   speed-up joblib itself reaches with no search and no dependency
   between tasks, an upper bound for any search run through joblib.
   Every timed run starts after a full ``gc.collect()`` (all searchers).
4. Overhead per iteration at |Λ| = 1024, T = 100 (``--quick``: T = 10;
   ``TinyClassifier``, one process, one BLAS thread), measured by
   ``bench_overhead.measure_overhead`` (imported; best of ``--repeats``),
   for the default method and gp-ucb.

5. ``--sections rule`` (not in the default run): the default public
   signal on two large tasks fixed in ``rule_tasks`` (25,000 training rows
   each, ``n_iter=20``): ``RandomizedSearchCV(cv=3)`` on training +
   validation rows, ``RandomizedSearchCV`` on the one training/validation
   split, ``DPBayesSearchCV`` with ``PrivateSelection(public_cv=3,
   public_budget=None)`` and with the defaults; paired seeds (the split,
   the searchers' seeds) for ``--rule-seconds`` per task, ``n_jobs=1``;
   wall and CPU time ratios and test accuracy. Writes
   ``bench_scaling_rule.json`` (``--out`` to choose).

A final "goals" table compares the issue's goals with the measured values
(informational, never an assertion).

Usage::

    python benchmarks/bench_scaling.py            # full run (~ 6-10 minutes)
    python benchmarks/bench_scaling.py --quick    # CI smoke run (≤ 40 s)
    # issue 25: the row budget on the public folds beside the default,
    # sections 1-2 only (the models fitted and, at n_jobs=1, the CPU time of
    # this process are recorded too: the work, whatever the machine's load)
    python benchmarks/bench_scaling.py --sections readme large \
        --variant public_budget=0.7 --variant public_budget=1

Writes ``benchmarks/results/bench_scaling.json`` and ``bench_scaling.png``
(to a temporary folder with ``--quick``; ``--out PATH``: PATH and PATH with
``.png``) and prints markdown tables. The plot needs matplotlib (skipped
with a note otherwise).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import importlib
import json
import logging
import os
import signal
import statistics
import sys
import time
import warnings
from pathlib import Path

# One BLAS/OpenMP thread per job (set before numpy and scikit-learn load):
# n_jobs=k then uses k cores in every searcher, including Optuna's threads
# and HistGradientBoosting's OpenMP loops, and nothing is oversubscribed.
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
for _var in THREAD_VARS:
    os.environ.setdefault(_var, "1")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _checkout  # noqa: E402, F401  (the checkout's sklearn_dpbo)
import numpy as np  # noqa: E402
from _results import results_dir  # noqa: E402

import sklearn_dpbo  # noqa: E402

# Worker processes (loky, Dask) must import the sleep-bound estimator and
# run the same sklearn_dpbo as this process: put both folders on their path.
_PKG_PARENT = str(Path(sklearn_dpbo.__file__).resolve().parents[1])
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(HERE), _PKG_PARENT]
    + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
)

import bench_overhead  # noqa: E402  (benchmarks/bench_overhead.py)
from _sleepy import SleepyClassifier, worker_can_import  # noqa: E402

DPBO = "DPBayesSearchCV"
# Section 3: the same search at every k (a fixed public-search window), so
# that the speed-up measures scheduling alone.
DPBO_FIXED = "DPBayesSearchCV, fixed batch_size"
RANDOM = "RandomizedSearchCV"
# Section 3's reference: the same number of 40 ms sleeps as the sequential
# fixed-window search's fits, independent, through plain joblib.Parallel on
# the same backend: what joblib itself reaches with no search and no
# dependency between tasks (an upper bound for any joblib-based search).
CEILING = "joblib.Parallel, independent sleeps"
OPTUNA = "OptunaSearchCV (TPE)"
SEARCHERS = (DPBO, RANDOM, OPTUNA)
# ``--variant KEY=VALUE[,KEY=VALUE]``: more DPBayesSearchCV searchers (label ->
# PrivateSelection keywords), measured beside the default in sections 1-3.
VARIANTS: dict = {}
SECTIONS = ("readme", "large", "sched", "overhead", "rule")
SHARED_NOTE = (
    "Measured on a shared machine (other jobs, e.g. test suites, may run at "
    "the same time): timings are noisy; compare ratios within one run."
)
DASK_TIMEOUT_S = 300


# ---------------------------------------------------------------------------
# Searchers
# ---------------------------------------------------------------------------
def _split(X, y):
    """50 % public training, 25 % validation, 25 % test (seed 0), exactly as
    ``sklearn_dpbo/demo.py``."""
    from sklearn.model_selection import train_test_split

    X_tr, X_rest, y_tr, y_rest = train_test_split(X, y, test_size=0.5, random_state=0)
    X_va, X_te, y_va, y_te = train_test_split(
        X_rest, y_rest, test_size=0.5, random_state=0
    )
    return X_tr, y_tr, X_va, y_va, X_te, y_te


def _predefined(n_train, n_val):
    """One split: the training rows fit, the validation rows score."""
    from sklearn.model_selection import PredefinedSplit

    return PredefinedSplit(np.r_[np.full(n_train, -1), np.zeros(n_val, dtype=int)])


def _make_search(name, task, n_iter, n_jobs, seed, *, refit=True, batch_size=None):
    """A searcher over ``task``'s space (continuous ranges for the others;
    this library discretises the same ranges into 1024 Sobol points).
    ``batch_size``: ``PrivateSelection(batch_size=...)`` of ``DPBO_FIXED``."""
    if _is_dpbo(name):
        from sklearn_dpbo import DPBayesSearchCV
        from sklearn_dpbo.model_selection import PrivateSelection

        return DPBayesSearchCV(
            task["estimator"](),
            task["space"],
            method=PrivateSelection(batch_size=batch_size, **VARIANTS.get(name, {})),
            epsilon=1.0,
            delta=1e-5,
            n_iter=n_iter,
            n_jobs=n_jobs,
            refit=refit,
            random_state=seed,
            # Seeded noise: the releases of a run can be reproduced and
            # compared before/after a change (the timing does not depend on it).
            noise_random_state=seed,
        )
    cv = _predefined(task["n_train"], task["n_val"])
    if name == RANDOM:
        from sklearn.model_selection import RandomizedSearchCV

        return RandomizedSearchCV(
            task["estimator"](),
            task["scipy_space"](),
            n_iter=n_iter,
            cv=cv,
            n_jobs=n_jobs,
            refit=refit,
            random_state=seed,
        )
    if name == OPTUNA:
        import optuna
        from optuna_integration import OptunaSearchCV

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        return OptunaSearchCV(
            task["estimator"](),
            task["optuna_space"](),
            n_trials=n_iter,
            cv=cv,
            n_jobs=n_jobs,
            refit=refit,
            random_state=seed,
        )
    raise KeyError(name)


def _is_dpbo(name):
    return name in (DPBO, DPBO_FIXED) or name in VARIANTS


def _variant(text):
    """``--variant`` value: ``KEY=VALUE[,KEY=VALUE]`` (values: None, ints,
    floats or strings) -> (label, PrivateSelection keywords)."""
    kwargs = {}
    for item in text.split(","):
        key, _, value = item.partition("=")
        if value == "None":
            kwargs[key] = None
        else:
            for cast in (int, float, str):
                try:
                    kwargs[key] = cast(value)
                    break
                except ValueError:
                    continue
    return f"{DPBO} [{text}]", kwargs


def _fit(search, name, task):
    """Fit ``search`` on the task; return the wall time in seconds.

    A full garbage collection runs before the clock starts (every searcher
    alike): otherwise a collection of the benchmark's own garbage can fall
    inside a timed run (measured: ~85 ms pauses with Dask loaded, which stop
    a threaded cluster's workers too). Collection stays enabled while timed.
    """
    X_tr, y_tr, X_va, y_va = task["X_tr"], task["y_tr"], task["X_va"], task["y_va"]
    gc.collect()
    if _is_dpbo(name):
        t0 = time.perf_counter()
        search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
        return time.perf_counter() - t0
    X = np.concatenate([X_tr, X_va])
    y = np.concatenate([y_tr, y_va])
    t0 = time.perf_counter()
    search.fit(X, y)
    return time.perf_counter() - t0


def _n_fits(search, name, n_iter):
    """Models fitted: the private search's public fold fits plus its
    shortlist's fits on the training set (no refit); the others' n_iter
    fits plus their refit."""
    if _is_dpbo(name):
        return int(search.cv_results_["n_public_folds"].sum()) + len(search.shortlist_)
    return n_iter + 1


def _available(names, log=print):
    """The searchers that import; a note for each one that does not."""
    ok, skipped = [], {}
    for name in names:
        if name == OPTUNA:
            try:
                importlib.import_module("optuna")
                importlib.import_module("optuna_integration")
            except ImportError as exc:
                skipped[name] = f"not installed ({exc.name})"
                log(f"  note: {name} skipped: not installed ({exc.name})")
                continue
        ok.append(name)
    return ok, skipped


def _warm_loky(n_jobs):
    """Start the loky workers (and their imports) outside the timed runs."""
    if n_jobs > 1:
        from joblib import Parallel, delayed

        Parallel(n_jobs=n_jobs)(delayed(worker_can_import)() for _ in range(n_jobs))


# ---------------------------------------------------------------------------
# Sections 1 and 2: wall time against RandomizedSearchCV and Optuna
# ---------------------------------------------------------------------------
def readme_task(n_rows=None):
    """The README task; ``n_rows``: its first rows only (``--quick``)."""
    from scipy.stats import loguniform
    from sklearn.datasets import load_digits
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    def optuna_space():
        from optuna.distributions import FloatDistribution

        return {
            "svc__C": FloatDistribution(1e-2, 1e3, log=True),
            "svc__gamma": FloatDistribution(1e-5, 1e0, log=True),
        }

    X, y = load_digits(return_X_y=True)
    X_tr, y_tr, X_va, y_va, X_te, y_te = _split(X[:n_rows], y[:n_rows])
    return {
        "name": "README task (load_digits, StandardScaler + SVC)"
        + (f", first {n_rows} rows" if n_rows else ""),
        "estimator": lambda: make_pipeline(StandardScaler(), SVC()),
        "space": {
            "svc__C": (1e-2, 1e3, "log-uniform"),
            "svc__gamma": (1e-5, 1e0, "log-uniform"),
        },
        "scipy_space": lambda: {
            "svc__C": loguniform(1e-2, 1e3),
            "svc__gamma": loguniform(1e-5, 1e0),
        },
        "optuna_space": optuna_space,
        **_arrays(X_tr, y_tr, X_va, y_va, X_te, y_te),
    }


def large_task(n_samples, max_iter=100):
    """``max_iter``: boosting iterations (``--quick``: 5; default 100)."""
    from scipy.stats import loguniform, randint
    from sklearn.datasets import make_classification
    from sklearn.ensemble import HistGradientBoostingClassifier

    def optuna_space():
        from optuna.distributions import FloatDistribution, IntDistribution

        return {
            "learning_rate": FloatDistribution(0.01, 0.3, log=True),
            "max_leaf_nodes": IntDistribution(8, 128, log=True),
            "l2_regularization": FloatDistribution(1e-4, 10.0, log=True),
            "min_samples_leaf": IntDistribution(5, 100),
        }

    X, y = make_classification(
        n_samples=n_samples, n_features=20, n_informative=10, random_state=0
    )
    return {
        "name": (
            f"HistGradientBoostingClassifier, make_classification("
            f"n_samples={n_samples}, n_features=20, n_informative=10)"
            + (f", max_iter={max_iter}" if max_iter != 100 else "")
        ),
        "estimator": lambda: HistGradientBoostingClassifier(
            max_iter=max_iter, random_state=0
        ),
        "space": {
            "learning_rate": (0.01, 0.3, "log-uniform"),
            "max_leaf_nodes": (8, 128, "log-uniform"),
            "l2_regularization": (1e-4, 10.0, "log-uniform"),
            "min_samples_leaf": (5, 100),
        },
        "scipy_space": lambda: {
            "learning_rate": loguniform(0.01, 0.3),
            "max_leaf_nodes": _IntLogUniform(8, 128),
            "l2_regularization": loguniform(1e-4, 10.0),
            "min_samples_leaf": randint(5, 101),
        },
        "optuna_space": optuna_space,
        **_arrays(*_split(X, y)),
    }


def _arrays(X_tr, y_tr, X_va, y_va, X_te, y_te):
    return {
        "X_tr": X_tr,
        "y_tr": y_tr,
        "X_va": X_va,
        "y_va": y_va,
        "X_te": X_te,
        "y_te": y_te,
        "n_train": len(y_tr),
        "n_val": len(y_va),
        "n_test": len(y_te),
    }


class _IntLogUniform:
    """scipy-style distribution: ``loguniform(low, high)`` rounded down to an
    int (``RandomizedSearchCV`` calls ``rvs(random_state=...)``)."""

    def __init__(self, low, high):
        from scipy.stats import loguniform

        self.low, self.high = low, high
        self._dist = loguniform(low, high + 1)

    def rvs(self, random_state=None):
        return int(min(np.floor(self._dist.rvs(random_state=random_state)), self.high))


def compare_searchers(task, n_iter, repeats, *, cold_run, log=print):
    """Wall time and test accuracy of each searcher at n_jobs 1 and 2."""
    from sklearn.metrics import accuracy_score

    names, skipped = _available(SEARCHERS + tuple(VARIANTS), log=log)
    out = {
        "task": task["name"],
        "n_train": task["n_train"],
        "n_validation": task["n_val"],
        "n_test": task["n_test"],
        "n_iter": n_iter,
        "repeats": repeats,
        "cold_run_reported_apart": cold_run,
        "searchers": {name: {} for name in names},
        "skipped": skipped,
    }
    for n_jobs in (1, 2):
        _warm_loky(n_jobs)
        recs = {
            name: {"all_s": [], "test_accuracy": [], "cpu_s": [], "fits": []}
            for name in names
        }  # per searcher, this n_jobs
        for r in range(repeats + (1 if cold_run else 0)):
            for name in names:
                search = _make_search(name, task, n_iter, n_jobs, seed=r)
                cpu0 = time.process_time()
                wall = _fit(search, name, task)
                # n_jobs=1: every fit runs in this process, so its CPU time
                # measures the work whatever the machine's load.
                cpu = time.process_time() - cpu0
                fits = _n_fits(search, name, n_iter)
                acc = float(accuracy_score(task["y_te"], search.predict(task["X_te"])))
                rec = recs[name]
                if cold_run and r == 0:
                    rec["first_s"], rec["first_test_accuracy"] = wall, acc
                    tag = "first"
                else:
                    rec["all_s"].append(wall)
                    rec["test_accuracy"].append(acc)
                    rec["cpu_s"].append(cpu)
                    rec["fits"].append(fits)
                    tag = f"run {len(rec['all_s'])}"
                log(
                    f"  {name:22s} n_jobs={n_jobs} {tag:6s}: {wall:7.2f} s "
                    f"(CPU in process {cpu:.2f} s), {fits} fits, "
                    f"test accuracy {acc:.4f}"
                )
        for name, rec in recs.items():
            rec["median_s"] = statistics.median(rec["all_s"])
            rec["median_cpu_s"] = statistics.median(rec["cpu_s"])
            rec["test_accuracy_median"] = statistics.median(rec["test_accuracy"])
            out["searchers"][name][f"n_jobs={n_jobs}"] = rec
        base = recs[RANDOM]["median_s"]
        base_cpu = recs[RANDOM]["median_cpu_s"]
        for rec in recs.values():
            rec["ratio_to_randomized"] = rec["median_s"] / base
            if n_jobs == 1:
                rec["cpu_ratio_to_randomized"] = rec["median_cpu_s"] / base_cpu
    return out


# ---------------------------------------------------------------------------
# Section "rule": the default public signal on large tasks, before/after
# ---------------------------------------------------------------------------
# Fixed before the run (issue 39 item 7): two large tasks the defaults were
# not tuned on, 25,000 public training rows each, n_iter = 20.
RULE_N_SAMPLES = 50_000
RULE_N_ITER = 20
RULE_BEFORE = "DPBayesSearchCV [public_cv=3, public_budget=None]"
RULE_AFTER = "DPBayesSearchCV (default)"
RULE_CV3 = "RandomizedSearchCV(cv=3)"
RULE_ONE = "RandomizedSearchCV(one split)"
RULE_SEARCHERS = (RULE_CV3, RULE_ONE, RULE_BEFORE, RULE_AFTER)


def rule_tasks(n_samples=RULE_N_SAMPLES):
    """The two tasks of section "rule" (data only; split per seed)."""
    from scipy.stats import loguniform, randint, uniform
    from sklearn.datasets import make_classification, make_hastie_10_2
    from sklearn.ensemble import (
        HistGradientBoostingClassifier,
        RandomForestClassifier,
    )

    X_h, y_h = make_hastie_10_2(n_samples=n_samples, random_state=1)
    X_r, y_r = make_classification(
        n_samples=n_samples,
        n_features=12,
        n_informative=5,
        n_redundant=2,
        flip_y=0.05,
        class_sep=0.8,
        random_state=2,
    )
    return {
        "hgb": {
            "name": (
                f"HistGradientBoostingClassifier(max_iter=30, early_stopping="
                f"False), make_hastie_10_2(n_samples={n_samples}, random_state=1)"
            ),
            "estimator": lambda: HistGradientBoostingClassifier(
                max_iter=30, early_stopping=False, random_state=0
            ),
            "space": {
                "learning_rate": (0.01, 0.5, "log-uniform"),
                "max_leaf_nodes": (4, 64, "log-uniform"),
                "min_samples_leaf": (5, 200),
                "l2_regularization": (1e-4, 10.0, "log-uniform"),
            },
            "scipy_space": lambda: {
                "learning_rate": loguniform(0.01, 0.5),
                "max_leaf_nodes": _IntLogUniform(4, 64),
                "min_samples_leaf": randint(5, 201),
                "l2_regularization": loguniform(1e-4, 10.0),
            },
            "X": X_h,
            "y": y_h,
        },
        "rf": {
            "name": (
                f"RandomForestClassifier(n_estimators=5), make_classification("
                f"n_samples={n_samples}, n_features=12, n_informative=5, "
                f"n_redundant=2, flip_y=0.05, class_sep=0.8, random_state=2)"
            ),
            "estimator": lambda: RandomForestClassifier(n_estimators=5, random_state=0),
            "space": {
                "max_depth": (2, 12),
                "min_samples_leaf": (1, 100, "log-uniform"),
                "max_features": (0.1, 0.6),
            },
            "scipy_space": lambda: {
                "max_depth": randint(2, 13),
                "min_samples_leaf": _IntLogUniform(1, 100),
                "max_features": uniform(0.1, 0.5),
            },
            "X": X_r,
            "y": y_r,
        },
    }


def _rule_search(name, task, n_iter, seed):
    from sklearn.model_selection import RandomizedSearchCV

    from sklearn_dpbo import DPBayesSearchCV
    from sklearn_dpbo.model_selection import PrivateSelection

    if name in (RULE_BEFORE, RULE_AFTER):
        mode = (
            PrivateSelection(public_cv=3, public_budget=None)
            if name == RULE_BEFORE
            else PrivateSelection()
        )
        return DPBayesSearchCV(
            task["estimator"](),
            task["space"],
            method=mode,
            epsilon=1.0,
            delta=1e-5,
            n_iter=n_iter,
            random_state=seed,
            noise_random_state=seed,  # paired releases before/after
        )
    cv = 3 if name == RULE_CV3 else _predefined(task["n_train"], task["n_val"])
    return RandomizedSearchCV(
        task["estimator"](),
        task["scipy_space"](),
        n_iter=n_iter,
        cv=cv,
        random_state=seed,
    )


def _mean_se(values):
    v = np.asarray(values, dtype=float)
    se = float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else float("nan")
    return float(v.mean()), se


def _rule_summary(task, recs, seeds, loads, n_iter, t0):
    """Ratios (of the totals over seeds, and medians of per-seed ratios) and
    test accuracy of section "rule" on one task so far."""
    base = recs[RULE_CV3]
    for rec in recs.values():
        for ref, tag in ((base, "cv3"), (recs[RULE_ONE], "one_split")):
            if not ref["wall_s"] or not rec["wall_s"]:
                continue  # a searcher left out (accuracy_only)
            ratio = np.divide(rec["wall_s"], ref["wall_s"])
            cpu_ratio = np.divide(rec["cpu_s"], ref["cpu_s"])
            rec[f"wall_ratio_to_{tag}_median"] = float(np.median(ratio))
            rec[f"cpu_ratio_to_{tag}_median"] = float(np.median(cpu_ratio))
            rec[f"wall_ratio_to_{tag}_total"] = sum(rec["wall_s"]) / sum(ref["wall_s"])
            rec[f"cpu_ratio_to_{tag}_total"] = sum(rec["cpu_s"]) / sum(ref["cpu_s"])
        rec["test_accuracy_mean"], rec["test_accuracy_se"] = _mean_se(
            rec["test_accuracy"]
        )
    diff = np.subtract(
        recs[RULE_AFTER]["test_accuracy"], recs[RULE_BEFORE]["test_accuracy"]
    )
    mean, se = _mean_se(diff)
    return {
        "task": task["name"],
        "n_train": int(len(task["y"]) // 2),
        "n_iter": n_iter,
        "seeds": len(recs[RULE_AFTER]["test_accuracy"]),
        "load_average_1min_per_seed": list(loads),
        "searchers": recs,
        "after_minus_before_test_accuracy": {"mean": mean, "se": se},
        "runtime_s": time.perf_counter() - t0,
    }


def default_rule(
    tasks,
    n_iter,
    seconds,
    min_seeds,
    *,
    first_seed=0,
    accuracy_only=False,
    on_seed=None,
    log=print,
):
    """Paired seeds on each task: wall and CPU time (n_jobs=1) and test
    accuracy of RandomizedSearchCV (cv=3 on training + validation rows, and
    the one training/validation split) and of DPBayesSearchCV before
    (public_cv=3, public_budget=None) and after (the defaults). Seeds 0, 1,
    ... run while the task's time lasts (at least ``min_seeds``); each seed
    splits 50/25/25 (stratified, random_state=seed), the searchers' order
    rotates from seed to seed. ``first_seed``: the first seed;
    ``accuracy_only``: the two DPBayesSearchCV settings only (test accuracy,
    no ratio). ``on_seed(partial)`` after each seed, with
    the summary of the seeds so far."""
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import train_test_split

    out = {}
    for key, task in tasks.items():
        t0 = time.perf_counter()
        recs = {
            n: {"wall_s": [], "cpu_s": [], "fits": [], "test_accuracy": []}
            for n in RULE_SEARCHERS
        }
        loads, seed = [], first_seed
        searchers = (RULE_BEFORE, RULE_AFTER) if accuracy_only else RULE_SEARCHERS
        while seed < first_seed + min_seeds or time.perf_counter() - t0 < seconds:
            X_tr, X_rest, y_tr, y_rest = train_test_split(
                task["X"],
                task["y"],
                test_size=0.5,
                random_state=seed,
                stratify=task["y"],
            )
            X_va, X_te, y_va, y_te = train_test_split(
                X_rest, y_rest, test_size=0.5, random_state=seed, stratify=y_rest
            )
            run = dict(task, **_arrays(X_tr, y_tr, X_va, y_va, X_te, y_te))
            loads.append(os.getloadavg()[0])
            turn = seed % len(searchers)
            order = searchers[turn:] + searchers[:turn]
            for name in order:
                search = _rule_search(name, run, n_iter, seed)
                cpu0 = time.process_time()
                if name in (RULE_BEFORE, RULE_AFTER):
                    wall = _fit(search, DPBO, run)
                    fits = _n_fits(search, DPBO, n_iter)
                else:
                    wall = _fit(search, RANDOM, run)
                    fits = n_iter * (3 if name == RULE_CV3 else 1) + 1
                cpu = time.process_time() - cpu0
                acc = float(accuracy_score(y_te, search.predict(X_te)))
                for field, value in zip(recs[name], (wall, cpu, fits, acc)):
                    recs[name][field].append(value)
                log(
                    f"  {key} seed {seed} {name:50s} {wall:7.2f} s (CPU {cpu:6.2f} s)"
                    f" {fits:3d} fits, test accuracy {acc:.4f}"
                )
            seed += 1
            out[key] = _rule_summary(task, recs, seed, loads, n_iter, t0)
            out[key]["first_seed"] = first_seed
            if on_seed is not None:
                on_seed(out)
    return out


def rule_table(res):
    lines = []
    for r in res.values():
        d = r["after_minus_before_test_accuracy"]
        lines += [
            f"\n**{r['task']}** ({r['n_train']} training rows, n_iter = "
            f"{r['n_iter']}, {r['seeds']} paired seeds, load "
            f"{min(r['load_average_1min_per_seed']):.1f}-"
            f"{max(r['load_average_1min_per_seed']):.1f})\n",
            "| searcher | fits (mean) | wall / RSCV(cv=3) | CPU / RSCV(cv=3) "
            "| wall / RSCV(one split) | CPU / RSCV(one split) | test accuracy |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for name, rec in r["searchers"].items():
            if not rec["fits"]:
                continue  # left out (accuracy_only)
            ratios = " | ".join(
                f"{rec[f'{t}_ratio_to_{ref}_total']:.2f}×"
                if f"{t}_ratio_to_{ref}_total" in rec
                else "—"
                for ref in ("cv3", "one_split")
                for t in ("wall", "cpu")
            )
            lines.append(
                f"| {name} | {np.mean(rec['fits']):.1f} | {ratios} "
                f"| {rec['test_accuracy_mean']:.4f} ± {rec['test_accuracy_se']:.4f} |"
            )
        lines.append(
            f"\nDefault − before, test accuracy (paired): {d['mean']:+.4f} ± "
            f"{d['se']:.4f}"
        )
    return "\n".join(lines)


def searchers_table(res):
    lines = [
        f"\n**{res['task']}** (n_train={res['n_train']}, "
        f"m={res['n_validation']}, test={res['n_test']}, n_iter={res['n_iter']}, "
        f"median of {res['repeats']} runs"
        + ("; first run apart" if res["cold_run_reported_apart"] else "")
        + ")\n",
        "| searcher | n_jobs | median wall (s) | ratio to RandomizedSearchCV "
        "| all runs (s) | first run (s) | test accuracy (median) "
        "| CPU ratio (n_jobs=1) | fits |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for name, per in res["searchers"].items():
        for key, rec in per.items():
            runs = ", ".join(f"{t:.2f}" for t in rec["all_s"])
            first = f"{rec['first_s']:.2f}" if "first_s" in rec else "—"
            cpu = rec.get("cpu_ratio_to_randomized")
            cpu = "—" if cpu is None else f"{cpu:.2f}×"
            fits = "/".join(str(f) for f in sorted(set(rec.get("fits", []))))
            lines.append(
                f"| {name} | {key.split('=')[1]} | {rec['median_s']:.2f} "
                f"| {rec['ratio_to_randomized']:.2f}× | {runs} | {first} "
                f"| {rec['test_accuracy_median']:.4f} | {cpu} | {fits} |"
            )
    for name, why in res["skipped"].items():
        lines.append(f"| {name} | — | skipped: {why} | — | — | — | — | — | — |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Section 3: scheduling efficiency on a sleep-bound estimator
# ---------------------------------------------------------------------------
class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds):
    """Raise ``_Timeout`` after ``seconds`` (main thread, POSIX; else no limit)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def handler(signum, frame):
        raise _Timeout(f"no result after {seconds} s")

    previous = signal.signal(signal.SIGALRM, handler)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _dask_backend(k, processes):
    """A local Dask cluster with k workers' worth of threads, as joblib's
    backend; closed on exit."""
    import joblib
    from distributed import Client, LocalCluster

    for name in ("distributed", "tornado", "bokeh"):
        logging.getLogger(name).setLevel(logging.ERROR)
    if processes:
        kwargs = {"n_workers": k, "threads_per_worker": 1, "processes": True}
    else:
        kwargs = {"n_workers": 1, "threads_per_worker": k, "processes": False}
    cluster = LocalCluster(dashboard_address=None, silence_logs=logging.ERROR, **kwargs)
    with cluster, Client(cluster) as client:
        client.wait_for_workers(kwargs["n_workers"], timeout=60)
        if processes:  # the workers can unpickle SleepyClassifier by reference
            modules = client.run(worker_can_import)
            assert set(modules.values()) == {"_sleepy"}, modules
        with joblib.parallel_config(backend="dask", wait_for_workers_timeout=60):
            yield


def sleepy_task(sleep):
    from scipy.stats import loguniform, uniform

    X_tr, y_tr, X_va, y_va = bench_overhead.tiny_data()
    return {
        "name": f"SleepyClassifier (fit sleeps {sleep * 1e3:g} ms)",
        "estimator": lambda: SleepyClassifier(sleep=sleep),
        "space": {"a": (0.0, 1.0), "b": (1e-2, 1e2, "log-uniform")},
        "scipy_space": lambda: {"a": uniform(0.0, 1.0), "b": loguniform(1e-2, 1e2)},
        "optuna_space": None,  # section 3 compares with RandomizedSearchCV only
        **_arrays(X_tr, y_tr, X_va, y_va, X_va[:0], y_va[:0]),
    }


def scheduling(ks, n_iter, sleep, repeats, dask_ks, dask_processes, log=print):
    task = sleepy_task(sleep)
    names = (DPBO, DPBO_FIXED, *VARIANTS, RANDOM, CEILING)
    # The default window is max(4, 2 x workers): the same search for k of 1
    # and 2 only. DPBO_FIXED fixes it to the largest k's, so every k runs
    # the same search (same fits, same releases) and the speed-up is the
    # scheduler's alone.
    fixed = 2 * max(ks)
    out = {
        "task": task["name"],
        "n_train": task["n_train"],
        "n_validation": task["n_val"],
        "n_iter": n_iter,
        "sleep_s": sleep,
        "repeats": repeats,
        "refit": False,
        "dask_cluster": (
            "LocalCluster(n_workers=k, threads_per_worker=1, processes=True)"
            if dask_processes
            else "LocalCluster(n_workers=1, threads_per_worker=k, processes=False)"
        ),
        "rows": [],
        "skipped": {},
    }

    n_ceiling = {}  # number of sleeps: the sequential fixed-window search's fits

    def ceiling_run(k):
        from joblib import Parallel, delayed

        gc.collect()
        t0 = time.perf_counter()
        Parallel(n_jobs=k)(delayed(time.sleep)(sleep) for _ in range(n_ceiling["n"]))
        return time.perf_counter() - t0

    def series(name, backend, k):
        if name == CEILING:
            times = [ceiling_run(k) for _ in range(repeats + 1)]
            fits = n_ceiling["n"]
        else:
            times = []
            for r in range(repeats + 1):
                search = _make_search(
                    name,
                    task,
                    n_iter,
                    k,
                    seed=r,
                    refit=False,
                    batch_size=fixed if name == DPBO_FIXED else None,
                )
                SleepyClassifier.reset()
                times.append(_fit(search, name, task))
            fits = SleepyClassifier.n_fits
            if name == DPBO_FIXED and k == 1 and backend == "loky":
                n_ceiling["n"] = fits
        row = {
            "searcher": name,
            "backend": backend,
            "k": k,
            "first_s": times[0],
            "all_s": times[1:],
            "median_s": statistics.median(times[1:]),
            "fits_counted_in_process": fits,
        }
        first = "" if name == CEILING else f"first {times[0]:.2f} s, "
        log(f"  {name:22s} {backend:5s} k={k}: {first}median {row['median_s']:.2f} s")
        return row

    rows = []
    for k in ks:  # loky (k=1: sequential, in this process)
        _warm_loky(k)
        for name in names:
            rows.append(series(name, "loky", k))
    dask = None
    try:
        importlib.import_module("distributed")
        dask = True
    except ImportError as exc:
        out["skipped"]["dask"] = f"not installed ({exc.name})"
        log(f"  note: Dask skipped: not installed ({exc.name})")
    if dask:
        for k in dask_ks:
            try:
                with _time_limit(DASK_TIMEOUT_S), _dask_backend(k, dask_processes):
                    for name in names:
                        rows.append(series(name, "dask", k))
            except _Timeout as exc:
                out["skipped"][f"dask k={k}"] = f"timeout: {exc}"
                log(f"  note: Dask k={k} skipped: {exc}")
    for name in names:
        (seq,) = [
            r
            for r in rows
            if r["searcher"] == name and r["backend"] == "loky" and r["k"] == 1
        ]
        t1 = seq["median_s"]
        fits = seq["fits_counted_in_process"]
        for r in rows:
            if r["searcher"] != name:
                continue
            r["speedup"] = t1 / r["median_s"]
            r["fits_sequential"] = fits
            # Parallel efficiency: speed-up ÷ k (k = the linear ideal).
            r["efficiency"] = r["speedup"] / r["k"]
            # Whether this run did the sequential run's search (and fits).
            default_window = name == DPBO or name in VARIANTS
            r["same_search_as_k1"] = not default_window or 2 * r["k"] <= 4
    out["rows"] = rows
    out["fixed_batch_size"] = fixed
    return out


def scheduling_table(res):
    lines = [
        f"\n**Scheduling efficiency**: {res['task']}, n_train={res['n_train']}, "
        f"m={res['n_validation']}, n_iter={res['n_iter']}, refit=False, median "
        f"of {res['repeats']} runs after a first run; speed-up = time of the "
        "sequential run (n_jobs=1, in-process) ÷ time at k; Dask: "
        f"{res['dask_cluster']}\n",
        "| searcher | backend | k | median wall (s) | first run (s) | speed-up "
        "| efficiency (speed-up ÷ k) | fits (sequential run) |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in res["rows"]:
        fits = r["fits_sequential"] if r["same_search_as_k1"] else "other search"
        lines.append(
            f"| {r['searcher']} | {r['backend']} | {r['k']} | {r['median_s']:.2f} "
            f"| {r['first_s']:.2f} | {r['speedup']:.2f}× | {r['efficiency']:.2f} "
            f"| {fits} |"
        )
    lines.append(
        f"\n{DPBO_FIXED}: PrivateSelection(batch_size={res.get('fixed_batch_size')}) "
        "at every k, the same search (same fits, same releases). "
        f"{DPBO}: the default batch_size, max(4, 2 x k), a different search "
        "for k > 2 (its fits differ from the sequential run's)."
    )
    for what, why in res["skipped"].items():
        lines.append(f"| — | {what} | — | skipped: {why} | — | — | — | — | — |")
    return "\n".join(lines)


def plot(res, path, log=print):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("note: matplotlib not installed, plot skipped")
        return None
    fig, ax = plt.subplots(figsize=(6, 4))
    ks = sorted({r["k"] for r in res["rows"]})
    colors = {DPBO: "C0", RANDOM: "C1", DPBO_FIXED: "C2", CEILING: "C7"}
    for name, backend in sorted({(r["searcher"], r["backend"]) for r in res["rows"]}):
        rows = sorted(
            (
                r
                for r in res["rows"]
                if r["searcher"] == name and r["backend"] == backend
            ),
            key=lambda r: r["k"],
        )
        ax.plot(
            [r["k"] for r in rows],
            [r["speedup"] for r in rows],
            "o-" if backend == "loky" else "s--",
            color=colors.get(name),
            label=f"{name}, {backend}",
        )
    ax.plot(ks, ks, ":", color="grey", label="linear")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_xlabel("workers (n_jobs / Dask threads)")
    ax.set_ylabel("speed-up over the sequential run")
    ax.set_title(
        f"Sleep-bound fits ({res['sleep_s'] * 1e3:g} ms), n_iter={res['n_iter']}"
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)


# ---------------------------------------------------------------------------
# Section 4 and goals
# ---------------------------------------------------------------------------
def overhead(repeats, n_iter=100, log=print):
    rows = bench_overhead.measure_overhead(
        [1024], [n_iter], repeats, memory=False, log=log
    )
    return {
        "n_candidates": 1024,
        "n_iter": n_iter,
        "repeats": repeats,
        "target_ms": bench_overhead.TARGET_MS,
        "rows": rows,
    }


def goals(readme, sched, over, large=None):
    out = []

    def add(goal, measured, target, ok, note=""):
        out.append(
            {
                "goal": goal,
                "measured": measured,
                "target": target,
                "pass": bool(ok),
                "note": note,
            }
        )

    for task, res in (("README task", readme), ("larger task", large)):
        for name, per in (res or {"searchers": {}})["searchers"].items():
            if not _is_dpbo(name):
                continue
            label = "" if name == DPBO else f" ({name[len(DPBO) + 1 :]})"
            for key in ("n_jobs=1", "n_jobs=2"):
                ratio = per[key]["ratio_to_randomized"]
                add(
                    f"{task}{label} wall time ÷ RandomizedSearchCV, {key}",
                    round(ratio, 3),
                    "≤ 1.2",
                    ratio <= 1.2,
                )
                cpu = per[key].get("cpu_ratio_to_randomized")
                if cpu is not None:
                    add(
                        f"{task}{label} CPU time in process ÷ RandomizedSearchCV"
                        f", {key}",
                        round(cpu, 3),
                        "≤ 1.2",
                        cpu <= 1.2,
                    )
    for backend in ("loky", "dask") if sched else ():
        for k, target in ((2, 1.8), (8, 6.0)):
            for name in (DPBO_FIXED, DPBO, *VARIANTS):
                rows = [
                    r
                    for r in sched["rows"]
                    if r["searcher"] == name and r["backend"] == backend and r["k"] == k
                ]
                refs = {
                    ref: r["speedup"]
                    for r in sched["rows"]
                    for ref in (RANDOM, CEILING)
                    if r["searcher"] == ref and r["backend"] == backend and r["k"] == k
                }
                if rows:
                    s = rows[0]["speedup"]
                    what = {DPBO_FIXED: "same search", DPBO: "default"}.get(
                        name, name[len(DPBO) + 1 :]
                    )
                    add(
                        f"sleep-bound speed-up, {backend}, k={k} ({what})",
                        round(s, 3),
                        f"≥ {target:g}",
                        s >= target,
                        note=", ".join(f"{r}: {v:.2f}" for r, v in refs.items()),
                    )
    default = sklearn_dpbo.DPBayesSearchCV(None, {}).method
    for r in over["rows"] if over else ():
        ms = r["overhead_ms_per_iter"]
        label = r["method"] + (" (default)" if r["method"] == default else "")
        add(
            f"overhead per iteration, |Λ|=1024, T={over['n_iter']}, {label} (ms)",
            round(ms, 3),
            f"≤ {over['target_ms']:g}",
            ms <= over["target_ms"],
        )
    return out


def goals_table(rows):
    lines = [
        "\n**Goals of issue 13** (informational)\n",
        "| goal | measured | target | | same backend and k |",
        "|---|---:|---:|---|---|",
    ]
    for g in rows:
        lines.append(
            f"| {g['goal']} | {g['measured']} | {g['target']} "
            f"| {'pass' if g['pass'] else 'FAIL'} | {g.get('note', '')} |"
        )
    return "\n".join(lines)


def meta(args, argv):
    env = bench_overhead.environment()
    for pkg in ("optuna", "optuna_integration", "dask", "distributed", "matplotlib"):
        try:
            env[pkg] = importlib.import_module(pkg).__version__
        except ImportError:
            env[pkg] = None
    env["sklearn_dpbo_path"] = str(Path(sklearn_dpbo.__file__).resolve().parent)
    try:
        env["load_average_start"] = list(os.getloadavg())
    except OSError:
        env["load_average_start"] = None
    env["date_utc"] = datetime.datetime.now(datetime.timezone.utc).isoformat(
        timespec="seconds"
    )
    env["argv"] = list(sys.argv[1:] if argv is None else argv)
    env["threads_per_job"] = {v: os.environ.get(v) for v in THREAD_VARS}
    env["note"] = SHARED_NOTE
    return env


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small CI smoke run")
    p.add_argument("--repeats", type=int, default=None, help="timed runs (default 3)")
    p.add_argument(
        "--repeats-large",
        type=int,
        default=None,
        help="timed runs of the larger task (default 2; quick: 1)",
    )
    p.add_argument("--out", type=Path, default=None, help="JSON output path")
    p.add_argument(
        "--dask-processes",
        action="store_true",
        help="Dask: k worker processes with 1 thread each (default: 1 worker "
        "with k threads in this process)",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="KEY=VALUE[,KEY=VALUE]",
        help="also measure DPBayesSearchCV with these PrivateSelection keywords "
        "(e.g. public_budget=1 or racing=None), beside the default, in "
        "sections 1-3 (repeatable)",
    )
    p.add_argument(
        "--sections",
        nargs="+",
        choices=SECTIONS,
        default=[x for x in SECTIONS if x != "rule"],
        help="sections to run (default: all but rule)",
    )
    p.add_argument(
        "--rule-seconds",
        type=float,
        default=240.0,
        help='section "rule": seeds run per task while this time lasts',
    )
    p.add_argument(
        "--rule-tasks",
        nargs="+",
        choices=("hgb", "rf"),
        default=["hgb", "rf"],
        help='section "rule": the tasks to run (default: both)',
    )
    p.add_argument("--rule-first-seed", type=int, default=0)
    p.add_argument(
        "--rule-accuracy-only",
        action="store_true",
        help='section "rule": the two DPBayesSearchCV settings only',
    )
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore")
    VARIANTS.clear()
    VARIANTS.update(dict(_variant(v) for v in args.variant))
    sections = set(args.sections)

    q = args.quick
    repeats = args.repeats or (1 if q else 3)
    repeats_large = args.repeats_large or (1 if q else 2)
    stem = "bench_scaling_rule" if sections == {"rule"} else "bench_scaling"
    out_path = args.out or results_dir(q) / (
        f"{stem}_quick.json" if q else f"{stem}.json"
    )
    result = {"benchmark": "bench_scaling", "quick": q, "meta": meta(args, argv)}
    t_start = time.perf_counter()

    readme = large = sched = over = rule = None
    if "rule" in sections:
        print("Default public signal on large tasks, before/after")
        tasks = rule_tasks(2_000 if q else RULE_N_SAMPLES)

        def partial(res):
            # After every seed: what is measured so far is kept.
            out_path.parent.mkdir(parents=True, exist_ok=True)
            with open(out_path, "w") as f:
                json.dump(dict(result, default_rule=res, partial=True), f, indent=2)

        rule = default_rule(
            {key: tasks[key] for key in args.rule_tasks},
            n_iter=4 if q else RULE_N_ITER,
            seconds=0.0 if q else args.rule_seconds,
            min_seeds=1 if q else 2,
            first_seed=args.rule_first_seed,
            accuracy_only=args.rule_accuracy_only,
            on_seed=partial,
        )
        print(rule_table(rule))
    if "readme" in sections:
        print("1. README task")
        readme = compare_searchers(
            readme_task(200 if q else None),
            n_iter=2 if q else 30,
            repeats=repeats,
            cold_run=not q,
        )
    if "large" in sections:
        print("2. Larger task")
        large = compare_searchers(
            large_task(*((500, 5) if q else (50_000,))),
            n_iter=2 if q else 20,
            repeats=repeats_large,
            cold_run=False,
        )
    if "sched" in sections:
        print("3. Scheduling efficiency (sleep-bound)")
        ks = (1, 2) if q else (1, 2, 4, 8)
        sched = scheduling(
            ks,
            n_iter=2 if q else 24,
            sleep=0.005 if q else 0.04,
            repeats=repeats,
            dask_ks=(2,) if q else ks,
            dask_processes=args.dask_processes,
        )
    if "overhead" in sections:
        print("4. Overhead per iteration")
        over = overhead(repeats, n_iter=10 if q else 100)
    goal_rows = goals(readme, sched, over, large)

    for res in (readme, large):
        if res is not None:
            print(searchers_table(res))
    if sched is not None:
        print(scheduling_table(sched))
    if over is not None:
        print(
            f"\n**Overhead per iteration** (|Λ|=1024, T={over['n_iter']}, "
            "TinyClassifier)\n"
        )
        print("| method | ms / iteration (best) | median |")
        print("|---|---:|---:|")
        for r in over["rows"]:
            print(
                f"| {r['method']} | {r['overhead_ms_per_iter']:.3f} "
                f"| {r['overhead_ms_per_iter_median']:.3f} |"
            )
    print(goals_table(goal_rows))
    print(f"\n{SHARED_NOTE}")

    png = plot(sched, out_path.with_suffix(".png")) if sched is not None else None
    try:
        result["meta"]["load_average_end"] = list(os.getloadavg())
    except OSError:
        result["meta"]["load_average_end"] = None
    result.update(
        {
            "readme_task": readme,
            "large_task": large,
            "scheduling": sched,
            "overhead": over,
            "default_rule": rule,
            "goals": goal_rows,
            "plot": png,
            "runtime_s": time.perf_counter() - t_start,
        }
    )
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with open(out_path, "w") as f:
        json.dump(result, f, indent=2)
    print(f"\nwrote {out_path} ({result['runtime_s']:.0f} s)")


if __name__ == "__main__":
    main()

"""Whole-data mode: CPU and wall time against the non-private searches users run.

``python benchmarks/bench_whole_data_cost.py [--quick] [--repeats N]``

Two tasks, fixed (settings committed) before any timing was looked at:

- ``hgb_30000``: ``make_classification(30000, 20, n_informative=10,
  random_state=0)``, ``HistGradientBoostingClassifier(random_state=0)``
  over the HistGradientBoosting grid of ``bench_utility.py`` (learning
  rate, leaf nodes, leaf size, L2), default ``n_iter`` (30). Whole-data
  (``DPBayesSearchCV(est, space).fit(X, y)``, k = 100 parts of 300 rows:
  31 candidates x 100 parts = 3,100 fits on 210 rows) against
  ``RandomizedSearchCV(cv=3)`` over the same 30 public candidates (run as
  ``GridSearchCV`` over that list: 90 fits on 20,000 rows). Goal ≤ 1.5x.
- ``frame_pipeline_20000``: a synthetic 20,000-row DataFrame (4 numeric
  columns, 3 string columns of 5, 12 and 30 levels, a logistic target),
  ``ColumnTransformer(StandardScaler on the numbers, OneHotEncoder
  (handle_unknown="ignore") on the strings)`` + ``LogisticRegression``,
  C in {0.01, 0.1, 1, 10, 100}. Whole-data (5 candidates, the default
  C = 1 among them, x 100 parts = 500 fits on 140 rows) against
  ``GridSearchCV`` (cv=5: 25 fits on 16,000 rows). Goal ≤ 3x.

Every search runs with ``refit=False`` in this process, with ``--n-jobs``
(default None, as both classes default to) and ``--threads``: ``1`` (the
default) limits both searches to one BLAS/OpenMP thread
(``threadpoolctl``), the fair figure on a shared machine; ``default``
leaves the libraries at their own thread counts (what a user gets: the
reference's HistGradientBoosting fits use every core, the whole-data parts
pin their own fits to one thread; on an oversubscribed machine OpenMP's
spin-waits then dominate the reference's time). CPU time (this process's
user + system time, ``resource.getrusage``; with ``--n-jobs`` > 1
joblib's workers are not counted, compare wall times then; the workers
are started before either search is timed) is the primary
figure on a shared machine, wall time is reported next to it. Each figure is the
median of ``--repeats`` runs (``random_state`` = repeat index for the
whole-data mode; the same candidates for the reference). Writes
``benchmarks/results/bench_whole_data_cost.json`` (``--out``); ``--quick``
(1,000 rows each, so 5 parts; 2 HistGradientBoosting candidates of 10
boosting iterations; C in {0.1, 1}; one repeat) writes to a temporary
folder only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
import warnings
from contextlib import nullcontext
from datetime import datetime, timezone

import numpy as np
import pandas as pd
import sklearn
from joblib import Parallel, delayed
from sklearn.compose import ColumnTransformer
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from threadpoolctl import threadpool_limits

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from _results import results_dir  # noqa: E402

from sklearn_dpbo import DPBayesSearchCV  # noqa: E402

HGB_SPACE = {  # bench_utility.py's HistGradientBoosting grid
    "learning_rate": [float(v) for v in np.logspace(-2, 0, 5)],
    "max_leaf_nodes": [4, 8, 16, 64],
    "min_samples_leaf": [5, 20, 50, 100],
    "l2_regularization": [float(v) for v in np.logspace(-3, 1, 4)],
}
C_GRID = [0.01, 0.1, 1.0, 10.0, 100.0]


def hgb_task(n: int, max_iter: int = 100):
    X, y = make_classification(n, 20, n_informative=10, random_state=0)
    est = HistGradientBoostingClassifier(max_iter=max_iter, random_state=0)
    return X, y, est, HGB_SPACE


def frame_task(n: int, c_grid=C_GRID):
    """A DataFrame with numeric and string columns and a logistic target."""
    rng = np.random.default_rng(20261128)
    num = rng.normal(size=(n, 4))
    levels = (5, 12, 30)
    cats = [rng.integers(0, L, size=n) for L in levels]
    effects = [rng.normal(scale=0.7, size=L) for L in levels]
    logit = num @ np.array([1.0, -0.5, 0.25, 0.0]) + sum(
        e[c] for e, c in zip(effects, cats)
    )
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    X = pd.DataFrame(num, columns=[f"x{i}" for i in range(4)])
    for i, c in enumerate(cats):
        X[f"c{i}"] = np.array([f"level_{v}" for v in c], dtype=object)
    pre = ColumnTransformer(
        [
            ("num", StandardScaler(), [f"x{i}" for i in range(4)]),
            ("cat", OneHotEncoder(handle_unknown="ignore"), ["c0", "c1", "c2"]),
        ]
    )
    est = Pipeline([("pre", pre), ("logisticregression", LogisticRegression())])
    return X, y, est, {"logisticregression__C": list(c_grid)}


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed_fit(search, X, y, threads):
    """(CPU seconds, wall seconds) of ``search.fit(X, y)``."""
    limit = nullcontext() if threads == "default" else threadpool_limits(int(threads))
    with limit:
        cpu, wall = _cpu(), time.perf_counter()
        search.fit(X, y)
        return _cpu() - cpu, time.perf_counter() - wall


def _imports():
    import sklearn.ensemble  # noqa: F401

    import sklearn_dpbo  # noqa: F401


def warm_workers(n_jobs):
    """Start joblib's workers and import both searches' modules there, untimed
    (else whichever search runs first pays the start-up, ~3 s here)."""
    if n_jobs not in (None, 1):
        Parallel(n_jobs=n_jobs)(delayed(_imports)() for _ in range(8))


def run_task(name, X, y, est, space, n_iter, reference_cv, repeats, threads, n_jobs):
    runs = []
    warm_workers(n_jobs)
    for seed in range(repeats):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            search = DPBayesSearchCV(
                est, space, n_iter=n_iter, refit=False, random_state=seed, n_jobs=n_jobs
            )
            wd_cpu, wd_wall = timed_fit(search, X, y, threads)
            # The n_iter public candidates (the estimator's own values are
            # appended after them when they are not among them).
            cands = [dict(p) for p in search.cv_results_["params"][:n_iter]]
            grid = [{k: [v] for k, v in p.items()} for p in cands]
            ref = GridSearchCV(est, grid, cv=reference_cv, refit=False, n_jobs=n_jobs)
            ref_cpu, ref_wall = timed_fit(ref, X, y, threads)
        runs.append(
            {
                "seed": seed,
                "whole_data_cpu_s": wd_cpu,
                "whole_data_wall_s": wd_wall,
                "reference_cpu_s": ref_cpu,
                "reference_wall_s": ref_wall,
                "n_parts": int(search.n_parts_),
                "n_candidates": len(search.cv_results_["params"]),
                "reference_fits": len(cands) * reference_cv,
            }
        )
        print(f"{name} repeat {seed}: {runs[-1]}", flush=True)

    def med(key):
        return float(np.median([r[key] for r in runs]))

    summary = {
        "task": name,
        "n_rows": int(len(y)),
        "reference": f"GridSearchCV(cv={reference_cv}) over the same candidates",
        "threads": threads,
        "n_jobs": n_jobs,
        "whole_data_cpu_s": med("whole_data_cpu_s"),
        "reference_cpu_s": med("reference_cpu_s"),
        "whole_data_wall_s": med("whole_data_wall_s"),
        "reference_wall_s": med("reference_wall_s"),
        "runs": runs,
    }
    summary["cpu_ratio"] = summary["whole_data_cpu_s"] / summary["reference_cpu_s"]
    summary["wall_ratio"] = summary["whole_data_wall_s"] / summary["reference_wall_s"]
    return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--tasks", default="hgb_30000,frame_pipeline_20000")
    parser.add_argument("--threads", default="1", choices=["default", "1"])
    parser.add_argument("--n-jobs", type=int, default=None)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out = args.out or os.path.join(
        results_dir(args.quick), "bench_whole_data_cost.json"
    )
    started = time.perf_counter()
    wanted = args.tasks.split(",")
    results = []
    run_args = (args.repeats, args.threads, args.n_jobs)
    if "hgb_30000" in wanted:
        n, n_iter = (1000, 2) if args.quick else (30000, 30)
        X, y, est, space = hgb_task(n, 10 if args.quick else 100)
        results.append(run_task("hgb_30000", X, y, est, space, n_iter, 3, *run_args))
    if "frame_pipeline_20000" in wanted:
        X, y, est, space = (
            frame_task(1000, [0.1, 1.0]) if args.quick else frame_task(20000)
        )
        results.append(
            run_task("frame_pipeline_20000", X, y, est, space, 30, 5, *run_args)
        )
    for r in results:
        print(
            f"{r['task']} ({r['n_rows']} rows, {r['reference']}): CPU "
            f"{r['whole_data_cpu_s']:.1f} s vs {r['reference_cpu_s']:.1f} s = "
            f"{r['cpu_ratio']:.2f}x; wall {r['whole_data_wall_s']:.1f} s vs "
            f"{r['reference_wall_s']:.1f} s = {r['wall_ratio']:.2f}x"
        )
    result = {
        "meta": {
            "command": "python benchmarks/bench_whole_data_cost.py "
            + " ".join(sys.argv[1:]),
            "date": datetime.now(timezone.utc).isoformat(timespec="minutes"),
            "python": platform.python_version(),
            "sklearn": sklearn.__version__,
            "threads": args.threads,
            "n_jobs": args.n_jobs,
            "seconds": time.perf_counter() - started,
            "load_average": os.getloadavg()[0],
        },
        "tasks": results,
    }
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as fh:
        json.dump(result, fh, indent=1)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

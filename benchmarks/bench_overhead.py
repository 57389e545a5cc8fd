"""Overhead benchmark of DPBayesSearchCV: what does the search itself cost?

Two measurements.

1. Search overhead per iteration, on a near-free estimator.
   ``TinyClassifier`` has two float hyper-parameters (``a`` uniform in
   [0, 1], ``b`` log-uniform in [1e-2, 1e2]); its ``fit`` computes one
   threshold and its ``predict`` compares one column against it, on 200
   training / 100 validation rows. It accumulates the time spent inside its
   own ``fit`` and ``predict`` with ``time.perf_counter``; the search runs
   with ``n_jobs=None`` (in-process), so

       overhead per iteration = (wall time of fit - time inside the
                                 estimator's fit/predict) / n_iter

   Everything else is counted as overhead: building the candidate set Λ,
   the data-free information-gain bound (``gp-ucb``), the GP updates and
   acquisition, joblib dispatch, ``clone``/``set_params``, the scorer's
   input validation and metric, the releases and the refit's bookkeeping.
   The scorer is the built-in accuracy (``make_scorer(accuracy_score)`` in
   a ``DPScorer`` with range [0, 1] and sensitivity "mean", exactly what
   ``scoring=None`` builds) wrapped so that its own time is accumulated:
   the table also gives the overhead without the scikit-learn scorer's
   share (scorer time minus the ``predict`` calls inside it), i.e. the cost
   of this library's own machinery.
   Grid: |Λ| (``n_candidates``) in {100, 1024, 10 000, 100 000} x T
   (``n_iter``) in {30, 100, 300}, for

   - ``method="gp-ucb"``: T validation evaluations, the pure BO loop;
   - ``method="private-selection"``: T public BO iterations, each a 3-fold
     cross-validation inside the training set, then 5 validation scores.

   Timed runs are done without tracemalloc (it slows allocation down); the
   peak traced memory of one ``fit`` is measured in a separate run. BLAS is
   limited to one thread (``threadpoolctl``): the figures are for one core.
   Each figure is the best (minimum) of ``--repeats`` runs with different
   ``random_state`` (one run at |Λ| = 100 000): the minimum is the least
   disturbed by other load on the machine; the JSON also has the median
   and every run.

2. Wall time of the README task: ``make_pipeline(StandardScaler(), SVC())``
   tuning ``svc__C`` (1e-2..1e3, log-uniform) and ``svc__gamma``
   (1e-5..1e0, log-uniform) on ``load_digits`` (stratified split, seed 0:
   50 % public training set, 25 % validation set, 25 % unused test set),
   ``epsilon=1``, ``n_iter=30``, default method (private-selection), with
   ``n_jobs=1`` and ``n_jobs=2``. For ``n_jobs=2`` the first (cold: the
   loky workers start) and the median of the following (warm) runs are
   reported; the speed-up uses the warm medians.

Usage::

    python benchmarks/bench_overhead.py            # full run (~ minutes)
    python benchmarks/bench_overhead.py --quick    # CI smoke run (seconds)

Writes ``benchmarks/results/bench_overhead.json`` (``--quick``:
``bench_overhead_quick.json``) and prints markdown tables.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

FULL_SIZES = [100, 1024, 10_000, 100_000]
FULL_ITERS = [30, 100, 300]
QUICK_SIZES = [100, 1024]
QUICK_ITERS = [10, 30]
METHODS = ["gp-ucb", "private-selection"]
TARGET_MS = 2.0  # the target at |Λ| = 1024, T = 100


# ---------------------------------------------------------------------------
# The near-free estimator
# ---------------------------------------------------------------------------
class TinyClassifier(ClassifierMixin, BaseEstimator):
    """A classifier whose fit and predict cost next to nothing.

    Predicts ``X[:, 0] > threshold`` with a threshold that is a smooth
    function of the two hyper-parameters, so the search sees a non-trivial
    accuracy landscape. Time spent inside ``fit`` and ``predict`` is added to
    the class attribute ``elapsed`` (in-process runs only).
    """

    fit_elapsed = 0.0
    predict_elapsed = 0.0
    n_calls = 0

    @classmethod
    def reset(cls):
        cls.fit_elapsed = cls.predict_elapsed = 0.0
        cls.n_calls = 0

    def __init__(self, a=0.5, b=1.0):
        self.a = a
        self.b = b

    def fit(self, X, y):
        t0 = time.perf_counter()
        self.classes_ = np.array([0, 1])
        self.threshold_ = 0.5 + 0.35 * math.sin(2.0 * math.pi * self.a) * math.cos(
            math.log10(self.b)
        )
        self.n_features_in_ = X.shape[1]
        TinyClassifier.fit_elapsed += time.perf_counter() - t0
        TinyClassifier.n_calls += 1
        return self

    def predict(self, X):
        t0 = time.perf_counter()
        out = (X[:, 0] > self.threshold_).astype(np.int64)
        TinyClassifier.predict_elapsed += time.perf_counter() - t0
        TinyClassifier.n_calls += 1
        return out


TINY_SPACE = {"a": (0.0, 1.0), "b": (1e-2, 1e2, "log-uniform")}


class TimedScorer:
    """``make_scorer(accuracy_score)`` that accumulates its own wall time.

    Wrapped in a ``DPScorer`` with the built-in accuracy's range and
    sensitivity it behaves exactly as ``scoring=None``; it only lets the
    benchmark split the overhead into the scikit-learn scorer's share
    (input validation, ``type_of_target``, the metric) and the rest.
    """

    elapsed = 0.0

    def __init__(self):
        from sklearn.metrics import accuracy_score, make_scorer

        self.scorer = make_scorer(accuracy_score)

    def __call__(self, estimator, X, y):
        t0 = time.perf_counter()
        try:
            return self.scorer(estimator, X, y)
        finally:
            TimedScorer.elapsed += time.perf_counter() - t0


def timed_accuracy():
    from sklearn_dpbo import DPScorer

    return DPScorer(
        TimedScorer(), bounds=(0.0, 1.0), sensitivity="mean", name="accuracy"
    )


def tiny_data(seed=0, n_train=200, n_val=100):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n_train + n_val, 2))
    y = (X[:, 0] > 0.5).astype(np.int64)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def one_fit(
    method, n_candidates, n_iter, data, *, memory=False, seed=0, timed_scorer=False
):
    """Fit once.

    Returns a dict: wall s, estimator fit and predict s, peak bytes (or
    None), number of estimator calls, s inside the scikit-learn scorer (or
    None; it includes the predict calls it makes).
    """
    from sklearn_dpbo import DPBayesSearchCV

    X_tr, y_tr, X_va, y_va = data
    search = DPBayesSearchCV(
        TinyClassifier(),
        TINY_SPACE,
        method=method,
        epsilon=1.0,
        n_iter=n_iter,
        n_candidates=n_candidates,
        n_jobs=None,
        random_state=seed,
        scoring=timed_accuracy() if timed_scorer else None,
    )
    TinyClassifier.reset()
    TimedScorer.elapsed = 0.0
    if memory:
        tracemalloc.start()
    t0 = time.perf_counter()
    search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
    wall = time.perf_counter() - t0
    peak = None
    if memory:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return {
        "wall": wall,
        "fit": TinyClassifier.fit_elapsed,
        "predict": TinyClassifier.predict_elapsed,
        "peak": peak,
        "calls": TinyClassifier.n_calls,
        "scorer": TimedScorer.elapsed if timed_scorer else None,
    }


def measure_overhead(sizes, iters, repeats, memory=True, log=print):
    from threadpoolctl import threadpool_limits

    data = tiny_data()
    rows = []
    with threadpool_limits(limits=1):
        one_fit("gp-ucb", 100, 5, data)  # warm-up: imports, caches
        for method in METHODS:
            for n in sizes:
                for T in iters:
                    reps = 1 if n >= 100_000 else repeats
                    runs = [
                        one_fit(method, n, T, data, seed=r, timed_scorer=True)
                        for r in range(reps)
                    ]
                    overheads = [
                        (r["wall"] - r["fit"] - r["predict"]) / T for r in runs
                    ]
                    scorer_share = [(r["scorer"] - r["predict"]) / T for r in runs]
                    best = int(np.argmin(overheads))
                    peak = None
                    if memory:
                        peak = one_fit(method, n, T, data, memory=True)["peak"]
                    row = {
                        "method": method,
                        "n_candidates": n,
                        "n_iter": T,
                        "repeats": reps,
                        "wall_s": statistics.median(r["wall"] for r in runs),
                        "estimator_s": statistics.median(
                            r["fit"] + r["predict"] for r in runs
                        ),
                        "estimator_calls": runs[0]["calls"],
                        "overhead_ms_per_iter": 1e3 * overheads[best],
                        "overhead_ms_per_iter_median": 1e3
                        * statistics.median(overheads),
                        "overhead_ms_per_iter_all": [1e3 * o for o in overheads],
                        "sklearn_scorer_ms_per_iter": 1e3 * scorer_share[best],
                        "overhead_without_scorer_ms_per_iter": 1e3
                        * (overheads[best] - scorer_share[best]),
                        "peak_memory_mb": None if peak is None else peak / 2**20,
                    }
                    rows.append(row)
                    log(
                        f"  {method:17s} |Λ|={n:>6d} T={T:>3d}: "
                        f"{row['overhead_ms_per_iter']:8.3f} ms/iter "
                        f"(scorer {row['sklearn_scorer_ms_per_iter']:.3f}), "
                        f"wall {row['wall_s']:.3f}s"
                        + (
                            ""
                            if peak is None
                            else f", peak {row['peak_memory_mb']:.1f} MiB"
                        )
                    )
    return rows


def measure_candidate_sets(sizes):
    """Time to build Λ alone (part of the overhead above)."""
    from sklearn_dpbo._candidates import CandidateSet

    out = {}
    for n in sizes:
        times = []
        for _ in range(3 if n < 100_000 else 1):
            t0 = time.perf_counter()
            CandidateSet(TINY_SPACE, n, seed=0)
            times.append(time.perf_counter() - t0)
        out[str(n)] = min(times)
    return out


# ---------------------------------------------------------------------------
# README task
# ---------------------------------------------------------------------------
def readme_task(n_iter, repeats, log=print):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from sklearn_dpbo import DPBayesSearchCV

    X, y = load_digits(return_X_y=True)
    X_tr, X_rest, y_tr, y_rest = train_test_split(
        X, y, train_size=0.5, stratify=y, random_state=0
    )
    X_va, _, y_va, _ = train_test_split(
        X_rest, y_rest, train_size=0.5, stratify=y_rest, random_state=0
    )
    space = {
        "svc__C": (1e-2, 1e3, "log-uniform"),
        "svc__gamma": (1e-5, 1e0, "log-uniform"),
    }
    out = {
        "n_train": len(y_tr),
        "n_validation": len(y_va),
        "n_iter": n_iter,
        "cpu_count": os.cpu_count(),
    }
    released = {}
    for n_jobs in (1, 2):
        times = []
        for r in range(repeats + 1):
            search = DPBayesSearchCV(
                make_pipeline(StandardScaler(), SVC()),
                space,
                epsilon=1.0,
                n_iter=n_iter,
                n_jobs=n_jobs,
                random_state=r,
            )
            t0 = time.perf_counter()
            search.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
            times.append(time.perf_counter() - t0)
            released.setdefault(r, []).append((search.best_index_, search.best_score_))
        out[f"n_jobs={n_jobs}"] = {
            "first_s": times[0],
            "warm_median_s": statistics.median(times[1:]),
            "all_s": times,
        }
        log(
            f"  n_jobs={n_jobs}: first {times[0]:.2f}s, warm median "
            f"{statistics.median(times[1:]):.2f}s"
        )
    out["speedup_warm"] = (
        out["n_jobs=1"]["warm_median_s"] / out["n_jobs=2"]["warm_median_s"]
    )
    out["releases_identical_across_n_jobs"] = all(
        len(set(v)) == 1 for v in released.values()
    )
    return out


# ---------------------------------------------------------------------------
# Reporting
# ---------------------------------------------------------------------------
def overhead_table(rows):
    sizes = sorted({r["n_candidates"] for r in rows})
    iters = sorted({r["n_iter"] for r in rows})
    lines = []
    for method in METHODS:
        lines.append(
            f"\n**{method}**: search overhead per iteration in ms, total "
            "[without the scikit-learn scorer's share] (peak traced memory of "
            "one fit, MiB)\n"
        )
        lines.append("| \\|Λ\\| | " + " | ".join(f"T = {T}" for T in iters) + " |")
        lines.append("|---:|" + "---:|" * len(iters))
        for n in sizes:
            cells = []
            for T in iters:
                (r,) = [
                    r
                    for r in rows
                    if r["method"] == method
                    and r["n_candidates"] == n
                    and r["n_iter"] == T
                ]
                mem = r["peak_memory_mb"]
                cell = (
                    f"{r['overhead_ms_per_iter']:.2f} "
                    f"[{r['overhead_without_scorer_ms_per_iter']:.2f}]"
                )
                if mem is not None:
                    cell += f" ({mem:.1f})"
                cells.append(cell)
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def readme_table(res):
    lines = [
        f"\nREADME task (load_digits, n_train={res['n_train']}, "
        f"m={res['n_validation']}, n_iter={res['n_iter']}, private-selection, "
        f"{res['cpu_count']} CPUs)\n",
        "| n_jobs | first fit (s) | warm median (s) |",
        "|---:|---:|---:|",
    ]
    for n_jobs in (1, 2):
        r = res[f"n_jobs={n_jobs}"]
        lines.append(f"| {n_jobs} | {r['first_s']:.2f} | {r['warm_median_s']:.2f} |")
    lines.append(f"\nparallel speed-up (warm): {res['speedup_warm']:.2f}x")
    return "\n".join(lines)


def environment():
    import joblib
    import scipy
    import sklearn

    import sklearn_dpbo

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=HERE.parent,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = None
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "joblib": joblib.__version__,
        "sklearn_dpbo": getattr(sklearn_dpbo, "__version__", None),
        "git_commit": commit,
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small CI smoke run")
    p.add_argument("--repeats", type=int, default=None, help="timed runs per cell")
    p.add_argument("--no-memory", action="store_true", help="skip tracemalloc runs")
    p.add_argument("--no-readme", action="store_true", help="skip the README task")
    p.add_argument("--out", type=Path, default=None, help="JSON output path")
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore")

    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    iters = QUICK_ITERS if args.quick else FULL_ITERS
    repeats = args.repeats or (1 if args.quick else 5)
    out_path = args.out or RESULTS / (
        "bench_overhead_quick.json" if args.quick else "bench_overhead.json"
    )

    t_start = time.perf_counter()
    print("Search overhead (TinyClassifier, n_jobs=None, 1 BLAS thread)")
    rows = measure_overhead(sizes, iters, repeats, memory=not args.no_memory)
    cand = measure_candidate_sets(sizes)
    readme = None
    if not args.no_readme:
        print("README task")
        readme = readme_task(
            n_iter=2 if args.quick else 30, repeats=1 if args.quick else 3
        )

    print(overhead_table(rows))
    built = ", ".join(f"|Λ|={k}: {v:.4f}" for k, v in cand.items())
    print(f"\nBuilding Λ alone (s): {built}")
    target = [
        r
        for r in rows
        if r["method"] == "gp-ucb" and r["n_candidates"] == 1024 and r["n_iter"] == 100
    ]
    if target:
        ms = target[0]["overhead_ms_per_iter"]
        verdict = "meets" if ms < TARGET_MS else "MISSES"
        print(
            f"\ngp-ucb at |Λ|=1024, T=100: {ms:.2f} ms/iteration ({verdict} the "
            f"{TARGET_MS:g} ms target)"
        )
    if readme is not None:
        print(readme_table(readme))

    result = {
        "benchmark": "bench_overhead",
        "quick": args.quick,
        "definition": (
            "overhead per iteration = (wall time of fit - time inside the "
            "estimator's fit/predict) / n_iter; TinyClassifier, n_jobs=None, "
            "one BLAS thread; minimum over repeats (median also given)"
        ),
        "target_ms_per_iter_gp_ucb_1024_100": TARGET_MS,
        "environment": environment(),
        "overhead": rows,
        "candidate_set_build_s": cand,
        "readme_task": readme,
        "runtime_s": time.perf_counter() - t_start,
    }
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with open(out_path, "w") as f:
        json.dump(result, f, indent=2)
    print(f"\nwrote {out_path}")


if __name__ == "__main__":
    main()

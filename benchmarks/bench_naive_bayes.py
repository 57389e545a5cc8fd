"""DPGaussianNB: test accuracy on bundled data sets, beside what users would pick.

One command: ``PYTHONPATH=. python benchmarks/bench_naive_bayes.py
[--splits 10] [--jobs 2]``. Writes ``results/bench_naive_bayes.json`` (or
``--out``) and a Markdown table on stdout. ``--quick`` (iris, ε = 1, two
splits) writes to a temporary directory, never over the stored results.

Tasks (fixed by issue 37 before any run): scikit-learn's bundled
breast_cancer and iris with bounds declared as public domain knowledge,
(0, 1.25 × each feature's maximum over the whole set) (the private-model
benchmark's assumption), and digits with the pixel range (0, 16); ε = 1
and 4. Per split: a public stratified 70/30 train/test split; every private
fit sees the training rows only. Rows:

- ``sklearn GaussianNB``: no privacy, the ceiling;
- ``DPGaussianNB``: the defaults, fitted at ε on the training rows;
- ``DPGaussianNB, private-model auto``: ``DPBayesSearchCV(method=
  PrivateModel())`` over four values of ``var_smoothing`` at ε;
- ``diffprivlib GaussianNB``: when diffprivlib is installed. Under
  scikit-learn ≥ 1.8 ``diffprivlib.models`` does not import (its forest
  module reads ``sklearn.tree._tree.DOUBLE``); its ``naive_bayes`` module is
  then imported alone, without that package ``__init__``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import types
import warnings

import _checkout  # noqa: F401  (this checkout's sklearn_dpbo, before any import)
import numpy as np
from _results import results_dir
from joblib import Parallel, delayed
from sklearn.datasets import load_breast_cancer, load_digits, load_iris
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.dp_learners import DPGaussianNB
from sklearn_dpbo.model_selection import PrivateModel

TASKS = {"breast_cancer": load_breast_cancer, "iris": load_iris, "digits": load_digits}
EPSILONS = (1.0, 4.0)
GRID = [0.01, 0.03, 0.1, 0.3]


def diffprivlib_nb():
    """diffprivlib's GaussianNB class, or None when it is not installed."""
    try:
        from diffprivlib.models.naive_bayes import GaussianNB as NB
    except ImportError as exc:
        if "sklearn" not in str(exc):
            return None
        import importlib.util

        spec = importlib.util.find_spec("diffprivlib")
        if spec is None:
            return None
        for name in [m for m in sys.modules if m.startswith("diffprivlib.models")]:
            del sys.modules[name]
        package = types.ModuleType("diffprivlib.models")
        package.__path__ = [os.path.join(spec.submodule_search_locations[0], "models")]
        sys.modules["diffprivlib.models"] = package
        from diffprivlib.models.naive_bayes import GaussianNB as NB
    return NB


def run_split(task, eps, seed):
    warnings.simplefilter("ignore")
    X, y = TASKS[task](return_X_y=True)
    bounds = (0.0, 16.0) if task == "digits" else (0.0, 1.25 * X.max(axis=0))
    classes = tuple(range(len(np.unique(y))))
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y
    )
    out = {"sklearn GaussianNB": GaussianNB().fit(X_tr, y_tr).score(X_te, y_te)}
    dp = DPGaussianNB(epsilon=eps, bounds=bounds, classes=classes)
    out["DPGaussianNB"] = dp.fit(X_tr, y_tr).score(X_te, y_te)
    search = DPBayesSearchCV(
        DPGaussianNB(bounds=bounds, classes=classes),
        {"var_smoothing": GRID},
        method=PrivateModel(),
        epsilon=eps,
        delta=1e-6,
        scoring="accuracy",
        random_state=seed,
    ).fit(X_tr, y_tr)
    out["DPGaussianNB, private-model auto"] = search.best_estimator_.score(X_te, y_te)
    NB = diffprivlib_nb()
    if NB is not None:
        low, high = (np.broadcast_to(b, X.shape[1]) for b in bounds)
        model = NB(epsilon=eps, bounds=(low, high)).fit(X_tr, y_tr)
        out["diffprivlib GaussianNB"] = model.score(X_te, y_te)
    return {"accuracy": out, "strategy": search.strategy_}


def table(results):
    lines = [
        "| task | ε | model | test accuracy (mean ± s.e.) | vs sklearn |",
        "|---|---|---|---|---|",
    ]
    summary = []
    for key, runs in results.items():
        task, eps = key.split("|")
        ceiling = np.mean([r["accuracy"]["sklearn GaussianNB"] for r in runs])
        for model in runs[0]["accuracy"]:
            a = np.array([r["accuracy"][model] for r in runs])
            mean, se = float(a.mean()), float(a.std(ddof=1) / np.sqrt(len(a)))
            summary.append(
                dict(task=task, epsilon=float(eps), model=model, mean=mean, se=se)
            )
            lines.append(
                f"| {task} | {float(eps):g} | {model} | {mean:.3f} ± {se:.3f} "
                f"| {mean / ceiling:.2f} |"
            )
        strategies = sorted({r["strategy"] for r in runs})
        lines.append(
            f"| {task} | {float(eps):g} | (auto's strategies) | {strategies} | |"
        )
    return "\n".join(lines), summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="iris, ε = 1, 2 splits")
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    tasks, epsilons, splits = (
        (["iris"], [1.0], 2) if args.quick else (list(TASKS), EPSILONS, args.splits)
    )
    out = args.out or os.path.join(results_dir(args.quick), "bench_naive_bayes.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    start = time.time()
    jobs = [(t, e, s) for t in tasks for e in epsilons for s in range(splits)]
    runs = Parallel(n_jobs=args.jobs)(delayed(run_split)(*job) for job in jobs)
    results: dict = {}
    for (t, e, _), r in zip(jobs, runs):
        results.setdefault(f"{t}|{e}", []).append(r)
    text, summary = table(results)
    print(text)
    meta = {
        "command": "PYTHONPATH=. python benchmarks/bench_naive_bayes.py "
        + " ".join(sys.argv[1:]),
        "splits": splits,
        "tasks": tasks,
        "epsilons": list(epsilons),
        "var_smoothing_grid": GRID,
        "diffprivlib": diffprivlib_nb() is not None,
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "wall_seconds": time.time() - start,
    }
    with open(out, "w") as fh:
        json.dump({"meta": meta, "summary": summary, "runs": results}, fh, indent=1)
    print(f"written: {out}")


if __name__ == "__main__":
    main()

"""Private-model mode: test accuracy of the released DP model, by rule.

One command: ``PYTHONPATH=. python benchmarks/bench_private_model.py
[--seeds 50] [--quick] [--jobs 2]``. Writes ``results/bench_private_model.json``,
a Markdown table on stdout and ``results/bench_private_model.png``.

Tasks: breast_cancer, digits (0–4 vs 5–9), make_classification (10,000
rows, 20 features). Features are scaled into [0, 1] by ranges treated as
public domain knowledge (digits: /16; the others: the min and max of the
whole data set, an assumption of this benchmark, not a private step), and
``data_norm = sqrt(d)/2`` (public). Per seed: a public 70/30 train/test
split; the search sees the training rows only (all private); accuracy is
measured on the test rows. Learner: ``DPLogisticRegression``, 12 values of
C in logspace(-4, 1). Rows:

- ``non-private selection``: every C fitted at ε on the mode's training
  part, selected by its clean validation accuracy (NOT private: the
  reference the private rules try to reach);
- ``public default`` (C=1), ``naive split``, ``random stopping`` with the
  logarithmic, negative-binomial (η = 0.5) and geometric K, and ``auto``.

Wall time per fit is reported (it reveals K: out of the threat model).
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

import _checkout  # noqa: F401  (this checkout's sklearn_dpbo, before any import)
import numpy as np
from joblib import Parallel, delayed
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.model_selection import train_test_split

from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.dp_learners import DPLogisticRegression
from sklearn_dpbo.model_selection import PrivateModel
from sklearn_dpbo.model_selection._private_model import split_rows

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = {
    "public default": dict(strategy="default"),
    "naive split": dict(strategy="split"),
    "RS logarithmic": dict(strategy="random-stopping", distribution="logarithmic"),
    "RS negative-binomial": dict(
        strategy="random-stopping", distribution="negative-binomial"
    ),
    "RS geometric": dict(strategy="random-stopping", distribution="geometric"),
    "auto": dict(strategy="auto"),
}


def load(name):
    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
    elif name == "digits":
        X, y = load_digits(return_X_y=True)
        return X / 16.0, (y >= 5).astype(int)
    else:
        X, y = make_classification(10_000, 20, n_informative=10, random_state=0)
    lo, hi = X.min(0), X.max(0)
    return (X - lo) / np.where(hi > lo, hi - lo, 1.0), y


def run_seed(task, eps, seed, grid):
    X, y = load(task)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=seed)
    learner = DPLogisticRegression(data_norm=float(np.sqrt(X.shape[1]) / 2))
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, kw in RULES.items():
            search = DPBayesSearchCV(
                learner,
                {"C": list(grid)},
                method=PrivateModel(**kw),
                epsilon=eps,
                delta=1e-6,
                scoring="accuracy",
                n_iter=len(grid),
                random_state=seed,
            )
            t = time.perf_counter()
            search.fit(X_tr, y_tr)
            out[name] = {
                "acc": float(search.best_estimator_.score(X_te, y_te)),
                "C": float(search.best_params_["C"]),
                "strategy": search.strategy_,
                "seconds": time.perf_counter() - t,
            }
        # Non-private selection of DP models (the same public split).
        tr, va = split_rows(len(y_tr), 0.3, search._check_settings().seed)
        best = None
        for C in grid:
            m = DPLogisticRegression(epsilon=eps, data_norm=learner.data_norm, C=C)
            m.fit(X_tr[tr], y_tr[tr])
            v = m.score(X_tr[va], y_tr[va])
            if best is None or v > best[0]:
                best = (v, m.score(X_te, y_te), C)
        out["non-private selection"] = {"acc": float(best[1]), "C": float(best[2])}
    return out


def table(results, tasks, epsilons):
    names = ["non-private selection", *RULES]
    lines = [
        "| task | eps | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    summary = {}
    for task in tasks:
        for eps in epsilons:
            runs = results[f"{task}|{eps}"]
            cells = []
            for name in names:
                a = np.array([r[name]["acc"] for r in runs])
                se = a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float("nan")
                summary[f"{task}|{eps}|{name}"] = {"mean": a.mean(), "se": se}
                cells.append(f"{a.mean():.3f} ± {se:.3f}")
            lines.append(f"| {task} | {eps:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines), summary


def plot(summary, tasks, epsilons, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(tasks), figsize=(4.5 * len(tasks), 3.6))
    axes = np.atleast_1d(axes)
    for ax, task in zip(axes, tasks):
        for name in ["non-private selection", *RULES]:
            m = [summary[f"{task}|{e}|{name}"]["mean"] for e in epsilons]
            s = [summary[f"{task}|{e}|{name}"]["se"] for e in epsilons]
            ax.errorbar(epsilons, m, yerr=s, label=name, marker="o", capsize=2)
        ax.set_xscale("log")
        ax.set_title(task)
        ax.set_xlabel("epsilon")
        ax.set_ylabel("test accuracy")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    if args.quick:
        tasks, epsilons, seeds, grid = (
            ["breast_cancer"],
            [1.0],
            2,
            np.logspace(-4, 1, 4),
        )
    else:
        tasks = ["breast_cancer", "digits", "synthetic"]
        epsilons, seeds, grid = [0.5, 1.0, 2.0, 4.0], args.seeds, np.logspace(-4, 1, 12)
    jobs = [(t, e, s) for t in tasks for e in epsilons for s in range(seeds)]
    start = time.time()
    outs = Parallel(n_jobs=args.jobs)(
        delayed(run_seed)(t, e, s, grid) for t, e, s in jobs
    )
    results = {}
    for (t, e, _), o in zip(jobs, outs):
        results.setdefault(f"{t}|{e}", []).append(o)
    text, summary = table(results, tasks, epsilons)
    print(text)
    out = args.out or os.path.join(HERE, "results", "bench_private_model.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as fh:
        json.dump(
            {
                "meta": {
                    "seeds": seeds,
                    "grid": list(map(float, grid)),
                    "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
                    "wall_seconds": time.time() - start,
                },
                "summary": summary,
                "runs": results,
            },
            fh,
            indent=1,
        )
    plot(summary, tasks, epsilons, os.path.splitext(out)[0] + ".png")


if __name__ == "__main__":
    main()

"""Reproduce the paper's Section 6 k1 experiment on offline data.

Kusner et al. (2015) trained RBF SVMs at 100 Sobol-sampled (C, γ) on Forest
cover type (36,603 training inputs), drew 100 validation sets per size
s ∈ {1000, 2000, 3000, 5000, 15000}, formed neighbours by adding or
removing one record, and found the multi-task GP log-likelihood increasing
in k1 with its maximum at 0.95 for every s. Forest cover type is not
available offline; this script uses

- ``make_classification`` (20,000 rows, 20 features, 10 informative,
  2 classes, seed 0): 2,000 training rows, a pool of 18,000,
  s ∈ {1000, 2000, 3000, 5000, 15000} (the paper's sizes);
- ``load_digits`` (1,797 rows, 10 classes): 500 training rows, a pool of
  1,297, s ∈ {100, 200, 400, 800, 1200} (as large as the data allows).

Estimator ``make_pipeline(StandardScaler(), SVC())``, search space
``svc__C`` in [1e-2, 1e3] and ``svc__gamma`` in [1e-5, 1] (log-uniform),
accuracy, and the library's gp-ucb defaults for everything else (Matérn 5/2,
ℓ = 0.2, σ² = 0.01, GP units (acc − 0.5)/0.25), via
:func:`sklearn_dpbo.estimate_dataset_kernel` with 100 candidates and 100
sets per size.

Usage (from the repository root)::

    python benchmarks/bench_dataset_kernel.py           # full run
    python benchmarks/bench_dataset_kernel.py --quick   # smaller, for CI

Writes ``benchmarks/results/bench_dataset_kernel.json`` and, when
matplotlib is importable, ``bench_dataset_kernel.png`` (to a temporary
folder with ``--quick``).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import _checkout  # noqa: F401  (the checkout's sklearn_dpbo, not an installed copy)
import numpy as np
from _results import results_dir
from sklearn.datasets import load_digits, make_classification
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from sklearn_dpbo.model_selection import estimate_dataset_kernel

SPACE = {"svc__C": (1e-2, 1e3, "log-uniform"), "svc__gamma": (1e-5, 1.0, "log-uniform")}


def datasets(quick: bool):
    X, y = make_classification(
        n_samples=8_000 if quick else 20_000,
        n_features=20,
        n_informative=10,
        n_classes=2,
        random_state=0,
    )
    n_tr = 1_000 if quick else 2_000
    sizes = [1000, 3000] if quick else [1000, 2000, 3000, 5000, 15000]
    yield "make_classification", X[:n_tr], y[:n_tr], X[n_tr:], y[n_tr:], sizes
    X, y = load_digits(return_X_y=True)
    sizes = [200, 1200] if quick else [100, 200, 400, 800, 1200]
    yield "digits", X[:500], y[:500], X[500:], y[500:], sizes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    n_cand, n_sets = (20, 20) if args.quick else (100, 100)
    result = {"n_candidates": n_cand, "n_sets": n_sets, "datasets": {}}
    start = time.perf_counter()
    for name, X_tr, y_tr, X_pool, y_pool, sizes in datasets(args.quick):
        t0 = time.perf_counter()
        est = estimate_dataset_kernel(
            make_pipeline(StandardScaler(), SVC()),
            SPACE,
            X_tr,
            y_tr,
            X_pool,
            y_pool,
            validation_size=sizes,
            n_sets=n_sets,
            n_candidates=n_cand,
            random_state=0,
            n_jobs=args.n_jobs,
        )
        ll = est.log_likelihood
        result["datasets"][name] = {
            "n_train": len(y_tr),
            "n_pool": len(y_pool),
            "sizes": sizes,
            "k1_grid": est.k1_grid.tolist(),
            "log_likelihood": ll.tolist(),
            "best_k1": est.best_k1.tolist(),
            "increasing": [bool(np.all(np.diff(row) > 0)) for row in ll],
            "seconds": time.perf_counter() - t0,
        }
        print(
            f"\n{name}: train {len(y_tr)}, pool {len(y_pool)}, "
            f"{n_cand} candidates, {n_sets} sets per size"
        )
        cols = [0, 4, 9, 13, 16, 17, 18]
        print(
            "| s | "
            + " | ".join(f"k1={est.k1_grid[c]:.2f}" for c in cols)
            + " | argmax | increasing |"
        )
        print("|---" * (len(cols) + 3) + "|")
        for s, row, b, inc in zip(
            sizes, ll, est.best_k1, result["datasets"][name]["increasing"]
        ):
            print(
                f"| {s} | "
                + " | ".join(f"{row[c]:.1f}" for c in cols)
                + f" | {b:.2f} | {'yes' if inc else 'no'} |"
            )
    result["seconds"] = time.perf_counter() - start
    print(f"\n{result['seconds']:.1f}s")
    suffix = "_quick" if args.quick else ""
    out = os.path.join(results_dir(args.quick), f"bench_dataset_kernel{suffix}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as fh:
        json.dump(result, fh, indent=1)
    print(f"wrote {out}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(1, len(result["datasets"]), figsize=(11, 4))
    for ax, (name, d) in zip(np.atleast_1d(axes), result["datasets"].items()):
        for s, row in zip(d["sizes"], d["log_likelihood"]):
            row = np.asarray(row)
            ax.plot(d["k1_grid"], row - row.max(), marker="o", ms=3, label=f"s={s}")
        ax.set_title(f"{name} ({result['n_sets']} sets, {result['n_candidates']} SVMs)")
        ax.set_xlabel("k1")
        ax.set_ylabel("log-likelihood − its maximum")
        ax.set_yscale("symlog")
        ax.legend(fontsize=8)
    fig.tight_layout()
    png = out.replace(".json", ".png")
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


if __name__ == "__main__":
    main()

"""Gaussian-noise logistic regression and its RDP-accounted random stopping.

One command: ``PYTHONPATH=. python benchmarks/bench_gd.py [--splits 40]
[--out PATH]``. Writes ``results/bench_gd.json`` (or ``--out``) and a
Markdown table on stdout; ``--quick`` (2 splits, the private-model
DPGradientDescent grid ``QUICK_GD_GRID``, 100 lbfgs iterations for the
non-private reference) writes to a temporary folder, never over the stored
results.

Task (fixed before the run, issue 37's): scikit-learn's bundled
breast_cancer, raw features, declared bounds (0, 1.25 × each feature's
maximum), ε = 1, δ = 1e-5; per split a public stratified 80/20 train/test
split (seed = split index); test accuracy, mean ± s.e. over the splits.
Rows, each fitted on the training rows:

- ``LogisticRegression``: scikit-learn, no privacy (the ceiling);
- ``DPLogisticRegression``: objective perturbation, pure ε (C = 1, pinned:
  the stored run's; the learner's default is now ``C="scale"``);
- ``DPGradientDescentLogisticRegression``: (ε, δ), defaults (T = 20) and
  T = 50;
- ``private-model, DPLogisticRegression``: ``PrivateModel()`` ("auto")
  over C ∈ logspace(-2, 2, 5), pure ε (the learner's own C = 1, pinned:
  with ``"scale"`` auto would not tune);
- ``private-model, DPGradientDescent``: ``PrivateModel()`` ("auto":
  random stopping in Rényi DP) over C ∈ {0.1, 1, 10} × max_iter ∈ {10,
  20, 50}, (ε, δ).

A second table (no data read): the per-fit budget random stopping gives a
ρ-zCDP learner under the Rényi accounting (ρ₀, ``_private_model._zcdp``)
against the pure rule's ε₀ = ε/(2 + η), for the same final (ε, δ = 1e-5).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import _checkout  # noqa: F401  (this checkout's sklearn_dpbo, before any import)
import numpy as np
from _results import results_dir
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.dp_learners import (
    DPGradientDescentLogisticRegression,
    DPLogisticRegression,
)
from sklearn_dpbo.dp_learners._gd import rho_for
from sklearn_dpbo.model_selection import PrivateModel
from sklearn_dpbo.model_selection._private_model import _stopping as st
from sklearn_dpbo.privacy import _rdp as rdp

EPSILON, DELTA = 1.0, 1e-5
GD_GRID = {"C": [0.1, 1.0, 10.0], "max_iter": [10, 20, 50]}
QUICK_GD_GRID = {"C": [0.1, 1.0], "max_iter": [10, 20]}  # --quick
# The non-private reference's lbfgs iterations (unscaled features: ~3,000
# per fit to converge); --quick: 100, the same fit, unconverged.
REFERENCE_MAX_ITER, QUICK_REFERENCE_MAX_ITER = 5000, 100


def _search(estimator, grid):
    return DPBayesSearchCV(
        estimator,
        grid,
        method=PrivateModel(),
        epsilon=EPSILON,
        delta=DELTA,
        scoring="accuracy",
        n_iter=int(np.prod([len(v) for v in grid.values()])),
        random_state=0,
    )


def models(bounds, gd_grid=GD_GRID, reference_max_iter=REFERENCE_MAX_ITER):
    gd = dict(epsilon=EPSILON, delta=DELTA, bounds=bounds)
    return {
        "LogisticRegression (no privacy)": lambda: LogisticRegression(
            max_iter=reference_max_iter
        ),
        "DPLogisticRegression (pure eps, C=1)": lambda: DPLogisticRegression(
            epsilon=EPSILON, bounds=bounds, C=1.0
        ),
        "DPGradientDescent (T=20, default)": lambda: (
            DPGradientDescentLogisticRegression(**gd)
        ),
        "DPGradientDescent (T=50)": lambda: DPGradientDescentLogisticRegression(
            **gd, max_iter=50
        ),
        "private-model, DPLogisticRegression": lambda: _search(
            DPLogisticRegression(bounds=bounds, C=1.0),
            {"C": list(np.logspace(-2, 2, 5))},
        ),
        "private-model, DPGradientDescent (RDP)": lambda: _search(
            DPGradientDescentLogisticRegression(bounds=bounds, delta=DELTA),
            gd_grid,
        ),
    }


def accuracy(
    splits: int, gd_grid=GD_GRID, reference_max_iter=REFERENCE_MAX_ITER
) -> dict:
    X, y = load_breast_cancer(return_X_y=True)
    bounds = (0.0, 1.25 * X.max(axis=0))  # the task's declared bounds
    out = {}
    for name, make in models(bounds, gd_grid, reference_max_iter).items():
        acc = []
        for seed in range(splits):
            Xtr, Xte, ytr, yte = train_test_split(
                X, y, test_size=0.2, stratify=y, random_state=seed
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                acc.append(float(make().fit(Xtr, ytr).score(Xte, yte)))
        out[name] = {
            "mean": float(np.mean(acc)),
            "se": float(np.std(acc, ddof=1) / np.sqrt(len(acc))) if splits > 1 else 0,
            "splits": splits,
        }
    return out


def budgets() -> list[dict]:
    rows = []
    for eps in (0.5, 1.0, 2.0, 4.0):
        for eta in (0.0, 0.5, 1.0):
            for mean in (10, 30):
                g = st.gamma_for_mean(eta, mean)
                m = st.mean_of(eta, g)
                cap = st.cap_for_delta(eta, g, eps, 0.1 * DELTA)
                left = DELTA - st.added_delta(cap, eta, g, eps)

                def total(r, eta=eta, g=g, m=m, left=left):
                    curve = rdp.zcdp_curve(r)
                    return rdp.repeat_and_select_epsilon(curve, eta, g, m, left)

                rho0 = rdp.largest_parameter(total, eps)
                eps0 = eps / st.cost_factor(eta)
                rows.append(
                    {
                        "epsilon": eps,
                        "eta": eta,
                        "mean_runs": mean,
                        "pure_eps0": eps0,
                        "rdp_rho0": rho0,
                        "rdp_eps_per_fit": rdp.zcdp_epsilon(rho0, DELTA),
                        "rho0_over_rho_of_eps0": rho0 / rho_for(eps0, DELTA),
                    }
                )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=40)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    splits = 2 if args.quick else args.splits
    start = time.time()
    grid = QUICK_GD_GRID if args.quick else GD_GRID
    ref_iter = QUICK_REFERENCE_MAX_ITER if args.quick else REFERENCE_MAX_ITER
    result = {"accuracy": accuracy(splits, grid, ref_iter), "budgets": budgets()}
    result["meta"] = {
        "task": "breast_cancer, bounds (0, 1.25*max), stratified 80/20",
        "epsilon": EPSILON,
        "delta": DELTA,
        "seconds": round(time.time() - start, 1),
    }
    path = args.out or str(results_dir(args.quick) / "bench_gd.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    print(f"breast_cancer, eps={EPSILON}, delta={DELTA}, {splits} splits\n")
    print("| model | test accuracy |\n|---|---|")
    for name, r in result["accuracy"].items():
        print(f"| {name} | {r['mean']:.3f} ± {r['se']:.3f} |")
    print("\n| eps | eta | E[K] | pure eps0 | RDP rho0 | rho0 as eps at 1e-5 |", end="")
    print(" rho0 / rho(eps0, 1e-5) |\n|---|---|---|---|---|---|---|")
    for r in result["budgets"]:
        print(
            f"| {r['epsilon']:g} | {r['eta']:g} | {r['mean_runs']} | "
            f"{r['pure_eps0']:.3f} | {r['rdp_rho0']:.4f} | "
            f"{r['rdp_eps_per_fit']:.3f} | {r['rho0_over_rho_of_eps0']:.2f} |"
        )
    print(f"\nwritten to {path}")


if __name__ == "__main__":
    main()

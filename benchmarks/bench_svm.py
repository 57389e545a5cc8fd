"""DPLinearSVC against DPLogisticRegression and scikit-learn's LinearSVC.

Task fixed before the run: raw ``load_breast_cancer`` with the declared
bounds (0, 1.25 × each feature's maximum) (the convention of issue 37),
stratified 70/30 splits with seeds 0..19, test accuracy. Each DP learner
at its defaults (the SVM: C = 1, h = 0.5; logistic regression:
``C="scale"``) at ε = 1 and 4; beside them
scikit-learn's LinearSVC (non-private) on the same public map of the
features into [−1, 1] and in a ``StandardScaler`` pipeline (what a user
without privacy would pick). And each DP learner tuned and released by
``DPBayesSearchCV(method="private-model")`` (strategy ``"auto"``, the
defaults otherwise) over C ∈ logspace(−4, 1, 12) at ε = 1, the grid of
``bench_private_model.py``.

    PYTHONPATH=. python benchmarks/bench_svm.py           # 20 splits
    PYTHONPATH=. python benchmarks/bench_svm.py --quick   # 3 splits, not stored

Writes ``benchmarks/results/bench_svm.json``.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import _checkout  # noqa: F401  (this checkout's sklearn_dpbo, before any import)
import numpy as np
from _results import results_dir
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.svm import LinearSVC

from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.dp_learners import DPLinearSVC, DPLogisticRegression
from sklearn_dpbo.dp_learners._base import map_features

EPSILONS = (1.0, 4.0)


def models(bounds, seed):
    lower, upper = bounds
    mapped = FunctionTransformer(
        lambda X: map_features(X, (lower, upper)), validate=False
    )
    out = {}
    for eps in EPSILONS:
        out[f"DPLinearSVC eps={eps:g}"] = DPLinearSVC(epsilon=eps, bounds=bounds)
        out[f"DPLogisticRegression eps={eps:g}"] = DPLogisticRegression(
            epsilon=eps, bounds=bounds
        )
    grid = {"C": list(np.logspace(-4, 1, 12))}
    for cls in (DPLinearSVC, DPLogisticRegression):
        out[f"{cls.__name__} private-model auto eps=1"] = DPBayesSearchCV(
            cls(bounds=bounds),
            grid,
            method="private-model",
            epsilon=1.0,
            scoring="accuracy",
            n_iter=12,
            random_state=seed,
        )
    out["LinearSVC on the bounds' map"] = make_pipeline(mapped, LinearSVC())
    out["LinearSVC + StandardScaler"] = make_pipeline(StandardScaler(), LinearSVC())
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    splits = 3 if args.quick else 20
    X, y = load_breast_cancer(return_X_y=True)
    bounds = (np.zeros(X.shape[1]), 1.25 * X.max(axis=0))
    acc: dict[str, list[float]] = {}
    t0 = time.perf_counter()
    for seed in range(splits):
        Xtr, Xte, ytr, yte = train_test_split(
            X, y, test_size=0.3, stratify=y, random_state=seed
        )
        for name, est in models(bounds, seed).items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(Xtr, ytr)
            acc.setdefault(name, []).append(float(np.mean(est.predict(Xte) == yte)))
    rows = {}
    print("| model | test accuracy (mean ± s.e.) |")
    print("|---|---:|")
    for name, a in acc.items():
        a = np.asarray(a)
        rows[name] = dict(mean=a.mean(), se=a.std(ddof=1) / np.sqrt(a.size), all=a)
        print(f"| {name} | {a.mean():.3f} ± {rows[name]['se']:.3f} |")
    ratios = {}
    for eps in [*EPSILONS, "private-model auto eps=1"]:
        tag = f"eps={eps:g}" if isinstance(eps, float) else eps
        svm = np.asarray(acc[f"DPLinearSVC {tag}"])
        lr = np.asarray(acc[f"DPLogisticRegression {tag}"])
        diff = svm - lr  # paired: the same split
        ratios[tag] = dict(
            svm_minus_logistic=diff.mean(),
            se=diff.std(ddof=1) / np.sqrt(diff.size),
            svm_over_linearsvc=svm.mean() / np.mean(acc["LinearSVC + StandardScaler"]),
        )
        r = ratios[tag]
        print(
            f"{tag}: SVM − logistic {r['svm_minus_logistic']:+.3f} ± "
            f"{r['se']:.3f} (paired); SVM / LinearSVC+scaler "
            f"{r['svm_over_linearsvc']:.3f}"
        )
    out = dict(
        command="python benchmarks/bench_svm.py" + (" --quick" if args.quick else ""),
        date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        task="load_breast_cancer, bounds (0, 1.25 max), 70/30 stratified splits",
        splits=splits,
        results={
            k: dict(mean=v["mean"], se=v["se"], all=v["all"].tolist())
            for k, v in rows.items()
        },
        paired=ratios,
        seconds=time.perf_counter() - t0,
    )
    path = args.out or results_dir(args.quick) / "bench_svm.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()

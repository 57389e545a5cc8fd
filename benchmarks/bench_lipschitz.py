"""Utility of method="lipschitz" (Kusner et al. 2015, Algorithm 3) next to
private-selection on the same task.

Task: ``load_breast_cancer`` split once (stratified, seed 0) into a public
training set (50 %), a private validation set (25 %, m = 142) and a test set
(25 %). Estimator: ``make_pipeline(StandardScaler(), Normalizer(),
LogisticRegression(fit_intercept=False))`` (Assumption 2 with R = 1).
Validation score: ``neg_sigmoid_loss`` (−mean sigmoid loss, L = 1/4,
g* = 1) for both methods. Candidate path: 64 log-spaced values of the
paper's λ over [1e-4, 1] or [1e-2, 1], passed as ``logisticregression__C =
1/(λ n)`` (a public list, the same for every seed).

Methods, for every total ε in {0.5, 1, 2, 5, 10} (``budget_split=0.5``):

- ``lipschitz``: ``method="lipschitz"``, ``n_iter=20`` BO steps (UCB);
  ``best_params_`` by permute-and-flip over the whole path (Δ = 1/m),
  ``best_score_`` = f_BO + Laplace(Δ_L/ε₂) (Algorithm 3).
- ``private-selection``: library defaults (public BO on 3-fold CV inside
  the training set, shortlist of 3, permute-and-flip, Laplace(Δ/ε₂)).
- references: ``oracle`` (best validation score on the path, non-private),
  ``uniform`` (expected regret of a uniformly random candidate).

Metrics, mean ± standard error over seeds (``random_state``):
validation regret of the released candidate (oracle score − its validation
score, sigmoid-score units), test accuracy (%) of the released candidate,
|best_score_ − true validation score of the released candidate|, and the
Laplace scale b of the score release (from ``privacy_report_``), next to the
width of the score range (g* = 1).

Speed: each (C, rows) fit is computed once and memoised by a fingerprint of
the data (LogisticRegression with lbfgs is deterministic), by replacing
``sklearn_dpbo.model_selection._evaluation.fit_public`` (every fit of a
public candidate:
public CV folds and fits on the whole training set) with a memoising
wrapper around the original, which returns the same fitted model for the
same candidate and rows; scoring runs for real, and the search itself runs
unmodified.

Usage (from the repository root)::

    python benchmarks/bench_lipschitz.py           # 20 seeds
    python benchmarks/bench_lipschitz.py --quick   # 3 seeds, 2 epsilons

Writes ``benchmarks/results/bench_lipschitz.json`` (to a temporary folder
with ``--quick``). ``random_state`` is fixed: benchmarking only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time

import _checkout  # noqa: F401  (the checkout's sklearn_dpbo, not an installed copy)
import numpy as np
from _results import results_dir
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer, StandardScaler
from threadpoolctl import threadpool_limits

from sklearn_dpbo import DPBayesSearchCV
from sklearn_dpbo.model_selection._evaluation import fit_public
from sklearn_dpbo.privacy._builtin_scores import get_dp_scorer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _patching import replaced  # noqa: E402  (benchmarks/_patching.py)

EPSILONS = [0.5, 1.0, 2.0, 5.0, 10.0]
RANGES = [(1e-4, 1.0), (1e-2, 1.0)]
PATH_SIZE = 64
PARAM = "logisticregression__C"

_MEMO: dict = {}


def _fingerprint(a) -> str:
    if a is None:
        return "none"
    return hashlib.sha1(np.ascontiguousarray(a).tobytes()).hexdigest()


def _memo_fit_public(estimator, params, X, y, fit_params, *, error_score):
    """``fit_public`` memoised by (estimator, candidate, rows): the fitted
    model is only read afterwards (predict / decision_function)."""
    key = (
        repr(estimator),
        repr(sorted(params.items())),
        _fingerprint(X),
        _fingerprint(y),
        repr(sorted(fit_params.items())),
    )
    if key not in _MEMO:
        _MEMO[key] = fit_public(
            estimator, params, X, y, fit_params, error_score=error_score
        )
    return _MEMO[key]


def estimator(C=1.0):
    return make_pipeline(
        StandardScaler(), Normalizer(), LogisticRegression(C=C, fit_intercept=False)
    )


def mean_se(x):
    x = np.asarray(x, dtype=float)
    se = x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else 0.0
    return float(x.mean()), float(se)


def run(seeds, epsilons, n_iter=20):
    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_rest, y_tr, y_rest = train_test_split(
        X, y, train_size=0.5, random_state=0, stratify=y
    )
    X_va, X_te, y_va, y_te = train_test_split(
        X_rest, y_rest, train_size=0.5, random_state=0, stratify=y_rest
    )
    n, m = len(y_tr), len(y_va)
    scorer = get_dp_scorer("neg_sigmoid_loss", estimator())
    rows = []
    for lam_lo, lam_hi in RANGES:
        lams = np.logspace(np.log10(lam_lo), np.log10(lam_hi), PATH_SIZE)
        Cs = [float(c) for c in 1.0 / (lams * n)]
        space = {PARAM: Cs}
        val, test = {}, {}
        for C in Cs:
            model = estimator(C).fit(X_tr, y_tr)
            val[C] = scorer(model, X_va, y_va)
            test[C] = 100.0 * float(np.mean(model.predict(X_te) == y_te))
        oracle = max(val.values())
        uniform = oracle - float(np.mean(list(val.values())))
        rows.append(
            dict(
                lam_range=[lam_lo, lam_hi],
                method="oracle",
                epsilon=None,
                regret=[0.0, 0.0],
                test_acc=[test[max(val, key=val.get)], 0.0],
                score_err=None,
                laplace_scale=None,
            )
        )
        rows.append(
            dict(
                lam_range=[lam_lo, lam_hi],
                method="uniform",
                epsilon=None,
                regret=[uniform, 0.0],
                test_acc=[float(np.mean(list(test.values()))), 0.0],
                score_err=None,
                laplace_scale=None,
            )
        )
        for eps in epsilons:
            for method in ("lipschitz", "private-selection"):
                regret, acc, err, scales = [], [], [], []
                for seed in seeds:
                    kw = dict(
                        method=method,
                        epsilon=eps,
                        scoring="neg_sigmoid_loss",
                        refit=False,
                        random_state=seed,
                        n_jobs=1,
                    )
                    if method == "lipschitz":
                        kw["n_iter"] = n_iter
                    s = DPBayesSearchCV(estimator(), space, **kw).fit(
                        X_tr, y_tr, X_val=X_va, y_val=y_va
                    )
                    C = s.best_params_[PARAM]
                    regret.append(oracle - val[C])
                    acc.append(test[C])
                    err.append(abs(s.best_score_ - val[C]))
                    scales.append(s.privacy_report_.releases[1]["noise_scale"])
                rows.append(
                    dict(
                        lam_range=[lam_lo, lam_hi],
                        method=method,
                        epsilon=eps,
                        regret=mean_se(regret),
                        test_acc=mean_se(acc),
                        score_err=mean_se(err),
                        laplace_scale=float(np.mean(scales)),
                    )
                )
    return dict(
        task=dict(
            dataset="breast_cancer",
            n_train=n,
            m=m,
            path_size=PATH_SIZE,
            n_iter=n_iter,
            seeds=len(seeds),
            score="neg_sigmoid_loss",
            score_range=[-1.0, 0.0],
        ),
        rows=rows,
    )


def table(result) -> str:
    out = [
        "| λ range | method | ε | val. regret (sigmoid score) | test acc. % | "
        "\\|best_score_ − true\\| | Laplace scale b (range width 1) |",
        "|---|---|---|---|---|---|---|",
    ]

    def pm(v, scale=1.0, fmt="{:.4f}"):
        if v is None:
            return "—"
        return f"{fmt.format(v[0] * scale)} ± {fmt.format(v[1] * scale)}"

    for r in result["rows"]:
        lo, hi = r["lam_range"]
        eps = "—" if r["epsilon"] is None else f"{r['epsilon']:g}"
        b = "—" if r["laplace_scale"] is None else f"{r['laplace_scale']:.4g}"
        out.append(
            f"| [{lo:g}, {hi:g}] | {r['method']} | {eps} | {pm(r['regret'])} | "
            f"{pm(r['test_acc'], fmt='{:.1f}')} | {pm(r['score_err'])} | {b} |"
        )
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--out", default=None, help="JSON output path")
    args = parser.parse_args()
    seeds = range(3) if args.quick else range(args.seeds)
    epsilons = [1.0, 10.0] if args.quick else EPSILONS
    start = time.perf_counter()
    with replaced(fit_public=_memo_fit_public), threadpool_limits(limits=1):
        result = run(list(seeds), epsilons)
    result["seconds"] = time.perf_counter() - start
    print(table(result))
    print(f"\n{result['seconds']:.1f}s")
    name = "bench_lipschitz_quick.json" if args.quick else "bench_lipschitz.json"
    path = args.out or os.path.join(results_dir(args.quick), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        json.dump(result, fh, indent=1)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

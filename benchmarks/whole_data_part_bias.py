"""Part-size bias of the whole-data mode, without noise (issue 38 item 2).

``python benchmarks/whole_data_part_bias.py [TASK] [SEEDS]``
(default ``tree_noisy_20000 3``, a task of ``bench_whole_data.py``)

Per seed (that benchmark's split and candidates): the candidate best on the
parts (mean over k = 70 parts of 140-row fits, each scored on its 60
held-out rows, no noise), its test accuracy refit on the whole training
part, the same candidate with ``min_samples_leaf`` declared proportional to
the training size (× n/140), and the best candidate at full size, each
against the estimator's defaults; and the part-best's gap to the defaults
on the parts. Prints only (a diagnostic, not a release).
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import train_test_split

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

from bench_whole_data import N_ITER, tasks  # noqa: E402

import sklearn_dpbo.model_selection._whole_data._fit as wd  # noqa: E402
from sklearn_dpbo import DPBayesSearchCV  # noqa: E402

K = 70


def test_score(est, params, split):
    X_tr, X_te, y_tr, y_te = split
    return clone(est).set_params(**params).fit(X_tr, y_tr).score(X_te, y_te)


def one_seed(est, space, X, y, seed):
    split = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
    X_tr, _, y_tr, _ = split
    # The public candidate list of the whole-data mode (no row is scored).
    s = DPBayesSearchCV(est, space, n_iter=N_ITER, refit=False, random_state=seed)
    s.fit(X_tr[:400], y_tr[:400])
    cands = s.cv_results_["params"]
    d = int(np.flatnonzero(s.cv_results_["is_default"])[0])
    n = len(y_tr)
    S = np.zeros(len(cands))
    for j, idx in enumerate(wd.partition(n, K, seed)):
        ((tr, te),) = wd.inner_splits(len(idx), 0.3, seed + j)
        m = len(tr)
        for c, p in enumerate(cands):
            model = clone(est).set_params(**p).fit(X_tr[idx[tr]], y_tr[idx[tr]])
            S[c] += model.score(X_tr[idx[te]], y_tr[idx[te]]) / K
    best = int(np.argmax(S))
    scaled = dict(cands[best])
    scaled["min_samples_leaf"] = max(1, round(scaled["min_samples_leaf"] * n / m))
    full = [test_score(est, p, split) for p in cands]
    return {
        "seed": seed,
        "part_gap": float(S[best] - S[d]),
        "part_best": full[best] - full[d],
        "part_best_scaled": test_score(est, scaled, split) - full[d],
        "full_best": max(full) - full[d],
        "best": cands[best],
    }


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "tree_noisy_20000"
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    X, y, est, space, _ = tasks(False)[name]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(seeds):
            rows.append(one_seed(est, space, X, y, seed))
            print(rows[-1], flush=True)
    for key in ("part_gap", "part_best", "part_best_scaled", "full_best"):
        v = 100 * np.array([r[key] for r in rows])
        se = v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else 0.0
        print(f"{name} {key} vs defaults: {v.mean():+.2f} ± {se:.2f} points")


if __name__ == "__main__":
    main()

"""The untuned DP logistic regression's C: a public rule against C = 1.

One command: ``PYTHONPATH=. python benchmarks/bench_untuned_C.py [--seeds
20] [--tasks ...] [--epsilons 1 2] [--out PATH]``. Writes
``results/bench_untuned_C.json`` (or ``--out``) and a Markdown table on
stdout; ``--quick`` (one task, two splits) writes to a temporary directory.

The rule (fixed with the tasks ``HELD_OUT_3`` of ``bench_private_model.py``
before their run, now the library's ``C="scale"``): C = 0.3 × the plateau's C of
objective perturbation, C_p = (e^(ε_obj/4) − 1)/(c R²) (c = 1/4, R² =
data_norm² + 1 with the intercept, ε_obj = 0.99 ε per binary problem;
every C ≥ C_p gives the same model, ``_logistic._distribution_key``).
Public: ε, data_norm (and the number of classes); no row is read.

Per split (the public 70/30 split of ``bench_private_model.py``), each on
the training rows at the whole ε, paired: the same ``noise_random_state``
for the fixed-C models (common random numbers) and the split for ``auto``:

- ``C = 1``: the untuned model as the library fits it today;
- ``C rule``: ``DPLogisticRegression(C="scale")``;
- ``C = 0.15`` (secondary, reported only: the best constant on the data
  the rule was derived from);
- ``auto``: ``PrivateModel(strategy="auto")`` with the mode's default
  ``release_score``, the learner's own C = 1 (with ``C="scale"`` it never
  tunes; its default branch: C = 1 on every row);
- ``auto, rule``: ``auto`` where it tunes, ``C rule`` where it releases
  its default (what ``auto`` would release with the rule as the default C).

``auto - C rule`` (in the summary): where ``auto`` tunes, its tuned
model against the untuned model at the rule's C (``HELD_OUT_4``, fixed
after the rule became the default: whether tuning inside the n·ε/d window
still pays; reported, a recommendation only: tuning stops paying if its
mean over the tuned cells is < 0 and no tuned cell is > +1 s.e.).

Decision (fixed before the run): the rule replaces C = 1 only if, on
``HELD_OUT_3`` at ε = 1 and 2, ``C rule`` − ``C = 1`` is never below −1
s.e. in a cell and its mean over the cells is > 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

import _checkout  # noqa: F401  (this checkout's sklearn_dpbo, before any import)
import bench_overhead
import bench_private_model as bpm
import numpy as np
from _results import results_dir
from bench_private_model import HELD_OUT_3, _mean_se, learner_params, load
from sklearn.model_selection import train_test_split

from sklearn_dpbo.dp_learners import DPLogisticRegression

GRID = np.logspace(-4, 1, 12)
ROWS = ["C = 1", "C rule", "C = 0.15", "auto", "auto, rule"]


def run_seed(task, eps, seed):
    X, y = load(task)
    noise_seed = 1_000_003 * seed + int(round(1000 * eps))
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=seed)
    params = learner_params(task, X)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, C in {"C = 1": 1.0, "C rule": "scale", "C = 0.15": 0.15}.items():
            m = DPLogisticRegression(
                C=C, epsilon=eps, noise_random_state=noise_seed, **params
            ).fit(X_tr, y_tr)
            if C == "scale":  # the number the library resolved
                C = m._C(eps, m._ball(X.shape[1])[2])
            out[name] = {"acc": float(m.score(X_te, y_te)), "C": C}
    # C = 1 its own ("scale" would never tune), the mode's default release_score
    out["auto"] = bpm.run_seed(
        task, eps, seed, GRID, rules=["auto, no score"], C=1.0, refs=False
    )["auto, no score"]
    tuned = out["auto"]["strategy"] != "default"
    out["auto, rule"] = {"acc": out["auto"]["acc"] if tuned else out["C rule"]["acc"]}
    return out


def table(results):
    lines = [
        "| task | ε | auto ran | C = 1 | C rule − C = 1 | C = 0.15 − C = 1 "
        "| auto | auto, rule − auto |",
        "|---|---|---|---|---|---|---|---|",
    ]
    summary = {}
    for cell, runs in results.items():
        acc = {n: np.array([r[n]["acc"] for r in runs]) for n in ROWS}
        ran = sorted({r["auto"]["strategy"] for r in runs})
        s = {
            "C = 1": _mean_se(acc["C = 1"]),
            "C rule - C = 1": _mean_se(acc["C rule"] - acc["C = 1"]),
            "C = 0.15 - C = 1": _mean_se(acc["C = 0.15"] - acc["C = 1"]),
            "auto": _mean_se(acc["auto"]),
            "auto, rule - auto": _mean_se(acc["auto, rule"] - acc["auto"]),
            "auto - C rule": _mean_se(acc["auto"] - acc["C rule"]),
            "rule_C": runs[0]["C rule"]["C"],
            "auto_ran": ran,
        }
        summary[cell] = s
        task, eps = cell.split("|")
        lines.append(
            f"| {task} | {float(eps):g} | {', '.join(ran)} | "
            + " | ".join(
                "{:+.3f} ± {:.3f}".format(*s[k])
                if "-" in k
                else "{:.3f} ± {:.3f}".format(*s[k])
                for k in [
                    "C = 1",
                    "C rule - C = 1",
                    "C = 0.15 - C = 1",
                    "auto",
                    "auto, rule - auto",
                ]
            )
            + " |"
        )
    diffs = [s["C rule - C = 1"] for s in summary.values()]
    verdict = {
        "mean_over_cells": float(np.mean([m for m, _ in diffs])),
        "cells_below_1se": [
            c
            for c, s in summary.items()
            if s["C rule - C = 1"][0] < -s["C rule - C = 1"][1]
        ],
    }
    verdict["rule_wins"] = (
        verdict["mean_over_cells"] > 0 and not verdict["cells_below_1se"]
    )
    lines.append("")
    lines.append(
        f"C rule − C = 1 over the cells: {verdict['mean_over_cells']:+.4f}; "
        f"cells below −1 s.e.: {verdict['cells_below_1se']}; "
        f"rule wins: {verdict['rule_wins']}"
    )
    return "\n".join(lines), summary, verdict


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--tasks", nargs="+", default=HELD_OUT_3)
    parser.add_argument("--epsilons", nargs="+", type=float, default=[1.0, 2.0])
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    tasks, epsilons, seeds = args.tasks, args.epsilons, args.seeds
    if args.quick:
        tasks, epsilons, seeds = tasks[:1], [1.0], 2
    out = args.out or os.path.join(results_dir(args.quick), "bench_untuned_C.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    start, results = time.time(), {}
    for eps in epsilons:
        for task in tasks:
            results[f"{task}|{eps}"] = [run_seed(task, eps, s) for s in range(seeds)]
    text, summary, verdict = table(results)
    print(text, flush=True)
    meta = {
        "seeds": seeds,
        "tasks": tasks,
        "epsilons": epsilons,
        "command": "PYTHONPATH=. python benchmarks/bench_untuned_C.py "
        + " ".join(sys.argv[1:]),
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "git_commit": bench_overhead.environment()["git_commit"],
        "wall_seconds": time.time() - start,
    }
    with open(out, "w") as fh:
        json.dump(
            {"meta": meta, "summary": summary, "verdict": verdict, "runs": results},
            fh,
            indent=1,
        )
    print(f"written: {out}")


if __name__ == "__main__":
    main()

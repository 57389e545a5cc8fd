"""
Privacy–utility curves of the central-DP searches
=================================================

Validation regret (accuracy points below the best of the 1024 candidates) of
the released ``best_params_`` against the total ε (symmetric-log axis), for
the private searches and the non-private ones, on three data sets. The numbers come from
``benchmarks/results/bench_utility.json``, written by::

    python benchmarks/bench_utility.py

(20 seeds, mean ± standard error; SVC(rbf) tuning ``C`` and ``gamma``.)
"""

import json

import matplotlib.pyplot as plt
from _paths import results_dir
from matplotlib.ticker import ScalarFormatter

data = json.loads((results_dir() / "bench_utility.json").read_text())
rows = data["rows"]
datasets = list(dict.fromkeys(row["dataset"] for row in rows))
private = ["private-selection", "private random search", "private grid search"]

ticks = [0, 0.5, 1, 2, 5, 10, 20, 40]
fig, axes = plt.subplots(1, len(datasets), figsize=(4 * len(datasets), 3.6))
for ax, dataset in zip(axes, datasets):
    for method in private + ["gp-ucb"]:
        pts = sorted(
            (r["epsilon"], 100 * r["regret"]["mean"], 100 * r["regret"]["se"])
            for r in rows
            if r["dataset"] == dataset and r["method"] == method
        )
        if pts:
            eps, mean, se = zip(*pts)
            ax.errorbar(eps, mean, yerr=se, marker="o", capsize=2, label=method)
    for r in rows:
        if r["dataset"] == dataset and r["method"] == "OptunaSearchCV (TPE)":
            tpe = 100 * r["regret"]["mean"]
            ax.axhline(tpe, color="grey", ls="--", label="TPE (non-private)")
            break
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1, linscale=0.5)
    ax.set_yticks(ticks)
    ax.set_ylim(0, 45)
    ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlabel("total ε")
    ax.set_title(dataset)
axes[0].set_ylabel("validation regret (accuracy points)")
axes[-1].legend(fontsize=7)
fig.tight_layout()
plt.show()

"""
Search overhead against the size of the candidate set
=====================================================

Milliseconds of overhead per iteration (everything except the estimator's
own fit and predict) of ``DPBayesSearchCV`` on a near-free estimator,
against the number of candidates (the size of Λ), for three numbers of iterations T.
Read from ``benchmarks/results/bench_overhead.json``, written by::

    python benchmarks/bench_overhead.py

(one process, one BLAS thread, best of 5 runs; timings on a shared 2-core
machine are noisy).
"""

import json

import matplotlib.pyplot as plt
from _paths import results_dir

data = json.loads((results_dir() / "bench_overhead.json").read_text())
rows = data["overhead"]
methods = list(dict.fromkeys(row["method"] for row in rows))

fig, axes = plt.subplots(
    1, len(methods), figsize=(4.5 * len(methods), 3.5), sharey=True
)
for ax, method in zip(axes, methods):
    for n_iter in sorted({row["n_iter"] for row in rows}):
        pts = sorted(
            (row["n_candidates"], row["overhead_ms_per_iter"])
            for row in rows
            if row["method"] == method and row["n_iter"] == n_iter
        )
        sizes, ms = zip(*pts)
        ax.plot(sizes, ms, marker="o", label=f"T = {n_iter}")
    ax.axhline(2.0, color="grey", ls=":", label="2 ms target")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("|Λ| (candidates)")
    ax.set_title(method)
axes[0].set_ylabel("overhead per iteration (ms)")
axes[-1].legend(fontsize=8)
fig.tight_layout()
plt.show()

"""
Local-DP regret curves
======================

Time-average regret R_t/t of the local-DP Bayesian optimisers (Zhou & Tan,
AAAI 2021) and of plain GP-UCB on the privatised reports, on the squared-
exponential environment, 10 trials (mean ± standard error). Read from
``benchmarks/results/bench_ldp.json``, written on 2026-11-23 by::

    python benchmarks/bench_ldp.py --jobs 2

With the theory-derived confidence widths the three LDP algorithms explore
almost uniformly up to t = 10⁴, and plain GP-UCB is ahead: the paper's
ordering does not reproduce (see the local-DP page).
"""

import json

import matplotlib.pyplot as plt
import numpy as np
from _paths import results_dir

data = json.loads((results_dir() / "bench_ldp.json").read_text())
checkpoints = np.array(data["meta"]["checkpoints"])
trials = data["meta"]["trials"]
epsilons = data["meta"]["epsilons"]

fig, axes = plt.subplots(
    1, len(epsilons), figsize=(4 * len(epsilons), 3.4), sharey=True
)
for ax, epsilon in zip(axes, epsilons):
    for key, curve in data["private"].items():
        env, eps, algorithm, mechanism = key.split("|")
        if env != "se" or eps != f"eps={epsilon}" or mechanism != "laplace":
            continue
        mean = np.array(curve["mean"])
        se = np.array(curve["sd"]) / np.sqrt(trials)
        ax.plot(checkpoints, mean, marker=".", label=algorithm)
        ax.fill_between(checkpoints, mean - se, mean + se, alpha=0.2)
    ax.set_xscale("log")
    ax.set_xlabel("round t")
    ax.set_title(f"ε = {epsilon} (Laplace reports)")
axes[0].set_ylabel("time-average regret R_t / t")
axes[-1].legend(fontsize=7)
fig.tight_layout()
plt.show()

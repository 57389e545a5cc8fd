"""
Local-DP regret curves
======================

Time-average regret R_t/t of the local-DP Bayesian optimisers (Zhou & Tan,
AAAI 2021) at their default (practical) widths and at the theorems' widths,
of plain GP-UCB on the same privatised reports, and of uniform exploration,
on the squared-exponential environment, 10 seeds (mean ± standard error).
Read from ``benchmarks/results/bench_ldp.json``, written by::

    python benchmarks/bench_ldp.py --jobs 2

With the theorems' widths the three LDP algorithms explore almost uniformly
up to t = 10⁴; at their default widths they learn (see the local-DP page).
"""

import json

import matplotlib.pyplot as plt
import numpy as np
from _paths import results_dir

data = json.loads((results_dir() / "bench_ldp.json").read_text())
checkpoints = np.array(data["meta"]["checkpoints"])
n_seeds = len(data["meta"]["seeds"])
epsilons = data["meta"]["epsilons"]
algorithms = ["ldp-tgp-ucb", "ldp-ata-gp-ucb", "ldp-moma-gp-ucb", "gp-ucb"]

fig, axes = plt.subplots(
    1, len(epsilons), figsize=(4 * len(epsilons), 3.4), sharey=True
)
for ax, epsilon in zip(axes, epsilons):
    env = f"private|se|eps={epsilon}"
    for i, algorithm in enumerate(algorithms):
        for label, style in (("default", "-"), ("theory", ":")):
            if algorithm == "gp-ucb" and label == "theory":
                continue  # GP-UCB's default is its printed width
            curve = data["curves"][env][f"{algorithm}|{label}|laplace"]
            mean = np.array(curve["mean"])
            se = np.array(curve["sd"]) / np.sqrt(n_seeds)
            ax.plot(
                checkpoints, mean, style, color=f"C{i}", label=f"{algorithm} {label}"
            )
            if label == "default":
                ax.fill_between(
                    checkpoints, mean - se, mean + se, color=f"C{i}", alpha=0.2
                )
    ax.axhline(np.mean(data["uniform"][env]), color="k", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("round t")
    ax.set_title(f"ε = {epsilon} (Laplace reports)")
axes[0].set_ylabel("time-average regret R_t / t")
axes[-1].legend(fontsize=6)
fig.tight_layout()
plt.show()

"""
DP Gaussian-process regression: the released function and its noise
====================================================================

``DPGaussianProcessRegressor`` (Smith et al., AISTATS 2018) releases the GP
posterior mean at public query inputs, with (ε, δ)-DP for the private
outputs ``y`` (inputs public). This example fits it on synthetic data and
draws the released mean with a ±2 s.d. band of the privacy noise, next to
the non-private posterior mean. Several releases show that the noise is
fresh at every fit.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF

from sklearn_dpbo import DPGaussianProcessRegressor

rng = np.random.default_rng(0)
X = np.sort(rng.uniform(0, 10, 500))[:, None]  # public inputs
y = np.sin(X[:, 0]) + 0.3 * rng.standard_normal(500)  # private outputs
query = np.linspace(0, 10, 40)[:, None]  # public, fixed in advance

kernel = RBF(2.0)
exact = GaussianProcessRegressor(kernel, alpha=3.0, optimizer=None).fit(X, y)

fig, ax = plt.subplots(figsize=(7, 3.8))
ax.scatter(X[:, 0], y, s=6, color="lightgrey", label="private outputs")
ax.plot(query[:, 0], exact.predict(query), "k--", label="non-private posterior mean")
for draw in range(3):
    gp = DPGaussianProcessRegressor(
        kernel,
        alpha=3.0,
        y_bounds=(-2.0, 2.0),
        epsilon=1.0,
        delta=1e-3,
        query_points=query,
    ).fit(X, y)
    (line,) = ax.plot(query[:, 0], gp.released_mean_, label=f"DP release {draw + 1}")
    band = 2 * np.broadcast_to(gp.noise_std_, query.shape[:1])
    ax.fill_between(
        query[:, 0],
        gp.released_mean_ - band,
        gp.released_mean_ + band,
        color=line.get_color(),
        alpha=0.12,
    )
print(gp.privacy_report_)
ax.set_xlabel("x (public)")
ax.set_ylabel("y")
ax.set_title("ε = 1, δ = 1e-3, cloaking; bands: ±2 s.d. of the privacy noise")
ax.legend(fontsize=7, loc="lower left")
fig.tight_layout()
plt.show()

"""
Released versus true validation score
=====================================

``best_score_`` is the selected candidate's validation accuracy plus Laplace
noise of scale Δ/ε₂ = 2/(m·ε) (default split of the budget in half). This
example runs a small private search many times on the bundled breast-cancer
data (m = 143 validation records) at two values of ε and compares, for each
run, the released score with the true validation accuracy of the released
candidate (computed here, outside the library, only to draw the picture:
in production that true value is exactly what must not be published).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import RidgeClassifier
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_dpbo import DPBayesSearchCV

X, y = load_breast_cancer(return_X_y=True)
X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.25, random_state=0)
space = {"ridgeclassifier__alpha": (1e-3, 1e4, "log-uniform")}

errors = {}
for epsilon in (0.5, 4.0):
    diffs = []
    for seed in range(15):
        search = DPBayesSearchCV(
            make_pipeline(StandardScaler(), RidgeClassifier()),
            space,
            epsilon=epsilon,
            n_iter=4,
            n_candidates=64,
            random_state=seed,
        ).fit(X_train, y_train, X_val=X_val, y_val=y_val)
        true = search.best_estimator_.score(X_val, y_val)
        diffs.append(search.best_score_ - true)
    errors[epsilon] = np.array(diffs)

m = len(y_val)
fig, ax = plt.subplots(figsize=(6, 3.5))
bins = np.linspace(-0.1, 0.1, 25)
for epsilon, diffs in errors.items():
    ax.hist(
        diffs,
        bins=bins,
        alpha=0.6,
        label=f"ε = {epsilon} (scale {2 / (m * epsilon):.3f})",
    )
ax.set_xlabel("best_score_ − true validation accuracy of the released candidate")
ax.set_ylabel("runs")
ax.legend()
fig.tight_layout()
plt.show()

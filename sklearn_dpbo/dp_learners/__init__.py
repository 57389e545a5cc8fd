"""Small, audited ε-DP learners: candidates for the private-model mode.

Output perturbation (Chaudhuri, Monteleoni & Sarwate, JMLR 2011,
Algorithm 1) of L2-regularised ERM on rows clipped to public bounds:

- :class:`DPLogisticRegression`: binary logistic regression;
- :class:`DPLinearRegression`: ridge regression with clipped targets;
- :class:`DPGradientDescentLogisticRegression`: logistic regression by
  noisy gradient descent with exact discrete Gaussian noise, (ε, δ)-DP and
  ρ-zCDP (not pure ε).

They exist so that ``DPBayesSearchCV(method="private-model")`` can be
used and tested on every supported scikit-learn (diffprivlib does not
import under scikit-learn 1.9); they are deliberately minimal, not a
general DP machine-learning library. Each fit is pure ε-DP with respect to
replacing one row of ``X, y``; ``tests/dp_learners`` audits them.
Imports only the shared :mod:`sklearn_dpbo.privacy` layer.
"""

from ._base import DPLearnerMixin
from ._gd import DPGradientDescentLogisticRegression
from ._linear import DPLinearRegression, ridge_sensitivity
from ._logistic import DPLogisticRegression, logistic_sensitivity

__all__ = [
    "DPGradientDescentLogisticRegression",
    "DPLearnerMixin",
    "DPLinearRegression",
    "DPLogisticRegression",
    "logistic_sensitivity",
    "ridge_sensitivity",
]

"""Small, audited DP learners: candidates for the private-model mode.

Each fit is differentially private with respect to replacing one row of
``X, y`` (pure ε unless stated), on rows clipped to public bounds:

- :class:`DPLogisticRegression`: logistic regression, objective or output
  perturbation (Chaudhuri, Monteleoni & Sarwate, JMLR 2011), one-vs-rest
  for three or more classes;
- :class:`DPLinearSVC`: linear SVM, objective perturbation of the Huber
  hinge (CMS 2011, Section 3.4.2);
- :class:`DPLinearRegression`: ridge regression with clipped targets;
- :class:`DPGaussianNB`: Gaussian naive Bayes from noisy counts, sums and
  sums of squares (Vaidya et al. 2013);
- :class:`DPGradientDescentLogisticRegression`: logistic regression by
  noisy gradient descent with exact discrete Gaussian noise, (ε, δ)-DP and
  ρ-zCDP (not pure ε).

They exist so that ``DPBayesSearchCV(method="private-model")`` can be
used on every supported scikit-learn (diffprivlib does not import under
scikit-learn 1.9); ``tests/dp_learners`` audits them. Imports only the
shared :mod:`sklearn_dpbo.privacy` layer.
"""

from ._base import DPLearnerMixin
from ._gd import DPGradientDescentLogisticRegression
from ._linear import DPLinearRegression, ridge_sensitivity
from ._logistic import DPLogisticRegression, logistic_sensitivity
from ._naive_bayes import DPGaussianNB
from ._svm import DPLinearSVC

__all__ = [
    "DPGaussianNB",
    "DPGradientDescentLogisticRegression",
    "DPLearnerMixin",
    "DPLinearRegression",
    "DPLinearSVC",
    "DPLogisticRegression",
    "logistic_sensitivity",
    "ridge_sensitivity",
]

"""Small, audited DP learners: candidates for the private-model mode.

Each fit is differentially private under replacing one row of ``X, y``
(pure ε unless stated), on rows clipped to public bounds:
:class:`DPLogisticRegression` (objective or output perturbation, CMS 2011),
:class:`DPLinearSVC` (Huber hinge, CMS 2011 §3.4.2),
:class:`DPLinearRegression` (ridge, clipped targets), :class:`DPGaussianNB`
(Vaidya et al. 2013) and :class:`DPGradientDescentLogisticRegression`
((ε, δ)-DP and ρ-zCDP). ``tests/dp_learners`` audits them.
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

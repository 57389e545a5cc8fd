"""sklearn-dpbo: differentially private hyper-parameter search for scikit-learn.

Three systems, each in its subpackage, on two shared layers:

- :mod:`sklearn_dpbo.model_selection`: ``DPBayesSearchCV`` (central DP,
  a sensitive validation set) and its modes;
- :mod:`sklearn_dpbo.ldp`: local-DP Bayesian optimisation;
- :mod:`sklearn_dpbo.gaussian_process`: DP Gaussian-process regression;
- shared: :mod:`sklearn_dpbo.privacy` (mechanisms, accounting, private
  scores) and :mod:`sklearn_dpbo.bo` (candidate sets, GPs, acquisition).

The top level re-exports the names most users need; every other name is
imported from its subpackage only.

>>> from sklearn_dpbo import DPBayesSearchCV  # doctest: +SKIP
"""

from .gaussian_process import DPGaussianProcessRegressor
from .model_selection import DPBayesSearchCV, PrivateComputationError
from .privacy import (
    BudgetAccountant,
    BudgetError,
    PrivacyLeakWarning,
    UselessReleaseWarning,
    make_dp_scorer,
)

__version__ = "0.1.0"

__all__ = [
    "BudgetAccountant",
    "BudgetError",
    "DPBayesSearchCV",
    "DPGaussianProcessRegressor",
    "PrivacyLeakWarning",
    "PrivateComputationError",
    "UselessReleaseWarning",
    "make_dp_scorer",
    "__version__",
]

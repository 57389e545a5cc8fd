"""sklearn-dpbo: differentially private hyper-parameter search for scikit-learn.

Subpackages: :mod:`~sklearn_dpbo.model_selection` (``DPBayesSearchCV``),
:mod:`~sklearn_dpbo.ldp` (local-DP BO), :mod:`~sklearn_dpbo.gaussian_process`
(DP GP regression), on :mod:`~sklearn_dpbo.privacy` and :mod:`~sklearn_dpbo.bo`.
The top level re-exports the names most users need.
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

"""sklearn-dpbo: differentially private hyper-parameter search for scikit-learn.

Tune any scikit-learn estimator on a fixed, public training set, score it
on a sensitive validation set, and release ``best_params_`` and
``best_score_`` with differential privacy.

>>> from sklearn_dpbo import DPBayesSearchCV  # doctest: +SKIP
"""

from ._accountant import BudgetAccountant, BudgetError
from ._accounting import PrivacyReport, Release
from ._candidates import CandidateSet
from ._dataset_kernel import DatasetKernelEstimate, estimate_dataset_kernel
from ._dp_gp import DPGaussianProcessRegressor
from ._dp_gp_selection import PrivateGridSelection, PublicDataSelection
from ._ldp_algorithms import ATAGPUCB, GPUCB, TGPUCB, MoMAGPUCB
from ._ldp_bo import LDPBayesianOptimizer, LDPOptimizeResult, ldp_maximize
from ._ldp_client import LaplaceRandomizer, LDPReport, MechanismSpec, RandomizedResponse
from ._modes import DPGPUCB, FederatedLDP, Lipschitz, PrivateSelection, SearchMode
from ._scorers import DPScorer, RowIndependenceError, make_dp_scorer
from ._search import DPBayesSearchCV, PrivateComputationError
from ._validation import PrivacyLeakWarning, UselessReleaseWarning

__version__ = "0.1.0"

__all__ = [
    "ATAGPUCB",
    "BudgetAccountant",
    "BudgetError",
    "CandidateSet",
    "DatasetKernelEstimate",
    "DPBayesSearchCV",
    "DPGPUCB",
    "DPGaussianProcessRegressor",
    "DPScorer",
    "FederatedLDP",
    "GPUCB",
    "LaplaceRandomizer",
    "LDPBayesianOptimizer",
    "LDPOptimizeResult",
    "LDPReport",
    "Lipschitz",
    "MechanismSpec",
    "MoMAGPUCB",
    "PrivacyLeakWarning",
    "PrivacyReport",
    "PrivateComputationError",
    "PrivateGridSelection",
    "PrivateSelection",
    "PublicDataSelection",
    "RandomizedResponse",
    "Release",
    "RowIndependenceError",
    "SearchMode",
    "TGPUCB",
    "UselessReleaseWarning",
    "estimate_dataset_kernel",
    "ldp_maximize",
    "make_dp_scorer",
    "__version__",
]

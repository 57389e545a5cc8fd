"""sklearn-dpbo: differentially private hyper-parameter search for scikit-learn.

Three systems, each in its subpackage, on two shared layers:

- :mod:`sklearn_dpbo.model_selection`: ``DPBayesSearchCV`` (central DP,
  a sensitive validation set) and its modes;
- :mod:`sklearn_dpbo.ldp`: local-DP Bayesian optimisation;
- :mod:`sklearn_dpbo.gaussian_process`: DP Gaussian-process regression;
- shared: :mod:`sklearn_dpbo.privacy` (mechanisms, accounting, private
  scores) and :mod:`sklearn_dpbo.bo` (candidate sets, GPs, acquisition).

The top level keeps the names most users need.

>>> from sklearn_dpbo import DPBayesSearchCV  # doctest: +SKIP
"""

import importlib
import warnings

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

# Names that moved to a subpackage: importable from the top level for one
# release, with a FutureWarning naming the new path.
_MOVED = {
    **dict.fromkeys(
        [
            "ATAGPUCB",
            "GPUCB",
            "TGPUCB",
            "MoMAGPUCB",
            "LDPBayesianOptimizer",
            "LDPOptimizeResult",
            "ldp_maximize",
            "LaplaceRandomizer",
            "LDPReport",
            "MechanismSpec",
            "RandomizedResponse",
        ],
        "sklearn_dpbo.ldp",
    ),
    **dict.fromkeys(
        ["PrivateGridSelection", "PublicDataSelection"],
        "sklearn_dpbo.gaussian_process",
    ),
    **dict.fromkeys(
        [
            "DPGPUCB",
            "FederatedLDP",
            "Lipschitz",
            "PrivateSelection",
            "SearchMode",
            "DatasetKernelEstimate",
            "estimate_dataset_kernel",
        ],
        "sklearn_dpbo.model_selection",
    ),
    **dict.fromkeys(
        ["PrivacyReport", "Release", "DPScorer", "RowIndependenceError"],
        "sklearn_dpbo.privacy",
    ),
    "CandidateSet": "sklearn_dpbo.bo",
}


def __getattr__(name: str):
    where = _MOVED.get(name)
    if where is None:
        raise AttributeError(f"module 'sklearn_dpbo' has no attribute {name!r}")
    warnings.warn(
        f"sklearn_dpbo.{name} moved to {where}.{name}; import it from there "
        f"(from {where} import {name}). The old path will be removed in the "
        "next release.",
        FutureWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(where), name)


def __dir__() -> list:
    return sorted(set(__all__) | set(_MOVED))

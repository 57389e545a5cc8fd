"""Private hyper-parameter search: the search estimator, its modes and releases."""

from ._dataset_kernel import DatasetKernelEstimate, estimate_dataset_kernel
from ._modes import (
    DPGPUCB,
    FederatedLDP,
    Lipschitz,
    PrivateModel,
    PrivateSelection,
    SearchMode,
    WholeData,
)
from ._sealed import PrivateComputationError
from ._search import DPBayesSearchCV

__all__ = [
    "DPBayesSearchCV",
    "DPGPUCB",
    "DatasetKernelEstimate",
    "FederatedLDP",
    "Lipschitz",
    "PrivateComputationError",
    "PrivateModel",
    "PrivateSelection",
    "SearchMode",
    "WholeData",
    "estimate_dataset_kernel",
]

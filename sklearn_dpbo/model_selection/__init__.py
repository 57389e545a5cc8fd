"""Central-DP hyper-parameter search (Kusner et al., ICML 2015, and the
default private selection): the search estimator, its modes, the public
search, the scheduler and the releases.

The federated-ldp mode lives here and uses :mod:`sklearn_dpbo.ldp`'s
randomisers; everything else comes from the shared layers
:mod:`sklearn_dpbo.privacy` and :mod:`sklearn_dpbo.bo`.
"""

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

"""Local-DP Bayesian optimisation (Zhou & Tan, AAAI 2021).

Each owner privatises her own evaluation on her side (randomisers); the
learner sees the ε-LDP reports only (algorithms, optimiser). Built on the
shared layers :mod:`sklearn_dpbo.privacy` and :mod:`sklearn_dpbo.bo`.
"""

from ._algorithms import ATAGPUCB, GPUCB, TGPUCB, MoMAGPUCB
from ._client import LaplaceRandomizer, LDPReport, MechanismSpec, RandomizedResponse
from ._optimizer import LDPBayesianOptimizer, LDPOptimizeResult, ldp_maximize

__all__ = [
    "ATAGPUCB",
    "GPUCB",
    "LDPBayesianOptimizer",
    "LDPOptimizeResult",
    "LDPReport",
    "LaplaceRandomizer",
    "MechanismSpec",
    "MoMAGPUCB",
    "RandomizedResponse",
    "TGPUCB",
    "ldp_maximize",
]

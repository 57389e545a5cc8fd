"""Shared Bayesian-optimisation layer: the public candidate set, GP
posteriors, acquisition functions and the synchronous BO loop.

Holds no private data and no mechanism; used by the search
(:mod:`sklearn_dpbo.model_selection`), local DP (:mod:`sklearn_dpbo.ldp`)
and DP GP regression (:mod:`sklearn_dpbo.gaussian_process`).
"""

from ._candidates import CandidateSet

__all__ = ["CandidateSet"]

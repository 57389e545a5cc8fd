"""Shared privacy layer: mechanisms, samplers, accounting and private scores.

Used by every system of the library (the search in
:mod:`sklearn_dpbo.model_selection`, local DP in :mod:`sklearn_dpbo.ldp`,
DP Gaussian processes in :mod:`sklearn_dpbo.gaussian_process`); imports
nothing from them.
"""

from ._accountant import BudgetAccountant, BudgetError
from ._accounting import PrivacyReport, Release
from ._builtin_scores import make_dp_scorer
from ._scorers import DPScorer, RowIndependenceError
from ._validation import PrivacyLeakWarning, UselessReleaseWarning

__all__ = [
    "BudgetAccountant",
    "BudgetError",
    "DPScorer",
    "PrivacyLeakWarning",
    "PrivacyReport",
    "Release",
    "RowIndependenceError",
    "UselessReleaseWarning",
    "make_dp_scorer",
]

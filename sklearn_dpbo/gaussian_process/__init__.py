"""Differentially private Gaussian-process regression (Smith et al., AISTATS
2018): the regressor, its release (cloaking, standard), hyper-parameter
selection. Built on :mod:`sklearn_dpbo.privacy` and :mod:`sklearn_dpbo.bo`.
"""

from ._regressor import DPGaussianProcessRegressor
from ._selection import PrivateGridSelection, PublicDataSelection

__all__ = ["DPGaussianProcessRegressor", "PrivateGridSelection", "PublicDataSelection"]

"""What a search mode receives: the public plan, the data, and callbacks.

The plan holds only public values, fixed before any data is read; the
data holds the training set (public) and the validation set (private).
Modes (``_gp_ucb.py``, ``_private_selection.py``) take a
:class:`SearchContext` and return their releases.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ._candidates import CandidateSet
from ._scorers import DPScorer

__all__ = ["SearchPlan", "SearchData", "SearchContext"]


@dataclass(frozen=True)
class SearchPlan:
    """Public settings of one fit, validated before any data is touched."""

    epsilon: float
    delta: float
    scorer: DPScorer
    offset: float  # GP units: z = (score - offset) / scale
    scale: float
    candidates: CandidateSet
    seed: int  # public seed (candidate set, public folds)
    tie_break: np.ndarray  # public permutation ranks of the candidates


@dataclass(frozen=True)
class SearchData:
    """The training set (public) and the validation set (private)."""

    X_train: Any
    y_train: Any
    X_val: Any
    y_val: Any
    fit_params: dict

    @property
    def n_validation(self) -> int:
        from sklearn.utils.validation import _num_samples

        return int(_num_samples(self.X_val))


@dataclass
class SearchContext:
    """Everything a mode needs: the estimator's settings, plan, data, tools."""

    search: Any  # the DPBayesSearchCV (its constructor parameters)
    plan: SearchPlan
    data: SearchData
    parallel: Any  # a joblib.Parallel
    rng: np.random.Generator  # noise generator (private; never stored)
    progress: Callable[[str], None]  # prints nothing private

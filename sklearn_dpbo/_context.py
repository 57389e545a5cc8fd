"""What a search mode receives: the public plan, the data, and callbacks.

The plan holds only public values, fixed before any data is read; the
data holds the training set (public) and the validation set (private).
Modes (``_gp_ucb.py``, ``_private_selection.py``) take a
:class:`SearchContext` and return their releases; they read their own
parameters from ``ctx.mode`` (a :class:`~._modes.SearchMode`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

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
    mode: Any = None  # the resolved mode object (_modes.SearchMode), public
    # Scorers of the other released metrics (several metrics): their
    # public-rows check must pass, like the selection scorer's, before the
    # validation set is read.
    other_scorers: tuple = ()


class SearchData:
    """The training set (public) and the validation set (private).

    ``on_private_read`` is called (once, successfully) the first time a mode
    reads ``X_val`` or ``y_val``: the search charges its accountant there,
    before any validation row reaches an estimator or a scorer (fail-closed:
    whatever happens afterwards, interruption or failure included, the
    budget stays spent). ``n_validation`` is the public size m and does not
    count as a read.
    """

    def __init__(
        self,
        X_train: Any,
        y_train: Any,
        X_val: Any,
        y_val: Any,
        fit_params: dict,
        on_private_read: Optional[Callable[[], None]] = None,
        groups: Any = None,
    ):
        self.X_train = X_train
        self.y_train = y_train
        self.fit_params = fit_params
        self._X_val = X_val
        self._y_val = y_val
        self._on_private_read = on_private_read
        self.groups = groups  # public owner ids of the validation rows, or None

    def _read(self):
        hook = self._on_private_read
        if hook is not None:
            hook()  # may raise (e.g. BudgetError): then nothing is read
            self._on_private_read = None

    @property
    def X_val(self) -> Any:
        self._read()
        return self._X_val

    @property
    def y_val(self) -> Any:
        self._read()
        return self._y_val

    @property
    def n_validation(self) -> int:
        from ._compat import _num_samples

        return int(_num_samples(self._X_val))


@dataclass
class SearchContext:
    """Everything a mode needs: the estimator's settings, plan, data, tools."""

    search: Any  # the DPBayesSearchCV (its mode-independent parameters)
    plan: SearchPlan
    data: SearchData
    parallel: Any  # a joblib.Parallel
    rng: Any  # noise source with randrange (private; never stored)
    progress: Callable[[str], None]  # prints nothing private

    @property
    def mode(self) -> Any:
        """The resolved mode object (its parameters; public)."""
        return self.plan.mode

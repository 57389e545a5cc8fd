"""What a search mode receives: the public plan, the data, and callbacks."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Optional

import numpy as np

from .._compat import _num_samples
from ..bo._candidates import CandidateSet
from ..privacy._records import RecordSchema
from ..privacy._scorers import DPScorer
from ..privacy._silence import quiet


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
    other_scorers: tuple = ()  # scorers of the other released metrics


class SearchData:
    """The training set (public) and the validation set (private);
    ``on_private_read`` is called (once, successfully) at the first read."""

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
        self._records: dict = {}  # mapped validation records, by target kind
        self._schemas: dict = {}  # public schemas, by target kind

    def records(self, scorer: DPScorer, estimator: Any):
        """The validation set mapped into the training set's schema (a read)."""
        kind = bool(scorer.maps_labels(estimator))
        if kind not in self._records:
            schema = self.schema(classes=kind)
            X_val, y_val = self.X_val, self.y_val  # the read (charged once)
            with quiet():  # a record's conversion must not warn
                self._records[kind] = schema.map(X_val, y_val)
        return self._records[kind]

    def schema(self, *, classes: bool):
        """The public schema of the training set (no validation row read)."""
        if classes not in self._schemas:
            self._schemas[classes] = RecordSchema.from_training(
                self.X_train, self.y_train, classes=classes
            )
        return self._schemas[classes]

    def prepare(self, plan: SearchPlan, other_scorers: dict, estimator: Any):
        """:func:`with_training_targets`, and the validation columns checked."""
        plan, other_scorers = with_training_targets(plan, other_scorers, self.y_train)
        for scorer in (plan.scorer, *other_scorers.values()):
            schema = self.schema(classes=bool(scorer.maps_labels(estimator)))
            schema.check_columns(self._X_val)
        return plan, other_scorers

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
        return int(_num_samples(self._X_val))


def with_training_targets(plan: SearchPlan, other_scorers: dict, y_train):
    """The plan and other scorers with the constants the training targets
    fix (``error_clip="auto"``); the GP units follow the bounds."""
    scorer = plan.scorer.for_training_targets(y_train)
    others = {k: s.for_training_targets(y_train) for k, s in other_scorers.items()}
    changes: dict = {"scorer": scorer}
    if plan.other_scorers:
        changes["other_scorers"] = tuple(others.values())
    if scorer is not plan.scorer:
        offset, scale = gp_units(plan.mode, scorer.bounds)
        changes.update(offset=offset, scale=scale)
        if plan.mode.method == "gp-ucb":
            check_gp_units(offset, scale, scorer.bounds, plan.mode)
    return replace(plan, **changes), others


def gp_units(mode, bounds) -> tuple[float, float]:
    """(offset, scale) of z = (score − offset)/scale: the mode's, else the
    midpoint and a quarter of the width of the scorer's range."""
    low, high = bounds
    offset = getattr(mode, "score_offset", None)
    scale = getattr(mode, "score_scale", None)
    return (
        (low + high) / 2 if offset is None else float(offset),
        (high - low) / 4 if scale is None else float(scale),
    )


def check_gp_units(offset: float, scale: float, bounds, mode) -> None:
    """Refuse GP units that inflate gp-ucb's privacy loss (before data):
    a scale below (high − low)/4, or a range mapped outside [−2, 2]."""
    low, high = bounds
    default = (float(high) - float(low)) / 4
    if scale < default * (1 - 1e-12):
        raise ValueError(
            f"score_scale={mode.score_scale!r} is below the scorer-range "
            f"default (high - low)/4 = {default:g}: method='gp-ucb' fixes its "
            "sensitivities in GP units (score - score_offset)/score_scale, so "
            f"it multiplies the privacy loss by {default:g}/score_scale. "
            f"Leave score_scale=None or pass a value >= {default:g}."
        )
    z_low, z_high = (low - offset) / scale, (high - offset) / scale
    if max(-z_low, z_high) > 2 * (1 + 1e-12):
        raise ValueError(
            f"score_offset={offset:g} with score_scale={scale:g} maps the "
            f"scorer's range [{low:g}, {high:g}] to [{z_low:.3g}, {z_high:.3g}] "
            "in GP units; method='gp-ucb' needs it inside [-2, 2] (else the "
            "evaluated candidates stand out by more than Delta_mu). Leave "
            f"score_offset=None (the midpoint {(low + high) / 2:g})."
        )


@dataclass
class SearchContext:
    """Everything a mode needs: the estimator's settings, plan, data, tools."""

    search: Any  # the DPBayesSearchCV (its mode-independent parameters)
    plan: SearchPlan
    data: SearchData
    parallel: Any  # a joblib.Parallel, or in_order for one job
    rng: Any  # noise source with randrange (private; never stored)
    progress: Any  # a _progress.ProgressPrinter: sealed at the first private read

    @property
    def mode(self) -> Any:
        """The resolved mode object (its parameters; public)."""
        return self.plan.mode

    def fit_args(self, params: dict) -> tuple:
        """(estimator, params, X_train, y_train, fit_params): a training-set fit."""
        d = self.data
        return self.search.estimator, params, d.X_train, d.y_train, d.fit_params

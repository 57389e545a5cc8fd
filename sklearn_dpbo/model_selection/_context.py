"""What a search mode receives: the public plan, the data, and callbacks.

The plan holds only public values, fixed before any data is read; the
data holds the training set (public) and the validation set (private).
Modes (``_gp_ucb.py``, ``_private_selection.py``) take a
:class:`SearchContext` and return their releases; they read their own
parameters from ``ctx.mode`` (a :class:`~._modes.SearchMode`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Optional

import numpy as np

from ..bo._candidates import CandidateSet
from ..privacy._scorers import DPScorer


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
        self._records: dict = {}  # mapped validation records, by target kind
        self._schemas: dict = {}  # public schemas, by target kind

    def records(self, scorer: DPScorer, estimator: Any):
        """The validation set mapped record by record into the training set's
        schema (:class:`~._records.RecordSchema`). Reads the validation set
        (the first read charges the accountant). Cached per target kind.
        """
        kind = bool(scorer.maps_labels(estimator))
        if kind not in self._records:
            from ..privacy._silence import quiet

            schema = self.schema(classes=kind)
            X_val, y_val = self.X_val, self.y_val  # the read (charged once)
            with quiet():  # a record's conversion must not warn
                self._records[kind] = schema.map(X_val, y_val)
        return self._records[kind]

    def schema(self, *, classes: bool):
        """The public schema of the training set (no validation row read)."""
        from ..privacy._records import RecordSchema

        if classes not in self._schemas:
            self._schemas[classes] = RecordSchema.from_training(
                self.X_train, self.y_train, classes=classes
            )
        return self._schemas[classes]

    def prepare(self, plan: SearchPlan, other_scorers: dict, estimator: Any):
        """The plan and the other metrics' scorers for this data (public).

        Before the private read: the scorers get the public constants the
        training targets fix (:func:`with_training_targets`), then the
        public schemas they need are read and the validation inputs'
        structure is checked against the training set's (DataFrame columns:
        public, like the shape). Raises before anything is charged.
        """
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
        from .._compat import _num_samples

        return int(_num_samples(self._X_val))


def with_training_targets(plan: SearchPlan, other_scorers: dict, y_train):
    """The plan and other scorers with the constants the training targets fix.

    A regression score with ``error_clip="auto"`` gets its clip from the
    public training targets (:meth:`DPScorer.for_training_targets`); the
    plan's GP units, derived from the scorer's bounds unless the mode sets
    them, follow its bounds (and are checked again for ``"gp-ucb"``).
    Public: the training set only.
    """
    scorer = plan.scorer.for_training_targets(y_train)
    others = {k: s.for_training_targets(y_train) for k, s in other_scorers.items()}
    changes: dict = {"scorer": scorer}
    if plan.other_scorers:
        changes["other_scorers"] = tuple(others.values())
    if scorer is not plan.scorer:
        low, high = scorer.bounds
        offset = getattr(plan.mode, "score_offset", None)
        scale = getattr(plan.mode, "score_scale", None)
        changes["offset"] = (low + high) / 2 if offset is None else float(offset)
        changes["scale"] = (high - low) / 4 if scale is None else float(scale)
        if plan.mode.method == "gp-ucb":
            _check_gp_units(changes["offset"], changes["scale"], low, high, scale)
    return replace(plan, **changes), others


def _check_gp_units(offset: float, scale: float, low, high, score_scale) -> None:
    """Refuse GP units that inflate gp-ucb's privacy loss (before data).

    The sensitivities of ``"gp-ucb"`` (Δ_μ, the score noise b) are fixed
    in GP units z = (score − offset)/scale. A scale below the default
    (high − low)/4 multiplies every score difference in GP units, hence
    the privacy loss, by default/scale. The GP's prior mean is 0, so
    candidates it has not evaluated sit at μ = 0 whatever the scores:
    an offset far from the scores separates evaluated from unevaluated
    candidates in μ_T by far more than Δ_μ, and the evaluated sequence
    is private. Policy: the scorer's whole range must map into
    [−2, 2], two prior standard deviations, as it does with the defaults
    (midpoint and a quarter of the width).
    """
    width = float(high) - float(low)
    default = width / 4
    if scale < default * (1 - 1e-12):
        raise ValueError(
            f"score_scale={score_scale!r} is below the scorer-range "
            f"default (high - low)/4 = {default:g}. In method='gp-ucb' the "
            "sensitivities are fixed in GP units (score - score_offset)/"
            "score_scale, so a smaller scale multiplies every score "
            f"difference, and the privacy loss, by {default:g}/score_scale. "
            f"Leave score_scale=None or pass a value >= {default:g}."
        )
    z_low, z_high = (low - offset) / scale, (high - offset) / scale
    if max(-z_low, z_high) > 2 * (1 + 1e-12):
        raise ValueError(
            f"score_offset={offset:g} with score_scale={scale:g} maps the "
            f"scorer's range [{low:g}, {high:g}] to [{z_low:.3g}, {z_high:.3g}] "
            "in GP units; method='gp-ucb' needs it inside [-2, 2] (two "
            "prior standard deviations, as the defaults give). The GP's "
            "prior mean is 0, so an offset far from the scores separates "
            "the candidates the private search evaluated from the others by "
            "more than the sensitivity Delta_mu. Leave score_offset=None "
            f"(the midpoint {(low + high) / 2:g}) or keep it within "
            "2 * score_scale of both ends of the range."
        )


@dataclass
class SearchContext:
    """Everything a mode needs: the estimator's settings, plan, data, tools."""

    search: Any  # the DPBayesSearchCV (its mode-independent parameters)
    plan: SearchPlan
    data: SearchData
    parallel: Any  # a joblib.Parallel
    rng: Any  # noise source with randrange (private; never stored)
    progress: Any  # a _progress.ProgressPrinter: sealed at the first private read

    @property
    def mode(self) -> Any:
        """The resolved mode object (its parameters; public)."""
        return self.plan.mode

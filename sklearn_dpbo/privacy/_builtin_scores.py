"""Built-in per-record private scores, ``make_dp_scorer`` and ``get_dp_scorer``.

Aggregate metrics that are not a mean of bounded per-record terms (F1, ROC
AUC, …) are refused with the reason.
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Union

import numpy as np
from scipy.special import expit

from ._scorers import DPScorer

AUTO_CLIP_QUANTILE = 0.95
"""Quantile q of ``error_clip="auto"`` (:func:`public_error_clip`)."""


def _onehot(y_true, proba, estimator):
    """(proba, y_true one-hot over ``classes_``): a zero row for an unknown label."""
    classes = np.asarray(estimator.classes_)
    proba = np.asarray(proba, dtype=float)
    onehot = np.asarray(y_true)[:, None] == classes[None, :]
    if proba.shape != onehot.shape:
        raise ValueError("predict_proba must return one column per class.")
    return proba, onehot


def _accuracy(y_true, y_pred, estimator=None) -> np.ndarray:
    y_true = np.asarray(y_true)
    eq = y_true == np.asarray(y_pred).reshape(y_true.shape)
    if eq.ndim > 1:  # multi-output: a record is right if every output is
        eq = eq.reshape(len(eq), -1).all(axis=1)
    return eq.astype(float)


def _log_loss(floor: float):
    def neg_log_loss(y_true, proba, estimator) -> np.ndarray:
        proba, onehot = _onehot(y_true, proba, estimator)
        return np.log(np.maximum(np.where(onehot, proba, 0.0).sum(axis=1), floor))

    return neg_log_loss


def _brier(y_true, proba, estimator) -> np.ndarray:
    proba, onehot = _onehot(y_true, proba, estimator)
    return -0.5 * np.sum((proba - onehot) ** 2, axis=1)


def _margin(loss):
    """The record value loss(y·w·x), y = +1 for ``classes_[1]``, −1 otherwise."""

    def record(y_true, z, estimator) -> np.ndarray:
        z = np.asarray(z, dtype=float)
        if z.ndim != 1:
            raise ValueError(
                "This score needs a binary classifier (1-D decision_function)."
            )
        return loss(np.where(np.asarray(y_true) == estimator.classes_[1], z, -z))

    return record


_LOSS, _DF = (-1.0, 0.0), "decision_function"
_SIMPLE = {  # name: (record value, bounds, response_method, lipschitz)
    "accuracy": (_accuracy, (0.0, 1.0), "predict", None),
    "neg_zero_one_loss": (lambda y, p, e: _accuracy(y, p) - 1, _LOSS, "predict", None),
    "neg_brier_score": (_brier, _LOSS, "predict_proba", None),
    # −1/(1 + exp(y w·x)): g ∈ (0, 1), so g* = 1; |dg/dz| ≤ 1/4 and z = y w·x
    # is ‖x‖-Lipschitz in w: g is R/4-Lipschitz in w for ‖x‖ ≤ R (Kusner et
    # al. 2015, Assumption 2).
    "neg_sigmoid_loss": (_margin(lambda z: -expit(-z)), _LOSS, _DF, 0.25),
    # −min(1, max(0, 1 − y w·x)): g ∈ [0, 1] (g* = 1) and 1-Lipschitz in the
    # margin: R-Lipschitz in w.
    "neg_ramp_loss": (_margin(lambda z: -np.clip(1.0 - z, 0.0, 1.0)), _LOSS, _DF, 1.0),
}


def _residual(y_true, y_pred) -> np.ndarray:
    y_true = np.asarray(y_true, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float).reshape(y_true.shape)
    err = np.abs(y_true - y_pred)
    if err.ndim > 1:  # multi-output: the mean error of the record's outputs
        err = err.reshape(len(err), -1).mean(axis=1)
    return err


_REGRESSION = {  # name: (value at a clipped error e ≤ c, lowest value: at e = c)
    "neg_mean_absolute_error": (lambda e, d, v: -e, lambda c, d, v: -c),
    "neg_mean_squared_error": (lambda e, d, v: -(e**2), lambda c, d, v: -(c * c)),
    "neg_huber_loss": (  # the lowest value written out: np.where could overflow
        lambda e, d, v: -np.where(e <= d, 0.5 * e**2, d * (e - 0.5 * d)),
        lambda c, d, v: -(0.5 * c * c if c <= d else d * (c - 0.5 * d)),
    ),
    "r2": (lambda e, d, v: 1.0 - e**2 / v, lambda c, d, v: 1.0 - c * c / v),
}


def _training_targets(y_train) -> np.ndarray:
    if y_train is None:
        raise ValueError(
            "error_clip='auto' derives the clip from the training targets, "
            "and y is None. Pass y, or error_clip=c."
        )
    try:
        y = np.asarray(y_train, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            "A regression score needs numeric training targets to derive "
            f"error_clip='auto' from ({exc})."
        ) from None
    if y.ndim == 0 or len(y) == 0 or not np.all(np.isfinite(y)):
        raise ValueError(
            "error_clip='auto' needs a non-empty array of finite training "
            "targets; pass error_clip=c otherwise."
        )
    return y


def public_error_clip(y_train) -> float:
    """The per-record error clip derived from the public training targets.

    c = the 0.95-quantile (``AUTO_CLIP_QUANTILE``) of |y_i − median(y_train)|
    (with several outputs, the mean over a record's outputs); the largest
    distance if that quantile is 0; constant targets raise ``ValueError``.

    Examples
    --------
    >>> public_error_clip([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0])
    5.0
    """
    y = _training_targets(y_train)
    distance = _residual(y, np.broadcast_to(np.median(y, axis=0), y.shape))
    c = float(np.quantile(distance, AUTO_CLIP_QUANTILE))
    if not c > 0:
        c = float(np.max(distance))
    if not (math.isfinite(c) and c > 0):
        raise ValueError(
            "error_clip='auto': the training targets are constant, so they give "
            "no scale for the clip. Pass error_clip=c (a public bound on one "
            "record's |y - y_pred|)."
        )
    return c


class _TrainingTargetScore(DPScorer):
    """A regression score whose ``"auto"`` constants await the training targets.

    Until :meth:`for_training_targets`, ``bounds`` are those of a clip (and
    variance) of 1 and scoring raises.
    """

    needs_training_targets = True

    def __init__(self, name: str, params: dict, auto: list):
        self.score_name, self.params, self._auto = name, dict(params), auto
        unit = _named_scorer(name, {**self.params, **dict.fromkeys(self._auto, 1.0)})
        auto = ", ".join(f"{k}='auto'" for k in self._auto)
        super().__init__(
            unit.record_score,
            bounds=unit.bounds,
            response_method=unit.response_method,
            name=f"{name}({auto})",
        )
        self._with_estimator, self.target = True, "numeric"

    def for_training_targets(self, y_train) -> DPScorer:
        """The score with its ``"auto"`` constants computed from ``y_train``."""
        y = _training_targets(y_train)
        constants, derived = {}, []
        if "error_clip" in self._auto:
            constants["error_clip"] = clip = public_error_clip(y)
            derived.append(
                f"error_clip={clip:.6g}, the {AUTO_CLIP_QUANTILE:g}-quantile of "
                f"|y - median(y)| over the {len(y)} training targets"
            )
        if "target_variance" in self._auto:
            variance = float(np.mean(np.var(y.reshape(len(y), -1), axis=0)))
            if not (math.isfinite(variance) and variance > 0):
                raise ValueError(
                    "target_variance='auto': the training targets are constant. "
                    "Pass target_variance=v (a public variance of the target)."
                )
            constants["target_variance"] = variance
            derived.append(
                f"target_variance={variance:.6g}, the variance of the "
                f"{len(y)} training targets"
            )
        scorer = _named_scorer(self.score_name, {**self.params, **constants})
        scorer.public_note = (
            f"the score {self.score_name!r} uses "
            + " and ".join(derived)
            + ", computed from the public training targets before the "
            "validation set was read (the training set is public)"
        )
        return scorer

    def _unbound(self, *args, **kwargs):
        raise ValueError(
            f"{self.name} has no clip yet: it is derived from the public training "
            "targets when a search fits (DPBayesSearchCV calls "
            "for_training_targets(y_train) before reading the validation set). "
            "To score directly, use make_dp_scorer(...).for_training_targets("
            "y_train) or pass error_clip=c."
        )

    _raw = record_values = private_values = check_public_rows = metric = _unbound


def _builtin(func, bounds, name, response_method="predict", lipschitz=None) -> DPScorer:
    s = DPScorer(func, bounds=bounds, response_method=response_method, name=name)
    s._with_estimator = True
    s.lipschitz = lipschitz
    s.target = "numeric" if name.split("(")[0] in _REGRESSION else "classes"
    return s


def _positive(name: str, value, what: str) -> float:
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a finite number > 0 ({what}); got {value!r}.")
    return v


def _named_scorer(name: str, params: dict) -> DPScorer:
    """Built-in per-record score ``name`` with its public constants ``params``."""

    def take(*allowed):
        extra = sorted(set(params) - set(allowed))
        if extra:
            raise TypeError(
                f"{name!r} takes the public constants {list(allowed) or 'none'}; "
                f"got unexpected {extra}."
            )

    if name in _SIMPLE:
        take()
        func, bounds, response_method, lipschitz = _SIMPLE[name]
        return _builtin(func, bounds, name, response_method, lipschitz)
    if name == "neg_log_loss":
        take("floor")
        floor = params.get("floor", 1e-3)
        if not (0 < float(floor) < 1):
            raise ValueError(f"floor must be in (0, 1); got {floor!r}.")
        floor = float(floor)
        label = f"neg_log_loss(floor={floor:g})"
        return _builtin(
            _log_loss(floor), (math.log(floor), 0.0), label, "predict_proba"
        )
    if name == "neg_hinge_loss":
        take("clip")
        clip = _positive("clip", params.get("clip", 2.0), "largest hinge loss counted")
        label = f"neg_hinge_loss(clip={clip:g})"
        hinge = _margin(lambda z: -np.clip(1.0 - z, 0.0, clip))
        return _builtin(hinge, (-clip, 0.0), label, _DF)
    if name in _REGRESSION:
        keys = ["error_clip"] + (["target_variance"] if name == "r2" else [])
        take(*keys, *(["huber_delta"] if name == "neg_huber_loss" else []))
        for key in keys:
            value = params.get(key, "auto")
            if isinstance(value, str) and value != "auto" or value is None:
                raise ValueError(
                    f"{key} must be 'auto' (derived from the public training "
                    f"targets) or a number > 0; got {value!r}."
                )
        auto = [k for k in keys if isinstance(params.get(k, "auto"), str)]
        if auto:
            return _TrainingTargetScore(name, params, auto)
        c = _positive(
            "error_clip", params["error_clip"], "largest |y - y_pred| counted"
        )
        label = f"{name}(error_clip={c:g}"
        d = _positive("huber_delta", params.get("huber_delta", 1.0), "Huber threshold")
        if name == "neg_huber_loss":
            label += f", huber_delta={d:g}"
        v = params.get("target_variance")
        if name == "r2":
            v = _positive("target_variance", v, "public variance of the target")
            label += f", target_variance={v:g}"
        value, lowest = _REGRESSION[name]

        def record(y_true, y_pred, estimator=None) -> np.ndarray:
            return value(np.minimum(_residual(y_true, y_pred), c), d, v)

        bounds = (lowest(c, d, v), 1.0 if name == "r2" else 0.0)
        return _builtin(record, bounds, label + ")")
    raise ValueError(_unknown_message(name))


BUILTIN_SCORES = (
    *"accuracy neg_zero_one_loss neg_log_loss neg_brier_score".split(),
    *"neg_hinge_loss neg_sigmoid_loss neg_ramp_loss".split(),
    *_REGRESSION,
)
# Aggregate metrics one record can move by far more than 1/m.
_NON_DECOMPOSABLE = {
    "f1": "accuracy",
    "roc_auc": "neg_log_loss or neg_brier_score",
    "balanced_accuracy": "accuracy",
    "precision": "accuracy",
    "recall": "accuracy",
    "average_precision": "neg_log_loss or neg_brier_score",
    "jaccard": "accuracy",
    "matthews_corrcoef": "accuracy",
    "explained_variance": "r2",
    "max_error": "neg_mean_absolute_error",
    "neg_median_absolute_error": "neg_mean_absolute_error",
    "top_k_accuracy": "accuracy",
}


def _unknown_message(name: str) -> str:
    base = name
    for suffix in ("_macro", "_micro", "_weighted", "_samples", "_ovr", "_ovo"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    if base in _NON_DECOMPOSABLE:
        return (
            f"scoring={name!r} is refused: it is not a mean of bounded "
            "per-record terms, so swapping one validation record can move it "
            "by far more than 1/m and no sensitivity computed from public "
            f"constants would hold. Use {_NON_DECOMPOSABLE[base]!r} instead "
            f"(private scores: {list(BUILTIN_SCORES)}), or "
            "make_dp_scorer(per_record_function, bounds=(low, high))."
        )
    return (
        f"scoring={name!r} is not a private score. Use one of "
        f"{list(BUILTIN_SCORES)} as a string, make_dp_scorer(name, ...) for "
        "their public constants, or "
        "make_dp_scorer(per_record_function, bounds=(low, high))."
    )


def make_dp_scorer(
    score: Union[str, Callable],
    *,
    bounds: Optional[tuple[float, float]] = None,
    response_method: str = "predict",
    greater_is_better: bool = True,
    **params,
) -> DPScorer:
    """Build a private score from a built-in name or a per-record function.

    Parameters
    ----------
    score : str or callable
        A built-in name (``"accuracy"``, ``"neg_log_loss"``,
        ``"neg_brier_score"``, ``"neg_zero_one_loss"``, ``"neg_hinge_loss"``,
        ``"neg_sigmoid_loss"``, ``"neg_ramp_loss"``,
        ``"neg_mean_absolute_error"``, ``"neg_mean_squared_error"``,
        ``"neg_huber_loss"``, ``"r2"``) with its public constants in
        ``params``, or a per-record function ``f(y_true, out) -> (m,)
        array`` (one value per record, computed from that record only).
    bounds : (low, high), optional
        Required with a function: the public range each record's value is
        clipped into (after the sign flip of ``greater_is_better=False``).
    response_method : str, default="predict"
        With a function: the estimator method whose output is ``out``.
    greater_is_better : bool, default=True
        With a function: ``False`` for a loss (it is negated).
    **params
        Public constants of a built-in score:

        - ``neg_log_loss``: ``floor`` (default 1e-3): record value
          log(max(p(y_i), floor)) ∈ [log floor, 0];
        - ``neg_hinge_loss``: ``clip`` (default 2): −min(max(0, 1 − y f), clip);
        - ``neg_mean_absolute_error`` / ``neg_mean_squared_error`` /
          ``neg_huber_loss`` (``huber_delta``, default 1): ``error_clip``
          c, each record's error is min(|y − ŷ|, c): a public number, or
          ``"auto"`` (default), derived from the public training targets
          (:func:`public_error_clip`) and stated in ``privacy_report_``;
        - ``r2``: ``error_clip`` and ``target_variance`` (default ``"auto"``:
          the variance of the training targets): record value
          1 − min(|y − ŷ|, c)²/v, with a *public* variance v.

    Returns
    -------
    DPScorer

    Examples
    --------
    >>> s = make_dp_scorer("neg_mean_squared_error", error_clip=3.0)
    >>> s.bounds
    (-9.0, 0.0)
    >>> auto = make_dp_scorer("neg_mean_squared_error")  # error_clip="auto"
    >>> auto.for_training_targets([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).bounds
    (-25.0, 0.0)
    """
    if "sensitivity" in params:
        raise TypeError(
            "make_dp_scorer() takes no sensitivity=: the sensitivity "
            "follows from the public bounds, (high - low)/m for the mean of m "
            "per-record values clipped into [low, high] (see "
            "scorer.sensitivity_for(m)). Pass bounds=(low, high) with a "
            "per-record function, or a built-in name with its public constants "
            "instead, e.g. make_dp_scorer('neg_mean_squared_error', "
            "error_clip=3.0)."
        )
    if isinstance(score, str):
        if bounds is not None:
            raise TypeError(
                f"bounds are fixed by the built-in score {score!r}; pass its "
                "public constants instead (see make_dp_scorer's docstring)."
            )
        return _named_scorer(score, params)
    if params:
        raise TypeError(
            f"make_dp_scorer(function, ...) got unexpected {sorted(params)}: a "
            "per-record function takes only bounds, response_method and "
            "greater_is_better."
        )
    if bounds is None:
        raise ValueError(
            "make_dp_scorer(function) needs bounds=(low, high): the public range "
            "each record's value is clipped into."
        )
    return DPScorer(
        score,
        bounds=bounds,
        response_method=response_method,
        greater_is_better=greater_is_better,
        name=getattr(score, "__name__", "custom"),
    )


def get_dp_scorer(scoring, estimator) -> DPScorer:
    """Resolve a search's ``scoring`` (``None``: accuracy for classifiers)."""
    from sklearn.base import is_classifier, is_regressor

    if isinstance(scoring, DPScorer):
        return scoring
    if scoring is None:
        if is_classifier(estimator):
            return _named_scorer("accuracy", {})
        if is_regressor(estimator):
            raise ValueError(
                "scoring=None: a regressor has no default private score; pass "
                "e.g. scoring='neg_mean_squared_error'. A regression score such "
                "as 'neg_mean_squared_error' clips each record's error: one "
                "record's error is unbounded, so it could move the mean without "
                "limit. scoring='neg_mean_squared_error' (or "
                "'neg_mean_absolute_error', 'neg_huber_loss', 'r2') derives the "
                "clip from the public training targets (error_clip='auto', "
                "stated in privacy_report_); make_dp_scorer(name, error_clip=c) "
                "sets it from public knowledge of the target, never from the "
                "validation data. Errors above c count as c."
            )
        raise ValueError(
            "scoring=None: only classifiers have a default private score "
            "(accuracy). Pass scoring=make_dp_scorer(per_record_function, "
            "bounds=(low, high)) for this estimator."
        )
    if isinstance(scoring, str):
        if scoring in BUILTIN_SCORES:
            return _named_scorer(scoring, {})
        raise ValueError(_unknown_message(scoring))
    if callable(scoring):
        what = getattr(scoring, "__name__", type(scoring).__name__)
        raise TypeError(
            "scoring must be None, a string naming a private score or a "
            f"DPScorer; got a callable ({what}). "
            "A scikit-learn scorer returns one aggregate number, whose "
            "sensitivity to one validation record the library cannot bound. "
            "Give the per-record version: make_dp_scorer(per_record_function, "
            "bounds=(low, high)), or one of " + str(list(BUILTIN_SCORES)) + "."
        )
    raise TypeError(
        "scoring must be None, a string naming a private score "
        f"({list(BUILTIN_SCORES)}) or a DPScorer; got an object of type "
        f"{type(scoring).__name__}."
    )

"""The library's built-in private scores and the scorer factories.

Each built-in score is a per-record function r(y_i, out_i) with public
bounds (``DPScorer``): accuracy and zero-one loss, log-loss with a public
probability floor, Brier score, the clipped hinge and the Lipschitz
surrogates of Kusner et al. (sigmoid, ramp), and regression errors with a
public clip (MAE, MSE, Huber, R² against a public variance). Aggregate
metrics that are not such a mean (F1, ROC AUC, …) are refused with the
reason. ``make_dp_scorer`` builds a score from a name or a per-record
function; ``get_dp_scorer`` resolves a search's ``scoring`` parameter.
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Union

import numpy as np

from ._scorers import DPScorer

__all__ = ["BUILTIN_SCORES", "get_dp_scorer", "make_dp_scorer"]


# ---------------------------------------------------------------------------
# Per-record values of the built-in scores
# ---------------------------------------------------------------------------


def _proba_of_true_class(y_true, proba, estimator) -> np.ndarray:
    """p(y_i) per record; 0 for a label the model does not know."""
    classes = np.asarray(estimator.classes_)
    y_true = np.asarray(y_true)
    proba = np.asarray(proba, dtype=float)
    if proba.ndim != 2 or proba.shape[1] != len(classes):
        raise ValueError("predict_proba must return one column per class.")
    out = np.zeros(len(y_true))
    for k, c in enumerate(classes):
        hit = y_true == c
        out[hit] = proba[hit, k]
    return out


def _accuracy(y_true, y_pred, estimator=None) -> np.ndarray:
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_pred.shape != y_true.shape:
        y_pred = y_pred.reshape(y_true.shape)
    eq = y_true == y_pred
    if eq.ndim > 1:  # multi-output: a record is right if every output is
        eq = eq.reshape(len(eq), -1).all(axis=1)
    return eq.astype(float)


def _log_loss(floor: float):
    def neg_log_loss(y_true, proba, estimator) -> np.ndarray:
        p = _proba_of_true_class(y_true, proba, estimator)
        return np.log(np.maximum(p, floor))

    return neg_log_loss


def _brier(y_true, proba, estimator) -> np.ndarray:
    classes = np.asarray(estimator.classes_)
    proba = np.asarray(proba, dtype=float)
    onehot = (np.asarray(y_true)[:, None] == classes[None, :]).astype(float)
    if proba.shape != onehot.shape:
        raise ValueError("predict_proba must return one column per class.")
    return -0.5 * np.sum((proba - onehot) ** 2, axis=1)


def _signed_margins(y_true, z, estimator) -> np.ndarray:
    """y·w·x for a binary linear classifier, with y = +1 for ``classes_[1]``.

    Every label other than ``classes_[1]`` counts as −1, so a validation
    label the training set never had is a (badly) misclassified record.
    """
    z = np.asarray(z, dtype=float)
    if z.ndim != 1:
        raise ValueError(
            "This score needs a binary classifier (1-D decision_function)."
        )
    positive = np.asarray(y_true) == estimator.classes_[1]
    return np.where(positive, z, -z)


def _sigmoid_loss(y_true, z, estimator) -> np.ndarray:
    """−1/(1 + exp(y w·x)) per record: the normalised sigmoid loss, negated.

    g ∈ (0, 1), so g* = 1; |dg/dz| ≤ 1/4 and z = y w·x is ‖x‖-Lipschitz in
    w: g is R/4-Lipschitz in w for ‖x‖ ≤ R (Kusner et al. 2015, Assumption 2).
    """
    from scipy.special import expit

    return -expit(-_signed_margins(y_true, z, estimator))


def _ramp_loss(y_true, z, estimator) -> np.ndarray:
    """−min(1, max(0, 1 − y w·x)) per record: the ramp loss, negated.

    g ∈ [0, 1] (g* = 1) and 1-Lipschitz in the margin: R-Lipschitz in w.
    """
    return -np.clip(1.0 - _signed_margins(y_true, z, estimator), 0.0, 1.0)


def _hinge(clip: float):
    def neg_hinge_loss(y_true, z, estimator) -> np.ndarray:
        return -np.minimum(
            np.maximum(0.0, 1.0 - _signed_margins(y_true, z, estimator)), clip
        )

    return neg_hinge_loss


def _residual(y_true, y_pred) -> np.ndarray:
    y_true = np.asarray(y_true, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float).reshape(y_true.shape)
    err = np.abs(y_true - y_pred)
    if err.ndim > 1:  # multi-output: the mean error of the record's outputs
        err = err.reshape(len(err), -1).mean(axis=1)
    return err


def _regression(kind: str, clip: float, huber_delta: float = 1.0, variance=None):
    def record(y_true, y_pred, estimator=None) -> np.ndarray:
        e = np.minimum(_residual(y_true, y_pred), clip)
        if kind == "mae":
            return -e
        if kind == "mse":
            return -(e**2)
        if kind == "huber":
            d = huber_delta
            return -np.where(e <= d, 0.5 * e**2, d * (e - 0.5 * d))
        return 1.0 - e**2 / variance  # r2 against a public variance

    return record


# ---------------------------------------------------------------------------
# Built-in scores
# ---------------------------------------------------------------------------


def _builtin(func, bounds, name, response_method="predict", lipschitz=None) -> DPScorer:
    s = DPScorer(func, bounds=bounds, response_method=response_method, name=name)
    s._with_estimator = True
    s.lipschitz = lipschitz
    # Regression scores compare numbers; every other built-in compares labels.
    s.target = "numeric" if name.split("(")[0] in (*_REGRESSION, "r2") else "classes"
    return s


def _positive(name: str, value, what: str) -> float:
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a finite number > 0 ({what}); got {value!r}.")
    return v


_REGRESSION = {
    "neg_mean_absolute_error": "mae",
    "neg_mean_squared_error": "mse",
    "neg_huber_loss": "huber",
}


def _named_scorer(name: str, params: dict) -> DPScorer:
    """Built-in per-record score ``name`` with its public constants ``params``."""

    def take(*allowed):
        extra = sorted(set(params) - set(allowed))
        if extra:
            raise TypeError(
                f"{name!r} takes the public constants {list(allowed) or 'none'}; "
                f"got unexpected {extra}."
            )

    if name == "accuracy":
        take()
        return _builtin(_accuracy, (0.0, 1.0), "accuracy")
    if name == "neg_zero_one_loss":
        take()
        return _builtin(
            lambda y, p, e: _accuracy(y, p) - 1.0, (-1.0, 0.0), "neg_zero_one_loss"
        )
    if name == "neg_log_loss":
        take("floor")
        floor = params.get("floor", 1e-3)
        if not (0 < float(floor) < 1):
            raise ValueError(f"floor must be in (0, 1); got {floor!r}.")
        floor = float(floor)
        return _builtin(
            _log_loss(floor),
            (math.log(floor), 0.0),
            f"neg_log_loss(floor={floor:g})",
            "predict_proba",
        )
    if name == "neg_brier_score":
        take()
        return _builtin(_brier, (-1.0, 0.0), "neg_brier_score", "predict_proba")
    if name == "neg_sigmoid_loss":
        take()
        return _builtin(
            _sigmoid_loss, (-1.0, 0.0), name, "decision_function", lipschitz=0.25
        )
    if name == "neg_ramp_loss":
        take()
        return _builtin(
            _ramp_loss, (-1.0, 0.0), name, "decision_function", lipschitz=1.0
        )
    if name == "neg_hinge_loss":
        take("clip")
        clip = _positive("clip", params.get("clip", 2.0), "largest hinge loss counted")
        return _builtin(
            _hinge(clip),
            (-clip, 0.0),
            f"neg_hinge_loss(clip={clip:g})",
            "decision_function",
        )
    if name in _REGRESSION or name == "r2":
        allowed = ["error_clip"] + (["huber_delta"] if name == "neg_huber_loss" else [])
        if name == "r2":
            allowed.append("target_variance")
        take(*allowed)
        if "error_clip" not in params:
            raise ValueError(_regression_message(name))
        clip = _positive(
            "error_clip", params["error_clip"], "largest |y - y_pred| counted"
        )
        kind = _REGRESSION.get(name, "r2")
        if kind == "mae":
            return _builtin(
                _regression("mae", clip), (-clip, 0.0), f"{name}(error_clip={clip:g})"
            )
        if kind == "mse":
            return _builtin(
                _regression("mse", clip),
                (-(clip**2), 0.0),
                f"{name}(error_clip={clip:g})",
            )
        if kind == "huber":
            d = _positive(
                "huber_delta", params.get("huber_delta", 1.0), "Huber threshold"
            )
            top = 0.5 * clip**2 if clip <= d else d * (clip - 0.5 * d)
            return _builtin(
                _regression("huber", clip, huber_delta=d),
                (-top, 0.0),
                f"{name}(error_clip={clip:g}, huber_delta={d:g})",
            )
        if "target_variance" not in params:
            raise ValueError(_regression_message(name))
        var = _positive(
            "target_variance",
            params["target_variance"],
            "public variance of the target",
        )
        return _builtin(
            _regression("r2", clip, variance=var),
            (1.0 - clip**2 / var, 1.0),
            f"r2(error_clip={clip:g}, target_variance={var:g})",
        )
    raise ValueError(_unknown_message(name))


# Usable as a bare string (no public constant required).
_STRING_READY = (
    "accuracy",
    "neg_zero_one_loss",
    "neg_log_loss",
    "neg_brier_score",
    "neg_hinge_loss",
    "neg_sigmoid_loss",
    "neg_ramp_loss",
)
# Every built-in score; the regression ones need public constants.
BUILTIN_SCORES = _STRING_READY + (*_REGRESSION, "r2")

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
    "explained_variance": "r2 with target_variance and error_clip",
    "max_error": "neg_mean_absolute_error with error_clip",
    "neg_median_absolute_error": "neg_mean_absolute_error with error_clip",
    "top_k_accuracy": "accuracy",
}


def _regression_message(name: str) -> str:
    return (
        f"scoring={name!r} needs a public clip on each record's error: one "
        "record's error is unbounded, so it could move the mean without "
        "limit. Use make_dp_scorer("
        f"{name!r}, error_clip=c{', target_variance=v' if name == 'r2' else ''}) "
        "with c (and v) chosen from public knowledge of the target, never "
        "from the validation data; errors above c count as c. Regression "
        "scores: neg_mean_absolute_error, neg_mean_squared_error, "
        "neg_huber_loss, r2 (1 - MSE / a public target variance)."
    )


def _unknown_message(name: str) -> str:
    base = name
    for suffix in ("_macro", "_micro", "_weighted", "_samples", "_ovr", "_ovo"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    base = base.replace("_ovr_weighted", "").replace("_ovo_weighted", "")
    if base in _NON_DECOMPOSABLE:
        return (
            f"scoring={name!r} is refused: it is not a mean of bounded "
            "per-record terms, so swapping one validation record can move it "
            "by far more than 1/m and no sensitivity computed from public "
            f"constants would hold. Use {_NON_DECOMPOSABLE[base]!r} instead "
            f"(private scores: {list(BUILTIN_SCORES)}), or "
            "make_dp_scorer(per_record_function, bounds=(low, high))."
        )
    if name == "r2" or name in _REGRESSION:
        return _regression_message(name)
    return (
        f"scoring={name!r} is not a private score. Use one of "
        f"{list(_STRING_READY)} as a string, a regression score through "
        "make_dp_scorer(name, error_clip=...), or "
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
          (required), the error min(|y − ŷ|, error_clip) of each record;
        - ``r2``: ``error_clip`` and ``target_variance`` (required): record
          value 1 − min(|y − ŷ|, c)²/v, so the mean is 1 − MSE_c / v with a
          *public* variance v instead of the validation set's own.

    Returns
    -------
    DPScorer

    Examples
    --------
    >>> s = make_dp_scorer("neg_mean_squared_error", error_clip=3.0)
    >>> s.bounds
    (-9.0, 0.0)
    """
    if "sensitivity" in params:
        raise TypeError(
            "make_dp_scorer() no longer takes sensitivity=: the sensitivity "
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
    name = getattr(score, "__name__", "custom")
    return DPScorer(
        score,
        bounds=bounds,
        response_method=response_method,
        greater_is_better=greater_is_better,
        name=name,
    )


def get_dp_scorer(scoring, estimator) -> DPScorer:
    """Resolve the ``scoring`` parameter of a search into a :class:`DPScorer`.

    ``None`` means accuracy for classifiers; other estimators must say how
    they are scored.
    """
    from sklearn.base import is_classifier, is_regressor

    if isinstance(scoring, DPScorer):
        return scoring
    if scoring is None:
        if is_classifier(estimator):
            return _named_scorer("accuracy", {})
        if is_regressor(estimator):
            raise ValueError(
                "scoring=None: a regressor has no default private score. "
                + _regression_message("neg_mean_squared_error")
            )
        raise ValueError(
            "scoring=None: only classifiers have a default private score "
            "(accuracy). Pass scoring=make_dp_scorer(per_record_function, "
            "bounds=(low, high)) for this estimator."
        )
    if isinstance(scoring, str):
        if scoring in _STRING_READY:
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
            "bounds=(low, high)), or one of " + str(list(_STRING_READY)) + "."
        )
    raise TypeError(
        "scoring must be None, a string naming a private score "
        f"({list(_STRING_READY)}) or a DPScorer; got an object of type "
        f"{type(scoring).__name__}."
    )

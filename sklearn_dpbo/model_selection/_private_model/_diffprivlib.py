"""diffprivlib models as candidates of the private-model mode (optional extra).

The mode trusts a learner's per-fit cost only where it can be read from its
parameters and the fit reads nothing else from the rows. For diffprivlib
(``pip install "sklearn-dpbo[dp-learners]"``; 0.6.6 runs with scikit-learn
1.7) that holds, from its source (``models/{logistic,linear}_regression.py``,
0.6.6), in a narrow configuration checked here before any row is read:

- ``LogisticRegression`` (CMS 2011, Algorithm 2): ``fit_intercept=False``
  (diffprivlib does not regularise the intercept, so CMS's theorem does not
  cover it) and a given ``0 < data_norm <= 1`` (CMS's proof bounds the
  Jacobian's eigenvalues by c R², diffprivlib's ε′ = ε − 2 log(1 + c R C)
  uses R: the same for R = 1, conservative below). Labels: 1 is positive,
  any other label 0; two public zero rows (labels 0 and 1) are appended so
  ``classes_`` is always [0, 1] (with no intercept a zero row adds nothing
  to the gradient, and the minimiser of diffprivlib's (1/N)-scaled
  objective does not depend on N). ``n_iter_`` (data- and noise-dependent)
  is removed.
- ``LinearRegression`` (functional mechanism, Zhang et al., VLDB 2012):
  ``fit_intercept=False`` (its private centring spends ε(d + 2)/(d + 1) and
  shifts the bounds privately: upstream issue #104), given ``bounds_X``
  with lower ≤ 0 and −lower ≥ upper per feature (the sensitivity of Σx_j²
  is computed from the lower bound only, issue #105) and ``bounds_y``;
  rows are clipped here, per row, to the bounds.

Both: ``random_state=None`` (``secrets.SystemRandom``; a seed would use a
Mersenne Twister), no privacy parameter searched, non-finite rows set to 0
(per row), a fresh ``BudgetAccountant`` per fit (the process-wide one is
neither read nor charged). LogisticRegression fits with ``n_jobs=1`` and
``verbose=0`` (then put back): nothing printed or warned per run.
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Any

import numpy as np

VETTED = ((0, 6, 6), (0, 7))
"""diffprivlib versions accepted: [0.6.6, 0.7), the source read for this module."""
_VETTED_TEXT = ">= 0.6.6, < 0.7"

# Parameters that set the per-fit cost, the bounds or the noise source: never
# searched (a candidate could set them to an unchecked value).
_PRIVACY_PARAMS = {
    "epsilon",
    "data_norm",
    "bounds",
    "bounds_X",
    "bounds_y",
    "fit_intercept",
    "random_state",
    "accountant",
    "warm_start",
}

DIFFPRIVLIB_ASSUMPTION = {
    "LogisticRegression": (
        "the learner's fit is epsilon-DP at the epsilon the mode sets, as "
        "diffprivlib 0.6.x implements it (trusted, not audited here): "
        "objective perturbation, Chaudhuri, Monteleoni & Sarwate, JMLR 2011, "
        "Algorithm 2, with rows clipped to data_norm <= 1 and no intercept "
        "(both checked); and, unproven, that L-BFGS-B's stopping point (tol, "
        "max_iter) is as private as the exact minimiser CMS's theorem covers "
        "(diffprivlib adds no slack for it, unlike sklearn_dpbo.dp_learners); "
        "its noise "
        "(secrets.SystemRandom, floating point) has the stated density"
    ),
    "LinearRegression": (
        "the learner's fit is epsilon-DP at the epsilon the mode sets, as "
        "diffprivlib 0.6.x implements it (trusted, not audited here): "
        "functional mechanism, Zhang et al., VLDB 2012, Laplace on the "
        "coefficients of the squared loss, each at epsilon/(1 + d + d(d+1)/2), "
        "with rows clipped to bounds_X, bounds_y by the library, no intercept "
        "and lower <= -upper per feature (both checked); its Laplace noise "
        "(secrets.SystemRandom, floating point) has the stated density"
    ),
}
"""What ``privacy_report_`` says the guarantee rests on, per supported class."""


def is_diffprivlib(estimator: Any) -> bool:
    """True when ``estimator``'s class comes from the ``diffprivlib`` package."""
    return type(estimator).__module__.split(".")[0] == "diffprivlib"


def _models():
    try:
        import diffprivlib
        from diffprivlib import models
    except ImportError as exc:
        raise TypeError(
            "method='private-model' cannot use diffprivlib here: it does not "
            f"import with this scikit-learn ({exc}). Install the extra "
            "'sklearn-dpbo[dp-learners]' (diffprivlib with scikit-learn < 1.8) "
            "or use a learner of sklearn_dpbo.dp_learners."
        ) from None
    version = tuple(int(v) for v in re.findall(r"\d+", diffprivlib.__version__)[:3])
    if not VETTED[0] <= version < VETTED[1]:
        raise TypeError(
            f"method='private-model' trusts diffprivlib {_VETTED_TEXT} only (the "
            f"versions whose source was read for it); found "
            f"{diffprivlib.__version__}. Install 'sklearn-dpbo[dp-learners]'."
        )
    return {"LogisticRegression": models.LogisticRegression,
            "LinearRegression": models.LinearRegression}  # fmt: skip


def _bound_pair(value, name: str) -> tuple[np.ndarray, np.ndarray]:
    if value is None:
        raise ValueError(
            f"{name}=None: diffprivlib would read the bounds from the data "
            "(its PrivacyLeakWarning). In method='private-model' give public "
            f"bounds, e.g. {name}=(-1.0, 1.0), chosen without the data."
        )
    if not isinstance(value, tuple):  # diffprivlib's check_bounds: TypeError
        raise TypeError(
            f"{name} must be a tuple (lower, upper), as diffprivlib requires; "
            f"got {type(value).__name__} {value!r}. Pass e.g. {name}=(-1.0, 1.0)."
        )
    try:
        lower, upper = (np.asarray(v, float) for v in value)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a pair (lower, upper); got {value!r}."
        ) from None
    if not (lower.ndim <= 1 and upper.ndim <= 1 and lower.size == upper.size):
        raise ValueError(
            f"{name}: lower and upper must be two scalars or two 1-D arrays of "
            f"the same length; got {value!r}."
        )
    lower, upper = np.broadcast_arrays(lower, upper)
    if not (np.isfinite(lower).all() and np.isfinite(upper).all()):
        raise ValueError(f"{name} must hold finite numbers; got {value!r}.")
    if (lower > upper).any():
        raise ValueError(f"{name}: every lower bound must be <= its upper bound.")
    return lower, upper


def check_diffprivlib_learner(estimator: Any, names) -> None:
    """Refuse, before any row is read, a diffprivlib model (with the searched
    ``names``) whose per-fit cost the mode cannot trust (module docstring)."""
    models = _models()
    kind = next((k for k, cls in models.items() if type(estimator) is cls), None)
    if kind is None:
        raise TypeError(
            f"method='private-model' supports diffprivlib's LogisticRegression "
            f"and LinearRegression only; got {type(estimator).__name__} (its "
            "per-fit cost and data reads are not vetted here)."
        )
    searched = sorted(_PRIVACY_PARAMS & set(names))
    if searched:
        raise ValueError(
            f"method='private-model' does not search {searched}: epsilon is "
            "set by the mode; bounds, fit_intercept, random_state, accountant "
            "and warm_start decide the guarantee and are checked once, before "
            "the data is read."
        )
    params = estimator.get_params()
    if params.get("random_state") is not None:
        raise ValueError(
            "diffprivlib's random_state must be None in method='private-model': "
            "a seed makes diffprivlib draw its noise from a seeded Mersenne "
            "Twister (reproducible, removable by whoever knows the seed); with "
            "None it uses secrets.SystemRandom."
        )
    if params.get("fit_intercept"):
        raise ValueError(
            f"diffprivlib's {kind}(fit_intercept=True) is refused in "
            "method='private-model': "
            + (
                "its intercept is not regularised, so the objective is not "
                "strongly convex in it and the objective-perturbation theorem "
                "(CMS 2011) does not cover it. Append a public constant column "
                "to X (counted in data_norm) and pass fit_intercept=False."
                if kind == "LogisticRegression"
                else "its private centring spends epsilon/(d+1) on X and again "
                "on y (epsilon(d+2)/(d+1) in all) and moves the bounds by "
                "private offsets. Centre with public values and pass "
                "fit_intercept=False."
            )
        )
    if params.get("warm_start"):
        raise ValueError("warm_start=True is refused in method='private-model'.")
    if kind == "LogisticRegression":
        norm = params.get("data_norm")
        if norm is None:
            raise ValueError(
                "data_norm=None: diffprivlib would read the largest row norm "
                "from the data (its PrivacyLeakWarning). In method="
                "'private-model' give a public data_norm <= 1, chosen without "
                "the data (rescale X by a public factor)."
            )
        if (
            isinstance(norm, bool)
            or not isinstance(norm, numbers.Real)
            or not (math.isfinite(norm) and 0 < norm <= 1)
        ):
            raise ValueError(
                f"diffprivlib's LogisticRegression needs 0 < data_norm <= 1 here; "
                f"got {norm!r}. For rows of norm R > 1, diffprivlib's epsilon' "
                "uses R where CMS 2011's proof gives R^2 (the Jacobian's "
                "eigenvalues are bounded by c*R^2): rescale X by 1/R (public) "
                "and pass data_norm=1."
            )
        return
    lower, upper = _bound_pair(params.get("bounds_X"), "bounds_X")
    if not ((lower <= 0).all() and (-lower >= upper).all()):
        raise ValueError(
            "diffprivlib's LinearRegression computes the sensitivity of "
            "sum(x_j^2) from the lower bound only (upstream issue #105): "
            "method='private-model' accepts bounds_X with lower <= 0 and "
            "-lower >= upper for every feature, e.g. symmetric (-B, B)."
        )
    if _bound_pair(params.get("bounds_y"), "bounds_y")[0].size != 1:
        raise ValueError(
            "bounds_y must be one (lower, upper) pair of scalars: y is one "
            "target (bounds of length k > 1 would fit k copies of it, and "
            "diffprivlib's k-target fit spends more than its epsilon)."
        )


def check_bounds_width(estimator: Any, n_features: int) -> None:
    """Refuse, before any row is read, bounds_X of a diffprivlib
    ``LinearRegression`` whose length is neither 1 nor the public width d."""
    if type(estimator).__name__ != "LinearRegression":
        return
    size = _bound_pair(estimator.bounds_X, "bounds_X")[0].size
    if size not in (1, n_features):
        raise ValueError(
            f"bounds_X has {size} bounds per side for {n_features} features "
            "(after the public steps): give one pair of scalars or one "
            f"bound per feature ({n_features})."
        )


def _binary(estimator: Any) -> bool:
    """diffprivlib's LogisticRegression (its labels are 1 or not 1)."""
    return is_diffprivlib(estimator) and type(estimator).__name__ == (
        "LogisticRegression"
    )


def positive_labels(estimator: Any, y):
    """For ``LogisticRegression``: 1.0 where a label is 1, else 0.0, record by
    record (as it is fitted, so as its validation rows are scored); else ``y``."""
    return (np.asarray(y) == 1).astype(float) if _binary(estimator) else y


def check_labels_dtype(estimator: Any, y) -> None:
    """Refuse, from y's dtype alone, labels that cannot be 0/1 numbers."""
    if _binary(estimator) and getattr(y.dtype, "kind", "O") not in "biuf":
        raise TypeError(
            "diffprivlib's LogisticRegression is fitted here on labels 0/1 (1 "
            "the positive class, any other label read as 0); got y of dtype "
            f"{y.dtype}. Map it to a numeric 0/1 array yourself, e.g. "
            "(y == 'yes').astype(int)."
        )


def _fit_diffprivlib(est: Any, X, y) -> Any:
    """Fit a checked diffprivlib model on private rows (no data-dependent branch)."""
    from diffprivlib.accountant import BudgetAccountant

    est.set_params(accountant=BudgetAccountant())  # this fit's own, fresh
    X = np.array(X, dtype=float)  # a copy; a non-finite row becomes 0 (per row)
    if X.ndim != 2:
        X = X.reshape(X.shape[0], -1)
    X[~np.isfinite(X).all(axis=1)] = 0.0
    y = np.asarray(y).reshape(X.shape[0], -1)
    if type(est).__name__ == "LogisticRegression":
        labels = (y[:, 0] == 1).astype(int)
        X = np.vstack([X, np.zeros((2, X.shape[1]))])
        labels = np.concatenate([labels, [0, 1]])
        user = {"n_jobs": est.n_jobs, "verbose": est.verbose}
        est.set_params(n_jobs=1, verbose=0)
        est.fit(X, labels)
        est.set_params(**user)
        vars(est).pop("n_iter_", None)  # data- and noise-dependent, not released
        return est
    lower, upper = _bound_pair(est.bounds_X, "bounds_X")
    y_low, y_high = _bound_pair(est.bounds_y, "bounds_y")
    y = np.where(np.isfinite(y.astype(float)), y.astype(float), 0.0)
    X = np.clip(X, lower, upper)
    y = np.clip(y, y_low, y_high)
    est.fit(X, y[:, 0] if y.shape[1] == 1 else y)
    return est


def fit_dp_learner(est: Any, X, y, rng) -> Any:
    """One private fit of a checked learner (noise from ``rng``, or diffprivlib's
    own ``secrets.SystemRandom``); the fitted ``est``."""
    if is_diffprivlib(est):
        return _fit_diffprivlib(est, X, y)
    est._fit_private(X, y, rng)
    return est


def learner_assumption(estimator: Any, default: str) -> str:
    """The assumption line of ``privacy_report_`` for this learner."""
    if is_diffprivlib(estimator):
        return DIFFPRIVLIB_ASSUMPTION.get(type(estimator).__name__, default)
    if type(estimator).__name__ in ("DPLogisticRegression", "DPLinearSVC"):
        return default + (
            "; its Newton solver reaches the certified gradient tolerance "
            "(checked after the solve; never missed in a fuzz of 15,876 public "
            "settings thanks to the public conditioning floor; a miss would "
            "raise SolverError, an event outside the guarantee)"
        )
    return default

"""The fitted attributes of the search: copied from the releases only
(:func:`ingest`); the releases stand whatever happens to the :func:`refit`."""

from __future__ import annotations

import pickle
import warnings

from sklearn.base import clone
from sklearn.exceptions import FitFailedWarning, NotFittedError
from sklearn.utils.validation import check_is_fitted

from ..privacy._accounting import PrivacyReport, Release
from ._cv_results import best_row
from ._metrics import best_scores


def clear_fitted(search) -> None:
    """Remove every fitted attribute (public names ending in ``_``)."""
    for attr in [a for a in vars(search) if a.endswith("_") and not a.startswith("_")]:
        del vars(search)[attr]


def ingest(
    search, releases: list[Release], index: int, plan, m: int, extra: dict, other
) -> None:
    """Populate the fitted attributes from the releases and public values
    (``extra``: the mode's public attributes; ``other``: the other metrics)."""
    candidates = plan.candidates
    search.candidate_params_ = [dict(p) for p in candidates.params]
    search.best_candidate_index_ = int(index)
    search.best_params_ = dict(candidates.params[search.best_candidate_index_])
    search.n_splits_ = 1  # exactly one (train, validation) split, always
    search.multimetric_ = isinstance(search.scoring, (list, tuple, dict))
    for r in releases:
        if r.quantity == "best_score_":
            search.best_score_ = float(r.value)
    search.scorer_ = plan.scorer
    search.n_validation_ = int(m)
    relation = {}
    if plan.mode.method == "federated-ldp":
        relation["neighbouring"] = (
            "replace all the validation records of any one owner (val_groups); "
            "each owner's report is epsilon-LDP, the training set is public"
        )
    search.privacy_report_ = PrivacyReport(releases, plan.mode.method, **relation)
    vars(search).update(extra)  # into the dict: cv_results_ is a read-only property
    table = extra.get("cv_results_")
    search.best_index_ = int(index) if table is None else best_row(table, index)
    if other and search.release_score:
        search.best_scores_ = best_scores(
            releases, search.refit, search.best_score_, other
        )


def refit(search, X_train, y_train, fit_params: dict, selected_fit) -> None:
    """Set ``best_estimator_`` and ``refit_time_`` (``refit=True`` only):
    ``selected_fit`` (pickle, seconds) taken before the read, else a refit
    (time NaN: measured after the read). A failed refit only warns."""
    if not search.refit:
        return
    try:
        if selected_fit is not None:
            snapshot, seconds = selected_fit
            est = pickle.loads(snapshot)
        else:
            # Not through _evaluation: the leak audit tells the refit apart by it.
            params = clone(search.best_params_, safe=False)
            est = clone(search.estimator).set_params(**params)
            if y_train is None:
                est.fit(X_train, **fit_params)
            else:
                est.fit(X_train, y_train, **fit_params)
            seconds = float("nan")
    except Exception as exc:
        warnings.warn(
            f"The refit of best_estimator_ with best_params_ failed "
            f"({type(exc).__name__}: {exc}). best_estimator_ is not set; the "
            "releases stand. Fix the cause and refit yourself: "
            "clone(search.estimator).set_params(**search.best_params_)"
            ".fit(X, y).",
            FitFailedWarning,
            stacklevel=3,
        )
        return
    search.best_estimator_ = est
    search.refit_time_ = seconds


def no_cv_results_reason(search) -> str:
    """Why ``search.cv_results_`` does not exist (not fitted, or this mode)."""
    head = f"{type(search).__name__!r} object has no attribute 'cv_results_': "
    if "best_index_" not in vars(search):
        return head + "the search is not fitted yet."
    return head + (
        "only method='private-selection' with shortlist='bo' has one (the "
        "public cross-validation scores inside the training set). Raw "
        "validation scores are never published: they would void the "
        "guarantee. Use best_score_ (private), or cross-validate on the "
        "public training set yourself."
    )


def search_estimator_has(attr):
    """``available_if`` check: refitted, and ``best_estimator_`` has ``attr``."""

    def check(self):
        check_refit(self, attr)
        getattr(getattr(self, "best_estimator_", self.estimator), attr)
        return True

    return check


def check_refit(search, attr):
    if search.refit is False:
        raise AttributeError(
            f"This {type(search).__name__} instance was initialized with "
            f"`refit=False`. {attr} is available only after refitting on the "
            "best parameters; refit an estimator yourself with best_params_."
        )
    fitted = vars(search)
    if "best_params_" in fitted and "best_estimator_" not in fitted:
        raise AttributeError(
            f"{attr} is not available: the refit of best_estimator_ failed or "
            "was interrupted (see the FitFailedWarning of fit). The releases "
            "stand; refit an estimator yourself with best_params_."
        )


def callbacks_refused(search) -> bool:
    """``available_if`` check of ``set_callbacks``: never available, and why."""
    raise AttributeError(
        f"{type(search).__name__} does not support scikit-learn callbacks: they "
        "are called around every fit task, the private ones included (each "
        "candidate's validation scoring), so their arguments and their timing "
        "would carry what the guarantee protects. Use verbose=1 to 3 instead."
    )


def fitted_estimator_property(name: str, doc: str) -> property:
    """A property reading ``best_estimator_.<name>``; ``AttributeError`` unfitted."""

    def get(search):
        try:
            check_is_fitted(search)
        except NotFittedError as exc:
            raise AttributeError(
                f"{type(search).__name__} object has no {name} attribute."
            ) from exc
        return getattr(search.best_estimator_, name)

    return property(get, doc=f"{doc} (``refit=True``)")

"""Metadata routing as ``GridSearchCV``'s; scorer metadata is refused (the
private score is an unweighted mean of per-record values)."""

from __future__ import annotations

import warnings

from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    get_routing_for_object,
    process_routing,
)

from .._compat import _routing_enabled
from ._metrics import search_scorers


def _routing_object(scorer):
    """What carries the scorer's metadata requests (its ``record_score``), if any."""
    inner = getattr(scorer, "record_score", scorer)
    return inner if hasattr(inner, "get_metadata_routing") else None


def _metadata_scorer(search):
    """The selection metric's scorer, or None if ``scoring`` is invalid."""
    if hasattr(search, "scorer_"):
        return search.scorer_
    try:
        return search_scorers(search)[0]
    except (TypeError, ValueError):
        return None


def metadata_routing(search) -> MetadataRouter:
    """The search's router: estimator ``fit``, scorer ``score``, ``cv.split``."""
    router = MetadataRouter(owner=search).add_self_request(search)
    router.add(
        estimator=search.estimator,
        method_mapping=MethodMapping().add(caller="fit", callee="fit"),
    )
    router.add(
        scorer=_routing_object(_metadata_scorer(search)),
        method_mapping=MethodMapping()
        .add(caller="score", callee="score")
        .add(caller="fit", callee="score"),
    )
    router.add(
        splitter=search.cv,
        method_mapping=MethodMapping().add(caller="fit", callee="split"),
    )
    return router


def route_fit_params(search, params: dict) -> tuple[dict, dict]:
    """(estimator ``fit`` params, splitter params), as GridSearchCV routes."""
    if not _routing_enabled():
        if "sample_weight" in params:
            warnings.warn(
                "sample_weight goes to estimator.fit only: it weights the "
                "candidates' fits (and best_estimator_), never the private "
                "score, which stays the unweighted mean of per-record values (a "
                "weighted private score has no per-record sensitivity bound). "
                "With metadata routing (sklearn.set_config(enable_metadata_routing"
                "=True) and estimator.set_fit_request(sample_weight=True)) the "
                "same happens without this warning.",
                UserWarning,
                stacklevel=3,
            )
        return params, {}
    requester = _routing_object(_metadata_scorer(search))
    asked = set()
    if requester is not None:
        asked = get_routing_for_object(requester).consumes("score", set(params))
    if asked:
        raise ValueError(
            f"Metadata {sorted(asked)} is requested by the scorer, but a "
            "private validation score cannot take it: weighting validation "
            "records would break the per-record sensitivity. Remove the "
            "scorer's request (e.g. set_score_request(sample_weight=False)); "
            "weights may still go to the estimator's fit (set_fit_request)."
        )
    routed = process_routing(search, "fit", **params)
    return dict(routed.estimator.fit), dict(routed.splitter.split)


def route_score_params(search, params: dict) -> None:
    """Refuse any param of ``search.score(X, y, **params)`` with the reason."""
    if params:
        raise ValueError(
            f"{type(search).__name__}.score takes no metadata; got "
            f"{sorted(params)}. It scores with the search's metric, the unweighted "
            "mean of per-record values. For a weighted score, compute it directly "
            "instead, e.g. accuracy_score(y, search.predict(X), sample_weight=w)."
        )

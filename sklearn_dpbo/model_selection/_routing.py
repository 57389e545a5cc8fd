"""Metadata routing of the search, as ``GridSearchCV``'s, scorer refused in ``fit``.

Fit metadata requested by ``estimator`` (``set_fit_request``) goes to its
``fit`` (the search restricts sample-aligned values to the training rows),
splitter metadata to ``cv.split``. Metadata requested by the scorer is
refused in ``fit``: the private score is an unweighted mean of per-record
values, which is what bounds its sensitivity (one record with a large
weight could move a weighted score arbitrarily). ``score`` on the user's
own data accepts it. Without metadata routing every fit parameter goes to
``estimator.fit`` and ``score`` takes none, as in scikit-learn.
"""

from __future__ import annotations

from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    get_routing_for_object,
    process_routing,
)

from .._compat import _routing_enabled
from ._metrics import search_scorers

__all__ = ["metadata_routing", "route_fit_params", "route_score_params"]


def _routing_object(scorer):
    """What carries the scorer's metadata requests, if anything does.

    A :class:`DPScorer` requests no metadata itself; but its
    ``record_score`` can be an object with metadata requests (a scikit-learn
    scorer with ``set_score_request``), whose requests must be seen so that
    :func:`route_fit_params` refuses them with the reason.
    """
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
    router = MetadataRouter(owner=search)
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
    """(estimator ``fit`` params, splitter params), as GridSearchCV routes.

    Without metadata routing every fit parameter goes to ``estimator.fit``
    (never to the scorer). With routing, requested metadata goes where it
    is requested; metadata requested by the scorer is refused.
    """
    if not _routing_enabled():
        return params, {}
    requester = _routing_object(_metadata_scorer(search))
    asked = set()
    if requester is not None:
        asked = get_routing_for_object(requester).consumes("score", set(params))
    if asked:
        raise ValueError(
            f"Metadata {sorted(asked)} is requested by the "
            "scorer, but a private validation score cannot take it: "
            "weighting validation records would break the per-record "
            "sensitivity (one record with a large weight could move the "
            "score arbitrarily), and the noise is calibrated to the "
            "unweighted mean. Remove the scorer's request (e.g. "
            "set_score_request(sample_weight=False)); weights may still go "
            "to the estimator's fit (set_fit_request) and to score() on "
            "your own public data."
        )
    routed = process_routing(search, "fit", **params)
    return dict(routed.estimator.fit), dict(routed.splitter.split)


def route_score_params(search, params: dict) -> dict:
    """The scorer's params of ``search.score(X, y, **params)``.

    Without metadata routing any param is refused with scikit-learn's
    message; with it, scikit-learn's routing (a :class:`DPScorer` requests
    nothing, so any param raises its ``TypeError``).
    """
    if not params:
        return params
    if not _routing_enabled():
        raise ValueError(
            f"Passing extra keyword arguments to {type(search).__name__}."
            "score is only supported if enable_metadata_routing=True, "
            "which you can set using `sklearn.set_config`. See the "
            "Metadata Routing User guide "
            "<https://scikit-learn.org/stable/metadata_routing.html> "
            f"for more details. Extra parameters passed are: "
            f"{set(params)}"
        )
    return process_routing(search, "score", **params).scorer.score

"""The public rule of ``strategy="auto"`` in mode ``"private-model"`` (m, L, ε,
η, n, d and the learner's type; no row is read)."""

from __future__ import annotations

from .._whole_data._fit import can_tell_apart
from . import _stopping as st

MAX_SCORE_NOISE = 0.05
"""Above this score noise of one run (score-range units) ``"auto"`` does not tune."""

TUNE_FROM = 15.0
"""n·ε/d below which ``"auto"`` fits the default (:func:`default_suffices`)."""

DEFAULT_SUFFICES = 30.0
"""n·ε/d from which ``"auto"`` fits the default (:func:`default_suffices`)."""


def choose_strategy(m: int, n_candidates: int, epsilon: float, eta: float) -> str:
    """The public rule of ``strategy="auto"`` (m, L, ε; no row is read).

    ``"default"`` for one candidate (``_fit`` fits that candidate), or when
    one random-stopping run's score noise 1/(m ε₀), ε₀ = ε/(2 + η), exceeds
    :data:`MAX_SCORE_NOISE` (the scores cannot tell candidates apart);
    ``"split"`` when L ≤ 3 + η (each candidate gets ε/L ≥ ε₀/(1 + 1/(2 +
    η)), no random K); else ``"random-stopping"``. L counts distinct
    candidates (``_fit.prune_candidates``); :func:`default_suffices` comes
    after.
    """
    if n_candidates <= 1:
        return "default"
    eps0 = epsilon / st.cost_factor(eta)
    if not can_tell_apart(1.0 / (m * eps0), MAX_SCORE_NOISE):
        return "default"
    if n_candidates <= st.cost_factor(eta) + 1:
        return "split"
    return "random-stopping"


def default_suffices(learner, n: int, epsilon: float, n_features) -> bool:
    """Whether ``"auto"`` skips tuning: x = n·ε/d (public) outside [15, 30)
    (``benchmarks/bench_private_model.py``), for learners declaring
    ``_auto_default_rule``; ``_auto_never_tunes`` always gets the default."""
    applies = getattr(learner, "_auto_default_rule", None)
    if applies is None or not applies():
        return False
    if getattr(learner, "_auto_never_tunes", False):
        return True
    if not n_features:
        return False
    x = int(n) * float(epsilon) / int(n_features)
    return not TUNE_FROM <= x < DEFAULT_SUFFICES

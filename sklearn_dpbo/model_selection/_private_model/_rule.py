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

    1. One candidate: ``"default"`` (nothing to tune).
    2. If one random-stopping run's score noise, 1/(m ε₀) of the score range
       with ε₀ = ε/(2 + η), exceeds :data:`MAX_SCORE_NOISE`: the scores cannot
       tell candidates apart; ``"default"`` (the whole ε on one model).
    3. If every candidate gets at least as much ε in the naive split as in a
       run (L ≤ 2 + η) plus one: ``"split"`` (it sees every candidate, each
       at ε/L ≥ ε₀/(1 + 1/(2 + η)), and selects without a random K).
    4. Otherwise ``"random-stopping"``: each run's model gets ε/(2 + η)
       instead of ε/L.

    Then :func:`default_suffices` (applied by the fit path, which knows d).
    L counts distinct candidates (``_fit.prune_candidates``).
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
    """Whether ``"auto"`` skips tuning: x = n·ε/d outside [15, 30).

    1/x is objective perturbation's noise (‖b‖ ~ Gamma(d, 2/ε)) against
    the n rows; a tuned model has at most 0.35 x (70 % of the rows at ≤ ε/2)
    against the untuned 0.7 x to x. Below 15 the candidates differ more by
    noise than by C; from 30 a numeric C such as 1 (near the plateau) is
    near the best C (``benchmarks/bench_private_model.py``). Only for
    learners declaring ``_auto_default_rule``; ``_auto_never_tunes`` always
    gets the default (Gaussian naive Bayes; ``DPLogisticRegression`` with
    ``C="scale"``). n, ε and d (X's columns, or the public steps' output
    width) are public.
    """
    applies = getattr(learner, "_auto_default_rule", None)
    if applies is None or not applies():
        return False
    if getattr(learner, "_auto_never_tunes", False):
        return True
    if not n_features:
        return False
    x = int(n) * float(epsilon) / int(n_features)
    return not TUNE_FROM <= x < DEFAULT_SUFFICES

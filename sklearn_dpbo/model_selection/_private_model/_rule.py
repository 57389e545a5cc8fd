"""The public rule of ``strategy="auto"`` in mode ``"private-model"``.

From public values only (m, the number of distinct candidates L, ε, η, n,
d and the learner's type); no row is read.
"""

from __future__ import annotations

from .._whole_data._fit import can_tell_apart
from . import _stopping as st

__all__ = ["MAX_SCORE_NOISE", "TUNE_FROM", "DEFAULT_SUFFICES"]
__all__ += ["choose_strategy", "default_suffices"]

MAX_SCORE_NOISE = 0.05
"""Above this noise scale of one run's score (units of the score range),
``"auto"`` does not tune (:func:`choose_strategy`)."""

TUNE_FROM = 15.0
"""n·ε/d below which ``"auto"`` runs the public default with a learner
that opts in: a run's model is noise-dominated (:func:`default_suffices`)."""

DEFAULT_SUFFICES = 30.0
"""n·ε/d at or above which ``"auto"`` runs the public default with a
learner that opts in: the untuned model is good enough (:func:`default_suffices`)."""


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

    Then, for a learner that opts in, ``"default"`` when n·ε/d is
    outside [:data:`TUNE_FROM`, :data:`DEFAULT_SUFFICES`), or always for
    one that never tunes (:func:`default_suffices`, applied by the fit
    path, which knows d).

    Before and after this rule the candidates are pruned
    (``_fit.prune_candidates``, public): L counts distinct candidates only.
    Rule 2 is whole-data's too (:func:`.._whole_data._fit.can_tell_apart`).
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
    """Whether ``"auto"`` should skip tuning: x = n·ε/d outside
    [:data:`TUNE_FROM`, :data:`DEFAULT_SUFFICES`) = [15, 30).

    x is rows × ε per dimension: objective perturbation adds a linear term
    b·w with ‖b‖ ~ Gamma(d, 2/ε) (mean 2d/ε) to a loss summed over n rows,
    so 1/x is the scale of the noise against the data in the fitted model.
    With n every row of X, the untuned model has x (no score released) or
    0.7 x (its score released: it fits on the training part); a tuned one
    has at most 0.35 x (a random-stopping run: 70 % of the rows at
    ε/(2 + η) ≤ ε/2; the naive split: ε/L ≤ ε/2), 2 to 2.9 times the
    noise. Tuning C pays only between two limits:

    - x < 15 (a tuned model's x < 5): the candidates' models differ more by
      their noise draws than by C, the noisy selection picks among draws,
      and the released model carries 2.9 times the untuned model's noise;
    - x ≥ 30: the untuned model at the whole ε is already near the best C
      (a numeric C such as 1 sits near objective perturbation's plateau, the
      weakest regularisation allowed at ε), and the tuned model's extra noise costs
      more than choosing C wins.

    The limits are measured on the library's logistic regression (whole-ε
    cells of ``benchmarks/bench_private_model.py``, checked on tasks fixed
    before their run). Only for learners that declare the rule applies to
    them (``_auto_default_rule``: objective perturbation, Gaussian naive
    Bayes); a learner whose measured tuning never paid declares
    ``_auto_never_tunes`` and always gets its default (Gaussian naive Bayes;
    ``DPLogisticRegression`` with its default ``C="scale"``).
    Public: n, the number of rows of X (whether or not a score is
    released), the whole ε and d, the number of features the learner
    receives: the columns of X (its container's shape, checked 2-D before
    this), or the width of a Pipeline's public steps' output on a public
    dummy row (e.g. a one-hot encoding's columns); no row is read.
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

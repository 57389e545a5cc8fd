"""The Bayesian-optimisation loop (Kusner et al. 2015, Algorithm 1, lines 2–8).

With ``batch_size = B > 1`` it proposes B points at a time by GP-BUCB
(Desautels et al. 2014); ``B = 1`` is the sequential algorithm. The trace
is private whenever the scores come from the validation set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ._acquisition import argmax, log_expected_improvement, upper_confidence_bound
from ._gp import IncrementalGP


@dataclass
class BOTrace:
    """What the loop saw. Private when the scores are validation scores."""

    indices: np.ndarray  # evaluated candidate indices, in order
    scores: np.ndarray  # their scores, in GP units
    gp: IncrementalGP  # posterior after all T observations


def bayesian_optimisation(
    evaluate: Callable[[Sequence[int]], Sequence[float]],
    X: np.ndarray,
    *,
    n_iter: int,
    beta: Callable[[int], float],
    tie_break: np.ndarray,
    kernel: str = "matern52",
    length_scale: float = 0.2,
    noise: float = 0.01,
    batch_size: int = 1,
    acquisition: str = "ucb",
) -> BOTrace:
    """Run T = ``n_iter`` steps of GP-UCB (or EI) over the encoded candidates ``X``.

    ``evaluate(indices) -> scores`` is called for candidates never evaluated
    before (repeats come from a cache); ``beta(t)`` for t = 1..T;
    ``tie_break``: public ranks breaking exact ties.
    """
    gp = IncrementalGP(
        X, kernel=kernel, length_scale=length_scale, noise=noise, max_points=n_iter
    )
    cache: dict[int, float] = {}
    indices: list[int] = []
    scores: list[float] = []
    t = 0
    while t < n_iter:
        batch: list[int] = []
        for _ in range(min(batch_size, n_iter - t)):
            step = t + len(batch) + 1  # the paper's t (1-based)
            if acquisition == "ucb":
                acq = upper_confidence_bound(gp.mean, gp.std, beta(step))
            else:
                best = max(scores) if scores else 0.0
                acq = log_expected_improvement(gp.mean, gp.std, best)
            j = argmax(acq, tie_break)
            gp.add(j)  # GP-BUCB: variance updated with the pending point
            batch.append(j)
        new = [j for j in dict.fromkeys(batch) if j not in cache]
        if new:
            for j, s in zip(new, evaluate(new)):
                cache[j] = float(s)
        for j in batch:
            gp.observe(cache[j])
            indices.append(j)
            scores.append(cache[j])
        t += len(batch)
    return BOTrace(np.asarray(indices, dtype=int), np.asarray(scores), gp)

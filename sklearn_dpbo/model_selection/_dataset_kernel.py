"""Estimating the dataset kernel k1 on public data (Kusner et al., Section 6).

Assumption 1 of ``method="gp-ucb"`` says the score functions of all
validation sets are jointly GP(0, k1 ⊗ k2): for neighbouring V, V' the
vectors f_V, f_V' over the candidates Λ are jointly Gaussian with
covariance [[K2, k1 K2], [k1 K2, K2]]. The paper's Section 6 estimates k1
on data of the same kind that may be used publicly:

1. train one model per candidate (``n_candidates`` Sobol points, or a grid)
   on a training set;
2. draw ``n_sets`` validation sets V_i of size s from a pool (rows drawn
   without replacement, sets independent of each other) and form a
   neighbour V_i' of each by adding or removing one record (``"swap"``:
   replacing one, the library's privacy unit);
3. score every model on every V_i and V_i' (two n_sets × |Λ| matrices),
   mapped to GP units z = (score − offset)/scale;
4. for every k1 of a grid (default 0.05, 0.10, …, 0.95) sum over i the
   log-density of ([F_V]_i, [F_V']_i) under
   N(0, [[K2, k1 K2], [k1 K2, K2]] + σ² I) (DPBO.md §7).

The data is treated as public: never pass the sensitive validation set.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np
from joblib import Parallel, delayed

from .._compat import _num_samples
from ..bo._gp import _JITTER, as_sklearn_kernel, internal_kernel, kernel_matrix
from ..privacy._validation import public_rng
from ._context import with_training_targets
from ._evaluation import _fit

DEFAULT_K1_GRID = np.round(np.arange(1, 20) * 0.05, 2)  # 0.05 ... 0.95


@dataclass
class DatasetKernelEstimate:
    """Result of :func:`estimate_dataset_kernel`.

    Attributes
    ----------
    k1_grid : ndarray of shape (n_grid,)
    validation_sizes : ndarray of shape (n_sizes,)
    log_likelihood : ndarray of shape (n_sizes, n_grid)
        Joint marginal log-likelihood (summed over the ``n_sets`` pairs)
        for every validation size and k1.
    best_k1 : ndarray of shape (n_sizes,)
        The maximiser over ``k1_grid`` for every size.
    candidate_params : list of dict
        The candidates (as ``candidate_params_`` of the search).
    score_offset, score_scale : float
        GP units used: z = (score − offset)/scale.
    scores_V, scores_V_prime : list of ndarray of shape (n_sets, n_candidates)
        The score matrices F_V and F_V' in GP units, one per size.
    """

    k1_grid: np.ndarray
    validation_sizes: np.ndarray
    log_likelihood: np.ndarray
    best_k1: np.ndarray
    candidate_params: list
    score_offset: float
    score_scale: float
    neighbours: str
    n_sets: int
    scores_V: list = field(repr=False, default_factory=list)
    scores_V_prime: list = field(repr=False, default_factory=list)


def multitask_log_likelihood(
    F: np.ndarray, G: np.ndarray, K2: np.ndarray, k1_grid, noise: float
) -> np.ndarray:
    """Σ_i log N((F_i, G_i) | 0, [[K2, k1 K2], [k1 K2, K2]] + σ² I) per k1.

    With K2 = U diag(s) Uᵀ the joint covariance has eigenvalues
    (1 ± k1) s_j + σ² with eigenvectors (u_j, ±u_j)/√2, so every k1 costs
    O(n_sets · n) after one eigendecomposition.
    """
    F = np.atleast_2d(np.asarray(F, dtype=float))
    G = np.atleast_2d(np.asarray(G, dtype=float))
    noise = max(float(noise), _JITTER)
    s, U = np.linalg.eigh(np.asarray(K2, dtype=float))
    s = np.clip(s, 0.0, None)
    p2 = (((F + G) / math.sqrt(2.0)) @ U) ** 2  # (n_sets, n)
    q2 = (((F - G) / math.sqrt(2.0)) @ U) ** 2
    p2, q2 = p2.sum(axis=0), q2.sum(axis=0)
    n_sets, n = F.shape
    out = []
    for k1 in np.asarray(k1_grid, dtype=float):
        plus = (1.0 + k1) * s + noise
        minus = (1.0 - k1) * s + noise
        quad = np.sum(p2 / plus) + np.sum(q2 / minus)
        logdet = np.sum(np.log(plus)) + np.sum(np.log(minus))
        out.append(
            -0.5 * quad - 0.5 * n_sets * logdet - n_sets * n * math.log(2 * math.pi)
        )
    return np.asarray(out)


def _neighbour(rows: np.ndarray, n_pool: int, mode: str, rng) -> np.ndarray:
    """V' from V (pool row indices): add, remove or swap one record."""
    s = rows.size
    outside = None
    if s < n_pool:
        mask = np.ones(n_pool, dtype=bool)
        mask[rows] = False
        outside = int(rng.choice(np.flatnonzero(mask)))
    if mode == "swap":
        out = rows.copy()
        out[rng.integers(s)] = outside
        return out
    add = outside is not None and (s < 2 or rng.random() < 0.5)
    if add:
        return np.append(rows, outside)
    return np.delete(rows, rng.integers(s))


def estimate_dataset_kernel(
    estimator,
    search_spaces,
    X_train,
    y_train,
    X_pool,
    y_pool,
    *,
    validation_size,
    n_sets: int = 100,
    n_candidates: int = 100,
    k1_grid=None,
    neighbours: str = "add-remove",
    scoring=None,
    kernel=None,
    noise: float = 0.01,
    score_offset=None,
    score_scale=None,
    random_state=None,
    n_jobs=None,
) -> DatasetKernelEstimate:
    """Most likely dataset kernel k1 on public data (paper Section 6).

    Parameters
    ----------
    estimator, search_spaces, scoring, n_candidates, random_state
        As for :class:`DPBayesSearchCV`; pass the values you will use there
        (same ``random_state`` gives the same candidate set).
        ``n_candidates`` defaults to the paper's 100.
    kernel, noise, score_offset, score_scale
        As for :class:`DPGPUCB` (``kernel`` a scikit-learn kernel, ``None``
        for ``Matern(nu=2.5, length_scale=0.2)``); pass the values you will
        use there.
    X_train, y_train : array-like
        Training set every candidate model is fitted on (once).
    X_pool, y_pool : array-like
        Public pool the validation sets are drawn from.
    validation_size : int or sequence of int
        Size(s) s of the validation sets; each needs s ≤ len(pool) (and
        s < len(pool) to add or swap a record).
    n_sets : int, default=100
        Number of validation sets (and neighbours) per size.
    k1_grid : array-like, default=0.05, 0.10, ..., 0.95
    neighbours : {"add-remove", "swap"}, default="add-remove"
        How V' is formed: the paper's add-or-remove one record (each with
        probability 1/2), or the library's swap of one record.
    n_jobs : int, default=None
        Parallel model fits (joblib).

    Returns
    -------
    DatasetKernelEstimate
    """
    from ._modes import DEFAULT_KERNEL, DPGPUCB
    from ._search import DPBayesSearchCV

    if neighbours not in ("add-remove", "swap"):
        raise ValueError(
            f"neighbours must be 'add-remove' or 'swap'; got {neighbours!r}."
        )
    if not isinstance(n_sets, numbers.Integral) or n_sets < 1:
        raise ValueError(f"n_sets must be a positive integer; got {n_sets!r}.")
    grid = DEFAULT_K1_GRID if k1_grid is None else np.asarray(k1_grid, dtype=float)
    if grid.ndim != 1 or grid.size == 0 or np.any((grid < 0) | (grid > 1)):
        raise ValueError("k1_grid must be a non-empty 1-D array of values in [0, 1].")
    sizes = np.atleast_1d(np.asarray(validation_size))
    n_pool = int(_num_samples(X_pool))
    if sizes.ndim != 1 or not np.issubdtype(sizes.dtype, np.integer):
        raise ValueError("validation_size must be an int or a sequence of ints.")
    if np.any(sizes < 1) or np.any(sizes > n_pool):
        raise ValueError(f"every validation_size must be in [1, {n_pool}] (pool size).")
    if neighbours == "swap" and np.any(sizes >= n_pool):
        raise ValueError("neighbours='swap' needs validation_size < pool size.")

    name, ls = (
        DEFAULT_KERNEL
        if kernel is None
        else internal_kernel(kernel, caller="estimate_dataset_kernel")
    )
    plan = DPBayesSearchCV(
        estimator,
        search_spaces,
        method=DPGPUCB(
            kernel=as_sklearn_kernel(name, ls),
            noise=noise,
            score_offset=score_offset,
            score_scale=score_scale,
        ),
        n_candidates=n_candidates,
        scoring=scoring,
        random_state=random_state,
    )._check_settings()
    plan, _ = with_training_targets(plan, {}, y_train)  # error_clip="auto"
    candidates, scorer = plan.candidates, plan.scorer
    K2 = kernel_matrix(candidates.X, candidates.X, name, ls)

    models = Parallel(n_jobs=n_jobs)(
        delayed(_fit)(estimator, p, X_train, y_train, {}) for p in candidates.params
    )
    records = np.array(
        [scorer.record_values(mdl, X_pool, y_pool) for mdl in models], dtype=float
    )

    def score_all(rows: np.ndarray) -> np.ndarray:
        return (records[:, rows].mean(axis=1) - plan.offset) / plan.scale

    rng = np.random.default_rng(public_rng(random_state).integers(2**63 - 1))
    log_lik, best, all_F, all_G = [], [], [], []
    for s in sizes.tolist():
        F = np.empty((n_sets, len(candidates)))
        G = np.empty_like(F)
        for i in range(n_sets):
            rows = rng.choice(n_pool, size=s, replace=False)
            F[i] = score_all(rows)
            G[i] = score_all(_neighbour(rows, n_pool, neighbours, rng))
        ll = multitask_log_likelihood(F, G, K2, grid, noise)
        log_lik.append(ll)
        best.append(float(grid[int(np.argmax(ll))]))
        all_F.append(F)
        all_G.append(G)
    return DatasetKernelEstimate(
        k1_grid=grid,
        validation_sizes=sizes,
        log_likelihood=np.asarray(log_lik),
        best_k1=np.asarray(best),
        candidate_params=[dict(p) for p in candidates.params],
        score_offset=plan.offset,
        score_scale=plan.scale,
        neighbours=neighbours,
        n_sets=int(n_sets),
        scores_V=all_F,
        scores_V_prime=all_G,
    )

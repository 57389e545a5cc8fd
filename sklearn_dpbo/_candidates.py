"""The finite, public candidate set Λ and its encoding into the unit cube.

Spec: ``DPBO.md`` §2. Every guarantee of the library needs a finite Λ that
is fixed before any data is read: ``|Λ|`` enters β_t and c of Algorithm 1
and the exponential mechanism ranges over it.

A search space is a dict (or a list of dicts, whose candidate sets are
joined) mapping parameter names to one of

- a list of values: a grid dimension (numbers, strings, objects);
- ``(low, high)`` or ``(low, high, "uniform")``: a uniform range (integers
  if both ends are ints);
- ``(low, high, "log-uniform")``: a log-uniform range (``0 < low``);
- a frozen ``scipy.stats`` distribution.

A dict of lists only is the product grid (as ``GridSearchCV``); a dict
with at least one range or distribution is discretised into
``n_candidates`` points of a scrambled Sobol sequence drawn with a public
seed and mapped through each dimension's prior.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.stats import qmc
from sklearn.model_selection import ParameterGrid

__all__ = ["CandidateSet"]

_PRIORS = ("uniform", "log-uniform")


class _Dimension:
    """One hyper-parameter: how to sample it from u in [0, 1) and encode it."""

    def __init__(self, name: str, spec: Any):
        self.name = name
        self.kind: str
        if hasattr(spec, "ppf") and hasattr(spec, "cdf"):
            self.kind = "distribution"
            self.dist = spec
        elif isinstance(spec, tuple):
            self._init_range(spec)
        elif isinstance(spec, (list, np.ndarray)) and not isinstance(spec, str):
            values = list(spec)
            if not values:
                raise ValueError(
                    f"Parameter {name!r}: the list of values is empty. Give at "
                    "least one value."
                )
            self.kind = "list"
            self.values = values
            self._init_list_encoding()
        else:
            raise ValueError(
                f"Parameter {name!r}: unsupported specification of type "
                f"{type(spec).__name__}. Use a list of values, a tuple "
                "(low, high[, 'uniform' | 'log-uniform']) or a frozen "
                "scipy.stats distribution."
            )

    # -- construction -------------------------------------------------------
    def _init_range(self, spec: tuple) -> None:
        name = self.name
        if len(spec) not in (2, 3):
            raise ValueError(
                f"Parameter {name!r}: a range is (low, high) or (low, high, "
                f"prior); got a tuple of length {len(spec)}."
            )
        low, high = spec[0], spec[1]
        prior = spec[2] if len(spec) == 3 else "uniform"
        if prior not in _PRIORS:
            raise ValueError(
                f"Parameter {name!r}: prior must be one of {_PRIORS}; got {prior!r}."
            )
        for v in (low, high):
            if not isinstance(v, numbers.Real) or isinstance(v, bool):
                raise ValueError(
                    f"Parameter {name!r}: range ends must be numbers; got {v!r}."
                )
            if not math.isfinite(v):
                raise ValueError(
                    f"Parameter {name!r}: range ends must be finite; got {v!r}."
                )
        if not low < high:
            raise ValueError(
                f"Parameter {name!r}: need low < high; got ({low!r}, {high!r})."
            )
        if prior == "log-uniform" and low <= 0:
            raise ValueError(
                f"Parameter {name!r}: a log-uniform range needs 0 < low; got "
                f"low={low!r}."
            )
        self.kind = "range"
        self.low, self.high, self.prior = low, high, prior
        self.integer = isinstance(low, numbers.Integral) and isinstance(
            high, numbers.Integral
        )

    def _init_list_encoding(self) -> None:
        vals = self.values
        numeric = all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in vals
        )
        if numeric:
            arr = np.asarray(vals, dtype=float)
            if not np.all(np.isfinite(arr)):
                raise ValueError(
                    f"Parameter {self.name!r}: the values must be finite numbers."
                )
            lo, hi = float(arr.min()), float(arr.max())
            self.log = bool(lo > 0 and hi / lo >= 100.0)
            self.enc_lo = math.log10(lo) if self.log else lo
            self.enc_hi = math.log10(hi) if self.log else hi
            self.width = 1 if hi > lo else 0
            self.categorical = False
        else:
            self.categorical = True
            self.categories = []
            for v in vals:
                if not any(_same(v, c) for c in self.categories):
                    self.categories.append(v)
            self.width = len(self.categories) if len(self.categories) > 1 else 0

    # -- sampling -----------------------------------------------------------
    def from_unit(self, u: float) -> Any:
        """Map a Sobol coordinate u in [0, 1) to a value of this dimension."""
        if self.kind == "list":
            return self.values[min(int(u * len(self.values)), len(self.values) - 1)]
        if self.kind == "distribution":
            value = self.dist.ppf(min(max(u, 1e-12), 1 - 1e-12))
            value = float(value)
            if _is_discrete(self.dist):
                return int(round(value))
            return value
        if self.prior == "log-uniform":
            lo, hi = math.log(self.low), math.log(self.high)
            if self.integer:
                lo, hi = math.log(self.low), math.log(self.high + 1)
                return int(min(math.floor(math.exp(lo + u * (hi - lo))), self.high))
            return float(math.exp(lo + u * (hi - lo)))
        if self.integer:
            n = self.high - self.low + 1
            return int(self.low + min(int(u * n), n - 1))
        return float(self.low + u * (self.high - self.low))

    # -- encoding -----------------------------------------------------------
    @property
    def n_columns(self) -> int:
        if self.kind == "list":
            return self.width
        return 1

    def encode(self, value: Any) -> list[float]:
        """Encode a value into ``n_columns`` coordinates in [0, 1]."""
        if self.kind == "list":
            if self.width == 0:
                return []
            if self.categorical:
                return [1.0 if _same(value, c) else 0.0 for c in self.categories]
            x = math.log10(value) if self.log else float(value)
            return [(x - self.enc_lo) / (self.enc_hi - self.enc_lo)]
        if self.kind == "distribution":
            return [float(np.clip(self.dist.cdf(value), 0.0, 1.0))]
        if self.prior == "log-uniform":
            lo, hi = math.log(self.low), math.log(self.high)
            return [float(np.clip((math.log(value) - lo) / (hi - lo), 0.0, 1.0))]
        return [float((value - self.low) / (self.high - self.low))]


def _is_discrete(dist) -> bool:
    from scipy.stats import rv_discrete

    return isinstance(getattr(dist, "dist", None), rv_discrete)


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # objects without a usable ==
        return False


def _key(params: Mapping[str, Any]) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in params.items()))


class CandidateSet:
    """Finite, public set of hyper-parameter candidates and its GP encoding.

    Parameters
    ----------
    search_spaces : dict or list of dict
        See the module docstring for the accepted value specifications.
    n_candidates : int, default=1024
        Number of Sobol points drawn for each dict that holds a range or a
        distribution (rounded up to a power of two by the Sobol sampler,
        then truncated; duplicates after rounding are dropped).
    seed : int
        Public seed of the scrambled Sobol sequence. It must not depend on
        any data.

    Attributes
    ----------
    params : list of dict
        The candidates Λ, in a fixed order; ``best_index_`` indexes it.
    X : ndarray of shape (len(params), n_columns)
        The encoding of every candidate into [0, 1]^d (log10 first for
        log-uniform ranges, min-max for numbers, one-hot for categories;
        one extra one-hot block identifies the dict when several are given).
    """

    def __init__(
        self,
        search_spaces: Mapping | Sequence[Mapping],
        n_candidates: int = 1024,
        seed: int = 0,
    ):
        if isinstance(search_spaces, Mapping):
            spaces = [search_spaces]
        elif isinstance(search_spaces, Sequence) and not isinstance(search_spaces, str):
            spaces = list(search_spaces)
        else:
            raise ValueError(
                "search_spaces must be a dict or a list of dicts mapping "
                "parameter names to value lists, ranges or distributions; got "
                f"an object of type {type(search_spaces).__name__}."
            )
        if not spaces:
            raise ValueError("search_spaces is an empty list; give at least one dict.")
        self.n_candidates = int(n_candidates)
        self.seed = seed
        self.spaces_dims: list[list[_Dimension]] = []
        for i, space in enumerate(spaces):
            if not isinstance(space, Mapping):
                raise ValueError(
                    f"search_spaces[{i}] must be a dict; got {type(space).__name__}."
                )
            if not space:
                raise ValueError(
                    f"search_spaces[{i}] is an empty dict; name at least one parameter."
                )
            dims = []
            for name, spec in space.items():
                if not isinstance(name, str):
                    raise ValueError(f"Parameter names must be strings; got {name!r}.")
                dims.append(_Dimension(name, spec))
            self.spaces_dims.append(dims)
        self._build()

    # ----------------------------------------------------------------------
    def _build(self) -> None:
        params: list[dict] = []
        space_of: list[int] = []
        seen: set = set()
        for s, dims in enumerate(self.spaces_dims):
            if all(d.kind == "list" for d in dims):
                grid = ParameterGrid({d.name: d.values for d in dims})
                points = [dict(p) for p in grid]
            else:
                sampler = qmc.Sobol(
                    d=len(dims),
                    scramble=True,
                    seed=np.random.default_rng([self.seed, s]),
                )
                m = max(0, math.ceil(math.log2(max(self.n_candidates, 1))))
                u = sampler.random_base2(m)[: self.n_candidates]
                points = [
                    {d.name: d.from_unit(float(row[j])) for j, d in enumerate(dims)}
                    for row in u
                ]
            for p in points:
                key = (s, _key(p)) if len(self.spaces_dims) > 1 else _key(p)
                if key in seen:
                    continue
                seen.add(key)
                params.append(p)
                space_of.append(s)
        self.params = params
        self.space_of = np.asarray(space_of, dtype=int)
        self.X = self._encode_all()

    def _encode_all(self) -> np.ndarray:
        # Union of parameter names, in order of first appearance.
        columns: list[tuple[str, _Dimension, int]] = []
        offset = 0
        n_spaces = len(self.spaces_dims)
        space_cols = n_spaces if n_spaces > 1 else 0
        offset = space_cols
        for s, dims in enumerate(self.spaces_dims):
            for d in dims:
                columns.append((d.name, d, s))
        layout = []
        for name, dim, s in columns:
            layout.append((s, name, dim, offset))
            offset += dim.n_columns
        X = np.zeros((len(self.params), offset))
        for i, (p, s) in enumerate(zip(self.params, self.space_of)):
            if space_cols:
                X[i, s] = 1.0
            for s2, name, dim, start in layout:
                if s2 != s or dim.n_columns == 0:
                    continue
                X[i, start : start + dim.n_columns] = dim.encode(p[name])
        return X

    @property
    def parameter_names(self) -> set[str]:
        """All parameter names used by any candidate."""
        return {d.name for dims in self.spaces_dims for d in dims}

    def __len__(self) -> int:
        return len(self.params)

    def __repr__(self) -> str:
        return (
            f"CandidateSet(n_candidates={len(self)}, n_columns={self.X.shape[1]}, "
            f"parameters={sorted(self.parameter_names)})"
        )

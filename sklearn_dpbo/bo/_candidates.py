"""The finite, public candidate set Λ (fixed before any data is read) and its
encoding into the unit cube (spec ``DPBO.md`` §2).

A search space (``search_spaces`` of the searches; a list of dicts joins
their candidate sets) maps names to a sequence (a grid dimension), a range
``(low, high[, "uniform" | "log-uniform"])`` (integers if both ends are ints;
``0 < low`` if log-uniform; a tuple is never a grid) or a frozen
``scipy.stats`` distribution. A dict of sequences only is the product grid;
any other dict is ``n_candidates`` points of a scrambled Sobol sequence
(public seed) mapped through each dimension's prior.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.stats import qmc, rv_continuous, rv_discrete
from sklearn.model_selection import ParameterGrid

_PRIORS = ("uniform", "log-uniform")

_TUPLE_IS_A_RANGE = (
    "A tuple is a range (low, high[, 'uniform' | 'log-uniform']) here, not "
    "a grid of values as in GridSearchCV: use a list for a grid, e.g. "
    "[1, 10, 100]."
)


class SearchSpaceTypeError(TypeError, ValueError):
    """A search space of the wrong type (``TypeError`` as in scikit-learn)."""


class _Dimension:
    """One hyper-parameter: how to sample it from u in [0, 1) and encode it."""

    def __init__(self, name: str, spec: Any):
        self.name = name
        if isinstance(spec, (rv_continuous, rv_discrete)):  # not frozen
            family = getattr(spec, "name", type(spec).__name__)
            raise SearchSpaceTypeError(
                f"Parameter {name!r}: scipy.stats.{family} is a distribution "
                "family, not a distribution: freeze it with its parameters, "
                f"e.g. scipy.stats.{family}(...) as in "
                "scipy.stats.loguniform(1e-3, 1e3)."
            )
        if hasattr(spec, "ppf") and hasattr(spec, "cdf"):
            self.kind = "distribution"
            self.dist = spec
            self.n_columns = 1
        elif isinstance(spec, tuple):
            self._init_range(spec)
        elif isinstance(spec, np.ndarray) or (
            isinstance(spec, Sequence) and not isinstance(spec, (str, bytes))
        ):
            if isinstance(spec, np.ndarray) and spec.ndim != 1:
                raise ValueError(
                    f"Parameter array for {name!r} should be one-dimensional, "
                    f"got an array of shape {spec.shape}."
                )
            values = list(spec)
            if not values:
                raise ValueError(
                    f"Parameter grid for parameter {name!r} need to be a non-empty "
                    f"sequence, got: {spec!r}. Give at least one value."
                )
            self.kind, self.values = "list", values
            self._init_list_encoding()
        else:
            raise SearchSpaceTypeError(
                f"Parameter grid for parameter {name!r} needs to be a list or a "
                f"numpy array, but got {spec!r} (of type {type(spec).__name__}) "
                "instead. Single values need to be wrapped in a list with one "
                "element. This specification is unsupported: use a list of "
                "values, a tuple (low, high[, 'uniform' | 'log-uniform']) range "
                "or a frozen scipy.stats distribution."
            )

    def _init_range(self, spec: tuple) -> None:
        name = self.name
        if len(spec) not in (2, 3):
            raise ValueError(
                f"Parameter {name!r}: a range is (low, high) or (low, high, "
                f"prior); got a tuple of length {len(spec)}. {_TUPLE_IS_A_RANGE}"
            )
        low, high = spec[0], spec[1]
        prior = spec[2] if len(spec) == 3 else "uniform"
        if prior not in _PRIORS:
            raise ValueError(
                f"Parameter {name!r}: prior must be one of {_PRIORS}; got "
                f"{prior!r}. {_TUPLE_IS_A_RANGE}"
            )
        for v in (low, high):
            if not isinstance(v, numbers.Real) or isinstance(v, bool):
                raise ValueError(
                    f"Parameter {name!r}: range ends must be numbers; got "
                    f"{v!r}. {_TUPLE_IS_A_RANGE}"
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
        self.n_columns = 1
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
            self.n_columns = 1 if hi > lo else 0
            self.categorical = False
        else:
            self.categorical = True
            self.categories = []
            for v in vals:
                if not any(_same(v, c) for c in self.categories):
                    self.categories.append(v)
            self.n_columns = len(self.categories) if len(self.categories) > 1 else 0

    def from_unit(self, u: float) -> Any:
        """Map u in [0, 1) to a value where :meth:`sample_block` cannot."""
        if self.kind == "distribution":  # discrete
            return int(round(float(self.dist.ppf(min(max(u, 1e-12), 1 - 1e-12)))))
        if self.prior == "log-uniform":
            top = self.high + 1 if self.integer else self.high
            lo, hi = math.log(self.low), math.log(top)
            if self.integer:
                return int(min(math.floor(math.exp(lo + u * (hi - lo))), self.high))
            return float(math.exp(lo + u * (hi - lo)))
        if self.integer:
            n = self.high - self.low + 1
            return int(self.low + min(int(u * n), n - 1))
        return float(self.low + u * (self.high - self.low))

    def encode(self, value: Any) -> list[float]:
        """Encode a value into ``n_columns`` coordinates in [0, 1]."""
        if self.kind == "list":
            if self.n_columns == 0:
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

    def sample_block(self, u: np.ndarray):
        """``(values, codes, encoded)`` of a column of coordinates, or None.

        Vectorised, bit-identical to ``from_unit``/``encode`` (None where it
        cannot be: the caller falls back); ``codes`` are int64, equal iff
        the values' ``repr`` are.
        """
        u = np.asarray(u, dtype=float)
        if self.kind == "list":
            n_values = len(self.values)
            idx = np.minimum((u * float(n_values)).astype(np.int64), n_values - 1)
            reprs = [repr(v) for v in self.values]
            value_codes = np.unique(reprs, return_inverse=True)[1].astype(np.int64)
            table = np.array(
                [self.encode(v) for v in self.values], dtype=float
            ).reshape(n_values, self.n_columns)
            values = [self.values[i] for i in idx.tolist()]
            return values, value_codes[idx], table[idx]
        if self.kind == "distribution":
            q = np.clip(u, 1e-12, 1 - 1e-12)
            x = np.asarray(self.dist.ppf(q), dtype=float).reshape(u.shape)
            if isinstance(getattr(self.dist, "dist", None), rv_discrete):
                if not np.all(np.abs(x) < _INT_LIMIT):  # also catches NaN
                    return None
                x = codes = np.round(x).astype(np.int64)
            else:
                codes = _float_codes(x)
            enc = np.clip(np.asarray(self.dist.cdf(x), dtype=float), 0.0, 1.0)
            return x.tolist(), codes, enc.reshape(-1, 1)
        low, high = self.low, self.high
        if not all(type(v) in (int, float) for v in (low, high)):
            return None
        if self.integer and not (abs(low) < _INT_LIMIT and abs(high) < _INT_LIMIT):
            return None
        if self.prior == "log-uniform":
            lo, hi = math.log(low), math.log(high)
            top = math.log(high + 1) if self.integer else hi
            x = np.fromiter(map(math.exp, (lo + u * (top - lo)).tolist()), float)
            if self.integer:
                x = np.minimum(np.floor(x), float(high)).astype(np.int64)
            values, codes = x.tolist(), x if self.integer else _float_codes(x)
            logs = np.fromiter(map(math.log, values), dtype=float, count=len(values))
            enc = np.clip((logs - lo) / (hi - lo), 0.0, 1.0)
            return values, codes, enc.reshape(-1, 1)
        if self.integer:
            n = high - low + 1
            ints = low + np.minimum((u * float(n)).astype(np.int64), n - 1)
            values = ints.tolist()
            enc = (ints - low) / float(high - low)
            return values, ints, enc.reshape(-1, 1)
        x = float(low) + u * float(high - low)
        enc = (x - float(low)) / float(high - low)
        return x.tolist(), _float_codes(x), enc.reshape(-1, 1)


_INT_LIMIT = 2**52  # integers exact in float64 and int64: vectorised below it


def _float_codes(x: np.ndarray) -> np.ndarray:
    """int64 codes of floats, equal iff their ``repr`` is (all NaNs alike)."""
    x = np.where(np.isnan(x), np.nan, x)
    return x.view(np.int64)


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # objects without a usable ==
        return False


class CandidateSet:
    """Finite, public set of hyper-parameter candidates and its GP encoding.

    Parameters
    ----------
    search_spaces : dict or list of dict
        See the module docstring.
    n_candidates : int, default=1024
        Sobol points drawn for each dict with a range or a distribution
        (duplicates after rounding are dropped).
    seed : int
        Public seed of the scrambled Sobol sequence.

    Attributes
    ----------
    params : list of dict
        The candidates Λ, in a fixed order; ``best_index_`` indexes it.
    X : ndarray of shape (len(params), n_columns)
        The encoding into [0, 1]^d (log10 for log-uniform ranges, min-max
        for numbers, one-hot for categories and, with several dicts, the dict).
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
            raise SearchSpaceTypeError(
                f"Parameter grid should be a dict or a list, got: {search_spaces!r} "
                f"of type {type(search_spaces).__name__}. "
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
                raise SearchSpaceTypeError(
                    f"Parameter grid is not a dict ({space!r}): search_spaces[{i}] "
                    f"must be a dict; got {type(space).__name__}."
                )
            dims = []  # an empty dict is one candidate: the defaults
            for name, spec in space.items():
                if not isinstance(name, str):
                    raise ValueError(f"Parameter names must be strings; got {name!r}.")
                dims.append(_Dimension(name, spec))
            self.spaces_dims.append(dims)
        self._build()

    def _build(self) -> None:
        blocks = [self._space_block(s, dims) for s, dims in enumerate(self.spaces_dims)]
        if len(blocks) == 1 and blocks[0][2] is not None:
            # One Sobol dict: drop repeats (first kept) by their repr codes.
            first = np.unique(blocks[0][2], axis=0, return_index=True)[1]
            kept = [(0, i) for i in np.sort(first).tolist()]
        else:
            kept, seen = [], set()  # a setting several dicts give: the first
            for s, (points, _, _) in enumerate(blocks):
                for i, p in enumerate(points):
                    key = tuple(sorted((k, repr(v)) for k, v in p.items()))
                    if key not in seen:
                        seen.add(key)
                        kept.append((s, i))
        self.params = [blocks[s][0][i] for s, i in kept]
        self.space_of = np.asarray([s for s, _ in kept], dtype=int)
        self.X = self._encode_all(blocks, kept)

    def _space_block(self, s: int, dims: list[_Dimension]):
        """Candidates of one dict: (points, encoding per dimension, codes or None)."""
        if all(d.kind == "list" for d in dims):
            points = [dict(p) for p in ParameterGrid({d.name: d.values for d in dims})]
            encoded = [
                np.array([d.encode(p[d.name]) for p in points], dtype=float).reshape(
                    len(points), d.n_columns
                )
                for d in dims
            ]
            return points, encoded, None
        sampler = qmc.Sobol(len(dims), seed=np.random.default_rng([self.seed, s]))
        m = max(0, math.ceil(math.log2(max(self.n_candidates, 1))))
        u = sampler.random_base2(m)[: self.n_candidates]
        columns, encoded, codes = [], [], []
        for j, d in enumerate(dims):
            block = d.sample_block(u[:, j])
            if block is None:
                values = [d.from_unit(float(x)) for x in u[:, j]]
                enc = np.array([d.encode(v) for v in values], dtype=float)
                block = (values, None, enc.reshape(len(values), d.n_columns))
            for out, part in zip((columns, codes, encoded), block):
                out.append(part)
        names = [d.name for d in dims]
        points = [dict(zip(names, row)) for row in zip(*columns)]
        whole = all(c is not None for c in codes)
        return points, encoded, np.column_stack(codes) if whole else None

    def _encode_all(self, blocks, kept) -> np.ndarray:
        """The dict indicator (with several dicts), then every dimension in order."""
        n_spaces, local = len(self.spaces_dims), np.asarray([i for _, i in kept])
        if n_spaces == 1:  # every row from the one dict: its kept rows
            parts = [enc[local] for enc in blocks[0][1]]
            return np.hstack(parts) if parts else np.zeros((len(kept), 0))
        parts = [np.eye(n_spaces)[self.space_of]]
        for s in range(n_spaces):
            rows = self.space_of == s
            for enc in blocks[s][1]:
                parts.append(np.zeros((len(kept), enc.shape[1])))
                parts[-1][rows] = enc[local[rows]]
        return np.hstack(parts)

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

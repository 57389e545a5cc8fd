"""Per-record private scores.

    s(V) = (1/m) Σ_i clip(r(y_i, out_i), low, high),     out = model(x_i).

Swapping one of the m validation records changes one term, so the swap-one
sensitivity is (high − low)/m whatever r is (Dwork & Roth 2014, §3.3),
provided a record's value depends only on that record and the public fitted
model: row independence, by construction (:meth:`DPScorer.private_values`).
A record that does not map or fails (an exception, a non-finite value) gets
``low``, silently.
"""

from __future__ import annotations

import copy
import math
import pickle
from dataclasses import replace
from typing import Any, Callable, Optional

import numpy as np
from scipy.sparse import issparse
from sklearn.base import is_classifier
from sklearn.utils import check_random_state

from .._compat import _num_samples
from ._records import Records, RecordSchema, _failed, _take
from ._rowwise import is_rowwise
from ._silence import quiet

SINGLE_ROWS = 8  # rows :meth:`DPScorer.check_public_rows` also scores alone
PUBLIC_ROWS = 32  # public rows it samples


def rows_scored_by_check(n_train: int, n_rows: int = PUBLIC_ROWS) -> int:
    """Rows :meth:`DPScorer.check_public_rows` scores in all."""
    k = min(int(n_train), int(n_rows))
    return 3 * k + min(SINGLE_ROWS, k)


BATCH_ROWS = 2048  # validation records per predict call of a row-wise model
SCREEN_ROWS = 32  # a failing part this small is split by scoring records alone

ROW_INDEPENDENCE = (
    "row independence, by construction: each validation record is mapped "
    "into the public training set's schema on its own (a record that does "
    "not map scores the worst value) and scored either alone, from a fresh "
    "copy of the candidate fitted on the public training set, or, when every "
    "step of that model is a scikit-learn class on the library's row-wise "
    "list, at its position in batches whose sizes depend on m only (a batch "
    "that raises is scored again in parts padded to its size and memory "
    "layout with copies of a record of the part, down to the records that "
    "raise in a batch of copies of themselves, which score the worst value), "
    "assuming such a model computes each output row from its input row only, "
    "the same way at the same position of batches of the same size and "
    "layout, and raises on a batch only if one of its records raises on a "
    "batch of copies of itself"
)
"""What every per-record sensitivity rests on; stated in ``privacy_report_``."""


def _pickle(estimator: Any) -> Optional[bytes]:
    try:
        return pickle.dumps(estimator, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return None


def _copier(estimator: Any) -> Callable[[], Any]:
    """Fresh copies of a fitted model: from one pickle, else ``copy.deepcopy``."""
    blob = _pickle(estimator)
    if blob is None:
        return lambda: copy.deepcopy(estimator)
    return lambda: pickle.loads(blob)


def check_copyable(estimator: Any) -> None:
    """Raise if the fitted model can be neither pickled nor deep-copied."""
    if _pickle(estimator) is None:
        try:
            copy.deepcopy(estimator)
        except Exception as exc:
            raise ValueError(
                "The fitted candidate can be neither pickled nor deep-copied "
                f"({type(exc).__name__}: {exc}). Validation records are scored "
                "one at a time, each from a fresh copy of the model fitted on "
                "the public training set, so that no record can influence "
                "another record's value; make the estimator copyable (or use "
                "scikit-learn steps without user functions, which are scored "
                "in batches)."
            ) from exc


def _scorable(records):
    """``records`` as batches are scored: COO and other sparse formats as CSR
    (rows by index), an array that is not contiguous as a copy
    (:func:`_rows_like` keeps a contiguous array's layout)."""
    X = records.X
    if issparse(X) and X.format not in ("csr", "csc"):
        return replace(records, X=X.tocsr())
    if isinstance(X, np.ndarray) and not (X.flags.c_contiguous or X.flags.f_contiguous):
        return records.take(np.arange(len(records)))
    return records


def _rows_like(a, rows: np.ndarray):
    """Rows ``rows`` of the batch ``a``: a contiguous array is copied into
    memory laid out like ``a``'s (its order and its address modulo 64 bytes),
    as BLAS rounds by layout (a Fortran-ordered batch differs from a C one)."""
    if not isinstance(a, np.ndarray):
        return _take(a, rows)
    order = "C" if a.flags.c_contiguous else "F"
    if a.dtype.hasobject:  # converted by the model: no address to keep
        out = np.empty(a.shape, a.dtype, order=order)
    else:
        buf = np.empty(a.nbytes + 64, np.uint8)
        shift = (a.ctypes.data - buf.ctypes.data) % 64
        out = np.ndarray(a.shape, a.dtype, buf, shift, order=order)
    out[...] = a[rows]
    return out


class RowIndependenceError(ValueError):
    """The model's outputs for a record depend on the other records scored."""


class DPScorer:
    """A private score: the mean of per-record values clipped into ``bounds``.

    s(V) = (1/m) Σ_i clip(r(y_i, out_i), low, high): swap-one sensitivity
    (high − low)/m by construction (module docstring).

    Parameters
    ----------
    record_score : callable
        ``record_score(y_true, out) -> array of shape (m,)``: one value per
        record, greater is better (``out`` is the output of
        ``response_method`` for the m rows). It must compute record i from
        ``y_true[i]`` and ``out[i]`` only.
    bounds : (float, float)
        ``(low, high)``: public range every per-record value is clipped
        into. Non-finite values and failing records get ``low``.
    response_method : str, default="predict"
        ``"predict"``, ``"predict_proba"`` or ``"decision_function"``.
    greater_is_better : bool, default=True
        ``False`` negates ``record_score`` (a loss); ``bounds`` are the range
        of the negated values.
    name : str, default="custom"
        Shown in reports.

    Attributes
    ----------
    lipschitz : float or None
        ``"neg_sigmoid_loss"`` and ``"neg_ramp_loss"`` only: the per-record
        loss is ``lipschitz · R``-Lipschitz in a linear model's weights for
        features of norm ≤ R. ``None`` for every user score.
    public_note : str or None
        How constants were derived from the public training targets
        (``error_clip="auto"``), stated in ``privacy_report_``.

    Examples
    --------
    >>> import numpy as np
    >>> s = make_dp_scorer(lambda y, p: (y == p).astype(float), bounds=(0, 1))
    >>> round(s.sensitivity_for(200), 12)
    0.005
    """

    def __init__(
        self,
        record_score: Callable,
        *,
        bounds: tuple[float, float],
        response_method: str = "predict",
        greater_is_better: bool = True,
        name: str = "custom",
    ):
        low, high = (float(b) for b in bounds)
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise ValueError(
                f"bounds must be finite with low < high; got {bounds!r}. Give the "
                "public range of one record's value, e.g. bounds=(0.0, 1.0) for "
                "accuracy."
            )
        if response_method not in ("predict", "predict_proba", "decision_function"):
            raise ValueError(
                "response_method must be 'predict', 'predict_proba' or "
                f"'decision_function'; got {response_method!r}."
            )
        if not callable(record_score):
            raise TypeError(
                "record_score must be callable: (y_true, out) -> (m,) array."
            )
        self.record_score = record_score
        self.bounds = (low, high)
        self.response_method = response_method
        self.greater_is_better = bool(greater_is_better)
        self.name = name
        self.lipschitz: Optional[float] = None
        self.public_note: Optional[str] = None
        self._with_estimator = False  # built-ins also receive the estimator
        self.target = "auto"  # targets map to "classes", "numeric" or by estimator

    #: True until :meth:`for_training_targets` fixed ``error_clip="auto"``.
    needs_training_targets = False

    def for_training_targets(self, y_train) -> DPScorer:
        """This score with the constants the training targets fix (itself here)."""
        return self

    def maps_labels(self, estimator: Any) -> bool:
        """Whether targets are mapped to the training classes (else to floats)."""
        if self.target == "auto":
            return bool(is_classifier(estimator))
        return self.target == "classes"

    def sensitivity_for(self, n_validation: int) -> float:
        """Swap-one sensitivity Δ = (high − low)/m of the mean of m records.

        Rounded up by two ulps of the largest bound: a mean computed in
        floating point can move by a little more than (high − low)/m, e.g.
        1 − fl(2/3) > fl(1/3) for accuracy on m = 3 records (the rounding of
        a mean breaking a claimed sensitivity, opendp/opendp#2923).
        """
        low, high = self.bounds
        delta = (high - low) / int(n_validation)
        delta += 2.0 * math.ulp(max(abs(low), abs(high)))
        return math.nextafter(delta, math.inf)

    def _raw(self, estimator: Any, X, y) -> np.ndarray:
        """Unclipped per-record values of one batch (raises on failure)."""
        out = np.asarray(getattr(estimator, self.response_method)(X))
        extra = (estimator,) if self._with_estimator else ()
        values = np.asarray(self.record_score(y, out, *extra), dtype=float)
        if not self.greater_is_better:
            values = -values
        # _num_samples's answer for an ndarray, without its checks (per record).
        m = X.shape[0] if type(X) is np.ndarray and X.ndim else _num_samples(X)
        if values.shape != (m,):
            raise ValueError(
                f"The per-record score returned shape {values.shape} for {m} "
                "records; it must return one value per record, shape (m,)."
            )
        return values

    def _clip(self, values: np.ndarray) -> np.ndarray:
        low, high = self.bounds
        return np.where(np.isfinite(values), values, low).clip(low, high)

    def record_values(
        self, estimator: Any, X, y, *, private: bool = True
    ) -> np.ndarray:
        """Clipped per-record values of ``estimator`` on ``(X, y)``.

        ``private=True``: mapped into the schema of the model's ``classes_``
        and scored by :meth:`private_values`. ``private=False`` (rows already
        read per record by the caller: the private-model mode's validation
        part, a whole-data part's test rows, public rows): scored at once; a
        batch that raises is split by :meth:`_fill_batch`, so no record
        decides how the others are computed.
        """
        if private:
            schema = RecordSchema.from_estimator(
                estimator, y, classes=self.maps_labels(estimator)
            )
            with quiet():  # a record's conversion must not warn either
                return self.private_values(estimator, schema.map(X, y))
        m = _num_samples(X)
        out = np.full(m, -np.inf)  # failures stay -inf: clipped to low
        with quiet(private=False):
            rows = _scorable(Records(X, y, np.ones(m, dtype=bool)))
            self._fill_part(estimator, rows, np.arange(m), out)
        return self._clip(out)

    def private_values(self, estimator: Any, records) -> np.ndarray:
        """Clipped per-record values of validation ``records``, by isolation.

        Record i's value depends on record i and the fitted model only:

        * each record was mapped on its own into a public schema
          (:class:`~._records.Records`); one that did not map scores ``low``;
        * a model on the row-wise list (:func:`~._rowwise.is_rowwise`) scores
          consecutive batches of :data:`BATCH_ROWS` records (sizes and
          positions fixed by m); a batch that raises is split by
          :meth:`_fill_batch`, which keeps every record at its size and
          position: its value is the one it gets in a batch of copies of
          itself, whatever the other records;
        * any other model scores every record alone from a fresh copy.

        Failures and non-finite values give ``low``; runs under
        :func:`quiet`.
        """
        m = len(records)
        out = np.full(m, -np.inf)  # failures stay -inf: clipped to low
        with quiet():
            if not is_rowwise(estimator):
                self._fill_alone(estimator, records, out)
            else:
                records = _scorable(records)
                for start in range(0, m, BATCH_ROWS):
                    idx = np.arange(start, min(start + BATCH_ROWS, m))
                    part = records if len(idx) == m else records.take(idx)
                    self._fill_part(estimator, part, idx, out)
        out[~records.ok] = -np.inf
        return self._clip(out)

    def _fill_part(self, estimator, part, idx: np.ndarray, out) -> None:
        """Score ``part`` (records ``idx``) in one call, or, if a record makes
        it raise, by :meth:`_fill_batch` (``KeyboardInterrupt`` goes on)."""
        try:
            out[idx] = self._raw(estimator, part.X, part.y)
        except BaseException as exc:  # noqa: BLE001 - a record's own
            _failed(exc)
            self._fill_batch(estimator, part, idx, out)

    def _fill_batch(self, estimator, batch, idx: np.ndarray, out) -> None:
        """Score ``batch`` (records ``idx``), which raised, each record at its
        position.

        Scoring one row alone rounds differently from scoring it in a batch
        (a matrix-vector product instead of a matrix product), so re-scoring
        the batch record by record would let one failing record decide how
        the others round, and flip a threshold score such as accuracy near
        the decision boundary. Here part ``keep`` of the batch is scored in a
        batch of the same size and memory layout whose position p holds
        record p if p is in ``keep`` and a copy of the part's first record
        otherwise (only the part's outputs are read). A part that raises is
        halved; a single record that raises (in a batch of copies of itself)
        scores ``low``. A record's value is thus the one it gets at its
        position in a batch of copies of itself, and whether it fails depends
        on itself only (the assumption in :data:`ROW_INDEPENDENCE`).

        Cost only (the values do not depend on it): about ``2 k log₂ n``
        calls for k failing records of n; a part of at most
        :data:`SCREEN_ROWS` records that raises is first split by scoring
        each record alone (cheap calls): those that pass, then each other
        record, so many failing records cost about what scoring the batch
        record by record does.
        """
        n = len(idx)
        keep = np.arange(n)
        stack = [keep[n // 2 :], keep[: n // 2]] if n > 1 else []
        screened = set()  # records already screened: their parts are halved
        while stack:
            keep = stack.pop()
            rows = np.full(n, keep[0])
            rows[keep] = keep
            try:
                X, y = _rows_like(batch.X, rows), _take(batch.y, rows)
                out[idx[keep]] = self._raw(estimator, X, y)[keep]
                continue
            except BaseException as exc:  # noqa: BLE001 - a record's own
                _failed(exc)
            if len(keep) == 1:
                continue  # it stays -inf: clipped to low
            if len(keep) > SCREEN_ROWS or keep[0] in screened:
                stack += [keep[len(keep) // 2 :], keep[: len(keep) // 2]]
                continue
            alone = np.array([self._passes_alone(estimator, batch, p) for p in keep])
            stack += [keep[[q]] for q in np.flatnonzero(~alone)]
            stack += [keep[alone]] if alone.any() else []
            screened.update(keep.tolist())

    def _passes_alone(self, estimator, batch, p: int) -> bool:
        """Whether record ``p`` of ``batch`` scores alone (a screen only)."""
        try:
            self._raw(estimator, _take(batch.X, [p]), _take(batch.y, [p]))
        except BaseException as exc:  # noqa: BLE001 - a record's own
            _failed(exc)
            return False
        return True

    def _fill_alone(self, estimator, records, out) -> None:
        """Score every record alone, each from a fresh copy of the model."""
        fresh = _copier(estimator)
        for i in range(len(records)):
            if records.ok[i]:
                y = None if records.y is None else records.y[i : i + 1]
                try:
                    out[i] = self._raw(fresh(), _take(records.X, [i]), y)[0]
                except BaseException as exc:  # noqa: BLE001 - this record's own
                    _failed(exc)
                    out[i] = -np.inf

    def __call__(self, estimator: Any, X, y) -> float:
        """The private score: mean of :meth:`record_values`."""
        return float(np.mean(self.record_values(estimator, X, y)))

    def metric(self, estimator: Any, X, y) -> float:
        """The unclipped mean on public data (``search.score``); failures raise."""
        return float(np.mean(self._raw(estimator, X, y)))

    def check_public_rows(
        self, estimator: Any, X, y, *, n_rows: int = PUBLIC_ROWS, random_state=0
    ) -> None:
        """Raise if scoring public rows fails or changes with the batch.

        Compares a batch with its halves, its reverse and ``SINGLE_ROWS`` rows
        alone, to 1e-9 of the bounds' width: it finds a step that uses the
        statistics of the rows it transforms, early, not rounding. Scored
        at other sizes, a row's value may differ by rounding, enough to flip
        a threshold score near a decision boundary, so
        :meth:`private_values` never relies on this check: it scores each
        validation record at a size and position fixed by m.
        """
        n = _num_samples(X)
        rng = check_random_state(random_state)
        idx = np.sort(rng.choice(n, size=min(n, n_rows), replace=False))

        def values(rows) -> np.ndarray:
            rows = idx[rows]
            return self._clip(self._raw(estimator, _take(X, rows), _take(y, rows)))

        k = len(idx)
        order, half = np.arange(k), k // 2
        try:
            with quiet(private=False):  # public rows
                batch, parts = values(order), []
                if k > 1:  # halves, then reversed
                    parts.append(
                        np.hstack([values(order[:half]), values(order[half:])])
                    )
                    parts.append(values(order[::-1])[::-1])
                singles = [values([i])[0] for i in range(min(SINGLE_ROWS, k))]
                parts.append(np.array(singles))  # compared with the first rows
        except Exception as exc:
            raise ValueError(
                f"Scoring a fitted candidate with {self.name!r} on rows of the "
                f"public training set failed ({type(exc).__name__}: {exc}). The "
                "validation set would fail the same way, and every failing "
                "validation record would silently get the worst value. Fix the "
                "estimator or the score on public data first."
            ) from exc
        if not is_rowwise(estimator):
            check_copyable(estimator)  # records will be scored alone, on copies
        tol = 1e-9 * (self.bounds[1] - self.bounds[0])
        if not all(np.allclose(p, batch[: len(p)], rtol=0, atol=tol) for p in parts):
            raise RowIndependenceError(
                f"The score {self.name!r} of a fitted candidate changes with the "
                "batch a record is scored in (checked on public training rows: "
                "the same rows scored together, in halves, reversed and one by "
                "one gave different values). The privacy guarantee needs each "
                "record's value to depend on that record and the fitted model "
                "only; otherwise one validation record could move every other "
                "record's value. Remove steps that use the statistics of the "
                "data they transform at predict time (fit them on the training "
                "set instead) or use a model whose predictions are row-wise."
            )

    def __repr__(self) -> str:
        return (
            f"DPScorer(name={self.name!r}, bounds={self.bounds}, "
            f"response_method={self.response_method!r})"
        )

"""Per-record private scores.

A private release needs two public facts about its validation score: the
range it lives in and how much one validation record can move it. Both
hold *by construction* here: a private score is

    s(V) = (1/m) Σ_i clip(r(y_i, out_i), low, high),     out = model(x_i),

the mean over the m validation records of a **per-record** value r,
clipped by the library into public ``bounds``. Swapping one record changes
one term, so the swap-one sensitivity is (high − low)/m whatever r is
(Dwork & Roth 2014, §3.3), provided a record's value depends only on that
record and the (public) fitted model — *row independence*. It holds by
construction, for every estimator (:meth:`DPScorer.private_values`):

* each validation record is mapped into a schema read from the public
  training data on its own (``_records.py``): no dtype inferred over the
  batch, no category set, no string/number mixing decides how another
  record is scored;
* each record is scored alone, from a fresh copy of the fitted model,
  unless every step of the model is a scikit-learn class known to predict
  row by row (``_rowwise.py``), which is scored in batches of public sizes.

The check on public training rows (:meth:`DPScorer.check_public_rows`) is a
second line of defence that tells the user early that a step is
batch-dependent; the guarantee does not rest on it.

A record that does not map, or makes the model or r fail (an exception, a
non-finite value), gets the worst value ``low``: one record can change at
most its own term even when it breaks something. Nothing about a failure
leaves the scorer: no exception, no warning (see :func:`quiet`).

Aggregate metrics that are not a mean of bounded per-record terms (F1,
ROC AUC, balanced accuracy, precision, recall, plain R², …) are refused:
one record can move them by far more than 1/m.

Neighbouring relation: validation sets of the same public size m that
differ by swapping one record.
"""

from __future__ import annotations

import math
import sys
import threading
import types
import warnings
from contextlib import contextmanager
from typing import Any, Callable, Optional, Union

import numpy as np
from sklearn.utils import check_random_state

from .._compat import _num_samples, _safe_indexing

__all__ = [
    "BATCH_ROWS",
    "DPScorer",
    "make_dp_scorer",
    "get_dp_scorer",
    "quiet",
    "RowIndependenceError",
]

# ---------------------------------------------------------------------------
# Silence for private code paths
# ---------------------------------------------------------------------------

_QUIET_LOCK = threading.RLock()
_IN_QUIET = threading.local()  # depth of this thread's quiet() sections


@contextmanager
def quiet(private: bool = True, *, registries: bool = True):
    """Withhold every warning raised while private work runs.

    ``warnings.catch_warnings`` changes process-global state and is not
    thread-safe: two threads entering and leaving it interleaved can leave
    a silencing filter installed, or restore the user's filters while the
    other thread is still scoring validation records (so a warning raised
    by one validation record reaches the user). Every private section of the
    library therefore holds one process-wide lock for the whole time the
    filter is installed: library threads never interleave their filter
    changes, and a private computation always runs under the filter. Under
    the threading backend (and Dask's threaded workers) private scoring is
    then serialised; process backends (loky, Dask processes) are unaffected.
    Warnings raised in the section are recorded into a list that is dropped
    at its end (the ``"always"`` filter: none is shown, none is turned into
    an error).

    A thread that is *not* the library's and warns during a private section
    has its warning withheld too (lost, never revealed); a thread that
    changes the warning filters during one is outside this protection.

    A withheld warning still touches the ``__warningregistry__`` of the
    module it is attributed to: CPython's ``warn_explicit`` creates it, or
    clears it and stamps the filters' version, *before* it looks at the
    filters. Scored in this process, a warning raised by one validation
    record would be readable there after the fit. With ``registries=True``
    (the default) the registries are saved on entry and, if any warning was
    raised in the section, put back on exit (:class:`_Registries`).
    ``registries=False`` is for sections that score public data only (the
    public-rows checks), whose warnings reveal nothing private. A section
    nested in one of the same thread is covered by the outer one (one
    registry snapshot for a whole loop of private scores).
    """
    if not private:
        yield
        return
    if getattr(_IN_QUIET, "depth", 0):
        # Nested in this thread's section: covered by it (its filter, its
        # record list and its registries), at no extra cost.
        _IN_QUIET.depth += 1
        try:
            yield
        finally:
            _IN_QUIET.depth -= 1
        return
    with _QUIET_LOCK:
        saved = _Registries() if registries else None
        _IN_QUIET.depth = 1
        try:
            with warnings.catch_warnings(record=True) as raised:
                warnings.simplefilter("always")
                yield
        finally:
            _IN_QUIET.depth = 0
            if saved is not None and raised:
                saved.restore()


_REGISTRY = "__warningregistry__"
# The namespace of a module, read without the module's own attribute hooks
# (reading ``__dict__`` of a lazily loaded module would import it).
_MODULE_DICT = types.ModuleType.__dict__["__dict__"]
# The loaded modules' namespaces, rebuilt when sys.modules changes size.
_NAMESPACES: dict = {"size": -1, "namespaces": []}


def _module_namespaces() -> list:
    """The global namespaces of the loaded modules (cached)."""
    if _NAMESPACES["size"] != len(sys.modules):
        _NAMESPACES["namespaces"] = [
            _MODULE_DICT.__get__(module)
            for module in list(sys.modules.values())
            if issubclass(type(module), types.ModuleType)
        ]
        _NAMESPACES["size"] = len(sys.modules)
    return _NAMESPACES["namespaces"]


class _Registries:
    """The loaded modules' ``__warningregistry__`` dicts, saved to put back."""

    def __init__(self):
        self.saved = {
            id(namespace): (registry, dict(registry))
            for namespace in _module_namespaces()
            if isinstance(registry := namespace.get(_REGISTRY), dict)
        }

    def restore(self) -> None:
        """Every registry as it was saved; one created since is removed.

        A registry created or changed in a module imported during the
        section is found too (the module list is rebuilt).
        """
        for namespace in _module_namespaces():
            current = namespace.get(_REGISTRY)
            if current is None:
                continue
            registry, copy = self.saved.get(id(namespace), (None, None))
            if registry is None:
                del namespace[_REGISTRY]
            elif current is not registry or registry != copy:
                registry.clear()
                registry.update(copy)
                namespace[_REGISTRY] = registry


# Rows of the public sample that the row-independence check also scores one
# at a time (each a separate predict call: the strongest test of a
# batch-dependent step, and the check's main cost). 3 missed a transductive
# standardiser for 7 public seeds in 100 (tests/test_soundness.py); 8 missed
# none; all 32 cost 4-5x the time of a private grid search's check.
SINGLE_ROWS = 8
# Public rows the row-independence check samples (its default ``n_rows``).
PUBLIC_ROWS = 32


def rows_scored_by_check(n_train: int, n_rows: int = PUBLIC_ROWS) -> int:
    """Rows :meth:`DPScorer.check_public_rows` scores in all: the sample of
    k = min(n_train, n_rows) rows as a batch, in halves and reversed, and
    min(SINGLE_ROWS, k) of them alone."""
    k = min(int(n_train), int(n_rows))
    return 3 * k + min(SINGLE_ROWS, k)


# Validation records a row-wise model scores per predict call
# (:meth:`DPScorer.private_values`); consecutive batches, sizes fixed by m.
BATCH_ROWS = 2048

ROW_INDEPENDENCE = (
    "row independence, by construction: each validation record is mapped "
    "into the public training set's schema on its own (a record that does "
    "not map scores the worst value) and scored either alone, from a fresh "
    "copy of the candidate fitted on the public training set, or, when every "
    "step of that model is a scikit-learn class on the library's row-wise "
    "list, in batches of public sizes (values then equal up to "
    "floating-point summation order)"
)
"""What every per-record sensitivity rests on; stated in ``privacy_report_``."""


class _Copies:
    """Fresh copies of a fitted model, one per record scored alone.

    From a pickle taken once (``pickle.loads`` per copy), or by
    ``copy.deepcopy`` for a model that does not pickle (a lambda in a
    ``FunctionTransformer``). State outside the model object (globals, a
    closure's captured variables) is the user's code's and is not copied.
    """

    def __init__(self, estimator: Any):
        import pickle

        self.estimator = estimator
        try:
            self.blob = pickle.dumps(estimator, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            self.blob = None

    def fresh(self) -> Any:
        import copy
        import pickle

        if self.blob is not None:
            return pickle.loads(self.blob)
        return copy.deepcopy(self.estimator)


def check_copyable(estimator: Any) -> None:
    """Raise (public, before the validation read) if the fitted model can be
    neither pickled nor deep-copied: records scored alone need fresh copies."""
    import copy
    import pickle

    try:
        pickle.dumps(estimator, protocol=pickle.HIGHEST_PROTOCOL)
        return
    except Exception:
        pass
    try:
        copy.deepcopy(estimator)
    except Exception as exc:
        raise ValueError(
            "The fitted candidate can be neither pickled nor deep-copied "
            f"({type(exc).__name__}: {exc}). Validation records are scored one "
            "at a time, each from a fresh copy of the model fitted on the "
            "public training set, so that no record can influence another "
            "record's value; make the estimator copyable (or use scikit-learn "
            "steps without user functions, which are scored in batches)."
        ) from exc


class RowIndependenceError(ValueError):
    """The model's outputs for a record depend on the other records scored."""


# ---------------------------------------------------------------------------
# Per-record values
# ---------------------------------------------------------------------------


def _take(a, idx):
    """Rows ``idx`` of ``a`` (``None`` stays ``None``: unsupervised scores).

    NumPy arrays are indexed directly (``_safe_indexing``'s container
    checks cost more than the scoring of a small model).
    """
    if a is None:
        return None
    if type(a) is np.ndarray:
        return a[np.asarray(idx, dtype=np.intp)]
    return _safe_indexing(a, idx)


def _response(estimator: Any, X, method: str):
    return np.asarray(getattr(estimator, method)(X))


def _proba_of_true_class(y_true, proba, estimator) -> np.ndarray:
    """p(y_i) per record; 0 for a label the model does not know."""
    classes = np.asarray(estimator.classes_)
    y_true = np.asarray(y_true)
    proba = np.asarray(proba, dtype=float)
    if proba.ndim != 2 or proba.shape[1] != len(classes):
        raise ValueError("predict_proba must return one column per class.")
    out = np.zeros(len(y_true))
    for k, c in enumerate(classes):
        hit = y_true == c
        out[hit] = proba[hit, k]
    return out


def _accuracy(y_true, y_pred, estimator=None) -> np.ndarray:
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_pred.shape != y_true.shape:
        y_pred = y_pred.reshape(y_true.shape)
    eq = y_true == y_pred
    if eq.ndim > 1:  # multi-output: a record is right if every output is
        eq = eq.reshape(len(eq), -1).all(axis=1)
    return eq.astype(float)


def _log_loss(floor: float):
    def neg_log_loss(y_true, proba, estimator) -> np.ndarray:
        p = _proba_of_true_class(y_true, proba, estimator)
        return np.log(np.maximum(p, floor))

    return neg_log_loss


def _brier(y_true, proba, estimator) -> np.ndarray:
    classes = np.asarray(estimator.classes_)
    proba = np.asarray(proba, dtype=float)
    onehot = (np.asarray(y_true)[:, None] == classes[None, :]).astype(float)
    if proba.shape != onehot.shape:
        raise ValueError("predict_proba must return one column per class.")
    return -0.5 * np.sum((proba - onehot) ** 2, axis=1)


def _signed_margins(y_true, z, estimator) -> np.ndarray:
    """y·w·x for a binary linear classifier, with y = +1 for ``classes_[1]``.

    Every label other than ``classes_[1]`` counts as −1, so a validation
    label the training set never had is a (badly) misclassified record.
    """
    z = np.asarray(z, dtype=float)
    if z.ndim != 1:
        raise ValueError(
            "This score needs a binary classifier (1-D decision_function)."
        )
    positive = np.asarray(y_true) == estimator.classes_[1]
    return np.where(positive, z, -z)


def _sigmoid_loss(y_true, z, estimator) -> np.ndarray:
    """−1/(1 + exp(y w·x)) per record: the normalised sigmoid loss, negated.

    g ∈ (0, 1), so g* = 1; |dg/dz| ≤ 1/4 and z = y w·x is ‖x‖-Lipschitz in
    w: g is R/4-Lipschitz in w for ‖x‖ ≤ R (Kusner et al. 2015, Assumption 2).
    """
    from scipy.special import expit

    return -expit(-_signed_margins(y_true, z, estimator))


def _ramp_loss(y_true, z, estimator) -> np.ndarray:
    """−min(1, max(0, 1 − y w·x)) per record: the ramp loss, negated.

    g ∈ [0, 1] (g* = 1) and 1-Lipschitz in the margin: R-Lipschitz in w.
    """
    return -np.clip(1.0 - _signed_margins(y_true, z, estimator), 0.0, 1.0)


def _hinge(clip: float):
    def neg_hinge_loss(y_true, z, estimator) -> np.ndarray:
        return -np.minimum(
            np.maximum(0.0, 1.0 - _signed_margins(y_true, z, estimator)), clip
        )

    return neg_hinge_loss


def _residual(y_true, y_pred) -> np.ndarray:
    y_true = np.asarray(y_true, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float).reshape(y_true.shape)
    err = np.abs(y_true - y_pred)
    if err.ndim > 1:  # multi-output: the mean error of the record's outputs
        err = err.reshape(len(err), -1).mean(axis=1)
    return err


def _regression(kind: str, clip: float, huber_delta: float = 1.0, variance=None):
    def record(y_true, y_pred, estimator=None) -> np.ndarray:
        e = np.minimum(_residual(y_true, y_pred), clip)
        if kind == "mae":
            return -e
        if kind == "mse":
            return -(e**2)
        if kind == "huber":
            d = huber_delta
            return -np.where(e <= d, 0.5 * e**2, d * (e - 0.5 * d))
        return 1.0 - e**2 / variance  # r2 against a public variance

    return record


# ---------------------------------------------------------------------------
# DPScorer
# ---------------------------------------------------------------------------


class DPScorer:
    """A private score: the mean of per-record values clipped into ``bounds``.

    s(V) = (1/m) Σ_i clip(r(y_i, out_i), low, high), with ``out`` the
    estimator's ``response_method`` on the validation rows. Its swap-one
    sensitivity is (high − low)/m by construction (module docstring).

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
        Built-in Lipschitz surrogates only (``"neg_sigmoid_loss"``,
        ``"neg_ramp_loss"``): the per-record loss is ``lipschitz · R``-
        Lipschitz in the weights of a linear model for features of norm ≤ R
        (proved in the functions' docstrings). ``None`` for every user
        score: ``method="lipschitz"`` accepts only the built-in ones.

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
        self._with_estimator = False  # built-ins also receive the estimator
        # What a validation target is mapped into (``_records.py``):
        # "classes" (the training labels), "numeric" (a float per output),
        # or "auto" (classes for a classifier, else numeric).
        self.target = "auto"

    def maps_labels(self, estimator: Any) -> bool:
        """Whether targets are mapped to the training classes (else to floats)."""
        if self.target == "auto":
            from sklearn.base import is_classifier

            return bool(is_classifier(estimator))
        return self.target == "classes"

    # -- sensitivity ------------------------------------------------------
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

    # -- per-record values -------------------------------------------------
    def _raw(self, estimator: Any, X, y) -> np.ndarray:
        """Unclipped per-record values of one batch (raises on failure)."""
        out = _response(estimator, X, self.response_method)
        if self._with_estimator:
            values = self.record_score(y, out, estimator)
        else:
            values = self.record_score(y, out)
        values = np.asarray(values, dtype=float)
        if not self.greater_is_better:
            values = -values
        m = _num_samples(X)
        if values.shape != (m,):
            raise ValueError(
                f"The per-record score returned shape {values.shape} for {m} "
                "records; it must return one value per record, shape (m,)."
            )
        return values

    def _clip(self, values: np.ndarray) -> np.ndarray:
        low, high = self.bounds
        return np.clip(np.where(np.isfinite(values), values, low), low, high)

    def record_values(
        self, estimator: Any, X, y, *, private: bool = True
    ) -> np.ndarray:
        """Clipped per-record values of ``estimator`` on ``(X, y)``.

        ``private=True`` (the default): the records are mapped one by one
        into a schema read from the fitted model
        (:meth:`~._records.RecordSchema.from_estimator`: its ``classes_``)
        and scored by :meth:`private_values`. The search maps its
        validation set into the *training set's* schema instead
        (:meth:`~._context.SearchData.records`), which also fixes the
        columns and dtypes of DataFrame inputs.

        ``private=False`` (public rows, e.g. the public folds): the batch is
        scored at once; if that raises, it is split in two and each half
        scored alone, recursively, down to single records, and a single
        record that still fails gets ``low``. Runs under :func:`quiet`
        without the warning-registry snapshot, which only private data
        needs.
        """
        if private:
            from ._records import RecordSchema

            schema = RecordSchema.from_estimator(
                estimator, y, classes=self.maps_labels(estimator)
            )
            with quiet():  # a record's conversion must not warn
                records = schema.map(X, y)
            return self.private_values(estimator, records)
        m = _num_samples(X)
        out = np.empty(m)
        with quiet(registries=False):
            self._fill(estimator, X, y, np.arange(m), out)
        return self._clip(out)

    def private_values(self, estimator: Any, records) -> np.ndarray:
        """Clipped per-record values of validation ``records``, by isolation.

        Record i's value is a function of record i and the fitted model
        only, for every model, by construction:

        * each record was mapped into a public schema on its own
          (:class:`~._records.Records`; one that did not map scores
          ``low``);
        * if the model is on the row-wise list (:func:`~._rowwise.is_rowwise`:
          scikit-learn classes whose prediction is row-wise by their code,
          no user callable), records are scored in consecutive batches of
          :data:`BATCH_ROWS` (sizes fixed by m, public); a batch that raises
          is scored again one record at a time;
        * otherwise every record is scored alone (a batch of one) from a
          fresh copy of the model fitted on public data, so nothing a
          ``predict`` call leaves in the model reaches another record.

        A record whose scoring raises or gives a non-finite value gets
        ``low``. Runs under :func:`quiet`: no warning and no exception
        leaves it.
        """
        from ._rowwise import is_rowwise

        m = len(records)
        out = np.full(m, -np.inf)
        with quiet():
            if is_rowwise(estimator):
                self._fill_batches(estimator, records, out)
            else:
                self._fill_alone(estimator, records, out)
        out[~records.ok] = -np.inf
        return self._clip(out)

    def _one(self, estimator, records, i: int) -> float:
        y = None if records.y is None else records.y[i : i + 1]
        return float(self._raw(estimator, _take(records.X, [i]), y)[0])

    def _fill_batches(self, estimator, records, out: np.ndarray) -> None:
        m = len(records)
        for start in range(0, m, BATCH_ROWS):
            idx = np.arange(start, min(start + BATCH_ROWS, m))
            whole = len(idx) == m
            X = records.X if whole else _take(records.X, idx)
            y = records.y if (whole or records.y is None) else records.y[idx]
            try:
                out[idx] = self._raw(estimator, X, y)
            except Exception:
                for i in idx.tolist():
                    if records.ok[i]:
                        try:
                            out[i] = self._one(estimator, records, i)
                        except Exception:
                            out[i] = -np.inf

    def _fill_alone(self, estimator, records, out: np.ndarray) -> None:
        copies = _Copies(estimator)
        for i in range(len(records)):
            if not records.ok[i]:
                continue
            try:
                out[i] = self._one(copies.fresh(), records, i)
            except Exception:
                out[i] = -np.inf

    def _fill(self, estimator, X, y, idx: np.ndarray, out: np.ndarray) -> None:
        # Iterative bisection (no recursion limit for large m).
        stack = [idx]
        while stack:
            part = stack.pop()
            sub_X = X if len(part) == _num_samples(X) else _take(X, part)
            whole = len(part) == _num_samples(X)
            sub_y = y if whole else _take(y, part)
            try:
                out[part] = self._raw(estimator, sub_X, sub_y)
            except Exception:
                if len(part) == 1:
                    out[part] = -np.inf  # clipped to low
                else:
                    half = len(part) // 2
                    stack.append(part[half:])
                    stack.append(part[:half])

    def __call__(self, estimator: Any, X, y) -> float:
        """The private score: mean of :meth:`record_values`."""
        return float(np.mean(self.record_values(estimator, X, y)))

    def metric(self, estimator: Any, X, y) -> float:
        """The plain, unclipped mean of the per-record values.

        For the user's own (public) data, e.g. ``search.score(X_test,
        y_test)``: no clipping, and failures raise as usual.
        """
        return float(np.mean(self._raw(estimator, X, y)))

    # -- public pre-flight ---------------------------------------------------
    def check_public_rows(
        self, estimator: Any, X, y, *, n_rows: int = PUBLIC_ROWS, random_state=0
    ) -> None:
        """Check, on public rows, that the score works and is row independent.

        Run on the fitted candidate with rows of the (public) training set
        before any validation row is read. Raises if scoring fails there
        (the validation set would fail the same way, silently scored
        ``low``), or if a record's value changes with the batch it is scored
        in: the values of a batch must equal those of its two halves scored
        separately, of the reversed batch, and of ``SINGLE_ROWS`` (8) rows
        each scored alone. Outputs that
        depend on the other rows of the batch (a step that standardises by
        the batch's own statistics, a transductive model) would let one
        validation record move every other record's value.

        The comparison allows a relative 1e-9 of the bounds' width for
        floating-point differences between batch sizes (BLAS kernels).
        """
        n = _num_samples(X)
        rng = check_random_state(random_state)
        idx = np.sort(rng.choice(n, size=min(n, n_rows), replace=False))
        X_b = _take(X, idx)
        y_b = _take(y, idx)

        def values(rows) -> np.ndarray:
            """Clipped values of the sampled rows ``rows``, scored as one batch."""
            return self._clip(self._raw(estimator, _take(X_b, rows), _take(y_b, rows)))

        k = len(idx)
        order = np.arange(k)
        try:
            with quiet(registries=False):  # public rows
                batch = values(order)
                parts = [batch]
                if k > 1:
                    half = k // 2
                    parts.append(
                        np.concatenate([values(order[:half]), values(order[half:])])
                    )
                    parts.append(values(order[::-1])[::-1])
                singles = [values([i])[0] for i in range(min(SINGLE_ROWS, k))]
        except Exception as exc:
            raise ValueError(
                f"Scoring a fitted candidate with {self.name!r} on rows of the "
                f"public training set failed ({type(exc).__name__}: {exc}). The "
                "validation set would fail the same way, and every failing "
                "validation record would silently get the worst value. Fix the "
                "estimator or the score on public data first."
            ) from exc
        from ._rowwise import is_rowwise

        if not is_rowwise(estimator):
            check_copyable(estimator)  # records will be scored alone, on copies
        tol = 1e-9 * (self.bounds[1] - self.bounds[0])
        same = all(np.allclose(p, batch, rtol=0, atol=tol) for p in parts) and all(
            abs(s - batch[i]) <= tol for i, s in enumerate(singles)
        )
        if not same:
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


# ---------------------------------------------------------------------------
# Built-in scores
# ---------------------------------------------------------------------------


def _builtin(func, bounds, name, response_method="predict", lipschitz=None) -> DPScorer:
    s = DPScorer(func, bounds=bounds, response_method=response_method, name=name)
    s._with_estimator = True
    s.lipschitz = lipschitz
    # Regression scores compare numbers; every other built-in compares labels.
    s.target = "numeric" if name.split("(")[0] in (*_REGRESSION, "r2") else "classes"
    return s


def _positive(name: str, value, what: str) -> float:
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a finite number > 0 ({what}); got {value!r}.")
    return v


_REGRESSION = {
    "neg_mean_absolute_error": "mae",
    "neg_mean_squared_error": "mse",
    "neg_huber_loss": "huber",
}


def _named_scorer(name: str, params: dict) -> DPScorer:
    """Built-in per-record score ``name`` with its public constants ``params``."""

    def take(*allowed):
        extra = sorted(set(params) - set(allowed))
        if extra:
            raise TypeError(
                f"{name!r} takes the public constants {list(allowed) or 'none'}; "
                f"got unexpected {extra}."
            )

    if name == "accuracy":
        take()
        return _builtin(_accuracy, (0.0, 1.0), "accuracy")
    if name == "neg_zero_one_loss":
        take()
        return _builtin(
            lambda y, p, e: _accuracy(y, p) - 1.0, (-1.0, 0.0), "neg_zero_one_loss"
        )
    if name == "neg_log_loss":
        take("floor")
        floor = params.get("floor", 1e-3)
        if not (0 < float(floor) < 1):
            raise ValueError(f"floor must be in (0, 1); got {floor!r}.")
        floor = float(floor)
        return _builtin(
            _log_loss(floor),
            (math.log(floor), 0.0),
            f"neg_log_loss(floor={floor:g})",
            "predict_proba",
        )
    if name == "neg_brier_score":
        take()
        return _builtin(_brier, (-1.0, 0.0), "neg_brier_score", "predict_proba")
    if name == "neg_sigmoid_loss":
        take()
        return _builtin(
            _sigmoid_loss, (-1.0, 0.0), name, "decision_function", lipschitz=0.25
        )
    if name == "neg_ramp_loss":
        take()
        return _builtin(
            _ramp_loss, (-1.0, 0.0), name, "decision_function", lipschitz=1.0
        )
    if name == "neg_hinge_loss":
        take("clip")
        clip = _positive("clip", params.get("clip", 2.0), "largest hinge loss counted")
        return _builtin(
            _hinge(clip),
            (-clip, 0.0),
            f"neg_hinge_loss(clip={clip:g})",
            "decision_function",
        )
    if name in _REGRESSION or name == "r2":
        allowed = ["error_clip"] + (["huber_delta"] if name == "neg_huber_loss" else [])
        if name == "r2":
            allowed.append("target_variance")
        take(*allowed)
        if "error_clip" not in params:
            raise ValueError(_regression_message(name))
        clip = _positive(
            "error_clip", params["error_clip"], "largest |y - y_pred| counted"
        )
        kind = _REGRESSION.get(name, "r2")
        if kind == "mae":
            return _builtin(
                _regression("mae", clip), (-clip, 0.0), f"{name}(error_clip={clip:g})"
            )
        if kind == "mse":
            return _builtin(
                _regression("mse", clip),
                (-(clip**2), 0.0),
                f"{name}(error_clip={clip:g})",
            )
        if kind == "huber":
            d = _positive(
                "huber_delta", params.get("huber_delta", 1.0), "Huber threshold"
            )
            top = 0.5 * clip**2 if clip <= d else d * (clip - 0.5 * d)
            return _builtin(
                _regression("huber", clip, huber_delta=d),
                (-top, 0.0),
                f"{name}(error_clip={clip:g}, huber_delta={d:g})",
            )
        if "target_variance" not in params:
            raise ValueError(_regression_message(name))
        var = _positive(
            "target_variance",
            params["target_variance"],
            "public variance of the target",
        )
        return _builtin(
            _regression("r2", clip, variance=var),
            (1.0 - clip**2 / var, 1.0),
            f"r2(error_clip={clip:g}, target_variance={var:g})",
        )
    raise ValueError(_unknown_message(name))


# Usable as a bare string (no public constant required).
_STRING_READY = (
    "accuracy",
    "neg_zero_one_loss",
    "neg_log_loss",
    "neg_brier_score",
    "neg_hinge_loss",
    "neg_sigmoid_loss",
    "neg_ramp_loss",
)
# Every built-in score; the regression ones need public constants.
BUILTIN_SCORES = _STRING_READY + (*_REGRESSION, "r2")

# Aggregate metrics one record can move by far more than 1/m.
_NON_DECOMPOSABLE = {
    "f1": "accuracy",
    "roc_auc": "neg_log_loss or neg_brier_score",
    "balanced_accuracy": "accuracy",
    "precision": "accuracy",
    "recall": "accuracy",
    "average_precision": "neg_log_loss or neg_brier_score",
    "jaccard": "accuracy",
    "matthews_corrcoef": "accuracy",
    "explained_variance": "r2 with target_variance and error_clip",
    "max_error": "neg_mean_absolute_error with error_clip",
    "neg_median_absolute_error": "neg_mean_absolute_error with error_clip",
    "top_k_accuracy": "accuracy",
}


def _regression_message(name: str) -> str:
    return (
        f"scoring={name!r} needs a public clip on each record's error: one "
        "record's error is unbounded, so it could move the mean without "
        "limit. Use make_dp_scorer("
        f"{name!r}, error_clip=c{', target_variance=v' if name == 'r2' else ''}) "
        "with c (and v) chosen from public knowledge of the target, never "
        "from the validation data; errors above c count as c. Regression "
        "scores: neg_mean_absolute_error, neg_mean_squared_error, "
        "neg_huber_loss, r2 (1 - MSE / a public target variance)."
    )


def _unknown_message(name: str) -> str:
    base = name
    for suffix in ("_macro", "_micro", "_weighted", "_samples", "_ovr", "_ovo"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    base = base.replace("_ovr_weighted", "").replace("_ovo_weighted", "")
    if base in _NON_DECOMPOSABLE:
        return (
            f"scoring={name!r} is refused: it is not a mean of bounded "
            "per-record terms, so swapping one validation record can move it "
            "by far more than 1/m and no sensitivity computed from public "
            f"constants would hold. Use {_NON_DECOMPOSABLE[base]!r} instead "
            f"(private scores: {list(BUILTIN_SCORES)}), or "
            "make_dp_scorer(per_record_function, bounds=(low, high))."
        )
    if name == "r2" or name in _REGRESSION:
        return _regression_message(name)
    return (
        f"scoring={name!r} is not a private score. Use one of "
        f"{list(_STRING_READY)} as a string, a regression score through "
        "make_dp_scorer(name, error_clip=...), or "
        "make_dp_scorer(per_record_function, bounds=(low, high))."
    )


def make_dp_scorer(
    score: Union[str, Callable],
    *,
    bounds: Optional[tuple[float, float]] = None,
    response_method: str = "predict",
    greater_is_better: bool = True,
    **params,
) -> DPScorer:
    """Build a private score from a built-in name or a per-record function.

    Parameters
    ----------
    score : str or callable
        A built-in name (``"accuracy"``, ``"neg_log_loss"``,
        ``"neg_brier_score"``, ``"neg_zero_one_loss"``, ``"neg_hinge_loss"``,
        ``"neg_sigmoid_loss"``, ``"neg_ramp_loss"``,
        ``"neg_mean_absolute_error"``, ``"neg_mean_squared_error"``,
        ``"neg_huber_loss"``, ``"r2"``) with its public constants in
        ``params``, or a per-record function ``f(y_true, out) -> (m,)
        array`` (one value per record, computed from that record only).
    bounds : (low, high), optional
        Required with a function: the public range each record's value is
        clipped into (after the sign flip of ``greater_is_better=False``).
    response_method : str, default="predict"
        With a function: the estimator method whose output is ``out``.
    greater_is_better : bool, default=True
        With a function: ``False`` for a loss (it is negated).
    **params
        Public constants of a built-in score:

        - ``neg_log_loss``: ``floor`` (default 1e-3): record value
          log(max(p(y_i), floor)) ∈ [log floor, 0];
        - ``neg_hinge_loss``: ``clip`` (default 2): −min(max(0, 1 − y f), clip);
        - ``neg_mean_absolute_error`` / ``neg_mean_squared_error`` /
          ``neg_huber_loss`` (``huber_delta``, default 1): ``error_clip``
          (required), the error min(|y − ŷ|, error_clip) of each record;
        - ``r2``: ``error_clip`` and ``target_variance`` (required): record
          value 1 − min(|y − ŷ|, c)²/v, so the mean is 1 − MSE_c / v with a
          *public* variance v instead of the validation set's own.

    Returns
    -------
    DPScorer

    Examples
    --------
    >>> s = make_dp_scorer("neg_mean_squared_error", error_clip=3.0)
    >>> s.bounds
    (-9.0, 0.0)
    """
    if isinstance(score, str):
        if bounds is not None:
            raise TypeError(
                f"bounds are fixed by the built-in score {score!r}; pass its "
                "public constants instead (see make_dp_scorer's docstring)."
            )
        return _named_scorer(score, params)
    if params:
        raise TypeError(
            f"make_dp_scorer(function, ...) got unexpected {sorted(params)}: a "
            "per-record function takes only bounds, response_method and "
            "greater_is_better."
        )
    if bounds is None:
        raise ValueError(
            "make_dp_scorer(function) needs bounds=(low, high): the public range "
            "each record's value is clipped into."
        )
    name = getattr(score, "__name__", "custom")
    return DPScorer(
        score,
        bounds=bounds,
        response_method=response_method,
        greater_is_better=greater_is_better,
        name=name,
    )


def get_dp_scorer(scoring, estimator) -> DPScorer:
    """Resolve the ``scoring`` parameter of a search into a :class:`DPScorer`.

    ``None`` means accuracy for classifiers; other estimators must say how
    they are scored.
    """
    from sklearn.base import is_classifier, is_regressor

    if isinstance(scoring, DPScorer):
        return scoring
    if scoring is None:
        if is_classifier(estimator):
            return _named_scorer("accuracy", {})
        if is_regressor(estimator):
            raise ValueError(
                "scoring=None: a regressor has no default private score. "
                + _regression_message("neg_mean_squared_error")
            )
        raise ValueError(
            "scoring=None: only classifiers have a default private score "
            "(accuracy). Pass scoring=make_dp_scorer(per_record_function, "
            "bounds=(low, high)) for this estimator."
        )
    if isinstance(scoring, str):
        if scoring in _STRING_READY:
            return _named_scorer(scoring, {})
        raise ValueError(_unknown_message(scoring))
    if callable(scoring):
        what = getattr(scoring, "__name__", type(scoring).__name__)
        raise TypeError(
            "scoring must be None, a string naming a private score or a "
            f"DPScorer; got a callable ({what}). "
            "A scikit-learn scorer returns one aggregate number, whose "
            "sensitivity to one validation record the library cannot bound. "
            "Give the per-record version: make_dp_scorer(per_record_function, "
            "bounds=(low, high)), or one of " + str(list(_STRING_READY)) + "."
        )
    raise TypeError(
        "scoring must be None, a string naming a private score "
        f"({list(_STRING_READY)}) or a DPScorer; got an object of type "
        f"{type(scoring).__name__}."
    )

"""The learner of local-DP Bayesian optimisation (Zhou & Tan, AAAI 2021; spec
``LDP_BO.md``): ask/tell over a finite public candidate set, told only
:class:`~._client.LDPReport` objects, and a loop."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..bo._candidates import CandidateSet
from ..bo._gp import as_sklearn_kernel, internal_kernel, kernel_matrix
from ..privacy._validation import check_epsilon, public_rng
from ._algorithms import LDPProblem, resolve_algorithm
from ._client import (
    LaplaceRandomizer,
    LDPReport,
    MechanismSpec,
    RandomizedResponse,
    _Randomizer,
)

# kernel=None: RBF(length_scale=0.2), as in the base paper's experiments.
DEFAULT_KERNEL = ("squared-exponential", 0.2)


class LDPBayesianOptimizer:
    """Learner of locally differentially private BO (ask/tell).

    Maximises an unknown f over a finite public candidate set from reports
    privatised by the data owners (ε-LDP per report, spec ``LDP_BO.md`` §2);
    ``tell`` accepts only :class:`LDPReport` objects of its randomiser.

    Parameters
    ----------
    space : CandidateSet, dict or list of dict
        The finite candidate set (a dict is discretised by
        :class:`CandidateSet` with ``n_candidates`` Sobol points and a
        public seed from ``random_state``). Encoded into [0, 1]^d.
    randomizer : LaplaceRandomizer, RandomizedResponse or MechanismSpec
        The owners' randomiser; only its public description is kept.
    n_calls : int
        The horizon T (number of reports), used by the constants.
    algorithm : str or algorithm object, default="ldp-moma-gp-ucb"
        ``"ldp-tgp-ucb"`` (:class:`TGPUCB`), ``"ldp-ata-gp-ucb"``
        (:class:`ATAGPUCB`), ``"ldp-moma-gp-ucb"`` (:class:`MoMAGPUCB`),
        ``"gp-ucb"`` (:class:`GPUCB`, the baseline) with the class's
        defaults, or an instance of one of those classes (e.g.
        ``TGPUCB(width="theory")`` for the theorems' constants).
    kernel : scikit-learn kernel or None, default=None
        ``RBF(length_scale=ℓ)`` or ``Matern(nu=2.5, length_scale=ℓ)`` on the
        unit-cube encoding of the candidates, fixed a priori (spec §6 [S];
        ``length_scale_bounds`` is ignored). ``None`` is
        ``RBF(length_scale=0.2)``.
    rkhs_norm : float or None, default=None
        B, the bound on ‖f − (a + b)/2‖ in the kernel's RKHS [P]. ``None``
        takes (b − a)/2, as the base paper's experiments do [B code]; pass a
        larger B if you know one.
    noise_variance : float, default=1.0
        λ, the regulariser / GP noise variance (λ = 1 [B]).
    n_candidates : int, default=1024
        Sobol points when ``space`` holds ranges.
    random_state : None, int or Generator, default=None
        The learner's *public* randomness (first point, ties, Nyström
        sampling). Independent of the owners' noise.

    Attributes
    ----------
    candidates_ : CandidateSet
    spec_ : MechanismSpec
        Public description of the randomiser.
    algorithm_ : algorithm object
    n_told_ : int
        Reports received so far.
    history_ : list of (int, float)
        (candidate index, privatised report) in order: public.

    Notes
    -----
    The whole state is public (privatised values only). An owner answering
    m queries gets mε; if every report reads the *same* data set, it gets
    Tε: use central DP (:class:`DPBayesSearchCV`) for that case.
    """

    def __init__(
        self,
        space,
        randomizer,
        n_calls: int,
        *,
        algorithm="ldp-moma-gp-ucb",
        kernel=None,
        rkhs_norm: float | None = None,
        noise_variance: float = 1.0,
        n_candidates: int = 1024,
        random_state=None,
    ):
        if (
            not isinstance(n_calls, numbers.Integral)
            or isinstance(n_calls, bool)
            or n_calls < 1
        ):
            raise ValueError(f"n_calls must be a positive int; got {n_calls!r}.")
        name, length_scale = DEFAULT_KERNEL
        if kernel is not None:
            name, length_scale = internal_kernel(kernel, caller=type(self).__name__)
        lam = float(noise_variance)
        if not (math.isfinite(lam) and lam > 0):
            raise ValueError(f"noise_variance must be finite and > 0; got {lam!r}.")
        if isinstance(randomizer, _Randomizer):
            randomizer = randomizer.public_spec()  # public parameters only, no RNG
        if not isinstance(randomizer, MechanismSpec):
            raise TypeError(
                "randomizer must be a LaplaceRandomizer, a RandomizedResponse or their "
                f"public_spec(); got an object of type {type(randomizer).__name__}."
            )
        self.spec_ = randomizer
        self.algorithm_ = resolve_algorithm(algorithm)
        if not isinstance(space, CandidateSet):
            seed = int(public_rng(random_state).integers(2**31 - 1))
            space = CandidateSet(space, n_candidates, seed)
        self.candidates_ = space
        B = self.spec_.half_width if rkhs_norm is None else float(rkhs_norm)
        if not (math.isfinite(B) and B > 0):
            raise ValueError(f"rkhs_norm must be finite and > 0; got {rkhs_norm!r}.")
        self.n_calls = int(n_calls)
        self.kernel = as_sklearn_kernel(name, length_scale)  # public, fixed
        self.rkhs_norm = B
        self.noise_variance = lam
        self.random_state = random_state
        delta = self.algorithm_.settings(int(n_calls)).delta
        X = self.candidates_.X
        self.problem_ = LDPProblem(
            K=kernel_matrix(X, X, name, length_scale),
            rkhs_norm=B,
            moment=self.spec_.second_moment,
            truncation_level=self.spec_.truncation_level(
                self.n_calls, delta, self.algorithm_.truncation_tail()
            ),
            horizon=self.n_calls,
            lam=lam,
        )
        learner_seed = int(public_rng(random_state).integers(2**63 - 1))
        self._rng = np.random.default_rng([learner_seed, 1])  # = SeedSequence([s, 1])
        self.learner_ = self.algorithm_.start(self.problem_, self._rng)
        self.history_: list[tuple[int, float]] = []
        self._pending: int | None = None

    @property
    def n_told_(self) -> int:
        return len(self.history_)

    def ask_index(self) -> int:
        """Index (into ``candidates_.params``) of the next candidate to query."""
        if self._pending is None:
            if self.n_told_ >= self.n_calls:
                raise RuntimeError(
                    f"The horizon n_calls={self.n_calls} is reached: the "
                    "constants were computed for it. Build a new optimizer with "
                    "a larger n_calls to continue."
                )
            self._pending = int(self.learner_.propose())
        return self._pending

    def ask(self) -> dict:
        """Parameters of the next candidate to query (a copy of the dict)."""
        return dict(self.candidates_.params[self.ask_index()])

    def tell(self, x, report: LDPReport) -> None:
        """Record the privatised ``report`` of the candidate ``x`` just asked.

        ``x``: the dict from :meth:`ask` or the index from :meth:`ask_index`;
        ``report``: an :class:`LDPReport` of this learner's randomiser."""
        if self._pending is None:
            raise RuntimeError("tell() without a pending ask(); call ask() first.")
        if not isinstance(report, LDPReport):
            raise TypeError(
                "tell() accepts only an LDPReport made by the owner's randomiser "
                "(LaplaceRandomizer.privatize / .report); got an object of type "
                f"{type(report).__name__}. Never pass a raw reward to the learner."
            )
        if report.spec != self.spec_:
            raise ValueError(
                "the report comes from a randomiser with different public "
                f"settings ({report.spec.mechanism}, bounds={report.spec.bounds}, "
                f"epsilon={report.spec.epsilon}) than this learner's "
                f"({self.spec_.mechanism}, bounds={self.spec_.bounds}, "
                f"epsilon={self.spec_.epsilon}); the constants would be wrong."
            )
        j = self._pending
        if isinstance(x, numbers.Integral) and not isinstance(x, bool):
            ok = int(x) == j
        else:
            ok = isinstance(x, Mapping) and dict(x) == self.candidates_.params[j]
        if not ok:
            raise ValueError(
                "tell() must receive the candidate returned by the last ask(); "
                "the learner's constants assume it chose every queried point."
            )
        value = float(report.value)
        if not math.isfinite(value):  # the randomisers' reports always are
            raise ValueError(
                f"the report's value is {value!r}: a LaplaceRandomizer or "
                "RandomizedResponse report is always finite, so this report was "
                "not made by the owner's randomiser; it is not recorded."
            )
        self.learner_.update(j, value - self.spec_.midpoint)
        self.history_.append((j, value))
        self._pending = None

    def posterior(self) -> tuple[np.ndarray, np.ndarray]:
        """(mean, std) of the learner's surrogate over the candidates, reward units."""
        return self.learner_.mean + self.spec_.midpoint, self.learner_.std.copy()

    def recommend_index(self) -> int:
        """Evaluated candidate with the largest posterior mean (post-processing)."""
        if not self.history_:
            raise RuntimeError("recommend() needs at least one report; tell() first.")
        evaluated = np.unique([j for j, _ in self.history_])
        mean = self.learner_.mean[evaluated]
        return int(evaluated[int(np.argmax(mean))])

    def recommend(self) -> dict:
        """Parameters of the posterior-mean incumbent (no privacy cost)."""
        return dict(self.candidates_.params[self.recommend_index()])

    def __repr__(self) -> str:
        return (
            f"LDPBayesianOptimizer(algorithm={self.algorithm_!r}, "
            f"mechanism={self.spec_.mechanism!r}, epsilon={self.spec_.epsilon!r}, "
            f"n_calls={self.n_calls}, n_candidates={len(self.candidates_)}, "
            f"n_told={self.n_told_})"
        )


@dataclass
class LDPOptimizeResult:
    """What :func:`ldp_maximize` returns (all public: privatised reports only).

    Attributes
    ----------
    x : dict
        Recommended parameters (posterior-mean incumbent).
    x_index : int
    mean : float
        The learner's posterior mean at ``x`` (reward units).
    x_iters : list of dict
        Queried candidates in order.
    reports : ndarray
        Their privatised reports (not the objective's values).
    epsilon : float
        ε of each report.
    optimizer : LDPBayesianOptimizer
    """

    x: dict
    x_index: int
    mean: float
    x_iters: list = field(repr=False)
    reports: np.ndarray = field(repr=False)
    epsilon: float
    optimizer: LDPBayesianOptimizer = field(repr=False)


def ldp_maximize(
    objective: Callable[[dict], float],
    space,
    n_calls: int,
    *,
    epsilon: float = 1.0,
    bounds: Sequence[float] = (0.0, 1.0),
    mechanism: str = "laplace",
    algorithm="ldp-moma-gp-ucb",
    kernel=None,
    rkhs_norm: float | None = None,
    n_candidates: int = 1024,
    random_state=None,
    noise_random_state=None,
    callback: Callable[[int, dict, float], Any] | None = None,
) -> LDPOptimizeResult:
    """Maximise ``objective`` with locally private rewards (skopt-style loop).

    Each value ``objective(params)`` goes straight into the randomiser
    (``mechanism="laplace"``: :class:`LaplaceRandomizer`;
    ``"randomized-response"``: :class:`RandomizedResponse`) with the public
    ``bounds`` and ``epsilon``; only the report reaches the learner. Each
    report is ε-LDP for the owner of that evaluation; if every call reads
    the same data, that data gets ``n_calls`` × ε.

    Parameters
    ----------
    objective : callable
        ``objective(params: dict) -> float`` (greater is better), run by the
        client (:meth:`LaplaceRandomizer.report`): silenced, and an
        ``Exception`` it raises is reported as the lower bound of ``bounds``.
    space : CandidateSet, dict or list of dict
    n_calls : int
    epsilon, bounds, mechanism
        The randomiser's settings.
    algorithm, kernel, rkhs_norm, n_candidates, random_state
        See :class:`LDPBayesianOptimizer`.
    noise_random_state : None or int
        Tests only (the randomiser warns :class:`PrivacyLeakWarning`).
    callback : callable, optional
        ``callback(t, params, report_value)`` after every report (public).

    Returns
    -------
    LDPOptimizeResult
    """
    check_epsilon(epsilon, owner="ldp_maximize")
    if kernel is not None:
        internal_kernel(kernel, caller="ldp_maximize")  # refused before any report
    cls = {"laplace": LaplaceRandomizer, "randomized-response": RandomizedResponse}
    if not isinstance(mechanism, str) or mechanism not in cls:
        raise ValueError(
            f"mechanism must be 'laplace' or 'randomized-response'; got {mechanism!r}."
        )
    client = cls[mechanism](bounds, epsilon, noise_random_state=noise_random_state)
    opt = LDPBayesianOptimizer(
        space,
        client,
        n_calls,
        algorithm=algorithm,
        kernel=kernel,
        rkhs_norm=rkhs_norm,
        n_candidates=n_candidates,
        random_state=random_state,
    )
    x_iters = []
    for t in range(int(n_calls)):
        params = opt.ask()
        report = client.report(objective, dict(params))
        opt.tell(params, report)
        x_iters.append(params)
        if callback is not None:
            callback(t + 1, params, report.value)
    j = opt.recommend_index()
    return LDPOptimizeResult(
        x=dict(opt.candidates_.params[j]),
        x_index=j,
        mean=float(opt.posterior()[0][j]),
        x_iters=x_iters,
        reports=np.asarray([v for _, v in opt.history_]),
        epsilon=client.epsilon,
        optimizer=opt,
    )

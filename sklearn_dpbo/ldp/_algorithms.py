"""The learners of local-DP Bayesian optimisation over a finite candidate set.

Spec: ``LDP_BO.md`` §4 (Zhou & Tan, AAAI 2021; Chowdhury & Gopalan,
NeurIPS 2019; Shao et al., NeurIPS 2018). Tags: [P] the paper's readable
part, [B] the base paper (verified), [M] MENU (recalled, not re-verified),
[R] reconstructed, [S] our safe choice, [E] an empirical public constant.
Everything here is post-processing of ε-LDP reports; its state is public.
``start(problem, rng)`` returns a learner with ``propose()``,
``update(index, centred_report)``, ``mean`` and ``std``.

With c_j reports at candidate j, the t-point GP posterior with noise λ
equals the |S|-point one with noise λ/c_j on the per-candidate means
(push-through identity, exact), and
ln det(I_t + λ⁻¹K_t) = ln det(K_S + λC⁻¹) + Σ ln(c_j/λ).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, replace

import numpy as np
from scipy.linalg.lapack import dpotrf as _potrf
from scipy.linalg.lapack import dpotrs as _potrs

from ..bo._acquisition import ucb_beta
from ..privacy._validation import check_probability
from ._nystrom import (
    _dtc_variance,
    _nystrom_b_term,
    _nystrom_q,
    _sample_dictionary,
    nystrom_embedding,
)


@dataclass(frozen=True)
class LDPProblem:
    """Public constants shared by every learner (fixed before any report).

    K : kernel matrix over the candidates (k(x, x) ≤ 1).
    rkhs_norm : B, the bound on ‖f − (a + b)/2‖_H [P].
    moment : v, bound on E[|centred report|^{1+α}] (spec §2 [R]: at α = 1,
        ((b − a)/2)² + 2l² for Laplace reports).
    truncation_level : b of A1 (spec A1 [R]); ``None`` for the base paper's
        moment level b_t = v^{1/(1+α)} t^{1/(2(1+α))} of TGP-UCB (non-private
        heavy-tailed rewards [B]).
    horizon : T; lam : λ (= 1 [B]).
    alpha : α ∈ (0, 1], the moment order of the rewards (1 for every LDP
        report; < 1 only for non-private heavy tails, e.g. Pareto [B]).
    """

    K: np.ndarray
    rkhs_norm: float
    moment: float
    truncation_level: float | None
    horizon: int
    lam: float = 1.0
    alpha: float = 1.0


def aggregated_posterior(K_diag, KS, KSS, counts_S, sums_S, lam):
    """μ, σ² over all candidates and ln det(I_t + λ⁻¹K_t), from (c_j, Σ y).

    μ = K_{:,S} A⁻¹ (s_S / c_S), σ² = diag K − diag(K_{:,S} A⁻¹ K_{S,:}),
    A = K_SS + λ diag(1/c_S), S = {j : c_j > 0}; ``KS`` = K_{:,S} and
    ``KSS`` = K_SS (kept while S is unchanged); LAPACK potrf/potrs directly.
    """
    c = counts_S.astype(float)
    A = KSS.copy()
    A.flat[:: A.shape[0] + 1] += lam / c
    L, info = _potrf(A, lower=True, clean=False)
    if info:
        raise np.linalg.LinAlgError("K_SS + λ diag(1/c) is not positive definite")
    mean = KS @ _potrs(L, sums_S / c, lower=True)[0]
    W = _potrs(L, KS.T, lower=True)[0]
    var = np.maximum(K_diag - (KS * W.T).sum(axis=1), 0.0)
    logdet = 2.0 * float(np.log(np.diag(L)).sum()) + float(np.log(c / lam).sum())
    return mean, var, logdet


class _Learner:
    """Public state of every learner: counts, posterior mean and variance."""

    def __init__(self, problem: LDPProblem, rng, settings):
        self.p, self.rng, self.s = problem, rng, settings
        self.K_diag = np.diag(problem.K).copy()
        self.counts = np.zeros(self.K_diag.size, dtype=np.int64)
        self.t = 0
        self._reset()

    def _reset(self) -> None:
        self.mean, self.var = np.zeros(self.K_diag.size), self.K_diag.copy()

    @property
    def std(self):
        return np.sqrt(self.var)

    def propose(self) -> int:
        if self.t == 0:
            return int(self.rng.integers(self.K_diag.size))  # round 1 [B code]
        ucb = self.mean + self.beta * self.std
        top = np.flatnonzero(ucb == ucb.max())  # ties: uniform, public rng [B code]
        return int(top[0]) if top.size == 1 else int(top[self.rng.integers(top.size)])


class _AggregatedGP(_Learner):
    """Shared state of A1 and GP-UCB: counts and sums per candidate."""

    def __init__(self, problem: LDPProblem, rng, settings):
        super().__init__(problem, rng, settings)
        self.sums = np.zeros(self.K_diag.size)
        self.logdet = 0.0
        self.beta = self._beta()

    def _value(self, y: float) -> float:
        return y

    def update(self, j: int, y: float) -> None:
        self.counts[j] += 1
        self.sums[j] += self._value(y)
        self.t += 1
        if self.counts[j] == 1:  # S grows: new kernel slices
            S = self._S = np.flatnonzero(self.counts)
            self._KS = self.p.K[:, S]
            self._KSS = self._KS[S]
        S = self._S
        self.mean, self.var, self.logdet = aggregated_posterior(
            self.K_diag, self._KS, self._KSS, self.counts[S], self.sums[S], self.p.lam
        )
        self.beta = self._beta()


class _TGPLearner(_AggregatedGP):
    def level(self, t: int) -> float:
        """b_t: the fixed LDP level [R], or v^{1/(1+α)} t^{1/(2(1+α))} [B]."""
        p = self.p
        if p.truncation_level is not None:
            return p.truncation_level
        a = p.alpha
        return p.moment ** (1.0 / (1.0 + a)) * max(t, 1) ** (1.0 / (2.0 * (1.0 + a)))

    def _beta(self) -> float:
        p, d = self.p, self.s.delta
        if self.t == 0:
            return self.s.scale * p.rkhs_norm  # β_1 = B
        width = (3.0 / math.sqrt(p.lam)) * self.level(self.t)
        return self.s.scale * (
            p.rkhs_norm + width * math.sqrt(self.logdet + 2.0 * math.log(2.0 / d))
        )

    def _value(self, y: float) -> float:
        # ŷ_t = ȳ_t 1{|ȳ_t| ≤ b_t}, fixed when the report arrives [B]
        return y if abs(y) <= self.level(self.t + 1) else 0.0


class _GPUCBLearner(_AggregatedGP):
    def _beta(self) -> float:
        n = self.p.K.shape[0]
        return self.s.scale * math.sqrt(ucb_beta(self.t + 1, n, self.s.delta))


class _NystromLearner(_Learner):
    """State shared by A2 and A3: dictionary sampling, σ̃², μ̃."""

    def __init__(self, problem: LDPProblem, rng, settings):
        super().__init__(problem, rng, settings)
        self.q = settings.q
        self.dictionary = np.zeros(0, dtype=int)
        self._Phi = None
        self.m = 0
        self.beta = settings.scale * problem.rkhs_norm

    def _embed(self):
        """(Φ over all candidates, observed indices, Ṽ) for a fresh dictionary."""
        D = _sample_dictionary(self.counts, self.var, self.q, self.rng)
        if not np.array_equal(D, self.dictionary) or self._Phi is None:
            self._Phi = nystrom_embedding(self.p.K, D)  # Φ depends on D only
        self.dictionary = D  # public: drawn from the learner's public rng
        self.m = int(D.size)
        Phi, S = self._Phi, np.flatnonzero(self.counts)
        PhiS = Phi[S]
        V = (PhiS.T * self.counts[S]) @ PhiS + self.p.lam * np.eye(self.m)
        return Phi, S, V


class _ATALearner(_NystromLearner):
    """LDP-ATA-GP-UCB (spec A2): per-direction truncation, every round."""

    def __init__(self, problem, rng, settings):
        super().__init__(problem, rng, settings)
        n = problem.K.shape[0]
        # per candidate: reports sorted by |ȳ|, prefix sums from 0 (all joined);
        # all reports as complex keys j + i|ȳ|, sorted: truncated sums by searchsorted
        self._vals = [np.empty(0) for _ in range(n)]
        self._cums = np.zeros(n)
        self._keys = np.empty(0, dtype=complex)
        self.b = math.inf

    def _constants(self):
        """(b_t, β_{t+1}) of Theorem 4 of the base paper [B]; α = 1 for LDP [R]."""
        p, a, m, al = self.p, self.s, max(self.m, 1), self.p.alpha
        log_term = math.log(4.0 * m * p.horizon / a.delta)
        growth = self.t ** ((1.0 - al) / (2.0 * (1.0 + al)))
        b = (p.moment / log_term) ** (1.0 / (1.0 + al)) * growth
        noise = 4.0 * math.sqrt(m / p.lam) * p.moment ** (1.0 / (1.0 + al))
        B = _nystrom_b_term(p, a.nystrom_accuracy)
        return b, a.scale * (B + noise * log_term ** (al / (1.0 + al)) * growth)

    def update(self, j: int, y: float) -> None:
        keys, key = self._keys, complex(j, abs(y))
        g = int(keys.searchsorted(key, side="right"))
        self._keys = np.concatenate((keys[:g], [key], keys[g:]))
        # after the reports of candidates < j and those at j with |ȳ'| ≤ |y|
        s, vals, c = int(self.counts[:j].sum()) + j, self._vals[j], self._cums
        self._vals[j] = np.concatenate((vals[: g - s + j], [y], vals[g - s + j :]))
        cum, rest = np.cumsum(self._vals[j]), c[s + vals.size + 1 :]  # j's: from s
        self._cums = np.concatenate((c[:s], [0.0], cum, rest))
        self.counts[j] += 1
        self.t += 1
        Phi, S, V = self._embed()
        b, beta_next = self._constants()
        if self.m:
            w, U = np.linalg.eigh(V)
            V_inv_half = (U / np.sqrt(w)) @ U.T
            W = Phi[S] @ V_inv_half  # rows u_{·,τ} for τ at each candidate
            # r̂ = Σ_τ u_{·,τ} ȳ_τ 1{|u_{·,τ} ȳ_τ| ≤ b}: a report at the a-th
            # observed candidate is kept in direction i iff |ȳ| ≤ b / |W[a, i]|:
            # keys ≤ a + i·thr, offset by one leading 0 per earlier candidate.
            query = np.empty(W.shape, dtype=complex)
            query.real = S[:, None]
            with np.errstate(divide="ignore"):
                query.imag = b / np.abs(W)
            idx = np.searchsorted(self._keys, query, side="right")
            idx += S[:, None]
            kept = W * self._cums[idx]
            # Σ over S in S's order, from 0 (accumulate: sequential by definition)
            r = 0.0 + np.cumsum(kept, axis=0)[-1]
            theta = V_inv_half @ r
            self.mean = Phi @ theta
            self.var = _dtc_variance(self.K_diag, Phi, (U / w) @ U.T, self.p.lam)
        else:
            self._reset()
        self.b, self.beta = b, beta_next


def median_of_means_index(Theta: np.ndarray, V: np.ndarray) -> int:
    """j* = argmin_j median{‖θ_j − θ_s‖_V : s ≠ j} (MENU selection [M]), θ_j the
    columns of ``Theta``; ties to the lowest index."""
    G = Theta.T @ V @ Theta
    g = np.diag(G)
    d2 = np.maximum(g[:, None] + g[None, :] - 2.0 * G, 0.0)
    k = d2.shape[0]
    if k == 1:
        return 0
    dist = np.sqrt(d2)
    off = dist[~np.eye(k, dtype=bool)].reshape(k, k - 1)
    return int(np.argmin(np.median(off, axis=1)))


class _MoMALearner(_NystromLearner):
    """LDP-MoMA-GP-UCB (spec A3): epochs of k reports, median of means."""

    def __init__(self, problem, rng, settings):
        super().__init__(problem, rng, settings)
        self.k = settings.k
        self.n_epochs = problem.horizon // self.k
        n = problem.K.shape[0]
        self.group_sums = np.zeros((n, self.k))
        self.epoch = 0
        self._current: int | None = None
        self._buffer: list[float] = []
        self.best_group = 0

    def _beta(self) -> float:
        """3((9 m v)^{1/(1+α)} n^{(1−α)/(2(1+α))} + √λ B(1 + 1/√(1−ε_N))) [M][R]."""
        p, a, m, al = self.p, self.s, max(self.m, 1), self.p.alpha
        growth = self.epoch ** ((1.0 - al) / (2.0 * (1.0 + al)))
        noise = (9.0 * m * p.moment) ** (1.0 / (1.0 + al)) * growth
        B = _nystrom_b_term(p, a.nystrom_accuracy)
        return a.scale * 3.0 * (noise + math.sqrt(p.lam) * B)

    def propose(self) -> int:
        if self._current is None:  # a new epoch (t = 0 iff the first)
            self._current = super().propose()
        return self._current

    def update(self, j: int, y: float) -> None:
        self.t += 1
        if self.epoch >= self.n_epochs:
            return  # the T − Nk remaining rounds replay x_N
        self._buffer.append(y)
        if len(self._buffer) < self.k:
            return
        self.group_sums[j] += np.asarray(self._buffer)
        self._buffer = []
        self.counts[j] += 1
        self.epoch += 1
        Phi, S, V = self._embed()
        if self.m:
            Vinv = np.linalg.inv(V)
            Theta = Vinv @ (Phi[S].T @ self.group_sums[S])  # m × k fits
            self.best_group = median_of_means_index(Theta, V)
            self.mean = Phi @ Theta[:, self.best_group]
            self.var = _dtc_variance(self.K_diag, Phi, Vinv, self.p.lam)
        else:
            self._reset()
        self.beta = self._beta()
        if self.epoch < self.n_epochs:
            self._current = None  # next epoch picks a new point


@dataclass(frozen=True)
class _Settings:
    """The validated parameters of one run, resolved for its horizon (public)."""

    delta: float
    scale: float  # β_t = scale × the theory β_t
    nystrom_accuracy: float = 0.1
    q: float = math.inf
    k: int = 1


def _is_real(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _option_or_positive(value, name: str, options: tuple, what: str = ""):
    """``value`` if one of ``options``, else a finite number > 0 as a float."""
    if isinstance(value, str) and value in options:
        return value
    if _is_real(value) and math.isfinite(value) and value > 0:
        return float(value)
    names = ", ".join(map(repr, options))
    raise ValueError(
        f"{name} must be {names} or a finite number > 0{what}; got {value!r}."
    )


class _Algorithm:
    """Parameters of one algorithm (a dataclass, validated by ``start``)."""

    #: c of ``width="practical"``: β_t = c × the theory β_t [E].
    practical_width = 1.0

    def width_scale(self) -> float:
        """The multiplier of the theory width used (validates ``width``)."""
        what = " (a multiple of the theory width)"
        w = _option_or_positive(self.width, "width", ("practical", "theory"), what)
        return {"practical": self.practical_width, "theory": 1.0}.get(w, w)

    def truncation_tail(self) -> float | None:
        """κ of TGP's level (b − a)/2 + κ l; ``None``: the theory κ."""
        return None

    def _delta(self) -> float:
        """δ: the regret bound's failure probability, not a privacy δ."""
        return check_probability(self.delta, "delta", type(self).__name__)

    def settings(self, horizon: int) -> _Settings:
        """Validate the parameters and resolve them for the horizon T."""
        self.truncation_tail()  # validates TGP's ``truncation``
        return _Settings(delta=self._delta(), scale=self.width_scale())

    def start(self, problem: LDPProblem, rng):
        """A learner for ``problem``; raises ValueError on a bad parameter."""
        return self._learner(problem, rng, self.settings(problem.horizon))


@dataclass(unsafe_hash=True)
class TGPUCB(_Algorithm):
    """LDP-TGP-UCB (spec A1 [R]): truncated GP-UCB, sub-Weibull level.

    ``x_t = argmax μ̂_{t−1} + β_t σ_{t−1}``; reports with |ȳ − (a+b)/2| > b
    are replaced by 0 [B]; GP posterior with λ = 1 [B].

    Constants: level b = (b−a)/2 + κ l for Laplace reports (``truncation``;
    randomised response: the reports' bound); theory width β_1 = B,
    β_{t+1} = B + (3/√λ) b √(ln det(I_t + λ⁻¹K_t) + 2 ln(2/δ)) (the
    TGP-UCB width [B] with b_t := b [R]). Non-private heavy tails
    (``LDPProblem(truncation_level=None)``) use the base paper's moment
    level whatever ``truncation``.

    Parameters
    ----------
    delta : float in (0, 1), default=0.1
        Confidence parameter (0.1 in the base paper's experiments [B]).
    width : {"practical", "theory"} or float, default="practical"
        β_t: ``"theory"`` the constants above, ``"practical"``
        ``practical_width`` × that [E], a number c: c × that. Privacy is the
        same whatever it is (post-processing); only ``"theory"`` comes with
        the regret analysis.
    truncation : "theory" or float, default="theory"
        κ of the level: ``"theory"`` ln(2T/δ) [R] (a report is truncated with
        probability ≤ δ/(2T)), or a number κ > 0. Post-processing too; the
        regret analysis needs ``"theory"``.
    """

    name = "ldp-tgp-ucb"
    _learner = _TGPLearner
    practical_width = 0.01
    delta: float = 0.1
    width: str | float = "practical"
    truncation: str | float = "theory"

    def truncation_tail(self) -> float | None:
        what = " (κ in the level (b − a)/2 + κ l)"
        t = _option_or_positive(self.truncation, "truncation", ("theory",), what)
        return None if t == "theory" else t


@dataclass(unsafe_hash=True)
class GPUCB(_Algorithm):
    """Plain GP-UCB on privatised rewards: the baseline (no guarantee).

    x_t = argmax μ + √β_t σ, λ = 1, no truncation, β_t = 2 ln(|D| t² π² / (3δ))
    as printed in Kusner et al. (2015), Algorithm 1
    (:func:`~._acquisition.ucb_beta`; Srinivas et al. 2010, Theorem 1, has
    6δ). No regret bound covers Laplace reports (spec §6 [S]).

    Parameters
    ----------
    delta : float in (0, 1), default=0.1
    width : {"practical", "theory"} or float, default="practical"
        ``"theory"`` and ``"practical"``: √β_t as above; a number c:
        c × √β_t. Privacy is the same whatever the width.
    """

    name = "gp-ucb"
    _learner = _GPUCBLearner
    practical_width = 1.0  # β_t has no noise term
    delta: float = 0.1
    width: str | float = "practical"


@dataclass(unsafe_hash=True)
class ATAGPUCB(_Algorithm):
    """LDP-ATA-GP-UCB (spec A2 [B][R]): adaptive truncation in Nyström space.

    Every round: a fresh Nyström dictionary (each past point kept w.p.
    min(q σ̃², 1)), Ṽ = Φ̃ᵀΦ̃ + λI, r̂_i = Σ_τ u_{iτ} ȳ_τ 1{|u_{iτ} ȳ_τ| ≤ b_t}
    with U = Ṽ^{-1/2}Φ̃ᵀ, θ̃ = Ṽ^{-1/2} r̂, μ̃ = φ̃ᵀθ̃, DTC variance σ̃².

    Constants (base paper Theorem 4 at α = 1, v the reports' second-moment
    bound, m_t the dictionary size) [B][R]:
    ρ = (1 + ε_N)/(1 − ε_N); q = ln(T)/ε_N² (``q="practical"``, the base
    paper's code [B code]) or 6ρ ln(4T/δ)/ε_N² (``q="theory"`` [B]);
    b_t = √(v / ln(4 m_t T/δ)); theory width
    β_{t+1} = B(1 + 1/√(1 − ε_N)) + 4√(m_t/λ) √(v ln(4 m_t T/δ)); practical
    width ``practical_width`` × that [E].

    Parameters
    ----------
    delta : float in (0, 1), default=0.1
    nystrom_accuracy : float in (0, 1), default=0.1
        ε_N (0.1 in the base paper's experiments [B]); not the privacy ε.
    q : {"practical", "theory"} or float, default="practical"
        The dictionary rate (≈ 921 at T = 10⁴ with "practical", ≈ 8,950
        with "theory", where every point enters the dictionary).
    width : {"practical", "theory"} or float, default="practical"
        As :class:`TGPUCB`.
    """

    name = "ldp-ata-gp-ucb"
    _learner = _ATALearner
    practical_width = 0.01
    delta: float = 0.1
    nystrom_accuracy: float = 0.1
    q: str | float = "practical"
    width: str | float = "practical"

    def settings(self, horizon: int) -> _Settings:
        delta, e, q = self._delta(), self.nystrom_accuracy, self.q
        if not (_is_real(e) and 0.0 < e < 1.0):
            raise ValueError(f"nystrom_accuracy must be a number in (0, 1); got {e!r}.")
        _option_or_positive(q, "q", ("practical", "theory"))
        base = _Algorithm.settings(self, horizon)  # delta and width
        q = _nystrom_q(q, float(e), delta, horizon)
        return replace(base, nystrom_accuracy=float(e), q=q)


@dataclass(unsafe_hash=True)
class MoMAGPUCB(_Algorithm):
    """LDP-MoMA-GP-UCB (spec A3 [P][M][R]): median of means, Nyström space.

    N = ⌊T/k⌋ epochs; epoch n plays x_n = argmax μ̃ + β_n σ̃ k times (k
    reports), fits one regularised least-squares θ_{n,j} per group j in the
    Nyström space of the epochs' points, keeps j* = argmin_j median_s
    ‖θ_j − θ_s‖_Ṽ, μ̃ = φ̃ᵀθ_{j*}; the last T − Nk rounds replay x_N.

    Constants: k = ⌈24 ln(e^{1/8} T/δ)⌉ with ``n_groups="theory"`` [M]
    (≈ 280 at T = 10⁴); min(⌈ln(e^{1/8} T/δ)⌉, T), the same without the
    factor 24 (12 at T = 10⁴), with ``n_groups="practical"`` [E]; or an
    int. Theory width
    β_{n+1} = 3(√(9 m_n v) + √λ B(1 + 1/√(1 − ε_N))) (MENU's width at
    α = 1 with d → m_n, c → v [M][R]); practical width
    ``practical_width`` × that [E]; q, ε_N as :class:`ATAGPUCB` [B].

    Parameters
    ----------
    delta : float in (0, 1), default=0.1
    n_groups : {"practical", "theory"} or int >= 2, default="practical"
    nystrom_accuracy : float in (0, 1), default=0.1
    q : {"practical", "theory"} or float, default="practical"
    width : {"practical", "theory"} or float, default="practical"
        As :class:`TGPUCB`.
    """

    name = "ldp-moma-gp-ucb"
    _learner = _MoMALearner
    practical_width = 0.002
    delta: float = 0.1
    n_groups: str | int = "practical"
    nystrom_accuracy: float = 0.1
    q: str | float = "practical"
    width: str | float = "practical"

    def groups(self, horizon: int) -> int:
        """k for the horizon T (validates ``n_groups`` and ``delta``)."""
        g, log_t = self.n_groups, math.log(math.exp(0.125) * horizon / self._delta())
        if isinstance(g, str) and g == "practical":  # MENU's k without its 24 [E]
            return max(1, min(math.ceil(log_t), horizon))
        if isinstance(g, str) and g == "theory":
            k = math.ceil(24.0 * log_t)
        elif isinstance(g, numbers.Integral) and not isinstance(g, bool) and g >= 2:
            k = int(g)
        else:
            raise ValueError(
                f"n_groups must be 'practical', 'theory' or an int >= 2; got {g!r}."
            )
        if k > horizon:
            raise ValueError(
                f"MoMAGPUCB needs n_groups <= n_calls; got n_groups={k} "
                f"for n_calls={horizon}. Pass a smaller n_groups (the "
                "theory value 24 ln(e^(1/8) T/delta) exceeds short horizons)."
            )
        return k

    def settings(self, horizon: int) -> _Settings:
        return replace(ATAGPUCB.settings(self, horizon), k=self.groups(horizon))


ALGORITHMS = {a.name: a for a in (TGPUCB, ATAGPUCB, MoMAGPUCB, GPUCB)}


def resolve_algorithm(algorithm) -> _Algorithm:
    """An algorithm object from a name in :data:`ALGORITHMS` or an object."""
    if isinstance(algorithm, _Algorithm):
        return algorithm
    if isinstance(algorithm, str) and algorithm in ALGORITHMS:
        return ALGORITHMS[algorithm]()
    raise ValueError(
        f"algorithm must be one of {sorted(ALGORITHMS)} or an instance of "
        f"TGPUCB, ATAGPUCB, MoMAGPUCB or GPUCB; got {algorithm!r}."
    )

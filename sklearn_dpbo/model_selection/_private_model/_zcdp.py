"""The private-model mode for a learner whose fits are ρ-zCDP (Gaussian noise).

Such a learner (``_privacy_notion = "zcdp"``) is not pure ε-DP: its runs
are accounted in Rényi DP (``privacy._rdp``), from public values only.

**A run** fits the learner at ρ (``_zcdp_rho``) on the training part and
releases its validation score with Laplace noise at ε_s = √(2ρ) (ε_s-DP is
ε_s²/2 = ρ-zCDP, Bun & Steinke, TCC 2016, Prop. 1.4) on disjoint rows: a
run is ρ-zCDP.

**Random stopping.** K ~ D_{η,γ} capped at K_max, the cap's δ_cap = (1 +
e^ε)·P[K > K_max] at most :data:`CAP_SHARE`·δ. The uncapped search is
(λ, ε′(λ))-RDP by Papernot & Steinke's Theorem 2 on the curve λρ₀,
(ε, δ − δ_cap)-DP by Canonne, Kamath & Steinke 2020, Prop. 12, and the cap
adds δ_cap: (ε, δ)-DP. ρ₀ is the largest ρ meeting ε (bisection; the
learner's own ρ is checked to be ≤ ρ₀ and meet ε).

**The default** (``"auto"``: the one candidate): one fit at the whole (ε,
δ) and its score at √(2ρ) on the other rows: ρ-zCDP, (ε, δ)-DP. The split
is not accounted.
"""

from __future__ import annotations

import math

from sklearn.base import clone

from ...privacy import _rdp as rdp
from .._whole_data._fit import default_params

CAP_SHARE = 0.1
"""The share of δ the cap on K may add (the rest is the RDP conversion's;
the cap grows like log(1/δ) only)."""


def is_zcdp(learner) -> bool:
    """Whether the learner declares ρ-zCDP fits (``_privacy_notion``): public."""
    return getattr(type(learner), "_privacy_notion", None) == "zcdp"


def _run(learner, epsilon: float, delta: float) -> tuple[dict, float, float]:
    """(the learner's privacy parameters, its ρ, the score's ε = √(2ρ))."""
    fit = {"epsilon": float(epsilon), "delta": float(delta)}
    rho = clone(learner).set_params(**fit)._zcdp_rho()
    return fit, rho, math.sqrt(2.0 * rho)


def plan(learner, mode, candidates, epsilon, delta, law, cfg: dict) -> dict:
    """``cfg`` completed for a zCDP learner; ``law(δ_cap)`` gives (name, η, γ,
    K_max, added δ, E[K]). ``"auto"``: random stopping from two candidates."""
    owner = type(learner).__name__
    if not delta > 0:
        raise ValueError(
            f"method='private-model' with {owner} (Gaussian noise, zCDP) is "
            "(epsilon, delta)-DP: pass delta > 0 (e.g. 1e-6) to the search."
        )
    strategy = mode.strategy
    if strategy == "split":
        raise ValueError(
            f"strategy='split' is not accounted for {owner} (zCDP); use "
            "strategy='random-stopping' (accounted in Renyi DP) or 'auto'."
        )
    if strategy == "auto":
        strategy = "random-stopping" if len(candidates) > 1 else "default"
    cfg.update(strategy=strategy, delta=float(delta), candidates=list(candidates))
    if strategy == "default":
        if mode.strategy == "default":  # the learner's own parameters
            names = sorted({k for p in candidates for k in p})
            cfg["candidates"] = [default_params(learner, names)]
        else:  # "auto" with one candidate: that candidate
            cfg["fitted"] = "the one candidate"
        fit, rho, eps_score = _run(learner, epsilon, delta)
        cfg["zcdp"] = {
            "fit": fit,
            "eps_score": eps_score,
            "guarantee": (
                f"(epsilon, delta)-DP: the fit is rho={rho:.4g}-zCDP and its "
                "score (Laplace at sqrt(2 rho)) rho-zCDP on the other rows, "
                "converted by Canonne, Kamath & Steinke 2020, Prop. 12"
            ),
            "assumption": "the learner's fit is rho-zCDP (its documented proof)",
        }
        return cfg
    name, eta, gamma, cap, added, mean = law(delta * CAP_SHARE)
    left = delta - added

    def total(rho: float) -> float:
        curve = rdp.zcdp_curve(rho)
        return rdp.repeat_and_select_epsilon(curve, eta, gamma, mean, left)

    rho0 = rdp.largest_parameter(total, epsilon)
    if not (rho0 > 0 and total(rho0) <= epsilon):
        raise ValueError(
            f"epsilon={epsilon:g} is too small for random stopping with {owner} "
            f"at delta={delta:g} and E[K]={mean:.3g}: even a run at rho -> 0 "
            "costs more (the log E[K] and log(1/delta) terms of the Renyi DP "
            "conversion). Raise epsilon, lower mean_runs, or use "
            "strategy='default'."
        )
    fit, rho, eps_score = _run(learner, rdp.zcdp_epsilon(rho0, delta), delta)
    if not (rho <= rho0 and total(rho) <= epsilon):  # pragma: no cover
        raise RuntimeError("the zCDP plan of random stopping does not meet epsilon")
    cfg.update(
        name=name,
        eta=eta,
        gamma=gamma,
        mean=mean,
        cap=cap,
        added=added,
        eps0=eps_score,
        rho_run=rho,
        fit=fit,
        eps_score=eps_score,
        run=f"the learner at rho={rho:.4g} (zCDP)",
        guarantee=(
            "(epsilon, delta)-DP: Renyi DP of the best of K rho-zCDP runs "
            "(Papernot & Steinke, ICLR 2022, Theorem 2) converted at "
            f"delta={left:.3g} (Canonne, Kamath & Steinke 2020, Prop. 12), "
            f"plus the cap's (1 + e^eps) P[K > K_max] = {added:.3g}"
        ),
        assumption="the learner's fit is rho-zCDP (its documented proof)",
    )
    return cfg

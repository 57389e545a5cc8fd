"""What was released and what it cost: per-release records and the report.

Every fitted attribute that depends on the validation set is copied from a
:class:`Release` (OpenDP's ``_ingest_release`` pattern). Releases compose
by basic composition.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class Release:
    """One differentially private output of a fit.

    Attributes
    ----------
    quantity : str
        Fitted attribute it populates (``"best_params_"`` or ``"best_score_"``).
    value : Any
        The released value (a candidate index, or a noisy score in score
        units); kept out of ``repr`` and of :class:`PrivacyReport`.
    mechanism : str
        E.g. ``"exponential mechanism"``, ``"Laplace"``.
    epsilon, delta : float
        Cost of this release.
    sensitivity : float
        Global sensitivity the mechanism was calibrated to, in score units.
    noise_scale : float
        Laplace scale b (score units) for additive noise; for selection the
        temperature 2Δ/ε of the exponential weights.
    guarantee : str
        ``"pure ε-DP"``, ``"(ε, δ)-DP"``.
    assumption : str
        What the guarantee rests on ("none" when it holds unconditionally).
    reference : str
        Paper and section the mechanism and its sensitivity come from.
    """

    quantity: str
    value: Any = field(repr=False, compare=False)
    mechanism: str
    epsilon: float
    delta: float
    sensitivity: float
    noise_scale: float
    guarantee: str
    assumption: str
    reference: str

    def describe(self) -> dict:
        """The release's public description, without its value."""
        return {
            f.name: getattr(self, f.name) for f in fields(self) if f.name != "value"
        }


class PrivacyReport:
    """Per-release privacy guarantee of one fit, and the basic-composition total.

    ``str(report)``: one line per release; :meth:`explain`: everything in
    full; :meth:`to_dict`: plain data. Contains no released value.
    """

    def __init__(
        self,
        releases: list[Release],
        method: str,
        *,
        neighbouring: str = (
            "replace any one validation row (X_val, y_val); the training set is public"
        ),
        uncovered: dict | None = None,
    ):
        #: The public description of every release (:meth:`Release.describe`).
        self.releases = tuple(r.describe() for r in releases)
        self.method = method
        #: The neighbouring relation the guarantee is stated for.
        self.neighbouring = neighbouring
        #: Published attributes the guarantee does NOT cover, with why.
        self.uncovered = dict(uncovered or {})

    @property
    def epsilon(self) -> float:
        """Total ε spent (basic composition)."""
        return math.fsum(r["epsilon"] for r in self.releases)

    @property
    def delta(self) -> float:
        """Total δ spent (basic composition)."""
        return math.fsum(r["delta"] for r in self.releases)

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "neighbouring": self.neighbouring,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "releases": [dict(r) for r in self.releases],
            "not_covered": dict(self.uncovered),
        }

    def to_dp_event(self):
        """The fit's releases as a ``dp_accounting`` ``ComposedDpEvent``.

        Per release (``pip install "sklearn-dpbo[accounting]"``):

        - pure-ε Laplace: ``LaplaceDpEvent(noise_scale / sensitivity)``, of
          the inflated 2^k-grid calibration (the discrete Laplace matches
          the continuous one's privacy loss to O(2^-20));
        - other pure-ε (selection): ``DiscreteLaplaceDpEvent(ε, 1)``, privacy
          loss exactly ±ε: the worst case of every ε-DP mechanism;
        - (ε, δ): ``EpsilonDeltaDpEvent(ε, δ)`` if the installed
          ``dp_accounting`` has it, else ``UnsupportedDpEvent()`` (refused,
          never under-counted; :meth:`to_pld` covers them).

        Use ``neighboring_relation=ADD_OR_REMOVE_ONE``: the sensitivities
        already refer to swapping one validation record.
        """
        dp_event = _dp_accounting("to_dp_event").dp_event
        events = []
        for r in self.releases:
            if r["delta"] > 0:
                cls = getattr(dp_event, "EpsilonDeltaDpEvent", None)
                events.append(
                    cls(r["epsilon"], r["delta"])
                    if cls is not None
                    else dp_event.UnsupportedDpEvent()
                )
            elif r["mechanism"].startswith("Laplace"):
                events.append(
                    dp_event.LaplaceDpEvent(r["noise_scale"] / r["sensitivity"])
                )
            else:
                events.append(dp_event.DiscreteLaplaceDpEvent(r["epsilon"], 1))
        return dp_event.ComposedDpEvent(events)

    def to_pld(self, value_discretization_interval: float = 1e-4):
        """The fit's guarantee as a ``dp_accounting`` privacy-loss distribution.

        Per release, pessimistically discretised: pure-ε Laplace releases by
        ``from_laplace_mechanism(noise_scale / sensitivity, sensitivity=1)``
        (without "connect the dots", whose float residue makes ε at δ = 0
        infinite), all others by ``from_privacy_parameters(ε, δ)`` (the worst
        mechanism with that guarantee). Composed with
        ``tail_mass_truncation=0``, so ``get_epsilon_for_delta(report.delta)``
        is at most ``report.epsilon`` plus ``value_discretization_interval``
        per release.
        """
        pld_lib = _dp_accounting("to_pld").pld
        pld = None
        for r in self.releases:
            if r["delta"] == 0 and r["mechanism"].startswith("Laplace"):
                part = pld_lib.privacy_loss_distribution.from_laplace_mechanism(
                    r["noise_scale"] / r["sensitivity"],
                    sensitivity=1.0,
                    value_discretization_interval=value_discretization_interval,
                    use_connect_dots=False,
                )
            else:
                part = pld_lib.privacy_loss_distribution.from_privacy_parameters(
                    pld_lib.common.DifferentialPrivacyParameters(
                        r["epsilon"], r["delta"]
                    ),
                    value_discretization_interval=value_discretization_interval,
                )
            pld = part if pld is None else pld.compose(part, tail_mass_truncation=0.0)
        return pld

    def _header(self) -> str:
        return (
            f"Privacy report (method={self.method!r}): total epsilon="
            f"{self.epsilon:.4g}, delta={self.delta:.3g} (basic composition)"
        )

    def __str__(self) -> str:
        lines = [self._header() + "; full text: privacy_report_.explain()"]
        for r in self.releases:
            lines.append(
                f"- {r['quantity']}: {r['mechanism']}, {r['guarantee']}, "
                f"epsilon={r['epsilon']:.4g}, delta={r['delta']:.3g}, noise "
                f"scale={r['noise_scale']:.4g}; assumes {_head(r['assumption'])}"
            )
        for name, why in self.uncovered.items():
            lines.append(f"- {name}: NOT covered by the guarantee ({_head(why)})")
        return "\n".join(lines)

    def explain(self) -> str:
        """The full report: relation, calibrations, sources, numbered assumptions.

        Print it: ``print(search.privacy_report_.explain())``.
        """
        assumptions = list(dict.fromkeys(r["assumption"] for r in self.releases))
        lines = [self._header(), f"neighbouring data sets: {self.neighbouring}"]
        for r in self.releases:
            lines.append(
                f"- {r['quantity']}: {r['mechanism']}, {r['guarantee']} with "
                f"epsilon={r['epsilon']:.4g}, delta={r['delta']:.3g}; "
                f"sensitivity={r['sensitivity']:.4g}, noise scale="
                f"{r['noise_scale']:.4g} (units of the released quantity); "
                f"assumes [{assumptions.index(r['assumption']) + 1}]; "
                f"source: {r['reference']}"
            )
        lines += [f"assumption [{i}]: {a}" for i, a in enumerate(assumptions, 1)]
        lines += [f"- {name}: {why}" for name, why in self.uncovered.items()]
        return "\n".join(lines)

    def __repr__(self) -> str:
        parts = ", ".join(r["quantity"] for r in self.releases)
        return (
            f"PrivacyReport(method={self.method!r}, epsilon={self.epsilon:.4g}, "
            f"delta={self.delta:.3g}, releases=[{parts}])"
        )


def _dp_accounting(method: str):
    """The optional ``dp_accounting`` package, or an ImportError saying how."""
    try:
        import dp_accounting
    except ImportError as exc:  # pragma: no cover - depends on the env
        raise ImportError(
            f"PrivacyReport.{method} needs the optional dp-accounting package: "
            'pip install "sklearn-dpbo[accounting]" (or pip install dp-accounting).'
        ) from exc
    return dp_accounting


def _head(text: str) -> str:
    """The first words of ``text``: up to its first ":", ";" or " ("."""
    return re.split(r":|;| \(", text, maxsplit=1)[0]


def split_budget(
    epsilon: float, delta: float, fraction: float, release_score: bool
) -> tuple[tuple[float, float], tuple[float, float] | None]:
    """``fraction`` of (ε, δ) to ``best_params_``, the rest to ``best_score_``
    (all to ``best_params_`` when ``release_score=False``)."""
    if not release_score:
        return (epsilon, delta), None
    eps_params, delta_params = epsilon * fraction, delta * fraction
    return (eps_params, delta_params), (epsilon - eps_params, delta - delta_params)

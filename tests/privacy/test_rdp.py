"""RDP accounting (privacy/_rdp.py) against hand formulas and dp_accounting.

The cross-check runs Papernot & Steinke's Theorem 2 for a ρ-zCDP base
through ``dp_accounting.RdpAccountant`` (``RepeatAndSelectDpEvent(
ZCDpEvent(ρ), mean, η)``) on the same (η, mean): on dp_accounting's own
orders the two curves and ε must agree, and on our finer grid our ε may
only be smaller by what the finer grid gains (≤ 5 %), and larger by at
most 10⁻⁴ relative (an integer order of theirs between two of ours).
A power check: dropping the theorem's (1 + η) factor is caught.
"""

import math

import numpy as np
import pytest

from sklearn_dpbo.model_selection._private_model import _stopping as st
from sklearn_dpbo.privacy import _rdp

dpa = pytest.importorskip("dp_accounting")
from dp_accounting.rdp import rdp_privacy_accountant as rdp_acc  # noqa: E402

CASES = [  # (rho, eta, mean, delta)
    (0.01, 0.0, 10.0, 1e-5),
    (0.05, 0.5, 20.0, 1e-6),
    (0.1, 1.0, 5.0, 1e-5),
    (0.002, 0.0, 100.0, 1e-8),
    (0.5, 0.5, 3.0, 1e-3),
    (0.02, 1.0, 50.0, 1e-6),
]
THEIR_ORDERS = np.array([o for o in rdp_acc.DEFAULT_RDP_ORDERS if o > 1], float)


def _law(eta, mean):
    gamma = st.gamma_for_mean(eta, mean)
    return gamma, st.mean_of(eta, gamma)


def _theirs(rho, eta, mean, delta):
    acc = dpa.rdp.RdpAccountant(list(THEIR_ORDERS))
    acc.compose(dpa.dp_event.RepeatAndSelectDpEvent(dpa.ZCDpEvent(rho), mean, eta))
    return acc._rdp, acc.get_epsilon(delta)


@pytest.mark.parametrize("rho, eta, mean, delta", CASES)
def test_theorem_2_matches_dp_accounting_on_its_orders(rho, eta, mean, delta):
    gamma, m = _law(eta, mean)
    ours = _rdp.repeat_and_select_curve(
        _rdp.zcdp_curve(rho), eta, gamma, m, THEIR_ORDERS, hat_orders=THEIR_ORDERS
    )
    their_curve, their_eps = _theirs(rho, eta, mean, delta)
    # λ̂ = 1 is in our range and not in theirs: ours can only be lower
    # through it, and it never wins here (ρ·(λ̂ − 1) is tiny at λ̂ = 1.1)
    np.testing.assert_allclose(ours, their_curve, rtol=1e-6)
    eps = _rdp.rdp_epsilon(ours, delta, THEIR_ORDERS)
    assert eps >= their_eps * (1 - 1e-6)
    assert eps == pytest.approx(their_eps, rel=1e-6)


@pytest.mark.parametrize("rho, eta, mean, delta", CASES)
def test_fine_grid_is_close_to_dp_accounting_and_never_looser(rho, eta, mean, delta):
    gamma, m = _law(eta, mean)
    ours = _rdp.repeat_and_select_epsilon(_rdp.zcdp_curve(rho), eta, gamma, m, delta)
    _, theirs = _theirs(rho, eta, mean, delta)
    assert theirs * 0.95 <= ours <= theirs * (1 + 1e-4)


def test_power_dropping_one_plus_eta_is_caught():
    rho, eta, mean, delta = CASES[2]  # η = 1: the factor is 2
    gamma, m = _law(eta, mean)
    broken = _rdp.repeat_and_select_curve(
        _rdp.zcdp_curve(rho), 0.0, gamma, m, THEIR_ORDERS, hat_orders=THEIR_ORDERS
    )
    _, their_eps = _theirs(rho, eta, mean, delta)
    assert _rdp.rdp_epsilon(broken, delta, THEIR_ORDERS) < their_eps * 0.9


@pytest.mark.parametrize("rho, eta, mean", [(0.01, 0.0, 10.0), (0.3, 1.0, 4.0)])
def test_lambda_hat_term_matches_closed_form(rho, eta, mean):
    """(1 + η)·min_{λ̂≥1}[(λ̂ − 1)ρ + L/λ̂] = (1 + η)(2√(ρL) − ρ) if L ≥ ρ."""
    gamma, m = _law(eta, mean)
    L = -math.log(gamma)
    assert L >= rho
    lam = np.array([3.0])
    curve = _rdp.repeat_and_select_curve(_rdp.zcdp_curve(rho), eta, gamma, m, lam)
    exact = 3.0 * rho + (1 + eta) * (2 * math.sqrt(rho * L) - rho) + math.log(m) / 2
    # the default grid for λ̂ (lam is only the output order here)
    assert exact <= curve[0] <= exact * (1 + 1e-3)


def test_gamma_one_is_the_base_curve():
    curve = _rdp.repeat_and_select_curve(_rdp.zcdp_curve(0.1), 0.5, 1.0, 1.0)
    np.testing.assert_allclose(curve, 0.1 * _rdp.ORDERS)


def _zcdp_conversion(lam, rho, delta):
    return (
        lam * rho + math.log1p(-1 / lam) - (math.log(delta) + math.log(lam)) / (lam - 1)
    )


@pytest.mark.parametrize("rho, delta", [(0.01, 1e-5), (0.5, 1e-6), (2.0, 1e-3)])
def test_zcdp_epsilon_hand_values(rho, delta):
    """ε(ρ, δ) = min_λ λρ + log(1 − 1/λ) − (log δ + log λ)/(λ − 1), by scipy."""
    from scipy.optimize import minimize_scalar

    best = minimize_scalar(
        _zcdp_conversion, bounds=(1.0001, 1e5), args=(rho, delta), method="bounded"
    ).fun
    assert best <= _rdp.zcdp_epsilon(rho, delta) <= best * (1 + 1e-4)
    # never more than the standard conversion ρ + 2√(ρ log(1/δ))
    standard = rho + 2 * math.sqrt(rho * math.log(1 / delta))
    assert _rdp.zcdp_epsilon(rho, delta) <= standard


def test_pure_dp_curve_is_randomized_response():
    eps = 0.7
    acc = dpa.rdp.RdpAccountant(
        list(THEIR_ORDERS), neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE
    )
    acc.compose(dpa.RandomizedResponseDpEvent(2 / (1 + math.exp(eps)), 2))
    ours = _rdp.pure_dp_curve(eps)(THEIR_ORDERS)
    np.testing.assert_allclose(ours, acc._rdp, rtol=1e-9)
    assert (ours <= np.minimum(eps, THEIR_ORDERS * eps**2 / 2) + 1e-12).all()


def test_max_curve_and_largest_parameter():
    c = _rdp.max_curve(_rdp.zcdp_curve(0.1), _rdp.pure_dp_curve(0.5))
    lam = np.array([1.5, 100.0])
    np.testing.assert_allclose(c(lam), [max(0.15, _rdp.pure_dp_curve(0.5)(lam)[0]), 10])
    rho = _rdp.largest_parameter(lambda r: _rdp.zcdp_epsilon(r, 1e-5), 1.0)
    assert _rdp.zcdp_epsilon(rho, 1e-5) <= 1.0
    assert _rdp.zcdp_epsilon(rho * (1 + 1e-8), 1e-5) > 1.0 - 1e-6


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="delta"):
        _rdp.rdp_epsilon(_rdp.ORDERS, 0.0)
    with pytest.raises(ValueError, match="rho"):
        _rdp.zcdp_curve(-1.0)
    with pytest.raises(ValueError, match="mean"):
        _rdp.repeat_and_select_curve(_rdp.zcdp_curve(0.1), 0.0, 0.5, 0.5)

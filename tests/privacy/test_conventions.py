"""One spelling each: kernels are scikit-learn kernel objects; ε and δ have
one range and one message form everywhere (issue 23, item 4).

- Every public ``kernel=`` of the library (the search modes, the local-DP
  optimiser and ``ldp_maximize``, ``estimate_dataset_kernel``, the DP GP
  regressor) takes a scikit-learn kernel. The GP over the candidates
  computes ``Matern(nu=2.5)`` and ``RBF`` itself: the same functions as
  scikit-learn's, checked here against scikit-learn's own evaluation; a
  string is refused.
- ε and δ: every class and function that takes one refuses the same values
  with scikit-learn's message, "The 'epsilon' parameter of <owner> must be
  a float in the range [1e-12, inf). Got ... instead."
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import sklearn
from conftest import NOISE_SEED_WARNING, RowSpyClassifier, make_spy_scorer
from sklearn.gaussian_process.kernels import (
    RBF,
    ConstantKernel,
    DotProduct,
    Matern,
    WhiteKernel,
)
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_dpbo import BudgetAccountant, DPBayesSearchCV, DPGaussianProcessRegressor
from sklearn_dpbo.bo._gp import internal_kernel, kernel_matrix
from sklearn_dpbo.ldp import (
    ATAGPUCB,
    GPUCB,
    TGPUCB,
    LaplaceRandomizer,
    LDPBayesianOptimizer,
    MoMAGPUCB,
    RandomizedResponse,
    ldp_maximize,
)
from sklearn_dpbo.model_selection import (
    DPGPUCB,
    FederatedLDP,
    Lipschitz,
    PrivateSelection,
    estimate_dataset_kernel,
)
from sklearn_dpbo.privacy._gaussian_mechanism import (
    analytic_gaussian_scale,
    hall_gaussian_scale,
)
from sklearn_dpbo.privacy._mechanisms import exponential_mechanism, permute_and_flip

pytestmark = [
    pytest.mark.filterwarnings(NOISE_SEED_WARNING),
    pytest.mark.filterwarnings("ignore::sklearn_dpbo.UselessReleaseWarning"),
    pytest.mark.filterwarnings("ignore::sklearn_dpbo.PrivacyLeakWarning"),
]

MODE_CLASSES = [PrivateSelection, DPGPUCB, Lipschitz, FederatedLDP]
SPACE = {"C": [0.01, 0.1, 1.0, 10.0]}


# ---------------------------------------------------------------------------
# Kernels: scikit-learn objects, computed exactly by the internal GP
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("ell", [0.05, 0.2, 0.7, 3.0])
@pytest.mark.parametrize(
    "kernel_cls, name",
    [
        (lambda ell: Matern(nu=2.5, length_scale=ell), "matern52"),
        (RBF, "squared-exponential"),
    ],
    ids=["matern52", "rbf"],
)
def test_internal_kernels_are_sklearns(kernel_cls, name, ell):
    """kernel_matrix(name, ℓ) is scikit-learn's kernel, to rounding."""
    rng = np.random.default_rng(0)
    A, B = rng.uniform(size=(30, 3)), rng.uniform(size=(20, 3))
    kernel = kernel_cls(ell)
    assert internal_kernel(kernel) == (name, ell)
    # Values are in [0, 1]; two evaluation orders differ by a few ulps.
    np.testing.assert_allclose(kernel_matrix(A, B, name, ell), kernel(A, B), atol=1e-14)


def test_internal_matern52_by_hand():
    """k(r) = (1 + √5 r/ℓ + 5r²/(3ℓ²)) exp(−√5 r/ℓ) at r = 0.3, ℓ = 0.2."""
    s = math.sqrt(5.0) * 1.5
    expected = (1 + s + s * s / 3) * math.exp(-s)  # 0.1424...
    got = kernel_matrix([[0.0]], [[0.3]], "matern52", 0.2)[0, 0]
    assert got == pytest.approx(expected, rel=1e-14)
    assert Matern(nu=2.5, length_scale=0.2)([[0.0]], [[0.3]])[0, 0] == pytest.approx(
        expected, rel=1e-14
    )


@pytest.mark.parametrize(
    "kernel, reason",
    [
        (Matern(nu=1.5, length_scale=0.2), "nu=2.5 only"),
        (RBF(length_scale=[0.1, 0.2]), "not an anisotropic array"),
        (RBF(length_scale=-1.0), "one length-scale > 0"),
        (RBF(length_scale=np.nan), "one length-scale > 0"),
        (ConstantKernel(2.0) * RBF(0.2), "normalised stationary kernel"),
        (RBF(0.2) + WhiteKernel(0.1), "not a WhiteKernel"),
        (DotProduct(), "normalised stationary kernel"),
    ],
    ids=repr,
)
def test_unsupported_kernel_objects_are_refused_with_the_reason(
    id_data, spy_log, kernel, reason
):
    X, y, tr, va = id_data
    search = DPBayesSearchCV(
        RowSpyClassifier(),
        SPACE,
        method=DPGPUCB(kernel=kernel),
        scoring=make_spy_scorer(),
    )
    with pytest.raises(InvalidParameterError) as info:
        search.fit(X[tr], y[tr], X_val=X[va], y_val=y[va])
    msg = str(info.value)
    assert msg.startswith("The 'method__kernel' parameter of DPBayesSearchCV must be ")
    assert "Matern(nu=2.5, length_scale=...)" in msg and reason in msg
    assert spy_log == []  # refused before any data is read
    with pytest.raises(InvalidParameterError, match="'kernel' parameter of LDP"):
        LDPBayesianOptimizer(SPACE, LaplaceRandomizer((0, 1), 1.0), 20, kernel=kernel)


@pytest.mark.parametrize("cls", MODE_CLASSES)
def test_the_default_kernel_is_matern52(cls):
    assert cls()._gp_kernel() == ("matern52", 0.2)
    assert cls(kernel=Matern(nu=2.5, length_scale=0.2))._gp_kernel() == (
        "matern52",
        0.2,
    )


def test_ldp_default_kernel_is_rbf_02():
    opt = LDPBayesianOptimizer(SPACE, LaplaceRandomizer((0, 1), 1.0), 20)
    assert opt.kernel == RBF(length_scale=0.2)


@pytest.mark.parametrize("kernel", ["matern52", "squared-exponential"])
def test_a_kernel_string_is_refused_everywhere(kernel, cancer_split):
    """One spelling: a kernel string gets scikit-learn's constraint error."""
    for cls in MODE_CLASSES:
        with pytest.raises(InvalidParameterError, match="'method__kernel' param"):
            cls(kernel=kernel)._validate_in("DPBayesSearchCV")
    client = LaplaceRandomizer((0, 1), 1.0)
    with pytest.raises(InvalidParameterError, match="Got '.*' instead: pass a k"):
        LDPBayesianOptimizer(SPACE, client, 20, kernel=kernel)
    with pytest.raises(InvalidParameterError, match="of ldp_maximize must be RBF"):
        ldp_maximize(_reward, {"x": [0.0, 1.0]}, 2, kernel=kernel)
    X_tr, y_tr, X_va, y_va = cancer_split
    with pytest.raises(InvalidParameterError, match="of estimate_dataset_kernel"):
        estimate_dataset_kernel(
            LogisticRegression(),
            {"C": [1.0]},
            X_tr,
            y_tr,
            X_va,
            y_va,
            validation_size=4,
            kernel=kernel,
        )


def _reward(p):
    return float(np.exp(-((p["x"] - 0.3) ** 2) / 0.02))


@pytest.mark.parametrize("cls", MODE_CLASSES)
def test_shared_parameter_docs_are_filled_in(cls):
    """Each shared text is written once (_PARAM_DOCS) and shown in every mode."""
    from sklearn_dpbo.model_selection._modes import _PARAM_DOCS

    assert "{{" not in cls.__doc__
    lines = [line.strip() for line in cls.__doc__.splitlines()]
    for name in ("kernel", "noise", "selection"):
        first = _PARAM_DOCS[name].splitlines()[0]
        assert (first in lines) == (name in cls._parameter_constraints)


# ---------------------------------------------------------------------------
# ε and δ: one range, one message form
# ---------------------------------------------------------------------------
BAD_EPSILON = [0, -1.0, float("nan"), float("inf"), 1e-13, True, "1", None, 1j]
BAD_DELTA = [-0.1, 1.0, 1.5, float("nan"), float("inf"), True, False, "1e-5", None]


def _message(param: str, owner: str, interval: str, value) -> str:
    return (
        f"The {param!r} parameter of {owner} must be a float in the range "
        f"{interval}. Got {value!r} instead."
    )


def _gp_fit(**kw):
    X = np.linspace(0, 1, 8)[:, None]
    DPGaussianProcessRegressor(y_bounds=(-1, 1), **kw).fit(X, np.sin(X[:, 0]))


def _search_fit(**kw):
    X, y = np.zeros((8, 2)), np.array([0, 1] * 4)
    DPBayesSearchCV(LogisticRegression(), {"C": [1.0]}, **kw).fit(
        X, y, X_val=X, y_val=y
    )


def _ldp(epsilon):
    ldp_maximize(_reward, {"x": [0.0, 1.0]}, 1, epsilon=epsilon)


EPSILON_PATHS = {
    "BudgetAccountant": lambda v: BudgetAccountant(v),
    "BudgetAccountant.spend": lambda v: BudgetAccountant(10.0).spend(v),
    "BudgetAccountant.check": lambda v: BudgetAccountant(10.0).check(v),
    "LaplaceRandomizer": lambda v: LaplaceRandomizer((0, 1), v),
    "RandomizedResponse": lambda v: RandomizedResponse((0, 1), v),
    "ldp_maximize": _ldp,
    "exponential_mechanism": lambda v: exponential_mechanism([0.0, 1.0], v, 1.0),
    "permute_and_flip": lambda v: permute_and_flip([0.0, 1.0], v, 1.0),
    "analytic_gaussian_scale": lambda v: analytic_gaussian_scale(1.0, v, 1e-5),
    "hall_gaussian_scale": lambda v: hall_gaussian_scale(1.0, v, 1e-5),
    "DPGaussianProcessRegressor": lambda v: _gp_fit(epsilon=v),
    "DPBayesSearchCV": lambda v: _search_fit(epsilon=v),
}
DELTA_PATHS = {
    "BudgetAccountant": lambda v: BudgetAccountant(1.0, v),
    "BudgetAccountant.spend": lambda v: BudgetAccountant(10.0, 0.5).spend(0.1, v),
    "analytic_gaussian_scale": lambda v: analytic_gaussian_scale(1.0, 1.0, v),
    "hall_gaussian_scale": lambda v: hall_gaussian_scale(1.0, 1.0, v),
    "DPGaussianProcessRegressor": lambda v: _gp_fit(delta=v),
    "DPBayesSearchCV": lambda v: _search_fit(delta=v),
}


@pytest.mark.parametrize("value", BAD_EPSILON, ids=repr)
@pytest.mark.parametrize(
    "owner",
    list(EPSILON_PATHS),
)
def test_every_path_refuses_bad_epsilon_with_one_message(owner, value):
    with pytest.raises(InvalidParameterError) as info:
        EPSILON_PATHS[owner](value)
    assert str(info.value) == _message("epsilon", owner, "[1e-12, inf)", value)


@pytest.mark.parametrize(
    "owner, value",
    [(o, v) for o in DELTA_PATHS for v in BAD_DELTA],
    ids=repr,
)
def test_every_path_refuses_bad_delta_with_one_message(owner, value):
    with pytest.raises(InvalidParameterError) as info:
        DELTA_PATHS[owner](value)
    assert str(info.value) == _message("delta", owner, "[0.0, 1.0)", value)


@pytest.mark.parametrize(
    "call",
    [
        lambda: _gp_fit(epsilon=-1.0),
        lambda: _search_fit(epsilon=-1.0),
    ],
    ids=["DPGaussianProcessRegressor", "DPBayesSearchCV"],
)
def test_the_hand_check_gives_the_same_message_when_validation_is_skipped(call):
    """set_config(skip_parameter_validation=True) cannot switch ε's check off."""
    with sklearn.config_context(skip_parameter_validation=True):
        with pytest.raises(
            InvalidParameterError, match=re.escape("[1e-12, inf). Got -1.0")
        ):
            call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: _gp_fit(delta=0.0),
        lambda: analytic_gaussian_scale(1.0, 1.0, 0.0),
        lambda: hall_gaussian_scale(1.0, 1.0, 0.0),
        lambda: _search_fit(method="gp-ucb", delta=0.0),
    ],
    ids=["DPGaussianProcessRegressor", "analytic", "hall", "gp-ucb"],
)
def test_a_mechanism_that_needs_positive_delta_says_why(call):
    with pytest.raises(ValueError, match=r"needs delta > 0.*pass e\.g\. delta=1e-5"):
        call()


@pytest.mark.parametrize("cls", [TGPUCB, GPUCB, ATAGPUCB, MoMAGPUCB])
@pytest.mark.parametrize("value", [0, 1, -0.5, float("nan"), True, "0.1"], ids=repr)
def test_regret_bound_delta_has_the_same_form(cls, value):
    """The LDP algorithms' δ is a failure probability, in (0, 1); checked
    when a run starts (the constructor stores it untouched)."""
    with pytest.raises(InvalidParameterError) as info:
        cls(delta=value).settings(100)
    assert str(info.value) == _message("delta", cls.__name__, "(0.0, 1.0)", value)


def test_declared_constraints_are_the_shared_ones():
    from sklearn_dpbo.privacy._validation import DELTA_CONSTRAINTS, EPSILON_CONSTRAINTS

    params = DPGaussianProcessRegressor._parameter_constraints
    assert params["epsilon"] is EPSILON_CONSTRAINTS
    assert params["delta"] is DELTA_CONSTRAINTS

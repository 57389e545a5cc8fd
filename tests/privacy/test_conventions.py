"""One spelling each: kernels are scikit-learn kernel objects; ε and δ have
one range and one message form everywhere (issue 23, item 4).

- Every public ``kernel=`` of the library (the search modes, the local-DP
  optimiser and ``ldp_maximize``, ``estimate_dataset_kernel``, the DP GP
  regressor) takes a scikit-learn kernel. The GP over the candidates
  computes ``Matern(nu=2.5)`` and ``RBF`` itself: the same functions as
  scikit-learn's, checked here against scikit-learn's own evaluation. The
  former spelling (a string and ``length_scale``) warns ``FutureWarning``
  naming the new one and gives the same results.
- ε and δ: every class and function that takes one refuses the same values
  with scikit-learn's message, "The 'epsilon' parameter of <owner> must be
  a float in the range [1e-12, inf). Got ... instead."
"""

from __future__ import annotations

import math
import re
import warnings

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


def test_a_kernel_object_with_a_length_scale_is_refused():
    with pytest.raises(InvalidParameterError, match=r"kernel=RBF\(length_scale=0.3\)"):
        LDPBayesianOptimizer(
            SPACE, LaplaceRandomizer((0, 1), 1.0), 20, kernel=RBF(0.2), length_scale=0.3
        )


@pytest.mark.parametrize("cls", MODE_CLASSES)
def test_the_default_kernel_is_matern52_without_warning(cls):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        cls()._validate_in("DPBayesSearchCV")
    assert cls()._gp_kernel() == ("matern52", 0.2)
    assert cls(kernel=Matern(nu=2.5, length_scale=0.2))._gp_kernel() == (
        "matern52",
        0.2,
    )


# Former spelling -> new spelling, and the kernel both mean.
OLD_NEW = [
    (dict(kernel="squared-exponential", length_scale=0.3), RBF(length_scale=0.3)),
    (dict(kernel="matern52", length_scale=0.3), Matern(nu=2.5, length_scale=0.3)),
    (dict(kernel="squared-exponential"), RBF(length_scale=0.2)),
    (dict(length_scale=0.3), Matern(nu=2.5, length_scale=0.3)),
]


@pytest.mark.parametrize("old, new", OLD_NEW, ids=repr)
@pytest.mark.parametrize("cls", MODE_CLASSES)
def test_former_mode_kernel_spelling_warns_and_means_the_same(cls, old, new):
    mode = cls(**old)
    new_spelling = (
        f"kernel=RBF(length_scale={new.length_scale})"
        if type(new) is RBF
        else f"kernel=Matern(nu=2.5, length_scale={new.length_scale})"
    )
    with pytest.warns(FutureWarning) as record:
        mode._validate_in("DPBayesSearchCV")
    assert len(record) == 1
    assert f"Pass {cls.__name__}({new_spelling})" in str(record[0].message)
    assert mode._gp_kernel() == cls(kernel=new)._gp_kernel()


@pytest.mark.parametrize(
    "method_old, method_new, kw",
    [
        (
            PrivateSelection(kernel="squared-exponential", length_scale=0.3),
            PrivateSelection(kernel=RBF(length_scale=0.3)),
            {},
        ),
        (
            DPGPUCB(length_scale=0.3),
            DPGPUCB(kernel=Matern(nu=2.5, length_scale=0.3)),
            {},
        ),
        (
            DPGPUCB(kernel="matern52"),
            DPGPUCB(kernel=Matern(nu=2.5, length_scale=0.2)),
            dict(n_iter=2),
        ),
    ],
    ids=["private-selection rbf", "gp-ucb length_scale", "gp-ucb matern52"],
)
def test_former_spelling_gives_the_same_releases(id_data, method_old, method_new, kw):
    """Same seeds: the old and the new spelling release the same values."""
    X, y, tr, va = id_data

    def fit(method):
        params = dict(scoring=make_spy_scorer(), n_iter=3, random_state=0)
        params.update(kw)
        search = DPBayesSearchCV(
            RowSpyClassifier(), SPACE, method=method, noise_random_state=3, **params
        )
        return search.fit(X[tr], y[tr], X_val=X[va], y_val=y[va])

    with pytest.warns(FutureWarning, match="is deprecated"):
        old = fit(method_old)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        new = fit(method_new)
    assert (old.best_index_, old.best_score_) == (new.best_index_, new.best_score_)
    assert old.privacy_report_.to_dict() == new.privacy_report_.to_dict()


def _reward(p):
    return float(np.exp(-((p["x"] - 0.3) ** 2) / 0.02))


@pytest.mark.parametrize("old, new", OLD_NEW[:3], ids=repr)
def test_former_ldp_kernel_spelling_warns_and_means_the_same(old, new):
    def run(**kernel_kw):
        return ldp_maximize(
            _reward,
            {"x": [i / 20 for i in range(21)]},
            15,
            algorithm="gp-ucb",
            random_state=0,
            noise_random_state=1,
            **kernel_kw,
        )

    with pytest.warns(FutureWarning) as record:
        a = run(**old)
    messages = [str(w.message) for w in record if w.category is FutureWarning]
    assert len(messages) == 1 and "Pass ldp_maximize(kernel=" in messages[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        b = run(kernel=new)
    assert a.x == b.x and a.x_iters == b.x_iters
    np.testing.assert_array_equal(a.reports, b.reports)

    client = LaplaceRandomizer((0, 1), 1.0)
    with pytest.warns(FutureWarning, match=r"Pass LDPBayesianOptimizer\(kernel="):
        opt_old = LDPBayesianOptimizer(SPACE, client, 20, random_state=0, **old)
    opt_new = LDPBayesianOptimizer(SPACE, client, 20, random_state=0, kernel=new)
    np.testing.assert_array_equal(opt_old.problem_.K, opt_new.problem_.K)
    assert opt_old.kernel == opt_new.kernel == new


def test_ldp_default_kernel_is_rbf_02():
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        opt = LDPBayesianOptimizer(SPACE, LaplaceRandomizer((0, 1), 1.0), 20)
    assert opt.kernel == RBF(length_scale=0.2)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_former_dataset_kernel_spelling_warns_and_means_the_same(cancer_split):
    X_tr, y_tr, X_va, y_va = cancer_split

    def run(**kernel_kw):
        return estimate_dataset_kernel(
            LogisticRegression(max_iter=200),
            {"C": (1e-2, 1e2, "log-uniform")},
            X_tr[:100],
            y_tr[:100],
            X_va,
            y_va,
            validation_size=40,
            n_sets=4,
            n_candidates=6,
            random_state=0,
            **kernel_kw,
        )

    with pytest.warns(FutureWarning) as record:
        old = run(kernel="squared-exponential", length_scale=0.3)
    messages = [str(w.message) for w in record if w.category is FutureWarning]
    assert messages == [
        "estimate_dataset_kernel(kernel='squared-exponential', length_scale=0.3) is "
        "deprecated: the kernel is a scikit-learn kernel object now, with its "
        "length-scale. Pass estimate_dataset_kernel(kernel=RBF(length_scale=0.3)) "
        "(from sklearn.gaussian_process.kernels import RBF); kernel strings and "
        "length_scale will be refused in the next release."
    ]
    new = run(kernel=RBF(length_scale=0.3))
    np.testing.assert_array_equal(old.log_likelihood, new.log_likelihood)


@pytest.mark.parametrize("cls", MODE_CLASSES)
def test_shared_parameter_docs_are_filled_in(cls):
    """Each shared text is written once (_PARAM_DOCS) and shown in every mode."""
    from sklearn_dpbo.model_selection._modes import _PARAM_DOCS

    assert "{{" not in cls.__doc__
    lines = [line.strip() for line in cls.__doc__.splitlines()]
    for name in ("kernel", "length_scale", "noise", "selection"):
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

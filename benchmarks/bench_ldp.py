"""Local-DP Bayesian optimisation: defaults, theory widths, the best grid width.

Environments of the base paper (Chowdhury & Gopalan 2019, spec
``LDP_BO.md`` §7 [B]): 100 evenly spaced points of [0, 1];
f = Σ_{i=1}^{100} a_i k(·, x_i) with support points drawn from the grid,
SE or Matérn-5/2 kernel with ℓ = 0.2, rescaled so that max |f| = 1; the
learners take B = ``rkhs_norm`` = 1; a new f per seed.

- **private** (LDP): bounded noise η ~ U[−1, 1] (R = 1), the owner clips
  y = f + η into [−2, 2] and reports through the library's randomiser
  (:class:`LaplaceRandomizer`, scale 4/ε; :class:`RandomizedResponse` for
  the mechanism comparison), ε ∈ {0.5, 1, 2}; learners driven through
  :class:`LDPBayesianOptimizer` (ask_index / tell).
- **heavy-tailed, non-private**: Student-t noise (3 d.o.f., α = 1,
  v = B² + 3) and Pareto rewards (shape 2, scale f(x)/2, a_i ~ U[0, 1],
  α = 0.9, v = B^{1+α}/(2^α(1 − α))), the learners' non-private constants.

Rows, per environment, paired over seeds (seed s fixes f, the owners' noise
and the learner's public randomness for every row):

- ``default``: the algorithm as shipped (``width="practical"``, and the
  practical ``q`` and ``n_groups`` for ATA and MoMA);
- ``theory``: every theorem constant (``width="theory"``, ``q="theory"``,
  ``n_groups="theory"``);
- ``c=…``: widths c × the theory width for the five values (``--quick``:
  two) of the public grid :data:`WIDTH_GRID` nearest the algorithm's
  practical factor (the default's q and k). "Best on grid" is the lowest
  mean among them, picked on the same seeds: an optimistic reference, not
  a method; marked † when it is at the edge of those five (a better c may
  lie outside);
- ``uniform``: a uniformly random candidate every round, whose expected
  time-average regret max f − mean f is computed exactly per seed.

``--select`` is the one-off run that chose the practical factors (SE,
ε = 1, T = 10⁴, seeds 100–109, the whole grid; MoMA also at other numbers
of groups): the main run uses seeds 0, 1, … and the other environments,
none of which the factors were chosen on.

Also: process time per round at the defaults (SE, ε = 1, one trial, one BLAS
thread), and the federated mode (``load_breast_cancer``, 54 owners of 5
validation records) against central DP and non-private GP-UCB.

Metric: time-average regret R_t/t = (1/t) Σ_{s≤t} (f* − f(x_s)).

Usage (repository root)::

    python benchmarks/bench_ldp.py --jobs 2             # T = 10^4, 10 seeds
    python benchmarks/bench_ldp.py --select --jobs 2    # the factors' choice
    python benchmarks/bench_ldp.py --betas              # β_T, one trial each
    python benchmarks/bench_ldp.py --select-truncation --jobs 2
        # TGP's practical truncation κ and width c (seeds 100–109)
    python benchmarks/bench_ldp.py --truncated --jobs 2  # reports TGP cuts
    python benchmarks/bench_ldp.py --goals --jobs 2     # the goals, 30 seeds
    python benchmarks/bench_ldp.py --jobs 2 --only ldp-tgp-ucb \\
        --merge benchmarks/results/bench_ldp.json --keep-theory
        # rerun one algorithm's rows; the others (paired) from the JSON
    python benchmarks/bench_ldp.py --quick              # seconds, for CI
    python benchmarks/bench_ldp.py --replot benchmarks/results/bench_ldp.json
        # summary, tables and plots again from a run's per-seed values

Writes ``benchmarks/results/bench_ldp.json`` (``bench_ldp_select.json``
with ``--select``; to a temporary folder with ``--quick``) and PNG plots
(``bench_ldp_regret.png``, ``bench_ldp_widths.png``, ``bench_ldp_heavy.png``,
``bench_ldp_time.png``). Timings on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
import warnings
from datetime import datetime, timezone

import _checkout  # noqa: F401  (the checkout's sklearn_dpbo, not an installed copy)
import numpy as np
from _results import results_dir
from joblib import Parallel, delayed
from sklearn.gaussian_process.kernels import RBF, Matern
from threadpoolctl import threadpool_limits

from sklearn_dpbo.bo import CandidateSet
from sklearn_dpbo.bo._gp import kernel_matrix
from sklearn_dpbo.ldp import LDPBayesianOptimizer
from sklearn_dpbo.ldp._algorithms import (
    ATAGPUCB,
    GPUCB,
    TGPUCB,
    LDPProblem,
    MoMAGPUCB,
)
from sklearn_dpbo.ldp._client import LaplaceRandomizer, RandomizedResponse
from sklearn_dpbo.privacy._validation import PrivacyLeakWarning

HERE = os.path.dirname(os.path.abspath(__file__))
ALGOS = {
    "ldp-tgp-ucb": TGPUCB,
    "ldp-ata-gp-ucb": ATAGPUCB,
    "ldp-moma-gp-ucb": MoMAGPUCB,
    "gp-ucb": GPUCB,
}
LDP_ALGOS = ["ldp-tgp-ucb", "ldp-ata-gp-ucb", "ldp-moma-gp-ucb"]
THEORY = {
    "ldp-tgp-ucb": {"width": "theory", "truncation": "theory"},
    "ldp-ata-gp-ucb": {"width": "theory", "q": "theory"},
    "ldp-moma-gp-ucb": {"width": "theory", "q": "theory", "n_groups": "theory"},
    "gp-ucb": {"width": "theory"},
}
WIDTH_GRID = (5.0, 2.0, 1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001)
"""The public grid of width multipliers c (β_t = c × the theory β_t)."""
SELECT_SEEDS = list(range(100, 110))
SELECT_GROUPS = [5, 9, 15, 21]  # MoMA's other numbers of groups at --select
KAPPA_GRID = (4.0, 3.0, 2.0, 1.0)
"""TGP's truncation κ (level (b − a)/2 + κ l) tried against the theory κ."""
KERNELS = {"se": "squared-exponential", "matern": "matern52"}  # internal names
# The same kernels as the learner's public kernel= (scikit-learn objects).
KERNEL_OBJECTS = {
    "se": RBF(length_scale=0.2),
    "matern": Matern(nu=2.5, length_scale=0.2),
}
COLORS = {
    "ldp-tgp-ucb": "tab:red",
    "ldp-ata-gp-ucb": "tab:orange",
    "ldp-moma-gp-ucb": "tab:green",
    "gp-ucb": "tab:blue",
}
GRID = np.linspace(0.0, 1.0, 100)


def checkpoints(T: int) -> list[int]:
    pts = [t for t in (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000) if t < T]
    return pts + [T]


def rkhs_function(kernel: str, rng, positive: bool = False) -> np.ndarray:
    """f = Σ a_i k(·, x_i) on the grid, max |f| = 1 [B]."""
    K = kernel_matrix(GRID[:, None], GRID[:, None], KERNELS[kernel], 0.2)
    a = rng.uniform(0.0 if positive else -1.0, 1.0, 100)
    f = K[:, rng.integers(0, 100, 100)] @ a
    return f / np.abs(f).max()


def window(c: float, n: int) -> list[float]:
    """The n values of WIDTH_GRID nearest c in log scale (c included)."""
    i = WIDTH_GRID.index(c)
    lo = min(max(i - n // 2, 0), len(WIDTH_GRID) - n)
    return list(WIDTH_GRID[lo : lo + n])


# ---------------------------------------------------------------------------
# Environments
# ---------------------------------------------------------------------------
def env_function(env: str, seed: int):
    """(f, the seed's generator of the owners' randomness) for an environment."""
    kind, kernel, _ = env.split("|")
    rng = np.random.default_rng([seed, 1 if kind == "private" else 2])
    f = rkhs_function(kernel, rng, positive=env.endswith("pareto"))
    return f, rng


def uniform_regret(env: str, seed: int) -> float:
    """Expected time-average regret of a uniformly random candidate per round."""
    f, _ = env_function(env, seed)
    return float(f.max() - f.mean())


def run(env: str, algo: str, kwargs: dict, seed: int, T: int, mechanism="laplace"):
    """One trial: R_t/t at the checkpoints, cumulative process time."""
    kind, kernel, param = env.split("|")
    f, rng = env_function(env, seed)
    algorithm = ALGOS[algo](**kwargs)
    cps = checkpoints(T)
    inst = np.empty(T)
    times, start = [], time.process_time()
    cut, mid = 0, 0.0  # reports truncated (TGP); the reports' centre (a + b)/2
    if kind == "private":
        cls = LaplaceRandomizer if mechanism == "laplace" else RandomizedResponse
        with warnings.catch_warnings():  # benchmark-only seeded noise
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            client = cls((-2.0, 2.0), float(param[4:]), noise_random_state=seed)
        opt = LDPBayesianOptimizer(
            CandidateSet({"x": list(GRID)}),
            client,
            T,
            algorithm=algorithm,
            kernel=KERNEL_OBJECTS[kernel],
            rkhs_norm=1.0,
            random_state=seed,
        )
        level = getattr(opt.learner_, "level", None)  # TGP's truncation level
        for t in range(T):
            j = opt.ask_index()
            y = f[j] + rng.uniform(-1.0, 1.0)  # the owner's raw reward
            report = client.privatize(y)
            if level is not None:  # centred report beyond b_t: replaced by 0
                cut += abs(report.value - mid) > level(t + 1)
            opt.tell(j, report)
            inst[t] = f.max() - f[j]
            if t + 1 in cps:
                times.append(time.process_time() - start)
        scale, beta = opt.learner_.s.scale, float(opt.learner_.beta)
    else:
        pareto = param == "pareto"
        if pareto:
            alpha, v = 0.9, 1.0 / (2**0.9 * 0.1)
        else:
            alpha, v = 1.0, 1.0 + 3.0
        K = kernel_matrix(GRID[:, None], GRID[:, None], KERNELS[kernel], 0.2)
        problem = LDPProblem(
            K=K, rkhs_norm=1.0, moment=v, truncation_level=None, horizon=T, alpha=alpha
        )
        learner = algorithm.start(problem, np.random.default_rng([seed, 3]))
        for t in range(T):
            j = learner.propose()
            if pareto:
                y = (rng.pareto(2.0) + 1.0) * f[j] / 2.0  # Pareto(2, f/2), mean f
            else:
                y = f[j] + rng.standard_t(3)
            learner.update(j, y)
            inst[t] = f.max() - f[j]
            if t + 1 in cps:
                times.append(time.process_time() - start)
        scale, beta = learner.s.scale, float(learner.beta)
    cum = np.cumsum(inst)
    return {
        "curve": [float(cum[t - 1] / t) for t in cps],
        "cpu_time": times,
        "width_scale": scale,
        "beta_T": beta,
        "truncated": cut / T,
    }


def _single_thread(fn, *args, **kwargs):
    with threadpool_limits(limits=1):
        return fn(*args, **kwargs)


def _mean_se(x) -> tuple[float, float]:
    x = np.asarray(x, dtype=float)
    se = float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else 0.0
    return float(x.mean()), se


# ---------------------------------------------------------------------------
# Rows of one environment
# ---------------------------------------------------------------------------
def row_configs(
    algo: str, n_window: int, variant: dict | None = None
) -> list[tuple[str, dict]]:
    """(label, kwargs): default, theory, then c × theory around the default.

    ``variant`` (``{"width": c, ...}``) replaces the library's default: its
    keyword arguments go into the default and grid rows, the window is
    around its c (``--tgp-variant``).
    """
    v = dict(variant or {})
    c = v.pop("width", ALGOS[algo].practical_width)
    rows = [("default", v | ({"width": c} if variant else {}))]
    rows.append(("theory", THEORY[algo]))
    for w in window(c, n_window):
        rows.append((f"c={w:g}", v if w == c and not variant else v | {"width": w}))
    return rows


def collect(tasks, results):
    out: dict = {}
    for (env, algo, label, _, seed, _T, mech), res in zip(tasks, results):
        row = out.setdefault(env, {}).setdefault(f"{algo}|{label}|{mech}", {})
        row.setdefault("seeds", []).append(seed)
        row.setdefault("curves", []).append(res["curve"])
        row.setdefault("truncated", []).append(res.get("truncated", 0.0))
        row["width_scale"] = res["width_scale"]
    return out


def summarise(env: str, finals: dict, seeds: list[int]) -> dict:
    """Per algorithm: default, theory, best on grid, paired differences.

    ``finals`` maps a row key ``algo|label|mechanism`` to R_T/T per seed
    (in the order of ``seeds``): every row ran on the same seeds, so the
    differences are paired.
    """
    uni = np.array([uniform_regret(env, s) for s in seeds])
    final = {k: np.asarray(v, dtype=float) for k, v in finals.items()}
    gp = final.get("gp-ucb|default|laplace")
    out = {"uniform": _mean_se(uni), "algorithms": {}}
    for algo in ALGOS:
        d = final[f"{algo}|default|laplace"]
        grid = {
            k.split("|")[1]: v
            for k, v in final.items()
            if k.startswith(algo + "|c=") and k.endswith("|laplace")
        }
        best = min(grid, key=lambda k: grid[k].mean())
        ws = sorted(grid, key=lambda k: float(k[2:]))
        rec = {
            "default": _mean_se(d),
            "theory": _mean_se(final[f"{algo}|theory|laplace"]),
            "best_on_grid": {
                "width": best,
                "mean_se": _mean_se(grid[best]),
                # The window is part of the public grid: a best at its
                # edge may have a better neighbour outside it.
                "at_window_edge": best in (ws[0], ws[-1]),
            },
            "grid": {k: _mean_se(v) for k, v in grid.items()},
            "default_minus_half_uniform": _mean_se(d - 0.5 * uni),
            "default_minus_best_on_grid": _mean_se(d - grid[best]),
        }
        if algo != "gp-ucb" and gp is not None:
            rec["default_minus_gp_ucb"] = _mean_se(d - gp)
        out["algorithms"][algo] = rec
    return out


def _finals(curves_env: dict) -> dict:
    """Per-seed R_T/T of every row of one environment in a results JSON."""
    return {k: r["final"] for k, r in curves_env.items()}


# ---------------------------------------------------------------------------
# Federated mode on bundled data
# ---------------------------------------------------------------------------
def run_federated(trials: int, n_iter: int, n_cand: int):
    """Validation regret and test accuracy of three ways to tune on owners' data."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from sklearn_dpbo import DPBayesSearchCV
    from sklearn_dpbo.bo._acquisition import ucb_beta
    from sklearn_dpbo.bo._bo import bayesian_optimisation

    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_rest, y_tr, y_rest = train_test_split(
        X, y, train_size=200, random_state=0, stratify=y
    )
    X_va, X_te, y_va, y_te = train_test_split(
        X_rest, y_rest, train_size=270, random_state=0, stratify=y_rest
    )
    owners = np.arange(len(y_va)) // 5  # 54 owners of 5 records, public ids
    est = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
    # A grid: the same candidate set for every method and seed.
    space = {"logisticregression__C": [float(c) for c in np.logspace(-5, 2, n_cand)]}
    cands = CandidateSet(space)

    def acc(params, Xs, ys):
        m = est.set_params(**params).fit(X_tr, y_tr)
        return float((m.predict(Xs) == ys).mean())

    val = np.array([acc(p, X_va, y_va) for p in cands.params])
    test = np.array([acc(p, X_te, y_te) for p in cands.params])
    rows = {
        "federated-ldp (eps=1 per owner)": [],
        "central DP default (eps=1)": [],
        "non-private GP-UCB": [],
    }
    for seed in range(trials):
        common = dict(n_iter=n_iter, epsilon=1.0, refit=False, random_state=seed)
        fed = DPBayesSearchCV(est, space, method="federated-ldp", **common)
        fed.fit(X_tr, y_tr, X_val=X_va, y_val=y_va, val_groups=owners)
        central = DPBayesSearchCV(est, space, **common)
        central.fit(X_tr, y_tr, X_val=X_va, y_val=y_va)
        trace = bayesian_optimisation(  # non-private: exact validation scores
            lambda idx: [(val[j] - 0.5) / 0.25 for j in idx],
            cands.X,
            n_iter=n_iter,
            beta=lambda t: ucb_beta(t, len(cands), 0.1),
            tie_break=np.random.default_rng(seed).permutation(len(cands)),
            length_scale=0.2,
            noise=0.01,
        )
        picks = (
            fed.best_candidate_index_,
            central.best_candidate_index_,
            int(trace.indices[int(np.argmax(trace.scores))]),
        )
        for name, j in zip(rows, picks):
            rows[name].append((float(val.max() - val[j]), float(test[j])))
    summary = {}
    for name, r in rows.items():
        arr = np.asarray(r)
        summary[name] = {
            "val_regret_mean": float(arr[:, 0].mean()),
            "val_regret_sd": float(arr[:, 0].std(ddof=1)) if len(arr) > 1 else 0.0,
            "test_acc_mean": float(arr[:, 1].mean()),
            "test_acc_sd": float(arr[:, 1].std(ddof=1)) if len(arr) > 1 else 0.0,
        }
    return {
        "n_owners": int(owners.max() + 1),
        "records_per_owner": 5,
        "n_iter": n_iter,
        "n_candidates": len(cands),
        "trials": trials,
        "best_val_acc": float(val.max()),
        "best_test_acc": float(test.max()),
        "methods": summary,
    }


# ---------------------------------------------------------------------------
# Drivers
# ---------------------------------------------------------------------------
def _meta(command: str, T: int, seeds: list[int], jobs: int) -> dict:
    return {
        "command": command,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "horizon": T,
        "seeds": seeds,
        "checkpoints": checkpoints(T),
        "width_grid": list(WIDTH_GRID),
        "practical_width": {a: ALGOS[a].practical_width for a in ALGOS},
        "jobs": jobs,
        "python": platform.python_version(),
        "note": "shared 2-core machine under load: timings are noisy",
    }


def select(T: int, jobs: int, out_path: str) -> dict:
    """The one-off choice of the practical factors (SE, ε = 1, seeds 100–109)."""
    env = "private|se|eps=1.0"
    tasks = []
    for algo in ALGOS:
        for w in WIDTH_GRID:
            tasks.append((algo, None, w))
    for k in SELECT_GROUPS:
        for w in WIDTH_GRID:
            tasks.append(("ldp-moma-gp-ucb", k, w))
    jobs_list = [(a, k, w, s) for a, k, w in tasks for s in SELECT_SEEDS]
    res = Parallel(n_jobs=jobs)(
        delayed(_single_thread)(
            run,
            env,
            a,
            {"width": w} if k is None else {"width": w, "n_groups": k},
            s,
            T,
        )
        for a, k, w, s in jobs_list
    )
    final: dict = {}
    for (a, k, w, _), r in zip(jobs_list, res):
        key = a if k is None else f"{a}|n_groups={k}"
        final.setdefault(key, {}).setdefault(w, []).append(r["curve"][-1])
    table = {
        key: {f"{w:g}": _mean_se(v) for w, v in per.items()}
        for key, per in final.items()
    }
    chosen = {
        key: min(per, key=lambda w: float(np.mean(per[w])))
        for key, per in final.items()
    }
    out = {
        "meta": _meta(
            f"python benchmarks/bench_ldp.py --select --jobs {jobs}",
            T,
            SELECT_SEEDS,
            jobs,
        )
        | {
            "environment": env,
            "rule": "practical factor = argmin of the mean R_T/T over WIDTH_GRID "
            "(TGP, ATA, MoMA at its practical n_groups); GP-UCB keeps c = 1 "
            "(no noise term in its width: no factor carries over across eps)",
        },
        "uniform": _mean_se([uniform_regret(env, s) for s in SELECT_SEEDS]),
        "table": table,
        "argmin": {k: v for k, v in chosen.items()},
    }
    with open(out_path, "w") as fh:
        json.dump(out, fh, indent=1)
    print(f"Selection ({env}, T={T}, seeds {SELECT_SEEDS[0]}–{SELECT_SEEDS[-1]}):")
    print("R_T/T (mean ± s.e.) per width multiplier c")
    print("| c | " + " | ".join(table) + " |")
    print("|---" * (len(table) + 1) + "|")
    for w in WIDTH_GRID:
        cells = ["{:.3f} ± {:.3f}".format(*table[key][f"{w:g}"]) for key in table]
        print(f"| {w:g} | " + " | ".join(cells) + " |")
    print(f"uniform: {out['uniform'][0]:.3f}")
    for key, w in chosen.items():
        algo = key.split("|")[0]
        mark = ""
        if key == algo:
            mark = f" (library: {ALGOS[algo].practical_width:g})"
        print(f"argmin {key}: c = {w:g}{mark}")
    return out


def kappa_widths(kappa: float, T: int = 10_000, eps: float = 1.0) -> list[float]:
    """The five grid widths around the same β as the theory level's default c.

    β is proportional to the level b, so c × b(theory)/b(κ) (at the
    selection environment's ε and T) keeps TGP's default width; the window
    is the five values of WIDTH_GRID nearest it in log scale.
    """
    spec = LaplaceRandomizer((-2.0, 2.0), eps).public_spec()
    ratio = spec.truncation_level(T, 0.1) / spec.truncation_level(T, 0.1, kappa)
    c = TGPUCB.practical_width * ratio
    nearest = min(WIDTH_GRID, key=lambda w: abs(math.log(w / c)))
    return window(nearest, 5)


def select_truncation(T: int, jobs: int, out_path: str) -> dict:
    """The one-off choice of TGP's practical truncation (SE, ε = 1, seeds 100–109).

    (κ, c) jointly: the lowest mean R_T/T over KAPPA_GRID × its five
    widths (:func:`kappa_widths`) and the theory κ at every width of the
    ``--select`` run (its TGP column: same environment, seeds and code
    path, read from ``bench_ldp_select.json``, not rerun). Same rule and
    seeds as ``--select``: none of the main run's seeds is used.
    """
    env = "private|se|eps=1.0"
    jobs_list = [
        (k, w, s) for k in KAPPA_GRID for w in kappa_widths(k, T) for s in SELECT_SEEDS
    ]
    res = Parallel(n_jobs=jobs, verbose=5)(
        delayed(_single_thread)(
            run, env, "ldp-tgp-ucb", {"width": w, "truncation": k}, s, T
        )
        for k, w, s in jobs_list
    )
    final: dict = {}
    cut: dict = {}
    for (k, w, _), r in zip(jobs_list, res):
        final.setdefault(f"{k:g}", {}).setdefault(f"{w:g}", []).append(r["curve"][-1])
        cut.setdefault(f"{k:g}", []).append(r["truncated"])
    table = {k: {w: _mean_se(v) for w, v in per.items()} for k, per in final.items()}
    with open(os.path.join(HERE, "results", "bench_ldp_select.json")) as fh:
        prior = json.load(fh)
    assert prior["meta"]["seeds"] == SELECT_SEEDS and prior["meta"]["horizon"] == T
    table["theory"] = prior["table"]["ldp-tgp-ucb"]
    best = min(
        ((k, w) for k in table for w in table[k]), key=lambda kw: table[kw[0]][kw[1]][0]
    )
    out = {
        "meta": _meta(
            f"python benchmarks/bench_ldp.py --select-truncation --jobs {jobs}",
            T,
            SELECT_SEEDS,
            jobs,
        )
        | {
            "environment": env,
            "kappa_grid": list(KAPPA_GRID),
            "theory_column_from": prior["meta"]["command"]
            + ", "
            + prior["meta"]["date"],
            "rule": "(kappa, c) = argmin of the mean R_T/T over the grid",
        },
        "uniform": _mean_se([uniform_regret(env, s) for s in SELECT_SEEDS]),
        "table": table,
        "per_seed": final,
        "fraction_truncated": {k: float(np.mean(v)) for k, v in cut.items()},
        "argmin": {"kappa": best[0], "width": best[1]},
    }
    with open(out_path, "w") as fh:
        json.dump(out, fh, indent=1)
    print(f"TGP truncation ({env}, T={T}, seeds 100–109), R_T/T mean ± s.e.:")
    widths = sorted({w for per in table.values() for w in per}, key=float, reverse=True)
    print("| c | " + " | ".join(f"κ = {k}" for k in table) + " |")
    print("|---" * (len(table) + 1) + "|")
    for w in widths:
        cells = [_fmt(table[k][w]) if w in table[k] else "" for k in table]
        print(f"| {w} | " + " | ".join(cells) + " |")
    fr = " | ".join(f"{v:.2e}" for v in out["fraction_truncated"].values())
    print("| truncated | " + fr + " |")
    print(f"uniform: {_fmt(out['uniform'])}; argmin: κ = {best[0]}, c = {best[1]}")
    return out


def truncated(T: int, jobs: int) -> dict:
    """Fraction of Laplace reports TGP truncates at the theory level.

    SE, ε ∈ {0.5, 1, 2}, seeds 0–9, ``truncation="theory"`` at the width of
    the former default (c = 0.01): the diagnosis of TGP ≈ GP-UCB.
    """
    cfg = [(e, s) for e in (0.5, 1.0, 2.0) for s in range(10)]
    res = Parallel(n_jobs=jobs)(
        delayed(_single_thread)(
            run,
            f"private|se|eps={e}",
            "ldp-tgp-ucb",
            {"width": 0.01, "truncation": "theory"},
            s,
            T,
        )
        for e, s in cfg
    )
    out = {}
    for (e, _), r in zip(cfg, res):
        out.setdefault(e, []).append(r["truncated"])
    for e, v in out.items():
        level = LaplaceRandomizer((-2.0, 2.0), e).public_spec().truncation_level(T, 0.1)
        n = int(round(sum(v) * T))
        print(f"eps={e}: {n} of {len(v) * T} reports truncated (level {level:.1f})")
    return out


def betas(T: int) -> dict:
    """β_T of every algorithm at its defaults and at the theory constants.

    One trial (SE, Laplace, ε = 1, seed 0): the widths to compare with the
    posterior standard deviation σ ≤ 1 and the rewards' range [−1, 1].
    """
    out = {}
    print(f"beta_T after T={T} rounds (SE, eps=1, B=1, seed 0):")
    for algo in ALGOS:
        for label, kw in (("default", {}), ("theory", THEORY[algo])):
            r = _single_thread(run, "private|se|eps=1.0", algo, kw, 0, T)
            out[f"{algo}|{label}"] = r["beta_T"]
            print(f"  {algo:16s} {label:8s} {r['beta_T']:9.2f}")
    return out


GOAL_SEEDS = list(range(30))
"""Seeds of ``--goals``: 0–29, fixed before its first run (0–9 are the main run's)."""


def goals_check(T: int, jobs: int, out_path: str) -> dict:
    """Issue 24's goals on more seeds: SE, ε ∈ {0.5, 1, 2}, defaults only.

    The three LDP algorithms and GP-UCB at their library defaults (nothing
    re-chosen), seeds :data:`GOAL_SEEDS`, paired: R_T/T of each against
    half of uniform exploration's and against GP-UCB's on the same reports.
    Seeds 0–9 repeat the main run's, and the run checks that they give the
    same per-seed values as ``bench_ldp.json`` when that file is there.
    """
    algos = LDP_ALGOS + ["gp-ucb"]
    eps_list = [0.5, 1.0, 2.0]
    cfg = [(e, a, s) for e in eps_list for a in algos for s in GOAL_SEEDS]
    cfg.sort(key=lambda c: c[1] != "ldp-ata-gp-ucb")  # the slow ones first
    res = Parallel(n_jobs=jobs, verbose=5)(
        delayed(_single_thread)(run, f"private|se|eps={e}", a, {}, s, T)
        for e, a, s in cfg
    )
    final = {(e, a, s): r["curve"][-1] for (e, a, s), r in zip(cfg, res)}
    main_json = os.path.join(HERE, "results", "bench_ldp.json")
    repro = None
    if os.path.exists(main_json):
        with open(main_json) as fh:
            old = json.load(fh)
        if old["meta"]["horizon"] == T:
            repro = max(
                abs(v - final[(e, a, s)])
                for e in eps_list
                for a in algos
                for s, v in zip(
                    old["meta"]["seeds"],
                    old["curves"][f"private|se|eps={e}"][f"{a}|default|laplace"][
                        "final"
                    ],
                )
            )
    rows = []
    for e in eps_list:
        uni = np.array([uniform_regret(f"private|se|eps={e}", s) for s in GOAL_SEEDS])
        gp = np.array([final[(e, "gp-ucb", s)] for s in GOAL_SEEDS])
        for a in LDP_ALGOS:
            d = np.array([final[(e, a, s)] for s in GOAL_SEEDS])
            rows.append(
                {
                    "epsilon": e,
                    "algorithm": a,
                    "default": _mean_se(d),
                    "gp_ucb": _mean_se(gp),
                    "uniform": _mean_se(uni),
                    "half_uniform": 0.5 * float(uni.mean()),
                    "default_minus_half_uniform": _mean_se(d - 0.5 * uni),
                    "default_minus_gp_ucb": _mean_se(d - gp),
                    "below_half_uniform": bool(d.mean() < 0.5 * uni.mean()),
                    "at_or_below_gp_ucb": bool(d.mean() <= gp.mean()),
                    "per_seed": d.tolist(),
                }
            )
        rows[-1]["gp_ucb_per_seed"] = gp.tolist()
    out = {
        "meta": _meta(
            f"python benchmarks/bench_ldp.py --goals --jobs {jobs}", T, GOAL_SEEDS, jobs
        )
        | {"reproduces_main_run_max_abs_diff": repro},
        "goals": rows,
    }
    with open(out_path, "w") as fh:
        json.dump(out, fh, indent=1)
    print(f"Issue 24's goals, SE, T={T}, defaults, seeds 0–{GOAL_SEEDS[-1]} (paired):")
    print(
        "| ε | algorithm | default | GP-UCB | ½ uniform | default − ½ uniform "
        "| default − GP-UCB | < ½ uniform | ≤ GP-UCB |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['epsilon']:g} | {r['algorithm']} | {_fmt(r['default'])} | "
            f"{_fmt(r['gp_ucb'])} | {r['half_uniform']:.3f} | "
            f"{_fmt(r['default_minus_half_uniform'])} | "
            f"{_fmt(r['default_minus_gp_ucb'])} | "
            f"{'yes' if r['below_half_uniform'] else 'no'} | "
            f"{'yes' if r['at_or_below_gp_ucb'] else 'no'} |"
        )
    print(f"\nR_T/T at T={T}, SE, defaults, {len(GOAL_SEEDS)} seeds (mean ± s.e.):")
    print("| | " + " | ".join(f"ε = {e:g}" for e in eps_list) + " |")
    print("|---" * (len(eps_list) + 1) + "|")
    by = {(r["epsilon"], r["algorithm"]): r for r in rows}
    names = {
        "ldp-tgp-ucb": "LDP-TGP-UCB",
        "ldp-ata-gp-ucb": "LDP-ATA-GP-UCB",
        "ldp-moma-gp-ucb": "LDP-MoMA-GP-UCB",
    }
    for a in LDP_ALGOS:
        print(
            f"| {names[a]} | "
            + " | ".join(_fmt(by[(e, a)]["default"]) for e in eps_list)
            + " |"
        )
    first = LDP_ALGOS[0]
    print(
        "| plain GP-UCB on the same reports | "
        + " | ".join(_fmt(by[(e, first)]["gp_ucb"]) for e in eps_list)
        + " |"
    )
    print(
        "| uniform exploration | "
        + " | ".join(_fmt(by[(e, first)]["uniform"]) for e in eps_list)
        + " |"
    )
    if repro is not None:
        print(f"Seeds 0–9 against bench_ldp.json: max |difference| {repro:.2e}")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--select", action="store_true")
    ap.add_argument(
        "--select-truncation",
        action="store_true",
        help="the one-off choice of TGP's truncation kappa and width c",
    )
    ap.add_argument("--out", default=None)
    ap.add_argument(
        "--only",
        default=None,
        help="comma-separated algorithms to rerun; with --merge, the other "
        "rows (same seeds, paired), the speed of the others and the "
        "federated run are taken from that results JSON",
    )
    ap.add_argument("--merge", default=None, help="results JSON to merge into")
    ap.add_argument(
        "--tgp-variant",
        default=None,
        help="'kappa,c': TGP's default rows at truncation kappa and width c "
        "(the grid around c at the same kappa) instead of the library's",
    )
    ap.add_argument(
        "--keep-theory",
        action="store_true",
        help="with --merge: the --only algorithms' theory rows from the JSON "
        "too (only when the change leaves every theory constant as it was)",
    )
    ap.add_argument(
        "--goals",
        action="store_true",
        help="only issue 24's goals: SE, defaults, seeds 0-29 (paired)",
    )
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--trials", type=int, default=None)
    ap.add_argument("--horizon", type=int, default=None)
    ap.add_argument(
        "--replot",
        help="from a results JSON: recompute the summary from its per-seed "
        "values, reprint the tables, redraw the plots",
    )
    ap.add_argument(
        "--betas", action="store_true", help="only print beta_T (one trial each)"
    )
    ap.add_argument(
        "--truncated",
        action="store_true",
        help="only the fraction of reports TGP truncates at the theory level",
    )
    args = ap.parse_args(argv)
    q = args.quick
    if args.replot:
        with open(args.replot) as fh:
            res = json.load(fh)
        # The summary and the goals again from the per-seed values stored
        # in the JSON (same numbers, current summary code), then the plots.
        seeds = res["meta"]["seeds"]
        res["summary"] = {
            env: summarise(env, _finals(res["curves"][env]), seeds)
            for env in res["meta"]["envs"]
        }
        res["goals"] = goals(res["summary"], res["meta"]["epsilons"])
        res["meta"]["resummarised"] = (
            f"python benchmarks/bench_ldp.py --replot {args.replot}, "
            + datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        )
        with open(args.replot, "w") as fh:
            json.dump(res, fh, indent=1)
        print_tables(res)
        folder = os.path.dirname(os.path.abspath(args.replot))
        plot(res, folder, "_quick" if "--quick" in res["meta"]["command"] else "")
        return res
    if args.betas:
        return betas(args.horizon or 2000)
    if args.goals:
        path = args.out or os.path.join(results_dir(q), "bench_ldp_goals.json")
        return goals_check(args.horizon or 10_000, args.jobs, path)
    if args.truncated:
        return truncated(args.horizon or 10_000, args.jobs)
    if args.select_truncation:
        path = args.out or os.path.join(results_dir(q), "bench_ldp_truncation.json")
        return select_truncation(args.horizon or 10_000, args.jobs, path)
    if args.select:
        path = args.out or os.path.join(results_dir(q), "bench_ldp_select.json")
        return select(args.horizon or 10_000, args.jobs, path)
    T = args.horizon or (200 if q else 10_000)
    seeds = list(range(args.trials or (2 if q else 10)))
    eps_list = [1.0] if q else [0.5, 1.0, 2.0]
    kernels = ["se"] if q else ["se", "matern"]
    noises = ["student-t"] if q else ["student-t", "pareto"]
    n_window = 2 if q else 5
    suffix = "_quick" if q else ""
    out_path = args.out or os.path.join(results_dir(q), f"bench_ldp{suffix}.json")
    t_start = time.time()

    envs = [f"private|{k}|eps={e}" for k in kernels for e in eps_list]
    envs += [f"heavy|{k}|{n}" for k in kernels for n in noises]
    tasks = []
    only = list(ALGOS) if args.only is None else args.only.split(",")
    variants = {}
    if args.tgp_variant:  # TGP's default replaced: "kappa,c"
        kappa, c = (float(x) for x in args.tgp_variant.split(","))
        variants["ldp-tgp-ucb"] = {"truncation": kappa, "width": c}
    if any(a not in ALGOS for a in only) or (args.only and not args.merge):
        ap.error("--only takes names from ALGOS and needs --merge")
    old = None
    if args.merge:
        with open(args.merge) as fh:
            old = json.load(fh)
        if (old["meta"]["horizon"], old["meta"]["seeds"]) != (T, seeds):
            ap.error("--merge: the JSON's horizon and seeds differ from this run's")
    for env in envs:
        for algo in only:
            for label, kw in row_configs(algo, n_window, variants.get(algo)):
                if label == "theory" and args.keep_theory and old is not None:
                    continue  # merged from the JSON below
                for s in seeds:
                    tasks.append((env, algo, label, kw, s, T, "laplace"))
    # Randomised response against Laplace: SE, defaults only.
    for e in eps_list:
        for algo in only:
            for s in seeds:
                kw = row_configs(algo, n_window, variants.get(algo))[0][1]
                tasks.append((f"private|se|eps={e}", algo, "default", kw, s, T, "rr"))

    # Identical runs (default = its own grid point; GP-UCB's theory = c=1)
    # are run once; the slow ATA runs first, so none ends up alone at the end.
    def key(task):
        env, algo, _, kw, seed, T_, mech = task
        a = ALGOS[algo](**kw)
        return (env, algo, a.settings(T_), a.truncation_tail(), seed, mech)

    unique = {}
    for task in tasks:
        unique.setdefault(key(task), task)
    todo = sorted(unique.values(), key=lambda t: t[1] != "ldp-ata-gp-ucb")
    done = Parallel(n_jobs=args.jobs, verbose=0 if q else 5)(
        delayed(_single_thread)(run, *t[:2], *t[3:]) for t in todo
    )
    by_key = {key(t): r for t, r in zip(todo, done)}
    results = [by_key[key(t)] for t in tasks]
    rows = collect(tasks, results)
    finals = {
        env: {k: [c[-1] for c in r["curves"]] for k, r in per.items()}
        for env, per in rows.items()
    }
    curves = {
        env: {
            k: {
                "mean": np.mean(r["curves"], axis=0).tolist(),
                "sd": np.std(r["curves"], axis=0, ddof=1).tolist(),
                "final": [c[-1] for c in r["curves"]],
                "width_scale": r["width_scale"],
                "truncated": float(np.mean(r["truncated"])),
            }
            for k, r in per.items()
        }
        for env, per in rows.items()
    }
    if old is not None:  # the rows not rerun, from the merged JSON (paired)
        for env in envs:
            for k, r in old["curves"][env].items():
                algo, label, _ = k.split("|")
                if algo not in only or (label == "theory" and args.keep_theory):
                    curves[env][k] = r
        finals = {env: _finals(curves[env]) for env in envs}
    summary = {env: summarise(env, finals[env], seeds) for env in envs}
    uniform = {env: [uniform_regret(env, s) for s in seeds] for env in envs}

    # Speed: one sequential trial per algorithm at its defaults, and ATA and
    # MoMA at the defaults before issue 24 (theory width and q; k = 9).
    speed = {} if old is None else dict(old["speed"])
    previous = {
        "ldp-ata-gp-ucb (before: theory width and q)": (
            "ldp-ata-gp-ucb",
            {"width": "theory", "q": "theory"},
        ),
        "ldp-moma-gp-ucb (before: theory width and q, k=9)": (
            "ldp-moma-gp-ucb",
            {"width": "theory", "q": "theory", "n_groups": 9},
        ),
    }
    for name, (algo, kw) in [(a, (a, {})) for a in ALGOS] + list(previous.items()):
        if algo not in only:
            continue
        res = _single_thread(run, "private|se|eps=1.0", algo, kw, 0, T)
        cum = res["cpu_time"]
        per_round, prev_t, prev_c = [], 0, 0.0
        for t, c in zip(checkpoints(T), cum):
            per_round.append((c - prev_c) / (t - prev_t) * 1e3)
            prev_t, prev_c = t, c
        speed[name] = {"total_s": cum[-1], "ms_per_round_window": per_round}
    if old is None:
        fed = run_federated(
            trials=1 if q else 10, n_iter=4 if q else 40, n_cand=4 if q else 64
        )
    else:  # the federated mode's learner is GP-UCB: merged, not rerun
        fed = old["federated"]
    command = "python benchmarks/bench_ldp.py" + (" --quick" if q else "")
    if args.jobs != 1:
        command += f" --jobs {args.jobs}"
    if old is not None:
        command += f" --only {args.only} --merge {args.merge}"
        command += " --keep-theory" if args.keep_theory else ""
    if args.tgp_variant:
        command += f" --tgp-variant {args.tgp_variant}"
    if args.out:
        command += f" --out {args.out}"
    result = {
        "meta": _meta(command, T, seeds, args.jobs)
        | {"epsilons": eps_list, "envs": envs, "wall_s": None}
        | ({} if old is None else {"merged_from": old["meta"]})
        | ({"variants": variants} if variants else {}),
        "summary": summary,
        "curves": curves,
        "uniform": uniform,
        "goals": goals(summary, eps_list),
        "speed": speed,
        "federated": fed,
    }
    result["meta"]["wall_s"] = time.time() - t_start
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w") as fh:
        json.dump(result, fh, indent=1)
    print_tables(result)
    if not variants:  # a variant's plots would overwrite the library's
        plot(result, os.path.dirname(os.path.abspath(out_path)), suffix)
    return result


def goals(summary: dict, eps_list) -> list[dict]:
    """Issue 24's goals on the SE environment, per ε, for the three LDP algorithms."""
    out = []
    for e in eps_list:
        s = summary.get(f"private|se|eps={e}")
        if s is None:
            continue
        uni = s["uniform"][0]
        gp = s["algorithms"]["gp-ucb"]["default"][0]
        for algo in LDP_ALGOS:
            r = s["algorithms"][algo]
            d = r["default"][0]
            out.append(
                {
                    "epsilon": e,
                    "algorithm": algo,
                    "default": d,
                    "half_uniform": 0.5 * uni,
                    "gp_ucb": gp,
                    "below_half_uniform": d < 0.5 * uni,
                    "at_or_below_gp_ucb": d <= gp,
                    # Paired over seeds (mean, s.e.).
                    "default_minus_half_uniform": r["default_minus_half_uniform"],
                    "default_minus_gp_ucb": r["default_minus_gp_ucb"],
                }
            )
    return out


def _fmt(ms) -> str:
    return f"{ms[0]:.3f} ± {ms[1]:.3f}"


def print_tables(result):
    meta = result["meta"]
    T, n = meta["horizon"], len(meta["seeds"])
    print(
        f"Time-average regret R_T/T at T={T} (mean ± s.e. over {n} seeds, "
        "paired); command: " + meta["command"] + f", {meta['date']}"
    )
    for env, s in result["summary"].items():
        print(f"\n{env} (uniform exploration: {_fmt(s['uniform'])})")
        print("| algorithm | default | theory | best on grid (c) | default − GP-UCB |")
        print("|---|---|---|---|---|")
        edge = False
        for algo, r in s["algorithms"].items():
            b = r["best_on_grid"]
            diff = r.get("default_minus_gp_ucb")
            mark = "†" if b.get("at_window_edge") else ""
            edge = edge or bool(mark)
            print(
                f"| {algo} | {_fmt(r['default'])} | {_fmt(r['theory'])} | "
                f"{_fmt(b['mean_se'])} ({b['width']}{mark}) | "
                + (_fmt(diff) if diff else "—")
                + " |"
            )
        if edge:
            print("† at the edge of the grid window run: a better c may lie outside")
    rr = [
        (env, k)
        for env, per in result["curves"].items()
        for k in per
        if k.endswith("|rr")
    ]
    if rr:
        print("\nRandomised response vs Laplace (SE, defaults), R_T/T:")
        for env, k in rr:
            lap = result["curves"][env][k.replace("|rr", "|laplace")]["final"]
            rrf = result["curves"][env][k]["final"]
            print(
                f"  {env:22s} {k.split('|')[0]:18s} Laplace {np.mean(lap):.3f}  "
                f"RR {np.mean(rrf):.3f}  paired RR − Laplace "
                + _fmt(_mean_se(np.subtract(rrf, lap)))
            )
    print("\nGoals (issue 24), SE environment, defaults:")
    for g in result["goals"]:
        paired = ""
        if "default_minus_gp_ucb" in g:
            paired = (
                " (paired: − half uniform "
                + _fmt(g["default_minus_half_uniform"])
                + ", − GP-UCB "
                + _fmt(g["default_minus_gp_ucb"])
                + ")"
            )
        print(
            f"  eps={g['epsilon']:<4} {g['algorithm']:16s} {g['default']:.3f}: "
            f"< half uniform ({g['half_uniform']:.3f}) {g['below_half_uniform']}; "
            f"<= GP-UCB ({g['gp_ucb']:.3f}) {g['at_or_below_gp_ucb']}" + paired
        )
    print("Speed (process time, one core, defaults, SE, eps=1):")
    for algo, sp in result["speed"].items():
        print(
            f"  {algo:50s} total {sp['total_s']:.2f} s for T={T}; ms/round in the "
            f"last window {sp['ms_per_round_window'][-1]:.3f}"
        )
    print("Federated (breast cancer):")
    for name, st in result["federated"]["methods"].items():
        print(
            f"  {name:34s} val regret {st['val_regret_mean']:.4f} ± "
            f"{st['val_regret_sd']:.4f}, test acc {st['test_acc_mean']:.4f} ± "
            f"{st['test_acc_sd']:.4f}"
        )


def plot(result, folder, suffix):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return
    cps = result["meta"]["checkpoints"]
    envs = result["meta"]["envs"]
    dpi = 40 if suffix else 110  # --quick: the same plots, fewer pixels

    def curves_panel(ax, env):
        per = result["curves"][env]
        for algo in ALGOS:
            for label, ls, lw in (("default", "-", 1.5), ("theory", ":", 1.0)):
                st = per.get(f"{algo}|{label}|laplace")
                if st is None:
                    continue
                m, sd = np.asarray(st["mean"]), np.asarray(st["sd"])
                ax.plot(cps, m, ls, lw=lw, color=COLORS[algo], label=f"{algo} {label}")
                if label == "default":
                    ax.fill_between(cps, m - sd, m + sd, color=COLORS[algo], alpha=0.07)
        ax.axhline(np.mean(result["uniform"][env]), color="k", ls="--", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("t")
        ax.set_ylabel("R_t / t")
        ax.set_title(env.split("|", 1)[1].replace("|", ", "), fontsize=9)

    private = [e for e in envs if e.startswith("private")]
    kernels = sorted({e.split("|")[1] for e in private})
    epss = sorted({e.split("|")[2] for e in private})
    fig, axes = plt.subplots(
        len(kernels),
        len(epss),
        figsize=(4 * len(epss), 3.2 * len(kernels)),
        squeeze=False,
    )
    for r, k in enumerate(kernels):
        for c, e in enumerate(epss):
            curves_panel(axes[r][c], f"private|{k}|{e}")
    axes[0][0].legend(fontsize=5)
    fig.suptitle("LDP: defaults (solid), theory (dotted), uniform (dashed)", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, f"bench_ldp_regret{suffix}.png"), dpi=dpi)
    plt.close(fig)

    heavy = [e for e in envs if e.startswith("heavy")]
    fig, axes = plt.subplots(
        1, len(heavy), figsize=(4 * len(heavy), 3.2), squeeze=False
    )
    for c, env in enumerate(heavy):
        curves_panel(axes[0][c], env)
    axes[0][0].legend(fontsize=5)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, f"bench_ldp_heavy{suffix}.png"), dpi=dpi)
    plt.close(fig)

    ncol = min(len(envs), 5)
    nrow = math.ceil(len(envs) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.4 * ncol, 3 * nrow), squeeze=False)
    for i, env in enumerate(envs):
        ax = axes[i // ncol][i % ncol]
        s = result["summary"][env]
        for algo, r in s["algorithms"].items():
            ws = sorted(r["grid"], key=lambda k: float(k[2:]))
            x = [float(w[2:]) for w in ws]
            ax.errorbar(
                x,
                [r["grid"][w][0] for w in ws],
                yerr=[r["grid"][w][1] for w in ws],
                color=COLORS[algo],
                marker=".",
                label=algo,
            )
            c = result["meta"]["practical_width"][algo]
            ax.plot([c], [r["default"][0]], "*", color=COLORS[algo], ms=9)
            ax.plot([1.0], [r["theory"][0]], "x", color=COLORS[algo])
        ax.axhline(s["uniform"][0], color="k", ls="--", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("c (× theory width)")
        ax.set_title(env.split("|", 1)[1].replace("|", ", "), fontsize=9)
    for ax in axes.flat[len(envs) :]:
        ax.set_visible(False)
    axes[0][0].set_ylabel("R_T / T")
    axes[0][0].legend(fontsize=5)
    fig.suptitle(
        "R_T/T against the width: default (star), theory (x at c = 1)", fontsize=9
    )
    fig.tight_layout()
    fig.savefig(os.path.join(folder, f"bench_ldp_widths{suffix}.png"), dpi=dpi)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(5, 3.5))
    for name, sp in result["speed"].items():
        algo = name.split(" ")[0]
        ax.plot(
            cps,
            sp["ms_per_round_window"],
            marker="o" if algo == name else "x",
            ls="-" if algo == name else ":",
            color=COLORS[algo],
            label=name,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("t")
    ax.set_ylabel("process ms per round (window ending at t)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, f"bench_ldp_time{suffix}.png"), dpi=dpi)
    plt.close(fig)


if __name__ == "__main__":
    main()

"""Local-DP Bayesian optimisation: regret, speed and the federated mode.

Environments of the base paper (Chowdhury & Gopalan 2019, spec
``LDP_BO.md`` §7 [B]): 100 evenly spaced points of [0, 1];
f = Σ_{i=1}^{100} a_i k(·, x_i) with support points drawn from the grid,
SE or Matérn-5/2 kernel with ℓ = 0.2, rescaled so that max |f| = 1 (B = 1);
a new f per trial.

- **private** (LDP): bounded noise η ~ U[−1, 1] (R = 1), the owner clips
  y = f + η into [−2, 2] and reports through the library's randomiser
  (:class:`LaplaceRandomizer`, scale 4/ε; or :class:`RandomizedResponse`),
  ε ∈ {0.5, 1, 2}; learners driven through :class:`LDPBayesianOptimizer`
  (ask_index / tell).
- **heavy-tailed, non-private**: Student-t noise (3 d.o.f., α = 1,
  v = B² + 3) and Pareto rewards (shape 2, scale f(x)/2, a_i ~ U[0, 1],
  α = 0.9, v = B^{1+α}/(2^α(1 − α))), the learners' non-private constants.
- **speed**: process time per round against t, one trial per algorithm
  (SE, ε = 1), BLAS limited to one thread.
- **federated**: ``load_breast_cancer``; 200 public training rows, the
  validation rows split into owners of 5 records (public ids), a held-out
  test part; ``DPBayesSearchCV(method="federated-ldp", epsilon=1)``
  against non-private GP-UCB on the same validation set and the central-DP
  default ``DPBayesSearchCV()`` (ε = 1).

Metric: time-average regret R_t/t = (1/t) Σ_{s≤t} (f* − f(x_s)), mean ± s.d.
over trials, at checkpoints t ≤ T.

Usage (repository root)::

    python benchmarks/bench_ldp.py            # full: T = 10^4, 10 trials
    python benchmarks/bench_ldp.py --quick    # seconds, for CI

Writes ``benchmarks/results/bench_ldp.json`` and PNG plots
(``bench_ldp_regret.png``, ``bench_ldp_heavy.png``, ``bench_ldp_time.png``);
``_quick`` suffix with ``--quick``. Timings on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
import warnings
from datetime import datetime, timezone

import _checkout  # noqa: F401  (the checkout's sklearn_dpbo, not an installed copy)
import numpy as np
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


def _summary(inst_regret: np.ndarray, cps: list[int]) -> list[float]:
    cum = np.cumsum(inst_regret)
    return [float(cum[t - 1] / t) for t in cps]


def run_private(kernel, eps, algo, mechanism, seed, T):
    """One LDP trial through the public API; returns R_t/t and timings."""
    rng = np.random.default_rng([seed, 1])
    f = rkhs_function(kernel, rng)
    cls = LaplaceRandomizer if mechanism == "laplace" else RandomizedResponse
    with warnings.catch_warnings():  # benchmark-only seeded noise
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        client = cls((-2.0, 2.0), eps, noise_random_state=seed)
    opt = LDPBayesianOptimizer(
        CandidateSet({"x": list(GRID)}),
        client,
        T,
        algorithm=ALGOS[algo](),
        kernel=KERNEL_OBJECTS[kernel],
        rkhs_norm=1.0,
        random_state=seed,
    )
    inst = np.empty(T)
    cps = checkpoints(T)
    times, start = [], time.process_time()
    for t in range(T):
        j = opt.ask_index()
        y = f[j] + rng.uniform(-1.0, 1.0)  # the owner's raw reward
        opt.tell(j, client.privatize(y))
        inst[t] = f.max() - f[j]
        if t + 1 in cps:
            times.append(time.process_time() - start)
    return {"regret": _summary(inst, cps), "cpu_time": times}


def run_width(algo, scale, seed, T, eps=1.0):
    """One SE / Laplace trial with β_t multiplied by ``scale`` (width study)."""
    rng = np.random.default_rng([seed, 1])
    f = rkhs_function("se", rng)
    with warnings.catch_warnings():  # benchmark-only seeded noise
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        client = LaplaceRandomizer((-2.0, 2.0), eps, noise_random_state=seed)
    opt = LDPBayesianOptimizer(
        CandidateSet({"x": list(GRID)}),
        client,
        T,
        algorithm=ALGOS[algo](beta_scale=scale),
        kernel=KERNEL_OBJECTS["se"],
        rkhs_norm=1.0,
        random_state=seed,
    )
    inst = np.empty(T)
    for t in range(T):
        j = opt.ask_index()
        opt.tell(j, client.privatize(f[j] + rng.uniform(-1.0, 1.0)))
        inst[t] = f.max() - f[j]
    return {"regret": _summary(inst, checkpoints(T))}


def width_study(T: int, trials: int, jobs: int, out_path: str):
    """R_T/T when the confidence widths are scaled down (β_t × scale).

    Not part of any guarantee (the scaled widths void the regret bounds;
    privacy is unaffected, it is post-processing): it shows whether the
    ordering of the three LDP algorithms appears once they stop exploring
    uniformly.
    """
    scales = [1.0, 0.1, 0.01, 0.001]
    tasks = [
        (algo, sc, seed)
        for algo in ALGOS
        for sc in (scales if algo != "gp-ucb" else [1.0])
        for seed in range(trials)
    ]
    res = Parallel(n_jobs=jobs)(
        delayed(_single_thread)(run_width, a, sc, seed, T) for a, sc, seed in tasks
    )
    rows = {}
    for (a, sc, _), r in zip(tasks, res):
        rows.setdefault(f"{a}|beta_scale={sc}", []).append(r["regret"])
    out = {
        "meta": {
            "command": f"python benchmarks/bench_ldp.py --width-study "
            f"--horizon {T} --trials {trials}",
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "environment": "SE, l=0.2, 100 points, U[-1,1] noise, Laplace eps=1",
            "checkpoints": checkpoints(T),
        },
        "rows": {k: _stats(v) for k, v in rows.items()},
    }
    with open(out_path, "w") as fh:
        json.dump(out, fh, indent=1)
    print(f"Width study (SE, eps=1, T={T}, {trials} trials): R_T/T")
    for k, st in sorted(out["rows"].items()):
        print(f"  {k:36s} {st['mean'][-1]:.4f} ± {st['sd'][-1]:.4f}")
    return out


def run_heavy(kernel, noise, algo, seed, T):
    """One non-private heavy-tailed trial (learners driven directly)."""
    rng = np.random.default_rng([seed, 2])
    pareto = noise == "pareto"
    f = rkhs_function(kernel, rng, positive=pareto)
    B = 1.0
    if pareto:
        alpha, v = 0.9, B**1.9 / (2**0.9 * 0.1)
    else:
        alpha, v = 1.0, B**2 + 3.0
    K = kernel_matrix(GRID[:, None], GRID[:, None], KERNELS[kernel], 0.2)
    problem = LDPProblem(
        K=K, rkhs_norm=B, moment=v, truncation_level=None, horizon=T, alpha=alpha
    )
    learner = ALGOS[algo]().start(problem, np.random.default_rng([seed, 3]))
    inst = np.empty(T)
    for t in range(T):
        j = learner.propose()
        if pareto:
            y = (rng.pareto(2.0) + 1.0) * f[j] / 2.0  # Pareto(2, f/2), mean f
        else:
            y = f[j] + rng.standard_t(3)
        learner.update(j, y)
        inst[t] = f.max() - f[j]
    return {"regret": _summary(inst, checkpoints(T))}


def _single_thread(fn, *args):
    with threadpool_limits(limits=1):
        return fn(*args)


def _stats(rows):
    arr = np.asarray(rows)
    return {"mean": arr.mean(axis=0).tolist(), "sd": arr.std(axis=0, ddof=1).tolist()}


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
            fed.best_index_,
            central.best_index_,
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
# Driver
# ---------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--trials", type=int, default=None)
    ap.add_argument("--horizon", type=int, default=None)
    ap.add_argument("--replot", help="redraw the plots from a results JSON")
    ap.add_argument(
        "--width-study",
        action="store_true",
        help="only the beta_scale study (SE, eps=1; default T=2000, 10 trials)",
    )
    args = ap.parse_args(argv)
    q = args.quick
    if args.replot:
        with open(args.replot) as fh:
            res = json.load(fh)
        folder = os.path.dirname(os.path.abspath(args.replot))
        return plot(
            res, folder, "_quick" if "--quick" in res["meta"]["command"] else ""
        )
    if args.width_study:
        path = args.out or os.path.join(HERE, "results", "bench_ldp_widths.json")
        return width_study(args.horizon or 2000, args.trials or 10, args.jobs, path)
    T = args.horizon or (300 if q else 10_000)
    trials = args.trials or (2 if q else 10)
    eps_list = [1.0] if q else [0.5, 1.0, 2.0]
    kernels = ["se"] if q else ["se", "matern"]
    noises = ["student-t"] if q else ["student-t", "pareto"]
    suffix = "_quick" if q else ""
    out_path = args.out or os.path.join(HERE, "results", f"bench_ldp{suffix}.json")
    t_start = time.time()

    # Private runs: Laplace for every algorithm; randomised response on the
    # SE environment for all but ATA (the slowest), to compare the two
    # randomisers (CPU budget of a shared machine).
    tasks = []
    for kernel in kernels:
        for eps in eps_list:
            for algo in ALGOS:
                rr = kernel == "se" and algo != "ldp-ata-gp-ucb"
                mechs = ["laplace", "rr"] if rr else ["laplace"]
                for mech in mechs:
                    for seed in range(trials):
                        tasks.append(("private", (kernel, eps, algo, mech, seed, T)))
    for kernel in kernels:
        for noise in noises:
            for algo in ALGOS:
                for seed in range(trials):
                    tasks.append(("heavy", (kernel, noise, algo, seed, T)))
    fns = {"private": run_private, "heavy": run_heavy}
    results = Parallel(n_jobs=args.jobs, verbose=0)(
        delayed(_single_thread)(fns[kind], *a) for kind, a in tasks
    )
    private, heavy = {}, {}
    for (kind, a), res in zip(tasks, results):
        if kind == "private":
            key = f"{a[0]}|eps={a[1]}|{a[2]}|{a[3]}"
            private.setdefault(key, []).append(res["regret"])
        else:
            key = f"{a[0]}|{a[1]}|{a[2]}"
            heavy.setdefault(key, []).append(res["regret"])
    private = {k: _stats(v) for k, v in private.items()}
    heavy = {k: _stats(v) for k, v in heavy.items()}

    # Speed: one sequential trial per algorithm, process time per round.
    speed = {}
    for algo in ALGOS:
        res = _single_thread(run_private, "se", 1.0, algo, "laplace", 0, T)
        cum = res["cpu_time"]
        cps = checkpoints(T)
        per_round = []
        prev_t, prev_c = 0, 0.0
        for t, c in zip(cps, cum):
            per_round.append((c - prev_c) / (t - prev_t) * 1e3)
            prev_t, prev_c = t, c
        speed[algo] = {"total_s": cum[-1], "ms_per_round_window": per_round}
    fed = run_federated(
        trials=2 if q else 10, n_iter=20 if q else 40, n_cand=16 if q else 64
    )

    result = {
        "meta": {
            "command": "python benchmarks/bench_ldp.py" + (" --quick" if q else ""),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "horizon": T,
            "trials": trials,
            "checkpoints": checkpoints(T),
            "epsilons": eps_list,
            "jobs": args.jobs,
            "python": platform.python_version(),
            "wall_s": None,
            "note": "shared 2-core machine under load: timings are noisy",
        },
        "private": private,
        "heavy": heavy,
        "speed": speed,
        "federated": fed,
    }
    result["meta"]["wall_s"] = time.time() - t_start
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w") as fh:
        json.dump(result, fh, indent=1)
    print_tables(result)
    plot(result, os.path.dirname(os.path.abspath(out_path)), suffix)
    return result


def print_tables(result):
    T = result["meta"]["horizon"]
    print(
        f"Time-average regret R_T/T at T={T} (mean ± s.d., "
        f"{result['meta']['trials']} trials)"
    )
    for key, st in sorted(result["private"].items()):
        print(f"  private {key:48s} {st['mean'][-1]:.4f} ± {st['sd'][-1]:.4f}")
    for key, st in sorted(result["heavy"].items()):
        print(f"  heavy   {key:48s} {st['mean'][-1]:.4f} ± {st['sd'][-1]:.4f}")
    print("Speed (process time, one core):")
    for algo, sp in result["speed"].items():
        print(
            f"  {algo:18s} total {sp['total_s']:.2f} s for T={T}; ms/round in the "
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
    kernels = sorted({k.split("|")[0] for k in result["private"]})
    epss = result["meta"]["epsilons"]
    fig, axes = plt.subplots(
        len(kernels),
        len(epss),
        figsize=(4 * len(epss), 3.2 * len(kernels)),
        squeeze=False,
    )
    for r, kernel in enumerate(kernels):
        for c, eps in enumerate(epss):
            ax = axes[r][c]
            for key, st in sorted(result["private"].items()):
                k, e, algo, mech = key.split("|")
                if k != kernel or e != f"eps={eps}":
                    continue
                m, sd = np.asarray(st["mean"]), np.asarray(st["sd"])
                ls = "-" if mech == "laplace" else "--"
                color = COLORS[algo]
                ax.plot(cps, m, ls, color=color, label=f"{algo} ({mech})")
                ax.fill_between(cps, m - sd, m + sd, color=color, alpha=0.07)
            ax.set_xscale("log")
            ax.set_title(f"{kernel}, LDP eps={eps}")
            ax.set_xlabel("t")
            ax.set_ylabel("R_t / t")
    for ax in fig.axes:  # every panel: the SE ones also hold the RR curves
        ax.legend(fontsize=5)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, f"bench_ldp_regret{suffix}.png"), dpi=110)
    plt.close(fig)

    keys = sorted({"|".join(k.split("|")[:2]) for k in result["heavy"]})
    fig, axes = plt.subplots(1, len(keys), figsize=(4 * len(keys), 3.2), squeeze=False)
    for c, env in enumerate(keys):
        ax = axes[0][c]
        for key, st in sorted(result["heavy"].items()):
            if not key.startswith(env + "|"):
                continue
            m, sd = np.asarray(st["mean"]), np.asarray(st["sd"])
            algo = key.split("|")[2]
            ax.plot(cps, m, color=COLORS[algo], label=algo)
            ax.fill_between(cps, m - sd, m + sd, color=COLORS[algo], alpha=0.07)
        ax.set_xscale("log")
        ax.set_title(f"non-private {env}")
        ax.set_xlabel("t")
    axes[0][0].set_ylabel("R_t / t")
    axes[0][0].legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, f"bench_ldp_heavy{suffix}.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(5, 3.5))
    for algo, sp in result["speed"].items():
        ax.plot(
            cps, sp["ms_per_round_window"], marker="o", color=COLORS[algo], label=algo
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("t")
    ax.set_ylabel("process ms per round (window ending at t)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(folder, f"bench_ldp_time{suffix}.png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()

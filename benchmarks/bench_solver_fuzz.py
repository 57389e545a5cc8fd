"""Fuzz of the DP learners' Newton solver: does it reach its certified tolerance?

The privacy of ``DPLogisticRegression`` needs the solver to reach its
gradient tolerance (``dp_learners._objective``); a miss raises
``SolverError``, and whether it happens could depend on the rows. This
script runs objective perturbation's solver exactly as the learner does
(``objective_plan``'s conditioning floor, relative tolerance, at least 200
iterations) over a grid of public settings × adversarial data sets, for
several values of the conditioning cap κ_max, and prints the misses and
the iterations needed.

    PYTHONPATH=. python benchmarks/bench_solver_fuzz.py          # κ_max 1e5 … 1e8
    PYTHONPATH=. python benchmarks/bench_solver_fuzz.py --quick  # a corner
    PYTHONPATH=. python benchmarks/bench_solver_fuzz.py --huber 0.5 --kappa 1e5
        # DPLinearSVC's Huber hinge (h = 0.5) instead of the logistic loss

Writes ``benchmarks/results/bench_solver_fuzz.json``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from unittest import mock

import _checkout  # noqa: F401  (this checkout's sklearn_dpbo, before any import)
import numpy as np
from _results import results_dir

import sklearn_dpbo.dp_learners._objective as ob
from sklearn_dpbo.dp_learners import DPLinearRegression, DPLogisticRegression
from sklearn_dpbo.dp_learners._base import (
    SolverError,
    augmented_norm,
    clip_rows,
    sample_gamma_norm_noise,
    solver_iterations,
)

GRID = dict(
    n=[1, 2, 3, 5, 20, 200, 3000],
    d=[1, 3, 30],
    C=[1e-8, 1e-4, 1.0, 1e4, 1e8, 1e15],
    epsilon=[1e-4, 1e-3, 0.1, 1.0, 10.0, 80.0, 1000.0],
    data_norm=[0.01, 1.0, 100.0],
)
QUICK = dict(
    n=[3, 200], d=[1, 30], C=[1.0, 1e15], epsilon=[1e-3, 80.0], data_norm=[1.0]
)


MISS_KEYS = ("n", "d", "C", "epsilon", "data_norm", "data", "kappa")


def datasets(n, d, rng):
    X = rng.normal(size=(n, d))
    y = rng.integers(0, 2, n)
    yield "random", X, y
    yield "separable", X, (X[:, 0] > 0).astype(int)
    yield "one label", X, np.ones(n, int)
    yield "duplicates x1e6", np.repeat(X[:1], n, 0) * 1e6, y
    yield "zero rows", np.zeros((n, d)), y
    yield "rank one", np.outer(rng.normal(size=n), rng.normal(size=d)), y


def run(grid, kappa_max, seed=0, loss=ob.LOGISTIC):
    rng = np.random.default_rng(seed)
    c = loss.curvature_bound
    iters, misses = [], []
    with mock.patch.object(ob, "SOLVER_MAX_CONDITION", kappa_max):
        for n, d, C, eps, dn in itertools.product(*grid.values()):
            R = augmented_norm(dn, True)
            plan = ob.objective_plan(n, C, R, eps, dim=d + 1, curvature=c)
            mu = plan.strong_convexity
            for name, X, y in datasets(n, d, rng):
                Xc = clip_rows(X, dn, intercept=True) / R
                s = np.where(y == 1, 1.0, -1.0)
                b = sample_gamma_norm_noise(d + 1, plan.noise_scale, rng)
                stats = {}
                with np.errstate(all="ignore"):
                    v = ob.newton(
                        Xc,
                        s,
                        mu,
                        b / n,
                        solver_iterations(1),
                        tol=plan.gradient_bound / 2,
                        stats=stats,
                        loss=loss,
                    )
                if v is None:
                    kappa = (c + mu) / mu
                    misses.append(dict(zip(MISS_KEYS, (n, d, C, eps, dn, name, kappa))))
                else:
                    iters.append(stats["iterations"])
    return dict(
        kappa_max=kappa_max,
        fits=len(iters) + len(misses),
        misses=len(misses),
        max_iterations=int(max(iters)) if iters else None,
        p99_iterations=float(np.percentile(iters, 99)) if iters else None,
        examples=misses[:10],
    )


def run_output(grid, seed=0):
    """Output-perturbation logistic regression and ridge through their ``fit``
    (their solvers do not depend on ε): fits and ``SolverError`` misses."""
    rng = np.random.default_rng(seed)
    fits, misses = 0, []
    keys = (grid["n"], grid["d"], grid["C"], grid["data_norm"])
    for n, d, C, dn in itertools.product(*keys):
        for name, X, y in datasets(n, d, rng):
            learners = (
                (DPLogisticRegression(mechanism="output", C=C, data_norm=dn), y),
                (DPLinearRegression(alpha=1 / (C * n), data_norm=dn), 2.0 * y - 1),
            )
            for est, target in learners:
                fits += 1
                try:
                    est.fit(X, target)
                except SolverError:
                    misses.append(dict(zip(MISS_KEYS, (n, d, C, 1.0, dn, name))))
    return dict(fits=fits, misses=len(misses), examples=misses[:10])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--kappa", type=float, nargs="+", default=[1e5, 1e6, 1e7, 1e8])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--huber", type=float, default=None, help="smoothing h")
    args = ap.parse_args(argv)
    grid = QUICK if args.quick else GRID
    loss = ob.LOGISTIC if args.huber is None else ob.Huber(args.huber)
    rows, t0 = [], time.perf_counter()
    print("| κ_max | fits | misses | max iterations | 99th pct |")
    print("|---:|---:|---:|---:|---:|")
    for k in args.kappa:
        r = run(grid, k, loss=loss)
        rows.append(r)
        print(
            f"| {k:.0e} | {r['fits']} | {r['misses']} | {r['max_iterations']} "
            f"| {r['p99_iterations']:.0f} |"
        )
    if args.huber is not None:  # objective perturbation only
        path = args.out or results_dir(args.quick) / "bench_solver_fuzz_huber.json"
        out = dict(
            command="python benchmarks/bench_solver_fuzz.py "
            + " ".join(sys.argv[1:] if argv is None else argv),
            date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            grid=grid,
            huber_h=args.huber,
            results=rows,
            seconds=time.perf_counter() - t0,
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(out, indent=1))
        return out
    output = run_output(grid)
    print(
        f"output perturbation and ridge (κ_max 1e5): {output['fits']} fits, "
        f"{output['misses']} misses"
    )
    out = dict(
        command="python benchmarks/bench_solver_fuzz.py"
        + (" --quick" if args.quick else ""),
        date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        grid=grid,
        results=rows,
        output_and_ridge=output,
        seconds=time.perf_counter() - t0,
    )
    path = args.out or results_dir(args.quick) / "bench_solver_fuzz.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()

"""Paired differences of two ``bench_utility.py`` rows over the seeds of several runs.

A run of ``bench_utility.py --first-seed K`` adds seeds to an earlier run of
the same command; this pools them. For each dataset, per seed, the
difference between two methods (``--method`` minus ``--baseline``) in
validation regret and in test accuracy, from the released candidate indices
and the per-candidate table (``--cache-dir`` of the runs), averaged over the
ε both methods have; then mean ± s.e. over all seeds, in points: the
seeds of the runs pooled into one list of rows, then
``bench_utility.racing_paired``, the paired differences of a single run. A
seed present in two runs must give the same indices in both (checked).

Usage (repository root)::

    python benchmarks/paired_seeds.py RUN1.json RUN2.json [...] \\
        --method "private-selection budget=auto racing=0.5" \\
        --baseline "private-selection racing=0.5" --cache-dir /tmp/hgbcache
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_utility as bu  # noqa: E402


def pooled_rows(runs, method: str, baseline: str) -> list[dict]:
    """The two methods' rows of all runs, one row per (dataset, method, ε),
    on the seeds both methods have there (a seed in two runs must have
    released the same index in both: checked)."""
    indices: dict = {}
    for run in runs:
        for r in run["rows"]:
            if r["method"] not in (method, baseline) or "indices" not in r:
                continue
            seen = indices.setdefault((r["dataset"], r["method"], r["epsilon"]), {})
            for seed, index in zip(r["seeds"], r["indices"]):
                if seen.setdefault(seed, index) != index:
                    raise AssertionError(f"{r['dataset']} {r['method']} seed {seed}")
    rows = []
    for (name, label, eps), seen in indices.items():
        other = indices.get((name, baseline if label == method else method, eps), {})
        seeds = sorted(set(seen) & set(other))
        rows.append(
            {
                "dataset": name,
                "method": label,
                "epsilon": eps,
                "seeds": seeds,
                "indices": [seen[s] for s in seeds],
            }
        )
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--method", required=True)
    ap.add_argument("--baseline", required=True)
    ap.add_argument("--cache-dir", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    runs = [json.loads(p.read_text()) for p in args.runs]
    rows = pooled_rows(runs, args.method, args.baseline)
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    tables = {name: bu.precompute(name, 1, args.cache_dir) for name in datasets}
    configs = [{"label": r["method"], "epsilon": r["epsilon"]} for r in rows]
    paired = bu.racing_paired(rows, tables, configs, baseline=args.baseline)
    out = []
    print(f"{args.method} − {args.baseline}, points, mean ± s.e. over seeds")
    print("| task | seeds | Δ regret | Δ test accuracy |")
    print("|---|---:|---:|---:|")
    for p in paired:
        if p["method"] != args.method or p["epsilon"] is not None:
            continue  # the per-ε rows; the pooled row averages over ε per seed
        seeds = next(r["seeds"] for r in rows if r["dataset"] == p["dataset"])
        res = {
            "dataset": p["dataset"],
            "seeds": seeds,
            **{
                k: {m: 100 * v for m, v in p[k].items()}
                for k in ("regret", "test_accuracy")
            },
        }
        out.append(res)
        g, t = res["regret"], res["test_accuracy"]
        print(
            f"| {p['dataset']} | {len(seeds)} | {g['mean']:+.3f} ± {g['se']:.3f} | "
            f"{t['mean']:+.3f} ± {t['se']:.3f} |"
        )
    if args.out:
        record = {
            "argv": sys.argv[1:],
            "runs": [str(p) for p in args.runs],
            "pooled": out,
        }
        args.out.write_text(json.dumps(record, indent=1))
    return out


if __name__ == "__main__":
    main()

"""Cost of private validation scoring: ``DPScorer.private_values`` per call.

The built-in accuracy score (``make_dp_scorer("accuracy")``) of a
``LogisticRegression`` fitted on 500 public rows (20 features, seed 0),
on m validation records already mapped into the training schema
(``RecordSchema.from_training(...).map``), for m in {10 000, 100 000}.
The model is on the row-wise list, so the records are scored in batches
of ``BATCH_ROWS``. One BLAS thread; each figure is the minimum (and the
median) of ``--repeats`` calls after one warm-up call, in wall time and in
the process's CPU time (less disturbed by other load on the machine).

Usage::

    python benchmarks/bench_scoring.py --label after   # stored results
    python benchmarks/bench_scoring.py --quick         # smoke run

A full run adds its figures under ``--label`` to
``benchmarks/results/bench_scoring.json`` (other labels are kept);
``--quick`` (m = 1 000, 3 calls) writes to a temporary file (or ``--out``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import _checkout  # noqa: F401  (the checkout's sklearn_dpbo, not an installed copy)
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from sklearn_dpbo.privacy import make_dp_scorer
from sklearn_dpbo.privacy._records import RecordSchema

OUT = Path(__file__).resolve().parent / "results" / "bench_scoring.json"


def per_call_ms(m: int, repeats: int) -> dict:
    X, y = make_classification(
        n_samples=500 + m, n_features=20, n_informative=10, random_state=0
    )
    model = LogisticRegression().fit(X[:500], y[:500])
    scorer = make_dp_scorer("accuracy")
    records = RecordSchema.from_training(X[:500], y[:500], classes=True).map(
        X[500:], y[500:]
    )
    scorer.private_values(model, records)  # warm-up
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        scorer.private_values(model, records)
        cpu.append(1e3 * (time.process_time() - start_cpu))
        wall.append(1e3 * (time.perf_counter() - start))
    return {
        "m": m,
        "repeats": repeats,
        "ms_per_call": min(wall),
        "ms_per_call_median": statistics.median(wall),
        "cpu_ms_per_call": min(cpu),
        "cpu_ms_per_call_median": statistics.median(cpu),
    }


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="smoke run, not stored")
    p.add_argument("--label", default="current", help="key of this run in the JSON")
    p.add_argument("--repeats", type=int, default=30)
    p.add_argument("--out", type=Path, default=None, help="JSON to write")
    args = p.parse_args(argv)
    sizes, repeats = ([1_000], 3) if args.quick else ([10_000, 100_000], args.repeats)
    with threadpool_limits(1):
        rows = [per_call_ms(m, repeats) for m in sizes]
    for row in rows:
        print(
            f"m={row['m']:>7,}: {row['ms_per_call']:.2f} ms per call "
            f"(median {row['ms_per_call_median']:.2f}); CPU "
            f"{row['cpu_ms_per_call']:.2f} ms (median "
            f"{row['cpu_ms_per_call_median']:.2f})"
        )
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
        cwd=OUT.parents[2],  # the checkout whose library was measured
    ).stdout.strip()
    run = {"git_commit": commit, "rows": rows}
    out = args.out or (
        Path(tempfile.gettempdir()) / "bench_scoring_quick.json" if args.quick else OUT
    )
    stored = {"benchmark": "bench_scoring", "runs": {}}
    if out.exists():
        stored = json.loads(out.read_text())
    stored["runs"][args.label] = run
    out.write_text(json.dumps(stored, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

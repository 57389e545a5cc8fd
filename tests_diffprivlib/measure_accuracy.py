"""Test accuracy of diffprivlib LogisticRegression tuned by the private-model mode.

Not a test (not collected): the measurement quoted in docs/private_model.md
and in the end-to-end test's threshold. breast_cancer, the public scaling of
``test_private_model_diffprivlib._public_scale``, a fixed 70/30 split, 12
values of C, random stopping (the mode's default law), ``--fits`` fits per ε.

Usage (a venv with the ``dp-learners`` extra, from the repository root)::

    PYTHONPATH=. python tests_diffprivlib/measure_accuracy.py --fits 60
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import test_private_model_diffprivlib as t  # noqa: E402

from sklearn_dpbo.model_selection import PrivateModel  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fits", type=int, default=60)
    parser.add_argument("--eps", type=float, nargs="+", default=[1.0, 8.0])
    args = parser.parse_args()
    X_tr, X_te, y_tr, y_te = t._cancer()
    print(f"majority rate on the test part: {max(y_te.mean(), 1 - y_te.mean()):.3f}")
    for eps in args.eps:
        start = time.perf_counter()
        accs = np.array(
            [
                t._search(
                    t._logreg(),
                    epsilon=eps,
                    method=PrivateModel(strategy="random-stopping"),
                )
                .fit(X_tr, y_tr)
                .best_estimator_.score(X_te, y_te)
                for _ in range(args.fits)
            ]
        )
        print(
            f"eps={eps:g}: test accuracy mean {accs.mean():.3f} "
            f"(s.e. {accs.std(ddof=1) / np.sqrt(len(accs)):.3f}), sd "
            f"{accs.std(ddof=1):.3f}, min {accs.min():.3f}, max {accs.max():.3f} "
            f"over {len(accs)} fits, {time.perf_counter() - start:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()

"""Smoke test on the oldest and newest supported dependencies (run by .ci/run).

Three fresh venvs, with pip only:

- oldest: every ``name>=X`` lower bound of ``[project] dependencies`` in
  pyproject.toml installed as ``name==X`` (so the lane tests exactly what is
  declared), plus the exact pins in ``OLDEST_EXTRA`` below;
- newest: the latest release of everything on PyPI.
- dp-learners: ``pip install "<repo>[dp-learners]"``, the optional extra
  (diffprivlib, with the scikit-learn < 1.8 it runs with; diffprivlib 0.6.6
  does not import under scikit-learn 1.9 and its LogisticRegression cannot be
  built under 1.8), then ``DP_LEARNER_TESTS``: ``tests_diffprivlib/`` (not
  collected by the main run, whose ``testpaths`` is ``tests``) and the
  refusal test of the main suite.

In the first two: ``pip install <repo>`` (not editable), ``python -m
sklearn_dpbo.demo``, and ``SMOKE_TESTS`` (search, scorers, modes, scheduler,
scikit-learn conventions, DP GP, local DP) with ``-m "not slow"``. Every lane
runs its tests from a copy of tests/ and tests_diffprivlib/ so that the
installed package is the one imported. A few minutes in all, installs
included. Exits non-zero if a lane fails.

The oldest lane's wheels exist for CPython 3.9 to 3.11 (numpy 1.23.2 and
scipy 1.9.2 have none for 3.12): run it with such a Python.

Usage: ``python .ci/version_smoke.py [--lane oldest|newest|dp-learners] [--keep]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Not declared by sklearn-dpbo but pinned for a reproducible oldest lane:
# threadpoolctl at scikit-learn 1.6.1's own minimum, the test runner, and
# pandas at the test extra's lower bound (scikit-learn's checks and the
# DataFrame tests skip without it).
OLDEST_EXTRA = ["threadpoolctl==3.1.0", "pytest==8.3.5", "pandas==1.5.3"]
NEWEST_EXTRA = ["pytest", "pandas"]
EXTRA_LANES = {"dp-learners": "dp-learners"}  # lane name -> pyproject extra

DP_LEARNER_TESTS = [
    "tests_diffprivlib",
    "tests/model_selection/test_private_model_diffprivlib_refusal.py",
]

SMOKE_TESTS = [
    "tests/test_compat.py",
    "tests/model_selection/test_search.py",
    "tests/privacy/test_scorers.py",
    "tests/model_selection/test_modes.py",
    "tests/model_selection/test_gridsearch_parity.py",
    "tests/model_selection/test_scheduler.py",
    "tests/model_selection/test_sklearn_compat.py",
    "tests/gaussian_process/test_dp_gp.py",
    "tests/ldp/test_ldp_bo.py",
    "tests/ldp/test_ldp_client.py",
    "tests/model_selection/test_ldp_federated.py",
    "tests/model_selection/test_correctness_round.py",  # Pipeline transform_input
]

VERSIONS = (
    "import sys, sklearn_dpbo, sklearn, numpy, scipy, joblib; "
    "print('python', sys.version.split()[0], '| scikit-learn', sklearn.__version__, "
    "'| numpy', numpy.__version__, '| scipy', scipy.__version__, "
    "'| joblib', joblib.__version__, '| sklearn_dpbo from', sklearn_dpbo.__file__); "
    "assert sklearn_dpbo.__file__.startswith(sys.prefix), 'not the installed copy'"
)


def lower_bounds() -> list[str]:
    """``name==X`` for each ``name>=X`` in pyproject's ``[project] dependencies``."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^dependencies\s*=\s*\[(.*?)\]", text, re.S | re.M)
    if block is None:
        sys.exit("version_smoke: no [project] dependencies in pyproject.toml")
    pins = []
    for requirement in re.findall(r'"([^"]+)"', block.group(1)):
        match = re.fullmatch(
            r"\s*([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][^,;\s]*)\s*", requirement
        )
        if match is None:
            sys.exit(
                f"version_smoke: cannot pin {requirement!r}: declare each "
                "dependency as 'name>=version' (the oldest lane installs that version)"
            )
        pins.append(f"{match.group(1)}=={match.group(2)}")
    return pins


def run(cmd: list[str], cwd: Path | None = None) -> None:
    print("+", shlex.join(cmd), flush=True)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True)
    print(f"  ({time.perf_counter() - start:.0f} s)", flush=True)


def lane(name: str, requirements: list[str], base: Path, tests_copy: Path) -> float:
    """Create the venv, install, run the demo and the smoke tests; seconds taken.

    An extra's lane installs ``<repo>[extra]`` and runs ``DP_LEARNER_TESTS``
    (no demo: the oldest and newest lanes run it).
    """
    start = time.perf_counter()
    print(f"\n=== version smoke, {name} lane: {' '.join(requirements)}", flush=True)
    venv = base / f"venv-{name}"
    run([sys.executable, "-m", "venv", str(venv)])
    python = str(venv / "bin" / "python")
    extra = EXTRA_LANES.get(name)
    target = f"{ROOT}[{extra}]" if extra else str(ROOT)
    run(
        [python, "-m", "pip", "install", "--quiet", "--progress-bar", "off"]
        + ["--only-binary=:all:", target]
        + requirements
    )
    run([python, "-c", VERSIONS], cwd=tests_copy)
    if extra:
        tests = DP_LEARNER_TESTS
    else:
        run([python, "-m", "sklearn_dpbo.demo"], cwd=tests_copy)
        tests = SMOKE_TESTS
    run(
        [python, "-m", "pytest", "-q", "-m", "not slow", "--disable-warnings"]
        + ["-p", "no:cacheprovider"]
        + tests,
        cwd=tests_copy,
    )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--lane", choices=["oldest", "newest", *EXTRA_LANES], action="append"
    )
    parser.add_argument("--keep", action="store_true", help="keep the venvs")
    args = parser.parse_args()
    lanes = args.lane or ["oldest", "newest", *EXTRA_LANES]
    if "oldest" in lanes and sys.version_info >= (3, 12):
        sys.exit(
            "version_smoke: the oldest lane's numpy and scipy have wheels for "
            "CPython 3.9 to 3.11 only; run this script with such a Python"
        )
    requirements = {
        "oldest": lower_bounds() + OLDEST_EXTRA,
        "newest": NEWEST_EXTRA,
        **{name: NEWEST_EXTRA for name in EXTRA_LANES},
    }
    base = Path(tempfile.mkdtemp(prefix="version-smoke-"))
    tests_copy = base / "work"
    tests_copy.mkdir()
    shutil.copytree(ROOT / "tests", tests_copy / "tests")
    shutil.copytree(ROOT / "tests_diffprivlib", tests_copy / "tests_diffprivlib")
    shutil.copytree(  # the pages a test runs
        ROOT / "docs",
        tests_copy / "docs",
        ignore=shutil.ignore_patterns("_build", "generated", "auto_examples"),
    )
    shutil.copy(ROOT / "setup.cfg", tests_copy / "setup.cfg")
    os.environ.pop("PYTHONPATH", None)  # import the installed package only
    seconds = {}
    try:
        for name in lanes:
            seconds[name] = lane(name, requirements[name], base, tests_copy)
            print(f"=== version smoke, {name} lane passed in {seconds[name]:.0f} s")
    except subprocess.CalledProcessError as exc:
        print(f"version smoke FAILED: {' '.join(exc.cmd)}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"venvs kept in {base}")
        else:
            start = time.perf_counter()
            shutil.rmtree(base, ignore_errors=True)
            print(f"removed {base} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Run benchmark scripts' ``--quick`` smoke runs, importing the libraries once.

``python tests/_quick_runner.py OUT SPEC``: ``SPEC`` is a JSON list of
``[key, script, *args]``. The interpreter, numpy, scipy, pandas,
scikit-learn, this checkout's ``sklearn_dpbo`` and matplotlib are imported
here once (~2-3 s of CPU per process, most of a smoke run's cost); each
script then runs in a forked child, one at a time, as ``python script
args`` would run it (``__main__``, ``sys.argv``, ``benchmarks/`` first on
``sys.path``), with its stdout and stderr in ``OUT/<key>.stdout`` and
``OUT/<key>.stderr`` and its exit status in ``OUT/<key>.rc``. The child
starts from the parent's imports only: nothing a script does reaches
another one; joblib's loky workers are forked from it (``_preload``).
Without ``os.fork`` (Windows) each script runs in a fresh interpreter
instead.
"""

from __future__ import annotations

import gc
import json
import os
import runpy
import subprocess
import sys
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


def _preload() -> None:
    sys.path.insert(0, str(ROOT))  # this checkout's sklearn_dpbo (_checkout.py)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401
    import numpy  # noqa: F401
    import pandas  # noqa: F401
    import scipy.optimize  # noqa: F401
    import scipy.stats  # noqa: F401
    import sklearn.datasets  # noqa: F401
    import sklearn.ensemble  # noqa: F401
    import sklearn.linear_model  # noqa: F401
    import sklearn.model_selection  # noqa: F401
    import sklearn.pipeline  # noqa: F401
    import sklearn.svm  # noqa: F401

    import sklearn_dpbo  # noqa: F401
    import sklearn_dpbo.model_selection  # noqa: F401

    try:  # bench_scaling's Dask rows. Imported here, its ~28,000 objects
        # are frozen with the rest (main): bench_scaling's gc.collect()
        # before each timed run took ~20 ms with them in its child.
        import distributed  # noqa: F401
    except ImportError:
        pass
    sys.path.remove(str(ROOT))
    # joblib's loky workers are forked from the script's process, with its
    # imports, instead of fresh interpreters that import scikit-learn and
    # sklearn_dpbo again (~2.8 s of CPU per worker, two per script that
    # runs n_jobs=2). The tasks they run are the same; that a fresh worker
    # finds the checkout is test_bench_scaling_workers_find_the_checkout.
    from joblib.externals.loky.backend.context import set_start_method

    set_start_method("fork")
    warnings.filterwarnings("ignore", "`fork` start method", UserWarning)


def _child(script: Path, args: list, stdout: Path, stderr: Path) -> int:
    for fd, path in ((1, stdout), (2, stderr)):
        f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(f, fd)
        os.close(f)
    sys.argv = [str(script), *args]
    sys.path[0] = str(script.parent)  # as ``python script`` does
    code = 0
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (exc.code is not None)
        if not isinstance(exc.code, (int, type(None))):
            print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    return int(code)


def main(out: str, spec: str) -> int:
    out_dir = Path(out)
    if hasattr(os, "fork"):
        _preload()
        # The preloaded objects go to the permanent generation: a child's
        # collections (and its exit's) no longer walk them, nor copy the
        # pages their counts live on (a script that prints one line took
        # 0.6 s of CPU in its child without this, 0.15 s with it).
        gc.freeze()
    for key, script, *args in json.loads(spec):
        files = [out_dir / f"{key}.{ext}" for ext in ("stdout", "stderr", "rc")]
        if not hasattr(os, "fork"):  # not POSIX: a fresh interpreter per script
            argv = [sys.executable, str(BENCHMARKS / f"{script}.py"), *args]
            with open(files[0], "w") as o, open(files[1], "w") as e:
                code = subprocess.run(argv, stdout=o, stderr=e).returncode
            files[2].write_text(str(code))
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 1
            try:
                code = _child(BENCHMARKS / f"{script}.py", args, *files[:2])
            finally:
                # The interpreter's own exit, as after ``python script``:
                # joblib's workers are shut down and waited for.
                raise SystemExit(code)
        _, status, usage = os.wait4(pid, 0)
        files[2].write_text(str(os.waitstatus_to_exitcode(status)))
        cpu = usage.ru_utime + usage.ru_stime  # the child and its own children
        print(f"{key}: exit {files[2].read_text()}, CPU {cpu:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

"""Subprocess-bound tests, started in the background at the start of the run.

The benchmark smoke runs (``test_benchmarks_smoke.py``) are subprocesses that
take most of their test's time, and pytest runs tests one at a time, mostly
on one core. A test that needs such a subprocess marks it::

    @pytest.mark.background("key", [sys.executable, "script.py", "{out}"])

and reads its result with :func:`result` (``key``). ``conftest.py`` submits
every collected test's command when collection finishes; they run one at a
time, in collection order, at a lower priority (``nice``), in a thread, while
the other tests run: on 2 cores they mostly use the core that pytest leaves
idle. Under pytest-xdist a command starts with its own test, on that test's
worker, which waits for it (at normal priority: nothing else runs there).
``{out}`` in a command is replaced by a fresh temporary folder (the test's
outputs; removed at the end of the run). A test run alone waits for
its own command only. Nothing else changes: same commands, same assertions,
same per-command timeout.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import tempfile
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Optional

__all__ = ["result", "shutdown", "submit"]

NICE = 5  # background commands yield the CPU to the test being run

_JOBS: dict[str, tuple[Future, Path]] = {}
_QUEUE: queue.Queue = queue.Queue()
_THREAD: Optional[threading.Thread] = None
_RUNNING: list = []  # the Popen being run, if any
_STOP = threading.Event()
_ROOT: Optional[Path] = None


def _lower_priority() -> None:  # pragma: no cover - runs in the child
    try:
        os.nice(NICE)
    except OSError:
        pass


def _yield_cpu() -> bool:
    """Lower the command's priority only when tests run beside it.

    Without pytest-xdist the command runs while the other tests do, and
    yields to them. Under pytest-xdist (``-n``) the worker that started it
    waits for it (``_xdist_worker`` in conftest.py), and the other workers
    have their own cores: a lower priority would only slow that worker
    down on a loaded machine.
    """
    return os.name == "posix" and not os.environ.get("PYTEST_XDIST_WORKER")


def _worker() -> None:
    while not _STOP.is_set():
        item = _QUEUE.get()
        if item is None:
            return
        future, argv, kwargs = item
        if not future.set_running_or_notify_cancel():
            continue
        try:
            timeout = kwargs.pop("timeout", None)
            proc = subprocess.Popen(
                argv,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                preexec_fn=_lower_priority if _yield_cpu() else None,
                **kwargs,
            )
            _RUNNING[:] = [proc]
            if _STOP.is_set():  # shutdown() ran while it started
                proc.kill()
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
                raise
            finally:
                _RUNNING[:] = []
            future.set_result(
                subprocess.CompletedProcess(argv, proc.returncode, out, err)
            )
        except BaseException as exc:  # reported by result(), in the test
            future.set_exception(exc)


def submit(key: str, argv: list, **kwargs) -> None:
    """Queue ``argv`` (``subprocess.Popen`` keyword arguments and ``timeout``
    in ``kwargs``); ``"{out}"`` in an argument becomes the job's folder."""
    global _THREAD, _ROOT
    if key in _JOBS:
        return
    if _ROOT is None:
        _ROOT = Path(tempfile.mkdtemp(prefix="dpbo-background-"))
    out = _ROOT / key
    out.mkdir()
    argv = [str(a).replace("{out}", str(out)) for a in argv]
    future: Future = Future()
    _JOBS[key] = (future, out)
    _QUEUE.put((future, argv, dict(kwargs)))
    if _THREAD is None:
        _THREAD = threading.Thread(target=_worker, name="dpbo-background", daemon=True)
        _THREAD.start()


def result(key: str) -> tuple[subprocess.CompletedProcess, Path]:
    """The finished command ``key`` and its output folder (waits for it)."""
    future, out = _JOBS[key]
    return future.result(), out


def shutdown() -> None:
    """Cancel what has not started, stop what runs, remove the outputs."""
    _STOP.set()
    for future, _ in _JOBS.values():
        future.cancel()
    _QUEUE.put(None)
    for proc in list(_RUNNING):
        proc.kill()
    if _THREAD is not None:
        _THREAD.join(timeout=30)
    if _ROOT is not None:
        shutil.rmtree(_ROOT, ignore_errors=True)

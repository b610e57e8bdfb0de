import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Hermetic by default: the system dataset folders (Debian's dataset-fashion-mnist) are not
# searched, so "files missing" tests hold on machines that have them; the tests of the real
# files set the variable back (bnnsample/data/locate.py).
os.environ["BNNSAMPLE_SYSTEM_DATA"] = ""


def run_cli(*args, cwd=None, timeout=900):
    """Run the installed `bnnsample` entry point; returns CompletedProcess (text)."""
    env = dict(os.environ, HYDRA_FULL_ERROR="0", OMP_NUM_THREADS="1")
    return subprocess.run(
        [sys.executable, "-m", "bnnsample.cli", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def _drop_closed_log_handlers() -> None:
    """Remove log handlers whose stream is closed: a run started in process (Hydra's logging
    config) attaches handlers to the streams a test captured, which pytest closes after it, and a
    later test's log line would then print a 'Logging error' traceback into its own stderr."""
    import logging

    for lg in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]:
        for h in list(getattr(lg, "handlers", [])):
            if getattr(getattr(h, "stream", None), "closed", False):
                lg.removeHandler(h)


@pytest.fixture(autouse=True)
def _no_stale_log_handlers():
    _drop_closed_log_handlers()
    yield
    _drop_closed_log_handlers()


@pytest.fixture(autouse=True)
def _progress_switch_restored():
    """An in-process ``bnnsample run progress=false`` switches every bar of the process off
    (``progress.set_enabled``); a later test must not inherit that."""
    from bnnsample.plumbing import progress

    was = progress.enabled()
    yield
    progress.set_enabled(was)


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def inprocess(monkeypatch):
    """cli.main in this process (Hydra's basic launcher runs a sweep's jobs here), with its
    global side effects (signal handlers, Hydra's global state, sys.argv, the log handlers
    Hydra attaches, which hold this test's captured streams and files) undone; returns the
    exit code."""
    import logging
    import signal

    from hydra.core.global_hydra import GlobalHydra

    from bnnsample.cli import main

    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    loggers = [logging.getLogger(), logging.getLogger("bnnsample")]
    log_handlers = {lg.name: list(lg.handlers) for lg in loggers}
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)

    def call(*args):
        GlobalHydra.instance().clear()
        try:
            main(list(args))
        except SystemExit as e:
            return e.code
        finally:
            GlobalHydra.instance().clear()
            for s, h in handlers.items():
                signal.signal(s, h)
            for lg in loggers:
                for h in lg.handlers[:]:
                    if h not in log_handlers[lg.name]:
                        lg.removeHandler(h)
                        h.close()
        return 0

    return call

"""Command line: bnnsample run | evaluate | figure | info | --help.

`run` hands the remaining arguments to Hydra (overrides, -m for multirun, --help for the
config help), so everything Hydra accepts works: ``bnnsample run -m step_size=1e-3,5e-4``.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import re
import signal
import sys
import threading
from pathlib import Path

from hydra.errors import CompactHydraException

from .config import CHECKED_KEYS, COMMON_RANDOM_KEYS, NOT_SAMPLING_KEYS, check_override, check_value
from .plumbing.errors import DISK_FAILED_ERRNOS
from .plumbing.progress import say

USAGE = """usage: bnnsample <command> [args]

commands:
  run [overrides]        sample a posterior (Hydra overrides: integrator=sms_ubu dataset=two_batch_gaussian
                         step_size=0.0625 chains=4000 ...); `run -m a=1,2` sweeps (Hydra multirun);
                         `run --help` shows the composed config
  evaluate RUN_DIR...    recompute metrics.csv and plots of finished (or partial) runs
  figure ID [--out DIR] [--replace] [--record-cost] [key=value ...]
                         regenerate a figure/table recipe (default DIR: ./results of the
                         current directory) and print each claim's verdict with its reason;
                         a section made at another scale is kept (the run writes beside it)
                         unless --replace; its measured cost goes to DIR/ID/cost.csv, or with
                         --record-cost into the ledger DIR/costs.csv; `figure --list` lists the
                         ids with their scales and the ledger's costs, `figure ID --help` a
                         recipe's options
  export RUN_DIR...      write RUN_DIR/posterior.nc, the run as an ArviZ InferenceData (posterior
                         theta, sample_stats with kinetic temperature and divergence, predictions)
  info                   list integrators, batchings, datasets, models and inits
  --help                 this message

Output goes to Hydra's run directory (hydra.run.dir=DIR to choose it): samples.h5,
config.yaml, metrics.csv, plots/, bnnsample.log. A stopped run (Ctrl-C, SIGTERM, time_limit)
prints the command that resumes it: the same overrides with hydra.run.dir=RUN_DIR.
"""


def _fail(msg: str, code: int = 2) -> None:
    from .plumbing.errors import printable
    from .plumbing.progress import message

    message(f"bnnsample: error: {printable(msg)}", sys.stderr)
    sys.exit(code)


class JobFailed(CompactHydraException):
    """A job of a multirun failed with a one-line reason. Raised (not sys.exit) so that Hydra
    records the failure and the launcher goes on with the other jobs; Hydra prints only the
    message of a CompactHydraException, no traceback."""


# --------------------------------------------------------------------------
# per-job seeds
# --------------------------------------------------------------------------


def job_seed(base: int, overrides) -> int:
    """Seed of one job of a multirun: sha256 of the base seed and the job's command-line
    overrides (sorted, so their order does not matter), reduced to [0, 2^31).

    Jobs of a sweep differ in their overrides, so they get independent random streams; the
    same command gives the same seeds again (what a rerun or a requeued job needs to resume).
    Overrides of keys that do not change the draws (NOT_SAMPLING_KEYS: progress bar,
    evaluation, flush cadence, data location) do not enter the hash, nor the step size
    (COMMON_RANDOM_KEYS): the jobs of a step-size sweep share their random numbers.
    """
    kept = [str(o) for o in overrides if _override_key(o) not in NOT_SAMPLING_KEYS | COMMON_RANDOM_KEYS]
    text = f"{int(base)}|" + "\n".join(sorted(kept))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") % 2**31


def _override_key(o) -> str:
    return str(o).lstrip("+~").split("=", 1)[0]


def _seed_given(overrides) -> bool:
    return any(_override_key(o) == "seed" for o in overrides)


def _sweep_seed(cfg, overrides) -> None:
    """The seed rule of a multirun: ``seed`` given on the command line (fixed or swept) is used
    as given, so jobs that share it share their random numbers (common random numbers, e.g.
    across step sizes); otherwise each job gets job_seed(seed, its overrides). The seed used
    is the ``seed`` of the job's config.yaml, so any job can be rerun alone with seed=<that>."""
    if _seed_given(overrides) or not isinstance(cfg.get("seed"), int):
        return
    base = cfg.seed
    cfg.seed = job_seed(base, overrides)
    log = logging.getLogger("bnnsample")
    log.info("seed %d for this job (derived from seed=%d and its overrides)", cfg.seed, base)


# --------------------------------------------------------------------------
# Hydra's errors as one line
# --------------------------------------------------------------------------


class _HeldStderr:
    """Stands in for sys.stderr outside the jobs: holds what Hydra writes there (its
    composition and job-failure reports, several lines each) so that it can be printed as
    one line; inside a job everything passes straight through."""

    def __init__(self, real):
        self.real, self.held, self.buf = real, True, []

    def write(self, s):
        if self.held:
            self.buf.append(s)
            return len(s)
        return self.real.write(s)

    def flush(self):
        self.real.flush()

    def __getattr__(self, name):
        return getattr(self.real, name)

    def hold(self, on: bool) -> None:
        if not on:
            self.dump()
        self.held = on

    def take(self) -> str:
        text, self.buf = "".join(self.buf), []
        return text

    def dump(self) -> None:
        text = self.take()
        if text:
            self.real.write(text)


def one_line(text: str) -> str:
    """Hydra's multi-line error report -> one line naming the field and what is allowed."""
    text = text.split("Config search path:")[0]
    lines = [ln.strip().removeprefix("bnnsample: error: ") for ln in text.splitlines()
             if ln.strip() and "HYDRA_FULL_ERROR" not in ln]  # fmt: skip
    return _missing_option(text) or _unknown_key(text) or _refused_write(lines) or _failure(text, lines)


def _missing_option(text: str) -> str | None:
    """A config group option that does not exist: 'group=name: allowed values: ...'."""
    m = re.search(r"Could not find '(.+)/([^/']+)'", text)
    if not m:
        return None
    from .plumbing.suggest import did_you_mean

    opts = [ln.strip() for ln in text.splitlines() if ln.startswith("\t")]
    allowed = f"allowed values: {', '.join(opts)}" if opts else "no such option"
    return f"{m.group(1)}={m.group(2)}{did_you_mean(m.group(2), opts)}: {allowed}"


def _unknown_key(text: str) -> str | None:
    """A key the config does not have: 'key: no such key in the config' and what to use instead
    (a top-level key: the config's name for it, or the closest and all top-level keys)."""
    m = re.search(r"Could not (?:override|append to|delete from) '([^']+)'", text)
    if not m:
        return None
    full = re.search(r"full_key: (\S+)", text)
    key = full.group(1) if full else m.group(1)
    if "." in key:
        plus = re.search(r"To append to your config use (\S+)", text)
        return f"{key}: no such key in the config" + (f" (to add it: {plus.group(1)})" if plus else "")
    from .config import KEY_HINTS, top_level_keys
    from .plumbing.suggest import did_you_mean

    if key in KEY_HINTS:
        return f"{key}: no such key in the config; {KEY_HINTS[key]}"
    keys = top_level_keys()
    return f"{key}: no such key in the config{did_you_mean(key, keys)}; top-level keys: {', '.join(keys)}"


def _refused_write(lines: list[str]) -> str | None:
    """The file system refused (a read-only or missing directory): not a bug."""
    m = re.search(r"^(?:PermissionError|NotADirectoryError|FileNotFoundError|FileExistsError|IsADirectoryError|"
                  r"OSError): \[Errno \d+\] (.+)$", lines[-1] if lines else "")  # fmt: skip
    return f"{m.group(1)}; choose a run directory that can be written (hydra.run.dir=DIR)" if m else None


def _failure(text: str, lines: list[str]) -> str:
    """A failed job or an unexpected exception (a bug, not bad input): its last line, and where
    to get the rest."""
    bug = " (internal error; HYDRA_FULL_ERROR=1 shows the traceback)" if "Traceback" in text else ""
    m = re.search(r"Error executing job with overrides: (\[.*\])", text)
    if m:
        rest = [ln for ln in lines if not ln.startswith("Error executing job")]
        reason = rest[-1] if rest else "see the job's bnnsample.log"
        return f"the job with overrides {m.group(1)} failed: {reason}{bug}"
    if bug:
        return lines[-1] + bug
    return " ".join(lines) or "Hydra stopped without a message"


def _check_syntax(argv: list[str]) -> None:
    """Each override parses (Hydra's grammar), else one line naming it."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parser = OverridesParser.create()
    for a in argv:
        if not a.isprintable():
            _fail(f"{a}: not a valid override (control characters such as a newline or ESC in it)")
        if a.startswith("-") or not ("=" in a or a.startswith("~")):
            continue
        try:
            ov = parser.parse_override(a)
        except Exception as e:  # noqa: BLE001  (Hydra's OverrideParseException and friends)
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            _fail(f"{a}: not a valid override ({msg}); e.g. key=value, key=a,b,c (sweep), +key=value")
        complaint = check_override(ov.key_or_group, _override_values(ov))
        if complaint is None and ov.key_or_group in CHECKED_KEYS and not ov.is_delete():
            complaint = next(filter(None, (check_value(ov.key_or_group, v) for v in _typed_values(ov))), None)
        if complaint:
            _fail(complaint)


def _typed_values(ov) -> list:
    """The values of a parsed override as Hydra types them (each value of a sweep)."""
    try:
        if ov.is_sweep_override():
            return list(ov.sweep_iterator())
        return [ov.value()]
    except Exception:  # noqa: BLE001  (interpolations, range sweeps: left to validate)
        return []


def _override_values(ov) -> list[str]:
    """The values of a parsed override as strings (each value of a sweep)."""
    try:
        if ov.is_sweep_override():
            return [str(v) for v in ov.sweep_string_iterator()]
        return [ov.get_value_element_as_str()] if ov.value() is not None else []
    except Exception:  # noqa: BLE001  (range sweeps of numbers, deletions without a value)
        return []


# --------------------------------------------------------------------------
# signals: Ctrl-C, a launcher's SIGTERM, submitit's preemption signal
# --------------------------------------------------------------------------


def _stop_on_signals() -> dict:
    """In the process that runs the job (the CLI itself, a joblib worker): Ctrl-C and SIGTERM
    stop the sampler at the next block boundary, draws and resume state written. Returns the
    handlers replaced (a joblib worker gets them back between jobs)."""
    from .plumbing.stop import request_stop

    if threading.current_thread() is not threading.main_thread():
        return {}
    sigs = [signal.SIGINT] + ([] if _submitit_handler() else [signal.SIGTERM])
    return {sig: signal.signal(sig, request_stop) for sig in sigs}


def _log_above_bars():
    """Log records on the console go above the progress bars (tqdm.write), never glued to the
    bar's line."""
    from tqdm.contrib.logging import logging_redirect_tqdm

    return logging_redirect_tqdm(loggers=[logging.getLogger()])  # Hydra's console handler is the root's


def resume_command(argv: list[str], run_dir: Path) -> str:
    """The command that continues the run in ``run_dir``: the same overrides with the run
    directory named (Hydra's default directory is new for every command)."""
    import shlex

    kept = [a for a in argv if not a.startswith(("hydra.run.dir=", "time_limit="))]
    return shlex.join(["bnnsample", "run", *kept, f"hydra.run.dir={run_dir}"])


def _interrupt_at_once() -> None:
    """From here on Ctrl-C and SIGTERM interrupt at once (KeyboardInterrupt), as during an
    evaluation, which has no block boundary to stop at; a request made since the sampling
    loop's last check counts."""
    from .plumbing.stop import _stop

    if threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if not _submitit_handler():
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    if _stop["requested"]:
        _stop["requested"] = False
        raise KeyboardInterrupt


def _kept_after_stop(run_dir: Path) -> str:
    """What a stopped run left in ``run_dir`` for its resume: the draws, else the training
    state of a run stopped while it trained its initial points, else nothing."""
    from .initial import TRAINING_CHECKPOINT

    h5, ckpt = run_dir / "samples.h5", run_dir / TRAINING_CHECKPOINT
    if h5.exists():
        return f"draws written so far are in {h5}"
    if ckpt.exists():
        return f"the training state is in {ckpt}"
    return "nothing was written"


def _submitit_handler():
    """submitit's (signal, handler) for preemption/timeout when this process is a submitit job."""
    sm = sys.modules.get("submitit")
    if sm is None:
        return None
    try:
        from submitit.core.job_environment import SignalHandler

        sig = sm.JobEnvironment._usr_sig()
    except Exception:  # noqa: BLE001
        return None
    handler = signal.getsignal(sig)
    if isinstance(getattr(handler, "__self__", None), SignalHandler):
        return sig, handler
    return None


class _Preemption:
    """Hooks submitit's checkpointing to bnnsample's resume. On the preemption/timeout signal
    (SIGUSR2 by default) the sampler stops at the next block boundary and writes its draws and
    resume state; then submitit's own handler runs: it calls the launcher's ``checkpoint``
    (which resubmits the same job), requeues it and exits. The requeued job runs the same
    command in the same directory, so the runner resumes from state/."""

    def __init__(self):
        self.pending = None
        self.sub = _submitit_handler() if threading.current_thread() is threading.main_thread() else None
        if self.sub:
            from .plumbing.stop import request_stop

            def on_signal(signum, frame):
                self.pending = signum
                logging.getLogger("bnnsample").warning("preemption signal %d: stopping to requeue", signum)
                request_stop()

            signal.signal(self.sub[0], on_signal)

    def requeue_if_asked(self) -> None:
        if self.sub and self.pending is not None:
            self.sub[1](self.pending, None)  # checkpoint + requeue + exit (submitit)


# --------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------


def _share_cores(hc) -> None:
    """Local parallel jobs (joblib) split the cores: torch threads = cores // parallel jobs."""
    if not str(hc.runtime.choices.get("hydra/launcher", "")).startswith(("joblib", "local")):
        return
    import torch

    cores = os.cpu_count() or 1
    n = int(hc.launcher.get("n_jobs", -1))
    parallel = n if n > 0 else max(1, cores + 1 + n)
    torch.set_num_threads(max(1, cores // max(1, parallel)))


def _evaluated(run_dir: Path, reference) -> bool:
    """metrics.csv up to date (evaluate.report.metrics_up_to_date); a rerun may name another
    ``reference``: the run is not redone, only evaluated."""
    from .evaluate.report import metrics_up_to_date

    return metrics_up_to_date(run_dir, reference)


def _save_hydra_record(cfg, hc, run_dir: Path) -> None:
    """Hydra's record of the job (.hydra/config.yaml, hydra.yaml, overrides.yaml, as Hydra
    writes them), written by the run directory's owner: conf/config.yaml sets
    hydra.output_subdir to null so that Hydra does not write it before the lock is taken (a
    second command refused on a busy directory would have replaced the running job's)."""
    from omegaconf import OmegaConf

    from .rundir import write_file

    record = run_dir / ".hydra"
    record.mkdir(exist_ok=True)
    for name, node in (("config.yaml", cfg), ("hydra.yaml", OmegaConf.create({"hydra": hc})),
                       ("overrides.yaml", hc.overrides.task)):  # fmt: skip
        write_file(record / name, OmegaConf.to_yaml(node))


# the run directory of each job this process started (bnnsample.run returns the last one)
LAST_RUN_DIR: list[Path] = []


IO_ERRNOS = DISK_FAILED_ERRNOS | {errno.ENOSPC, errno.EDQUOT}  # a failed disk, or a full one


def io_error(e: BaseException) -> tuple[str, int] | None:
    """(file, errno) when ``e`` or an exception it arose from is the disk failing under a write:
    HDF5's report of a failed write (an OSError or RuntimeError whose text holds
    "filename = '...', ... errno = N"), or an OSError with such an errno; else None."""
    while e is not None:
        m = re.search(r"filename = '([^']*)'.*?errno = (\d+)", str(e), re.S)
        if m and int(m.group(2)) in IO_ERRNOS:
            return m.group(1), int(m.group(2))
        if isinstance(e, OSError) and e.errno in IO_ERRNOS:
            return str(e.filename or ""), e.errno
        e = e.__cause__ or e.__context__
    return None


@contextlib.contextmanager
def _io_failures_unprinted():
    """HDF5 objects freed after the disk failed report the failure again, each as a traceback
    (h5py's __dealloc__ prints it through sys.excepthook, then as "Exception ignored" through
    sys.unraisablehook); ``_end_after_io_error`` says it once, in one line."""
    unraisable_hook, except_hook = sys.unraisablehook, sys.excepthook

    def quiet_unraisable(unraisable):
        if io_error(unraisable.exc_value) is None:
            unraisable_hook(unraisable)

    def quiet_except(kind, value, tb):
        if io_error(value) is None:
            except_hook(kind, value, tb)

    sys.unraisablehook, sys.excepthook = quiet_unraisable, quiet_except
    try:
        yield
    finally:
        sys.unraisablehook, sys.excepthook = unraisable_hook, except_hook


def _end_after_io_error(e: BaseException, run_dir: Path) -> None:
    """The disk failed under the run (an I/O error, a file system shut down): one line, exit 2.
    The process ends at once (os._exit): HDF5 is left holding a file it cannot write, and
    freeing its objects (the garbage collector, the interpreter's exit) crashes it (SIGSEGV).
    Returns when ``e`` is not such a failure."""
    got = io_error(e)
    if got is None:
        return
    from .plumbing.errors import log_to_files, printable
    from .plumbing.progress import message

    path, code = got
    staged = re.fullmatch(r"\.(.+)\.creating-\d+", Path(path).name)  # HDF5 keeps the name a store was created under
    path = Path(path).with_name(staged.group(1)) if staged else path
    back = "there is free space (or the run directory is moved)" if code == errno.ENOSPC else "the disk is back"
    msg = (f"{path or run_dir}: {os.strerror(code)} while the run wrote (its disk or file system failed or filled "
           f"under it); the draws flushed before are kept in {run_dir}: once {back}, rerun the same command "
           "to resume")  # fmt: skip
    with contextlib.suppress(Exception):
        log_to_files(msg)
    message(f"bnnsample: error: {printable(msg)}", sys.stderr)
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    os._exit(2)


def first_line(cfg, overrides, run_dir: Path) -> str:
    """What a run will do, where, and what the ledger (``figures.costs``, ./results/costs.csv)
    says it costs: the line a run prints before it imports torch or loads its data."""
    from .figures.costs import RUN, estimate_of

    def name(group: str) -> str:
        node = cfg.get(group)
        return str(node.get("name", "?")) if hasattr(node, "get") else str(node)

    given = dict(str(o).lstrip("+").split("=", 1) for o in overrides if "=" in str(o) and not str(o).startswith("~"))
    what = (f"{name('integrator')} ({name('batching')} batches) on {name('model')} / {name('dataset')}, "
            f"{cfg.get('chains')} chains, {cfg.get('samples')} draws each")  # fmt: skip
    cost = estimate_of(Path.cwd() / "results", RUN, given)
    if cost.startswith("cost: not measured"):
        cost += " (a network run prints its timed estimate once its data are loaded)"
    return f"run: {what}, into {run_dir}; {cost}"


class _Job:
    """One job of ``bnnsample run`` (the only one, or one of a sweep) in its run directory:
    owned from the start to the end of its evaluation, refused in one line, stopped with the
    draws kept and the command that resumes it."""

    def __init__(self, cfg, hc):
        from hydra.types import RunMode

        self.cfg, self.hc = cfg, hc
        self.multirun = hc.mode == RunMode.MULTIRUN
        self.run_dir = Path(hc.runtime.output_dir)
        LAST_RUN_DIR.append(self.run_dir)
        self.lock = contextlib.ExitStack()
        self.owner = False

    def execute(self) -> None:
        from .plumbing.errors import Interrupted, UserError

        out = sys.stderr if isinstance(sys.stderr, _HeldStderr) else None
        if out is not None:
            out.hold(False)
        preempt = _Preemption()
        before = _stop_on_signals()
        try:
            self.run()
        except UserError as e:
            self.refused(e)
        except (OSError, RuntimeError, SystemError) as e:  # SystemError: h5py's file-object driver (the undo log)
            _end_after_io_error(e, self.run_dir)
            raise
        except (KeyboardInterrupt, Interrupted) as e:
            preempt.requeue_if_asked()
            self.stopped(e)
        finally:
            self.lock.close()
            if out is not None:
                out.hold(True)
            if self.multirun and not isinstance(sys.stderr, _HeldStderr):  # a worker process
                for sig, handler in before.items():
                    signal.signal(sig, handler)

    def run(self) -> None:
        """Own the directory, record the config, validate, sample, evaluate."""
        from omegaconf import OmegaConf

        from .plumbing import progress
        from .plumbing.errors import UserError, guard_log_files, log_failures
        from .rundir import owned

        cfg, run_dir = self.cfg, self.run_dir
        if not self.multirun:
            say(first_line(cfg, self.hc.overrides.task, run_dir))  # before torch and the data: seconds
        guard_log_files()
        self.lock.enter_context(owned(run_dir))  # one owner from here to the end of evaluation
        self.owner = True
        _save_hydra_record(cfg, self.hc, run_dir)
        if self.multirun:
            _sweep_seed(cfg, self.hc.overrides.task)
            _share_cores(self.hc)
            progress.sweep_job_started()
        reference = OmegaConf.to_container(cfg).get("reference")
        complete_before = _evaluated(run_dir, reference)
        from .config import validate

        validate(cfg)  # bad input is answered before runner imports torch
        progress.set_enabled(cfg.progress)
        from . import runner

        with _log_above_bars(), _io_failures_unprinted():
            runner.run(cfg, run_dir)
        _interrupt_at_once()  # the evaluation has no block boundary to stop at
        if cfg.evaluate and complete_before:
            say(f"{run_dir / 'metrics.csv'} is up to date; not evaluated again")
        elif cfg.evaluate:
            from .evaluate.report import evaluate_run

            with _log_above_bars():
                evaluate_run(run_dir, echo=True, reference=reference)
        failed = log_failures()
        if failed:
            raise UserError(f"{failed}; the run itself is complete in {run_dir}")
        if self.multirun:
            progress.sweep_job_done(progress.sweep_size(sys.argv[1:]), run_dir.parent)

    def refused(self, e) -> None:
        """Bad input or a failed step: one line (a sweep's job fails, the sweep goes on)."""
        from .plumbing.errors import log_to_files, printable

        if self.owner:  # the log of a directory another process owns is that process's
            log_to_files(str(e))
        if self.multirun:
            raise JobFailed(printable(e)) from None
        self.lock.close()
        if self.owner:  # a run refused because another process owns the directory touches nothing there
            from .plumbing.leftovers import remove_if_only_hydra

            remove_if_only_hydra(self.run_dir)
        _fail(str(e))

    def stopped(self, e) -> None:
        """Ctrl-C, SIGTERM or the time limit: what was kept and how to resume, in one line."""
        from .plumbing.errors import TIME_LIMIT_EXIT, TimeLimit
        from .store import is_complete

        run_dir = self.run_dir
        h5 = run_dir / "samples.h5"
        evaluating = isinstance(e, KeyboardInterrupt) and is_complete(run_dir)
        if evaluating:
            msg = f"interrupted during the evaluation; {h5} is complete: bnnsample evaluate {run_dir} evaluates it"
        elif isinstance(e, TimeLimit):
            msg = f"stopped: {e}" + (f"; draws and resume state in {h5}" if h5.exists() else "")
        else:
            msg = f"interrupted ({str(e) or 'at once'}); {_kept_after_stop(run_dir)}"
        if not self.multirun and not evaluating:
            msg += f"; to resume: {resume_command(sys.argv[1:], run_dir)}"
        if self.multirun:
            raise JobFailed(f"{msg}; rerun the same command to resume") from None
        _fail(msg, TIME_LIMIT_EXIT if isinstance(e, TimeLimit) else 130)


def _hydra_run(argv: list[str]) -> None:
    import hydra
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import DictConfig

    from .plumbing.paths import conf_dir

    held = _HeldStderr(sys.stderr)

    @hydra.main(config_path=str(conf_dir()), config_name="config", version_base="1.3")
    def task(cfg: DictConfig) -> None:
        _Job(cfg, HydraConfig.get()).execute()

    from .plumbing.suggest import apply_aliases

    argv = apply_aliases(argv)
    _check_syntax(argv)
    # Ctrl-C and a launcher's SIGTERM stop the loop at the next block boundary, draws kept.
    _stop_on_signals()
    sys.argv = ["bnnsample run", *argv]
    real, sys.stderr = sys.stderr, held
    try:
        task()
    except SystemExit as e:
        text = held.take()
        sys.stderr = real
        if e.code not in (0, None) and text.strip():
            _fail(one_line(text), 1 if "Error executing job" in text else 2)
        real.write(text)
        raise
    finally:
        if sys.stderr is held:
            sys.stderr = real
            held.dump()


def _interrupt_on_sigterm() -> None:
    """SIGTERM stops a command that has no block boundary to stop at (evaluate, export) as
    Ctrl-C does: one line, nothing half written."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, signal.default_int_handler)


def _evaluate(paths: list[str]) -> None:
    if not paths:
        _fail("evaluate needs at least one RUN_DIR (a directory holding samples.h5, or a multirun directory)")
    from .plumbing.errors import UserError, printable

    _interrupt_on_sigterm()
    try:  # the import too: Ctrl-C while scipy and matplotlib load is an interrupt, not a traceback
        from .evaluate.report import evaluate_paths

        failed = evaluate_paths([Path(p) for p in paths])
    except KeyboardInterrupt:
        _fail("evaluate: interrupted; metrics.csv of the runs finished so far are written, rerun to do the rest", 130)
    except UserError as e:
        _fail(str(e))
    except OSError as e:  # a path the file system refuses (too long, not readable, a disk that fills)
        _fail(f"evaluate: {printable(e.filename or '')}: {e.strerror or type(e).__name__}")
    if failed:
        sys.exit(1)


def _export(paths: list[str]) -> None:
    from .plumbing.errors import UserError, printable

    if not paths or paths[0] in ("-h", "--help"):
        print("usage: bnnsample export RUN_DIR...  (writes RUN_DIR/posterior.nc, an ArviZ InferenceData)")
        return
    _interrupt_on_sigterm()
    try:
        from .evaluate.export import export_run
        from .rundir import RunDirBusy
        from .store import FILENAME, StoreDamaged
    except KeyboardInterrupt:
        _fail("export: interrupted; nothing was replaced", 130)

    for p in paths:
        run_dir = Path(p)
        try:
            found = (run_dir / FILENAME).is_file()
        except OSError as e:  # a path the file system refuses (too long)
            _fail(f"export: {printable(p)}: {e.strerror or type(e).__name__}")
        if not found:
            _fail(f"export: {printable(p)}: no {FILENAME} there (give a run directory)")
        try:
            say(export_run(run_dir))
        except RunDirBusy as e:
            _fail(f"export: {printable(p)} is in use by {e.holder} (a bnnsample run or evaluation there); export it "
                  "once that has ended")  # fmt: skip
        except StoreDamaged as e:
            _fail(f"export: {printable(run_dir / FILENAME)}: {e}")
        except UserError as e:
            _fail(f"export: {e}")
        except OSError as e:
            _fail(f"export: {printable(e.filename or p)}: {e.strerror or type(e).__name__}")
        except KeyboardInterrupt:
            _fail("export: interrupted; nothing was replaced", 130)


def _figure(args: list[str]) -> None:
    from .figures.costs import LEDGER
    from .figures.report import recipe_lines
    from .papers import get_recipe, recipes

    if not args or args[0] in ("-h", "--help"):
        print("usage: bnnsample figure ID [--out DIR] [--replace] [--record-cost] [key=value ...] | "
              "bnnsample figure --list")  # fmt: skip
        return
    costs_dir = Path.cwd() / "results"
    if args[0] == "--list":
        costs = _measured_costs(costs_dir)
        print(f"figures, their scales and the CPU time each took, measured (the ledger {costs_dir / LEDGER}):")
        for r in recipes().values():
            print("\n".join(recipe_lines(r, costs)))
        return
    fig_id, rest = args[0], args[1:]
    try:
        recipe = get_recipe(fig_id)
    except KeyError as e:
        _fail(e.args[0])
    if rest and rest[0] in ("-h", "--help"):
        print("\n".join(recipe_lines(recipe, _measured_costs(costs_dir), detail=True)))
        return
    out_dir, options, replace, record = _figure_arguments(fig_id, rest)
    _check_figure_options(recipe, options)
    out_dir = _figure_out_dir(fig_id, out_dir, options, replace)
    with _figure_lock(fig_id, out_dir, record):
        _run_recipe(recipe, out_dir, options, record)


def _check_figure_options(recipe, options: dict) -> None:
    """The recipe's options checked before any work and any folder (``figures.driver.recipe``)."""
    from .figures.common import COMMON_OPTIONS

    check = getattr(recipe.make, "check", None)
    if check is not None:
        try:
            check({k: v for k, v in options.items() if k not in COMMON_OPTIONS})
        except (ValueError, TypeError) as e:
            _fail(f"figure {recipe.id}: {e}")


def _measured_costs(costs_dir: Path) -> dict:
    from .figures.costs import measured_costs
    from .plumbing.errors import UserError

    try:
        return measured_costs(costs_dir)
    except UserError as e:
        _fail(f"figure: {e}")


def _figure_arguments(fig_id: str, rest: list[str]) -> tuple[Path, dict, bool, bool]:
    """(--out DIR or ./results, the key=value options, --replace, --record-cost) of `figure ID ...`."""
    out_dir, options, replace, record = Path.cwd() / "results", {}, False, False
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--replace":
            replace, i = True, i + 1
        elif a == "--record-cost":
            record, i = True, i + 1
        elif a == "--out":
            if i + 1 >= len(rest):
                _fail("--out needs a directory")
            out_dir, i = Path(rest[i + 1]), i + 2
        elif a.startswith("--out="):
            out_dir, i = Path(a.split("=", 1)[1]), i + 1
        elif "=" not in a or a.startswith("-"):
            _fail(f"figure {fig_id}: bad argument {a!r}; expected --out DIR, --replace, --record-cost or key=value")
        else:
            k, v = a.split("=", 1)
            options[k], i = v, i + 1
    return out_dir, options, replace, record


def _figure_out_dir(fig_id: str, out_dir: Path, options: dict, replace: bool) -> Path:
    """Where the recipe writes: never the package; beside a section of another scale unless
    --replace."""
    from .figures.report import beside_other_scale, check_out_dir

    out_dir = out_dir.expanduser().resolve()
    err = check_out_dir(out_dir)
    if err:
        _fail(f"figure {fig_id}: --out {out_dir}: {err}")
    beside = None if replace else beside_other_scale(out_dir, fig_id, options.get("scale", "quick"))
    if beside is not None:
        out_dir, held = beside
        say(f"figure {fig_id}: {out_dir.parent / 'REPRODUCTION.md'} holds this figure at {held}; this run writes "
            f"beside it, under {out_dir} (--replace replaces it)")  # fmt: skip
    say(f"figure {fig_id}: writing under {out_dir}")
    return out_dir


FIGURE_LOCK = "BNNSAMPLE_FIGURE_LOCK"  # the folder whose lock this process's parent invocation holds


def _figure_lock(fig_id: str, out_dir: Path, record: bool = False) -> contextlib.ExitStack:
    """Before any work: ``out_dir`` can be written, the cost file it will write (``_cost_file``)
    and REPRODUCTION.md are not links, and this invocation holds ``out_dir/<id>`` alone
    (``rundir.owned``), so that a second invocation of the figure into the same folder stops at
    once, naming the holder. The worker processes the holder starts (``figure ID ... part=``) run
    under its lock (FIGURE_LOCK)."""
    import tempfile

    from .plumbing.errors import UserError, printable
    from .rundir import RunDirBusy, check_writable_target, owned

    fig_dir = out_dir / fig_id
    stack = contextlib.ExitStack()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=out_dir, prefix=".bnnsample-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        _fail(f"figure {fig_id}: --out {printable(out_dir)}: cannot write there ({e.strerror or type(e).__name__})")
    try:
        for path in (_cost_file(fig_id, out_dir, record), out_dir / "REPRODUCTION.md"):
            check_writable_target(path)
        if os.environ.get(FIGURE_LOCK) != str(fig_dir):
            stack.enter_context(owned(fig_dir))
            os.environ[FIGURE_LOCK] = str(fig_dir)
            stack.callback(os.environ.pop, FIGURE_LOCK, None)
    except RunDirBusy as e:
        _fail(f"figure {fig_id}: {fig_dir} is in use by {e.holder} (another `bnnsample figure {fig_id}` writing "
              "there); wait for it to finish or give another --out DIR")  # fmt: skip
    except UserError as e:
        _fail(f"figure {fig_id}: {str(e).replace('choose another hydra.run.dir', 'give another --out DIR')}")
    return stack


def _cost_file(fig_id: str, out_dir: Path, record: bool) -> Path:
    """Where an invocation's measured cost goes: beside its results, ``out_dir/<id>/cost.csv``
    (git-ignored: a figure run leaves the checkout as it was), or with --record-cost into the
    ledger of the results folder (``figures.costs``)."""
    from .figures.costs import OWN, ledger_path

    return ledger_path(out_dir) if record else out_dir / fig_id / OWN


def _run_recipe(recipe, out_dir: Path, options: dict, record: bool = False) -> None:
    """Say what runs and what the ledger says it costs, run the recipe, print its files and its
    claims' verdicts with their reasons, and record its cost (this process and the workers it
    waited for) in its cost file (``_cost_file``)."""
    import resource
    import time

    from .config import figure_overrides
    from .figures.common import COMMON_OPTIONS
    from .figures.costs import estimate_of, ledger_path, record_cost
    from .figures.report import before_and_after
    from .plumbing.errors import TIME_LIMIT_EXIT, Interrupted, TimeLimit, UserError, printable

    fig_id = recipe.id
    wall0, cpu0 = time.monotonic(), time.process_time()
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)  # cumulative over the process: count this invocation's
    threads = int(options["jobs"]) if str(options.get("jobs", "")).isdigit() else 1
    say(f"figure {fig_id}: {estimate_of(ledger_path(out_dir).parent, fig_id, options, threads)}")
    cost_file = _cost_file(fig_id, out_dir, record)
    common = [f"{k}={options.pop(k)}" for k in COMMON_OPTIONS if k in options]
    with before_and_after(out_dir, fig_id) as verdicts, figure_overrides(common):
        try:
            paths = recipe.make(out_dir, options)
        except (ValueError, TypeError, UserError) as e:
            _fail(f"figure {fig_id}: {e}")
        except TimeLimit as e:
            _fail(f"figure {fig_id}: stopped at its time limit ({e}); the same command resumes its runs",
                  TIME_LIMIT_EXIT)  # fmt: skip
        except (KeyboardInterrupt, Interrupted) as e:
            _fail(f"figure {fig_id}: interrupted ({str(e) or 'at once'}); the same command resumes its runs", 130)
        except OSError as e:  # the file system refused (read-only, full, an I/O error)
            _fail(f"figure {fig_id}: {printable(e.filename or out_dir)}: {e.strerror or type(e).__name__}")
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    # a finished invocation (a worker's share writes no tables and is not counted), at what it
    # measured unless the recipe kept another cost (the runs or cells it reused, whose time it kept)
    if paths:
        cpu = time.process_time() - cpu0 + children.ru_utime + children.ru_stime - kids0.ru_utime - kids0.ru_stime
        record_cost(cost_file, fig_id, *(getattr(paths, "cost", None) or (options, time.monotonic() - wall0, cpu)))
    for p in paths:
        print(p)
    print(verdicts.text or f"[bnnsample] figure {fig_id}: no claim verdicts written")


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv) or ["--help"]
    if argv[0] in ("run", "evaluate"):
        from .plumbing.threads import set_default

        set_default()
    try:
        _command(argv[0], argv[1:])
    except BrokenPipeError:
        # the reader went away (`bnnsample info | head -1`): stop quietly, as cat does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(141)


def _command(cmd: str, rest: list[str]) -> None:
    if cmd in ("-h", "--help", "help"):
        print(USAGE)
    elif cmd == "run":
        _hydra_run(rest)
    elif cmd == "evaluate":
        _evaluate(rest)
    elif cmd == "figure":
        _figure(rest)
    elif cmd == "export":
        _export(rest)
    elif cmd == "info":
        from .plumbing.info import print_info

        print_info()
    else:
        _fail(f"unknown command {cmd!r}; allowed: run, evaluate, figure, export, info, --help")


if __name__ == "__main__":
    main()

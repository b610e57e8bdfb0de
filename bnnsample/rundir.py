"""Ownership of a run directory and the rules for the files bnnsample writes there.

* One owner: a process takes an exclusive ``flock`` on ``RUN_DIR/.bnnsample.lock`` (the lock
  file holds its PID) before it touches anything in the directory, and holds it while it
  runs, samples and evaluates. The lock is bnnsample's own, independent of HDF5's file
  locking, so it also holds under ``HDF5_USE_FILE_LOCKING=FALSE`` (NFS, Lustre). A second
  ``bnnsample run`` refuses at once with one line naming the holder; a figure recipe, which
  needs that run's result, says whom it waits for and waits (``owned(..., wait=True)``).
* No writes through links: a file bnnsample would write (samples.h5, config.yaml,
  metrics.csv, the lock file) that is a symbolic link, or not a regular file, is refused.
* Nothing damaged is replaced silently: an unreadable samples.h5 is renamed to
  ``samples.h5.damaged-<time>`` and named in the message.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import sys
import time
from pathlib import Path

from .plumbing.errors import UserError
from .plumbing.progress import say

LOCKNAME = ".bnnsample.lock"

# locks this process holds: resolved run directory -> [fd, depth]. flock locks belong to an
# open file description, so a nested acquire in the same process reuses the held one instead
# of locking itself out (the CLI locks around run + evaluate, runner.run locks again).
_held: dict[str, list[int]] = {}


class RunDirBusy(UserError):
    """Another process owns the run directory; ``holder`` names it ("PID 123")."""

    def __init__(self, message: str, holder: str = ""):
        super().__init__(message)
        self.holder = holder


def check_writable_target(path: Path) -> None:
    """Refuse to write ``path`` when it is a link or not a regular file (a FIFO, a device, a
    directory): bnnsample never follows a link to write, and never writes over what it did
    not make. A missing file is fine."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise UserError(
            f"{path} is a symbolic link (to {os.readlink(path)}); bnnsample never writes through links: "
            "remove the link or choose another hydra.run.dir"
        )
    if not stat.S_ISREG(st.st_mode):
        raise UserError(f"{path} is not a regular file; remove it or choose another hydra.run.dir")
    if st.st_nlink > 1:
        raise UserError(
            f"{path} has {st.st_nlink} hard links; writing it would change the other names too: "
            "copy it (cp) or choose another hydra.run.dir"
        )


def _holder(lock_path: Path) -> str:
    try:
        pid = lock_path.read_text().strip()
    except OSError:
        pid = ""
    return f"PID {pid}" if pid.isdigit() else "another process (PID not yet written)"


@contextlib.contextmanager
def owned(run_dir: Path, wait: bool = False):
    """Hold the exclusive lock of ``run_dir`` (created if missing) for the body. When another
    process holds it: raise RunDirBusy, or with ``wait`` print whom we wait for on stderr and
    block until it lets go."""
    run_dir = Path(run_dir)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        key = str(run_dir.resolve())
    except OSError as e:
        raise UserError(f"run directory {run_dir}: cannot create it ({e.strerror or e})") from None
    if key in _held:
        _held[key][1] += 1
        try:
            yield
        finally:
            _held[key][1] -= 1
        return
    lock_path = run_dir / LOCKNAME
    check_writable_target(lock_path)
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as e:
        raise UserError(f"run directory {run_dir}: cannot write there ({e.strerror or e})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        busy = e.errno in (errno.EWOULDBLOCK, errno.EACCES, errno.EAGAIN)
        if not busy:
            os.close(fd)
            raise UserError(f"run directory {run_dir}: cannot lock {lock_path} ({e.strerror or e})") from None
        if not wait:
            os.close(fd)
            holder = _holder(lock_path)
            raise RunDirBusy(
                f"{run_dir} is in use by {holder} (a bnnsample run or evaluation there); "
                "wait for it to finish or choose another hydra.run.dir",
                holder,
            ) from None
        say(f"waiting for {run_dir}: in use by {_holder(lock_path)}", sys.stderr)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:  # Ctrl-C while waiting
            os.close(fd)
            raise
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    _held[key] = [fd, 1]
    try:
        yield
    finally:
        del _held[key]
        os.close(fd)  # releases the lock; the file stays (unlinking it would race a waiter)


def move_aside(path: Path, why: str) -> Path:
    """Rename a damaged file to ``<name>.damaged-<time>`` (never overwriting one) and return
    the new path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    dest = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while dest.exists() or dest.is_symlink():
        dest = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
        n += 1
    os.rename(path, dest)
    return dest


def damaged_error(path: Path, why: str) -> UserError:
    """Move a damaged ``path`` aside and return the one-line error that names both files."""
    dest = move_aside(path, why)
    return UserError(
        f"{path} is damaged ({why}); moved it to {dest.name} (nothing deleted); "
        "rerun the same command to start the run afresh"
    )


@contextlib.contextmanager
def replaced(path: Path):
    """The one tmp-then-rename of bnnsample: yields a temporary path beside ``path`` for the
    body to write; when the body returns, the temporary file is renamed over ``path``. On any
    other exit (an error, Ctrl-C, SIGTERM, sys.exit) the temporary file is removed and ``path``
    left as it was. A write the file system refuses (disk full, read-only, I/O error) is one
    line naming the file and the cause (WriteRefused). Never through a link
    (``check_writable_target``)."""
    from .plumbing.errors import WriteRefused

    path = Path(path)
    check_writable_target(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        yield tmp
        os.replace(tmp, path)
    except OSError as e:
        raise WriteRefused(f"could not write {path}: {e.strerror or type(e).__name__}") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def write_bytes(path: Path, data: bytes, durable: bool = True) -> Path:
    """The one way bnnsample writes a file: through ``replaced`` (never through a link, never
    half written, nothing left behind on any exit, a refused write one WriteRefused line), the
    temporary file fsynced before the rename when ``durable``."""
    with replaced(path) as tmp, open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        if durable:
            os.fsync(fh.fileno())
    return Path(path)


def write_file(path: Path, text: str, durable: bool = False) -> Path:
    """A text file written as ``write_bytes`` writes (UTF-8)."""
    return write_bytes(path, text.encode(), durable)


def write_frame(frame, path: Path, **to_csv) -> Path:
    """A pandas DataFrame as CSV, written as ``write_bytes`` writes."""
    return write_file(path, frame.to_csv(**to_csv))


def write_figure(fig, path: Path, **savefig) -> Path:
    """A matplotlib figure (PNG), written as ``write_bytes`` writes."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format=Path(path).suffix.lstrip(".") or "png", **savefig)
    return write_bytes(path, buf.getvalue(), durable=False)


def write_csv(path: Path, rows: list[dict], float_format: str | None = "{:.6g}", columns=None) -> Path:
    """Rows (dicts) as CSV, floats formatted with ``float_format`` (None: Python's repr); the
    columns are ``columns`` when given (the header even with no rows), else the union of the
    rows' keys in order of appearance. Creates the parent directory. The one CSV writer of the
    recipes."""
    import csv
    import io

    keys = list(columns) if columns is not None else list(dict.fromkeys(k for r in rows for k in r))
    fmt = (lambda v: float_format.format(v) if isinstance(v, float) else v) if float_format else (lambda v: v)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=keys, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: fmt(v) for k, v in r.items()})
    return write_file(path, buf.getvalue())


def read_csv(path: Path) -> list[dict]:
    """Rows of a CSV that ``write_csv`` wrote, its cells parsed back: True/False as booleans,
    integers, floats (nan included), anything else as text (an empty cell stays "")."""
    import csv

    def parse(v: str):
        if v in ("True", "False"):
            return v == "True"
        for kind in (int, float):
            try:
                return kind(v)
            except ValueError:
                pass
        return v

    with open(path, newline="") as f:
        return [{k: parse(v) for k, v in r.items()} for r in csv.DictReader(f)]

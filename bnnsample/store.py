"""SampleStore: the only module that knows the HDF5 names of ``samples.h5``.

Layout (the storage contract of the manual's Outputs section, docs/guide/runs.md, plus two documented extensions):

    theta                  (chains, draws, dim)          thinned positions (optional)
    predictive             (chains, draws, n_test, K)    test-set class probabilities per draw
    diverged               (chains,) bool                chain hit NaN/Inf
    diagnostics/<name>     (chains, draws)               e.g. kinetic temperature, bounces
    state/<name>           arrays needed to resume (x, v, RNG states, schedule, step)
    targets                (n_test,)                     test labels            [extension]
    baselines/<name>       (runs, n_test, K)             e.g. standard training, SWA [extension]
    attrs: config (resolved YAML), version, seed, integrator, batching, step_size,
           batch_size, draws_planned, draws (written so far), complete (bool)

Draws are appended in blocks; ``attrs['draws']`` says how many are valid and is updated,
with the resume state, at every flush, so a killed run leaves a readable file.

Crash consistency: a flush is atomic, so a writer killed at any moment (SIGKILL included)
leaves on disk the store of its last flush: its draws and the resume state written with them.

* What HDF5 alone leaves (measured): a flush writes the new chunks, then the dirty metadata
  from address 0 up (strace), the superblock (at 0, holding the end-of-file address) first. Killed in
  between, the file is shorter than its superblock says (issue 46's "truncated file: eof <
  stored_eof"; the space fallocate reserves with KEEP_SIZE changes no size HDF5 reads), or a
  B-tree node points to one not yet written, or ``attrs['draws']`` counts chunks not yet
  indexed; and a kill inside ``write_state`` left a torn resume state, so the rerun started
  afresh. Killing the writer of tests/test_crash_consistency.py at random moments tore the
  store within a few kills.
* A writer opens the store through ``UndoLog`` (h5py's ``fileobj`` driver): every byte HDF5
  writes passes through it. Let S be the file's size at the last flush. Before any of the
  bytes [0, S) is overwritten or cut off by a truncation, its current value is appended to
  ``samples.h5.undo`` (one record, one write(2)); bytes at S and beyond are new. A flush is
  HDF5's flush (after it the file is a whole HDF5 file, as another opener would read it), an
  fsync of the store, then the undo log truncated to nothing: that is the commit point (the
  empty log is removed when the store is closed).
* After a kill at any moment the disk holds the committed file with some of the later writes
  done, and a log whose whole records hold the old value of every range those writes
  changed: a process's write(2) calls reach the page cache whole and in order (a signal is
  taken between system calls), and each record's write precedes the store's write it
  guards; a record the kill cut short guards no write that happened. The next open, in any
  mode, takes the writer's lock (flock, as HDF5's: nothing is undone while the writer lives),
  writes the records back newest first, so that the oldest copy of each range, the committed
  one, is what stays, and cuts the file to S: byte for byte the file of the last flush. A
  kill during that roll back leaves the log, and the next open does it again.
* Cost: only overwrites of committed bytes are copied (HDF5's metadata, a chunk rewritten
  in place, the resume state); appended chunks are not: 27 KB a flush against 1.56 MB of
  draws (200 chains x 16 draws of 20 coordinates and 50 x 2 predictive values).
* Not covered: a machine crash (not a kill) during a flush (the log is not synced before the
  overwrites it guards); the last flush before it is on the disk (fsync).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import math
import os
import re
import struct
from pathlib import Path

import h5py
import numpy as np

FILENAME = "samples.h5"
# every dataset with at least one value carries a Fletcher-32 checksum per chunk: a flipped
# byte on disk is an error when read (StoreDamaged), not a wrong number in the metrics
CHECKSUM = {"fletcher32": True}
VERIFY_VALUES = 2**24  # values read at a time by verify()
# numbers evaluation reads from the predictive at a time (16 MB of float32): its memory does
# not grow with the number of draws (the 1.34 GB store took 6.9 GB to evaluate)
READ_VALUES = 2**22


def _fsync(fd: int) -> None:
    """os.fsync, named here so that the recording benchmark can time what durability costs."""
    os.fsync(fd)


METADATA_MARGIN = 4 << 20  # bytes kept free beyond a write's data and chunks: HDF5's metadata


def _free_or_refuse(path: Path, nbytes: int, fd: int | None = None) -> None:
    """Refuse, before HDF5 touches the file, a write of about ``nbytes`` that the file system
    could not take: HDF5 does not survive a failed write (h5py then crashes with a segmentation
    fault when the file is closed), so a disk that filled since the last flush, or a file
    system remounted read-only, must be found here. With the open file's descriptor ``fd`` the
    space is also taken now: ``nbytes`` past the end of the file are allocated without changing
    its size (fallocate with FALLOC_FL_KEEP_SIZE), so another process that fills the disk
    between this check and HDF5's writes cannot take it. Raises WriteRefused (one line)."""
    from .plumbing.errors import WriteRefused

    st = os.statvfs(path.parent)
    if st.f_flag & os.ST_RDONLY:
        raise WriteRefused(f"{path}: its file system is read-only now")
    free = st.f_bavail * st.f_frsize
    if free < nbytes:
        raise WriteRefused(f"{path}: the disk has {free / 2**20:.1f} MB free, the next write needs about "
                           f"{nbytes / 2**20:.1f} MB")  # fmt: skip
    if fd is not None:
        err = _allocate_past_end(fd, nbytes)
        if err == errno.ENOSPC:
            raise WriteRefused(f"{path}: the disk cannot take the next write (about {nbytes / 2**20:.1f} MB)")
        if err == errno.EROFS:
            raise WriteRefused(f"{path}: its file system is read-only now")
        if err == errno.EIO:
            raise WriteRefused(f"{path}: an input/output error on its disk")


@functools.cache
def _fallocate():
    """libc's fallocate through ctypes (looked up once: 30 us a lookup), or None where there is none."""
    import ctypes

    try:
        fallocate = ctypes.CDLL(None, use_errno=True).fallocate
    except (OSError, AttributeError):
        return None
    fallocate.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64)
    return fallocate


def _allocate_past_end(fd: int, nbytes: int) -> int:
    """fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, size + nbytes): the file's blocks up to ``nbytes``
    past its end allocated, its size unchanged (HDF5 reads the size as its end of file); 0, or
    the errno; 0 also where the call or the file system does not support it (the free-space
    check above is then what holds)."""
    import ctypes

    fallocate = _fallocate()
    if fallocate is None:
        return 0
    if fallocate(fd, 1, 0, os.fstat(fd).st_size + int(nbytes)) == 0:  # 1 = FALLOC_FL_KEEP_SIZE
        return 0
    err = ctypes.get_errno()
    return err if err in (errno.ENOSPC, errno.EROFS, errno.EIO) else 0


class StoreDamaged(OSError):
    """A store that HDF5 cannot read back: a failed checksum, a truncated or garbled file."""


UNDO_SUFFIX = ".undo"  # samples.h5.undo: the old bytes of the writes since the last flush
_UNDO_MAGIC = b"BNNUNDO1"
_UNDO_HEADER = struct.Struct("<8sQ")  # magic, the store's size at the last flush
_UNDO_RECORD = struct.Struct("<QQ")  # offset, length; then the bytes that were there


def _undo_path(path: Path) -> Path:
    return path.with_name(path.name + UNDO_SUFFIX)


def _lock(fd: int, path: Path) -> None:
    """The writer's exclusive lock, the one HDF5 takes (flock): a reader or a second writer
    is refused while it lives, and a dead writer's lock is gone with its process."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise OSError(errno.EAGAIN, f"unable to lock file {path}: another process has it open") from None


def _write_all(fd: int, data, offset: int) -> None:
    view = memoryview(data).cast("B")
    while len(view):
        n = os.pwrite(fd, view, offset)
        view, offset = view[n:], offset + n


def _roll_back(fd: int, path: Path) -> bool:
    """Undo the writes a killed writer made after its last flush: the saved bytes put back,
    newest first (so the oldest copy of a range, the flushed one, is the one left), and the
    file cut to its flushed size; then the log emptied and removed. ``fd``: the store, open
    for writing and locked. False when there was nothing to undo."""
    undo = _undo_path(path)
    try:
        log = undo.read_bytes()
    except FileNotFoundError:
        return False
    if log:
        magic, size = _UNDO_HEADER.unpack_from(log) if len(log) >= _UNDO_HEADER.size else (b"", 0)
        if magic != _UNDO_MAGIC:
            raise StoreDamaged(f"its undo log {undo.name} is not one this program wrote")
        records, at = [], _UNDO_HEADER.size
        # a record the kill cut short was never followed by its write to the store: dropped
        while at + _UNDO_RECORD.size <= len(log):
            start, n = _UNDO_RECORD.unpack_from(log, at)
            at += _UNDO_RECORD.size
            if at + n > len(log):
                break
            records.append((start, memoryview(log)[at : at + n]))
            at += n
        for start, old in reversed(records):
            _write_all(fd, old, start)
        os.ftruncate(fd, size)
        _fsync(fd)
    undo.unlink()
    return bool(log)


def roll_back_if_abandoned(path: Path) -> bool:
    """Before a store is read: undo what a writer killed mid-flush left past its last flush
    (``UndoLog``). Nothing is done while the writer lives (it holds the lock); True when
    writes were undone."""
    if not _undo_path(path).exists():
        return False
    fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # its writer is alive: HDF5's own lock refuses the reader
        return _roll_back(fd, path)
    finally:
        os.close(fd)


class UndoLog:
    """The file object through which HDF5 writes a store (h5py's ``fileobj`` driver): before
    any byte the last flush left on disk is overwritten or cut off, its old value is appended
    to ``samples.h5.undo``; ``commit`` (after HDF5's flush) syncs the store and empties the
    log. See the module docstring for why this makes every flush atomic."""

    def __init__(self, path: Path, create: bool):
        self.path = Path(path)
        flags = os.O_RDWR | os.O_CLOEXEC | (os.O_CREAT | os.O_TRUNC if create else 0)
        self.fd = os.open(self.path, flags, 0o666)
        try:
            _lock(self.fd, self.path)
            if create:  # a log left beside another store of this name is not this one's
                _undo_path(self.path).unlink(missing_ok=True)
            else:
                _roll_back(self.fd, self.path)
        except BaseException:
            os.close(self.fd)
            raise
        self.flushed = os.fstat(self.fd).st_size  # the size at the last commit
        self.pos = 0
        self.log = None  # the undo log's descriptor, opened at the first record, kept until close
        self.log_end = 0  # its length: 0 between a commit and the next record
        self.broken = False  # a write failed since the last commit: what HDF5 left is not committed

    # the calls of h5py's fileobj driver
    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self.pos, os.SEEK_END: None}[whence]
        self.pos = (os.fstat(self.fd).st_size if base is None else base) + offset
        return self.pos

    def tell(self) -> int:
        return self.pos

    def readinto(self, buf) -> int:
        n = os.preadv(self.fd, [buf], self.pos)
        self.pos += n
        return n

    def read(self, n: int = -1) -> bytes:
        n = os.fstat(self.fd).st_size - self.pos if n is None or n < 0 else n
        data = os.pread(self.fd, max(0, n), self.pos)
        self.pos += len(data)
        return data

    def write(self, buf) -> int:
        n = memoryview(buf).nbytes
        with self._failing():
            self._save(self.pos, min(self.pos + n, self.flushed))
            _write_all(self.fd, buf, self.pos)
        self.pos += n
        return n

    def truncate(self, size: int | None = None) -> int:
        size = self.pos if size is None else int(size)
        with self._failing():
            self._save(size, self.flushed)
            os.ftruncate(self.fd, size)
        return size

    @contextlib.contextmanager
    def _failing(self):
        try:
            yield
        except OSError as e:
            self.broken = True
            if e.filename is None:  # os.pwrite names no file: the store is the one whose write failed
                raise OSError(e.errno, e.strerror, str(self.path)) from e
            raise

    def flush(self) -> None:
        """Nothing: HDF5's flush ends in ``commit``, called by the store."""

    def _save(self, start: int, end: int) -> None:
        """Append the bytes [start, end) of the store as they are to the undo log, before
        they are overwritten (one write: a kill cannot cut it in two)."""
        if start >= end:
            return
        old = os.pread(self.fd, end - start, start)
        record = _UNDO_RECORD.pack(start, len(old)) + old
        if self.log is None:
            self.log = os.open(_undo_path(self.path), os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
        if self.log_end == 0:
            record = _UNDO_HEADER.pack(_UNDO_MAGIC, self.flushed) + record
        _write_all(self.log, record, self.log_end)
        self.log_end += len(record)

    def commit(self) -> None:
        """Make the writes since the last commit the store's state: the store synced first
        (``_fsync``), then the undo log emptied: the commit point (it is removed on close).
        Refused (OSError) after a failed write: the next open puts back the last flush instead."""
        if self.broken:
            raise OSError(errno.EIO, f"{self.path}: a write failed since the last flush")
        _fsync(self.fd)
        self.flushed = os.fstat(self.fd).st_size
        if self.log_end:
            os.ftruncate(self.log, 0)
            self.log_end = 0

    def rename(self, dest: Path) -> None:
        """Give the committed store another name (no transaction may be open)."""
        assert self.log_end == 0, "rename with writes not committed"
        self._close_log()
        _undo_path(Path(dest)).unlink(missing_ok=True)  # first: a stale log must never meet the store
        os.rename(self.path, dest)
        self.path = Path(dest)

    def _close_log(self) -> None:
        """Close the undo log; remove it when empty (committed), keep it for the roll back else."""
        if self.log is not None:
            os.close(self.log)
            self.log = None
            if self.log_end == 0:
                _undo_path(self.path).unlink(missing_ok=True)

    def close(self) -> None:
        self._close_log()
        os.close(self.fd)


def _checksum(shape) -> dict:
    """Fletcher-32 needs chunked storage: not for scalars or empty arrays."""
    return CHECKSUM if len(shape) and int(np.prod(shape)) > 0 else {}


WHOLE_CHUNK_BYTES = 1 << 20  # a dataset given whole up to this size is one chunk


@functools.lru_cache(maxsize=64)
def _h5_type(dtype: np.dtype, metadata: tuple, logical: bool):
    """h5py's HDF5 type of ``dtype`` (``metadata``: its items, which dtype equality ignores:
    h5py marks variable-length strings there), made once: 5-7 us a call, two to three calls
    for each of a new store's some forty objects."""
    return h5py.h5t.py_create(dtype, logical=logical)


def _type_of(dtype: np.dtype, logical: bool = True):
    return _h5_type(dtype, tuple(sorted((dtype.metadata or {}).items())), logical)


@functools.cache
def _intermediate_groups():
    """The link-creation list of every new dataset: "a/b" makes the group a, as h5py does."""
    lcpl = h5py.h5p.create(h5py.h5p.LINK_CREATE)
    lcpl.set_create_intermediate_group(True)
    return lcpl


def _new_dataset(group, name: str, shape: tuple, dtype, chunks: tuple | None = None, fillvalue=None, data=None,
                 wrap: bool = True):  # fmt: skip
    """A dataset made with HDF5's own calls, as h5py's ``create_dataset`` makes it (no time
    stamps), a Fletcher-32 checksum per chunk wherever it has a value (``_checksum``): a store
    of a short run is mostly small datasets, and h5py's checks of its arguments cost as much
    again as HDF5's work (30 against 65 us a dataset). ``chunks`` None: one chunk, or for
    ``data`` of more than WHOLE_CHUNK_BYTES h5py's ``create_dataset`` with its guessed chunks.
    ``wrap``: an h5py Dataset, else None (a dataset written once and not used again)."""
    shape, dtype = tuple(int(n) for n in shape), np.dtype(dtype)
    checked = bool(_checksum(shape))
    if checked and chunks is None and math.prod(shape) * dtype.itemsize > WHOLE_CHUNK_BYTES:
        return group.create_dataset(name, data=data, shape=shape, dtype=dtype, fillvalue=fillvalue, **CHECKSUM)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_obj_track_times(False)
    if checked:
        dcpl.set_chunk(chunks or shape)
        dcpl.set_fletcher32()
    if fillvalue is not None:
        dcpl.set_fill_value(np.array(fillvalue, dtype=dtype))
    space = h5py.h5s.create_simple(shape) if shape else h5py.h5s.create(h5py.h5s.SCALAR)
    ds = h5py.h5d.create(group.id, name.encode(), _type_of(dtype), space, dcpl=dcpl, lcpl=_intermediate_groups())
    if data is not None and math.prod(shape):
        ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(data, dtype=dtype))
    return h5py.Dataset(ds) if wrap else None


def _new_attrs(obj, attrs: dict) -> None:
    """Attributes of an object that has none of these names yet, made with HDF5's own calls, of
    the types h5py's ``attrs[name] = value`` gives them: h5py's AttributeManager spends about as
    much again on its checks and the delete-and-recreate of an existing name (a new store gets
    some twenty)."""
    from h5py._hl.base import array_for_new_object

    for name, value in attrs.items():
        data = array_for_new_object(value)
        space = h5py.h5s.create_simple(data.shape) if data.shape else h5py.h5s.create(h5py.h5s.SCALAR)
        attr = h5py.h5a.create(obj.id, name.encode(), _type_of(data.dtype), space)
        try:
            attr.write(data, mtype=_type_of(data.dtype, logical=False))
        finally:
            attr.close()


_REQUIRED = object()


def _read_scalar(obj, name: str, default=_REQUIRED):
    """A numeric or bool scalar attribute of ``obj`` read with HDF5's own calls (h5py's
    AttributeManager costs 43 against 12 us a read here); ``default`` where there is none
    (without one, KeyError as h5py raises)."""
    try:
        a = h5py.h5a.open(obj.id, name.encode())
    except KeyError:
        if default is _REQUIRED:
            raise
        return default
    try:
        out = np.empty((), a.dtype)
        a.read(out)
        return out[()]
    finally:
        a.close()


def _write_scalar(obj, name: str, value) -> None:
    """Set a numeric or bool scalar attribute: the existing one overwritten in place (67 against
    13 us through h5py, which deletes and recreates it), a new one made as h5py makes it."""
    try:
        a = h5py.h5a.open(obj.id, name.encode())
    except KeyError:
        _new_attrs(obj, {name: value})
        return
    try:
        a.write(np.asarray(value, dtype=a.dtype))
    finally:
        a.close()


def _write_draws(ds, k0: int, val: np.ndarray) -> None:
    """``ds[:, k0 : k0 + k] = val`` for a block val [C, k, ...] of every chain, with HDF5's own
    selection (h5py's slicing costs three times as much for a small block)."""
    val = np.ascontiguousarray(val)
    space = ds.id.get_space()
    space.select_hyperslab((0, k0) + (0,) * (val.ndim - 2), val.shape)
    ds.id.write(h5py.h5s.create_simple(val.shape), space, val)


def _dataset(group, name: str, value) -> None:
    value = np.asarray(value)
    _new_dataset(group, name, value.shape, value.dtype, data=value, wrap=False)


# values of one predictive chunk (256 KB of float32): a chunk holds one draw of this many
# values' worth of chains, so that a block of draws is written in few chunks (one chunk per
# chain and draw cost 2.2x the write time of 1000 chains x 10 draws x 4000 values)
PREDICTIVE_CHUNK_VALUES = 2**16


def _predictive_chunks(chains: int, n_test: int, k: int) -> tuple[int, int, int, int]:
    """(chains, 1, n_test, K): one draw of several chains per chunk, so that any block of
    draws fills whole chunks (no chunk is read back and rewritten by the next block)."""
    return max(1, min(chains, PREDICTIVE_CHUNK_VALUES // max(1, n_test * k))), 1, n_test, k


def _chunk_step(ds, step: int, axis: int = 0) -> int:
    """``step`` indices along ``axis`` rounded down to whole chunks of ``ds`` (at least one
    chunk): reads of that many never split a chunk, so none is read twice."""
    per_chunk = ds.chunks[axis] if ds.chunks else 1
    return max(per_chunk, step // per_chunk * per_chunk)


def _draw_chunks(chains: int, draws: int, per_draw: int, block: int | None = None) -> tuple[int, int]:
    """(chains, draws) chunk shape of about 2**20 values: HDF5 allocates chunked datasets as
    they are written, so a run stopped early does not leave a file sized for all planned draws.
    With the writer's ``block`` of draws (a power of two) the chunk spans a power of two of
    draws no larger, so that each full block writes whole chunks."""
    c = min(chains, 1024)
    n = max(1, 2**20 // max(1, c * per_draw))
    if block is not None:
        n = 1 << (min(n, block).bit_length() - 1)
    return c, min(draws, n)


class SampleStore:
    def __init__(self, path: str | Path, mode: str = "r", block_draws: int | None = None):
        self.path = Path(path)
        self.final_path: Path | None = None  # where publish() moves a staged store
        self.block_draws = block_draws  # draws the writer appends at a time (chunk shapes)
        self._per_draw = None  # (chains, draws planned, the per-draw datasets): _per_draw_datasets
        self._diverged = None
        self._undo = None  # a writer's UndoLog
        self._failed = False  # a write failed: closing must not commit what it left
        self._left_open = False  # the disk failed under a write: HDF5 is never asked to close the file (``close``)
        if mode == "r":
            roll_back_if_abandoned(self.path)
            self.f = h5py.File(self.path, mode)
            return
        if mode not in ("r+", "w"):
            raise ValueError(f"a store is opened with mode r, r+ or w, not {mode!r}")
        self._undo = UndoLog(self.path, create=mode == "w")
        try:
            self.f = h5py.File(self._undo, mode)
        except BaseException:
            self._undo.close()
            raise

    # -- creation ---------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        path: str | Path,
        *,
        chains: int,
        draws: int,
        dim: int,
        store_theta: bool,
        theta_dtype: str = "float32",
        predictive_shape: tuple[int, int] | None = None,
        attrs: dict | None = None,
        staged: bool = False,
        block_draws: int | None = None,
    ) -> SampleStore:
        """A new store. ``staged``: written under a temporary name (``path`` is created only
        by ``publish``), so that a failure while it is being set up leaves nothing at ``path``.
        ``block_draws``: the draws each ``append`` writes (a power of two), which the chunks
        of the per-draw datasets are shaped for."""
        path = Path(path)
        _free_or_refuse(path, METADATA_MARGIN)  # the layout's metadata: HDF5 must not meet a full disk
        final = None
        if staged:
            final, path = path, path.with_name(f".{path.name}.creating-{os.getpid()}")
        s = cls(path, "w", block_draws)
        s.final_path = final
        try:
            s._layout(chains, draws, dim, store_theta, theta_dtype, predictive_shape, attrs)
        except BaseException:
            s.discard()
            raise
        return s

    def _layout(self, chains, draws, dim, store_theta, theta_dtype, predictive_shape, attrs) -> None:
        f, per_draw = self.f, {}
        if store_theta and dim <= 4096:
            per_draw["theta"] = _new_dataset(f, "theta", (chains, draws, dim), theta_dtype,
                                             _draw_chunks(chains, draws, dim, self.block_draws) + (dim,),
                                             fillvalue=np.nan)  # fmt: skip
        elif store_theta:  # h5py guesses the chunks of wide positions
            per_draw["theta"] = f.create_dataset("theta", shape=(chains, draws, dim), dtype=theta_dtype, chunks=True,
                                                 fillvalue=np.nan, **CHECKSUM)  # fmt: skip
        if predictive_shape is not None:
            n_test, k = predictive_shape
            per_draw["predictive"] = _new_dataset(f, "predictive", (chains, draws, n_test, k), "float32",
                                                  _predictive_chunks(chains, n_test, k), fillvalue=np.nan)  # fmt: skip
        self._diverged = _new_dataset(f, "diverged", (chains,), bool, data=np.zeros(chains, dtype=bool))
        self._per_draw = (chains, draws, per_draw)  # a new store's: no lookups (diagnostics come with append)
        f.create_group("diagnostics")
        f.create_group("state")
        attrs = dict(attrs or {})
        if "config" in attrs:  # the run's record: a changed digit must not pass unnoticed
            attrs["config_sha256"] = _sha256(str(attrs["config"]))
        _new_attrs(f, {**attrs, "draws_planned": draws, "draws": 0, "complete": False})
        f.flush()

    # -- writing ----------------------------------------------------------------------
    def reserve(self, draws: int, new_diagnostics: int = 0, extra_bytes: int = 0) -> None:
        """Check, and take, the disk space that appending ``draws`` draws will use
        (``_free_or_refuse``): every chunk the append touches, whole (HDF5 writes a filtered
        chunk whole, and may write it to new space before freeing the old), those of the
        ``new_diagnostics`` datasets it creates too, plus ``extra_bytes`` (the resume state) and
        room for HDF5's metadata."""
        k0, k = self.n_draws, max(1, int(draws))
        chains, planned, per_draw = self._per_draw_datasets()

        def touched(shape, chunks, itemsize) -> int:
            first, last = k0 // chunks[1], min(k0 + k - 1, shape[1] - 1) // chunks[1]
            per_draw_chunk = math.prod(math.ceil(n / c) for i, (n, c) in enumerate(zip(shape, chunks)) if i != 1)
            return (last - first + 1) * per_draw_chunk * math.prod(chunks) * itemsize

        need = 0
        for ds in per_draw.values():
            if ds.chunks is not None:
                need += touched(ds.shape, ds.chunks, ds.dtype.itemsize)
        new = _draw_chunks(chains, planned, 1, self.block_draws)
        need += new_diagnostics * touched((chains, planned), new, 8)
        _free_or_refuse(self.path, need + int(extra_bytes) + METADATA_MARGIN, self._fd())

    def _per_draw_datasets(self) -> tuple[int, int, dict[str, h5py.Dataset]]:
        """(chains, draws planned, {name: dataset} of theta, predictive and diagnostics/*), looked
        up once per open store (a lookup costs about 20 us); ``append`` adds the diagnostics it
        creates."""
        if self._per_draw is None:
            f = self.f
            found = {n: f[n] for n in ("theta", "predictive") if n in f}
            found.update({f"diagnostics/{n}": d for n, d in f["diagnostics"].items()})
            self._per_draw = (int(f["diverged"].shape[0]), int(f.attrs["draws_planned"]), found)
        return self._per_draw

    def new_diagnostics(self, names) -> int:
        """How many of the diagnostics ``names`` the store has no dataset for yet."""
        per_draw = self._per_draw_datasets()[2]
        return sum(f"diagnostics/{n}" not in per_draw for n in names)

    def reserve_bytes(self, nbytes: int) -> None:
        """Check, and take, the room of ``nbytes`` about to be written outside ``append`` (the
        arrays a new store is given once), plus HDF5's metadata."""
        _free_or_refuse(self.path, int(nbytes) + METADATA_MARGIN, self._fd())

    def _fd(self) -> int | None:
        """The descriptor of a store open for writing; None when read only."""
        return None if self._undo is None else self._undo.fd

    def append(self, theta=None, predictive=None, diagnostics: dict | None = None) -> None:
        """Append a block of k draws: theta [C, k, d], predictive [C, k, n, K], diag [C, k]."""
        k0 = self.n_draws
        k = None
        _, planned, per_draw = self._per_draw_datasets()
        for name, val in (("theta", theta), ("predictive", predictive)):
            ds = per_draw.get(name) if val is not None else None
            if ds is not None:
                k = val.shape[1]
                _write_draws(ds, k0, val)
        for name, val in (diagnostics or {}).items():
            k = val.shape[1]
            ds = per_draw.get(f"diagnostics/{name}")
            if ds is None:
                ds = per_draw[f"diagnostics/{name}"] = _new_dataset(
                    self.f["diagnostics"], name, (val.shape[0], planned), "float64",
                    _draw_chunks(val.shape[0], planned, 1, self.block_draws), fillvalue=np.nan)  # fmt: skip
            _write_draws(ds, k0, val)
        if k is not None:
            self.set_draws(k0 + k)

    def write_array(self, name: str, value) -> None:
        if self.f.get(name) is not None:
            del self.f[name]
        _dataset(self.f, name, value)

    def set_diverged(self, mask) -> None:
        if self._diverged is None:
            self._diverged = self.f["diverged"]
        self._diverged.id.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(mask, dtype=bool))

    def write_state(self, state: dict[str, np.ndarray]) -> None:
        # The datasets are overwritten in place: a process killed half way through (SIGKILL
        # mid-flush) would leave x of one step with the RNG state of another. The state is
        # marked as being written, on disk, first; see ``state_consistent``.
        g = self.f["state"]
        first = len(g) == 0  # the first flush creates every dataset: no lookups (a miss costs 40 us)
        _write_scalar(g, "writing", True)
        self.f.flush()
        for name, value in state.items():
            value = np.asarray(value)
            ds = None if first else g.get(name)
            if ds is not None and ds.shape == value.shape and ds.dtype == value.dtype:
                ds[...] = value
            else:
                if ds is not None:
                    del g[name]
                _dataset(g, name, value)
        _write_scalar(g, "writing", False)

    @property
    def state_consistent(self) -> bool:
        """A resume state that was completely written (not torn by a kill mid-flush)."""
        if "state" not in self.f:
            return False
        g = self.f["state"]
        return "step" in g and not bool(_read_scalar(g, "writing", False))

    def flush(self) -> None:
        """Write HDF5's buffers and have the operating system put them on the disk (fsync), so
        that a crash of the machine, not only of the process, keeps the last flush. A write the
        disk refused late (fsync is where a delayed ENOSPC or EIO shows) is WriteRefused."""
        if self._undo is None:
            self.f.flush()
            return
        try:
            self.f.flush()
            self._undo.commit()
        except OSError as e:
            if e.errno in (errno.EINVAL, errno.ENOTSUP):
                self._failed = True
                return  # a file system that does not sync: nothing to make durable
            if (failed := self.mark_failed(e)) is not None:
                raise failed from e  # the disk failed: the command line ends the process at once
            from .plumbing.errors import WriteRefused

            raise WriteRefused(f"{self.path}: the disk refused the last flush ({e.strerror or e})") from None

    def publish(self) -> None:
        """Give a staged store its final name (an atomic rename, never over an existing file)."""
        if self.final_path is None:
            return
        if self.final_path.exists() or self.final_path.is_symlink():
            raise FileExistsError(f"{self.final_path} appeared while the store was being created")
        self.flush()
        self._undo.rename(self.final_path)
        self.path, self.final_path = self.final_path, None

    def discard(self) -> None:
        """Close and delete a store that was never published (its setup failed)."""
        self._failed = True
        self.close()
        if self.final_path is not None:
            self.path.unlink(missing_ok=True)
            _undo_path(self.path).unlink(missing_ok=True)

    def mark_complete(self, sampling_cpu_s: float | None = None, sampling_wall_s: float | None = None) -> None:
        """Mark the run complete; with the CPU and wall seconds its sampling took, where one process
        sampled it from the start (a resumed run's earlier legs are not timed, so it gets none)."""
        _free_or_refuse(self.path, METADATA_MARGIN, self._fd())
        for name, value in (("sampling_cpu_s", sampling_cpu_s), ("sampling_wall_s", sampling_wall_s)):
            if value is not None:
                _write_scalar(self.f, name, float(value))
        _write_scalar(self.f, "complete", True)
        self.flush()

    @property
    def sampling_seconds(self) -> tuple[float, float]:
        """(CPU, wall) seconds the run's sampling took, NaN where not recorded (``mark_complete``)."""
        return tuple(float(_read_scalar(self.f, k, math.nan)) for k in ("sampling_cpu_s", "sampling_wall_s"))

    # -- checking -------------------------------------------------------------------------
    def verify(self, under: str | None = None) -> None:
        """Read every value of every dataset back (or of those in the group ``under``), a slab
        of at most VERIFY_VALUES values at a time, so that HDF5 checks each chunk's Fletcher-32
        checksum; raises StoreDamaged naming the first dataset that cannot be read."""
        group = self.f if under is None else self.f[under]
        found: list[bytes] = []
        # HDF5's own walk and reads: h5py's visititems and slicing cost 2.3x as much on a resume state
        h5py.h5o.visit(group.id, lambda k, info: found.append(k) if info.type == h5py.h5o.TYPE_DATASET else None,
                       info=True)  # fmt: skip
        for name in found:
            key = name.decode()
            try:
                dsid = h5py.h5d.open(group.id, name)
                shape = dsid.shape
                if math.prod(shape) <= VERIFY_VALUES and dsid.dtype.kind in "biuf":
                    if math.prod(shape):
                        dsid.read(h5py.h5s.ALL, h5py.h5s.ALL, np.empty(shape, dsid.dtype))
                    continue
                d = h5py.Dataset(dsid)
                if math.prod(shape) <= VERIFY_VALUES:  # scalars and empty ones too: one read
                    d[()]
                    continue
                row = max(1, math.prod(shape[1:]))  # values per chain
                step = _chunk_step(d, VERIFY_VALUES // row)
                # chains of one chunk with too many draws to read at once: a slab of draws at a time
                per = _chunk_step(d, VERIFY_VALUES // (step * row // shape[1]), 1) if len(shape) > 1 else 1
                for i in range(0, shape[0], step):
                    if len(shape) > 1 and step * row > VERIFY_VALUES:
                        for j in range(0, shape[1], per):
                            d[i : i + step, j : j + per]
                    else:
                        d[i : i + step]
            except (OSError, ValueError) as e:
                name = key if under is None else f"{under}/{key}"
                raise StoreDamaged(f"{name} cannot be read back: {_first_line(e)}") from None

    def missing(self, expected: dict[str, tuple | None]) -> list[str]:
        """The datasets of ``expected`` ({name: shape, None for any shape, "group"}) that the store
        lacks or holds with another shape, as readable phrases."""
        out = []
        for name, shape in expected.items():
            try:  # HDF5's own lookup: h5py's get and its wrapping cost twice as much
                obj = h5py.h5o.open(self.f.id, name.encode())
            except KeyError:
                obj = None
            if shape == "group":
                if not isinstance(obj, h5py.h5g.GroupID):
                    out.append(f"no {name}/ group")
            elif not isinstance(obj, h5py.h5d.DatasetID):
                out.append(f"no {name}")
            elif shape is not None and obj.shape != tuple(shape):
                out.append(f"{name} of shape {obj.shape}, not {tuple(shape)}")
        return out

    # -- reading ----------------------------------------------------------------------
    @property
    def n_draws(self) -> int:
        return int(_read_scalar(self.f, "draws"))

    def set_draws(self, n: int) -> None:
        """Record ``n`` draws per chain as valid (``attrs['draws']``)."""
        _write_scalar(self.f, "draws", int(n))

    @property
    def complete(self) -> bool:
        return bool(_read_scalar(self.f, "complete", False))

    @property
    def theta_dim(self) -> int | None:
        return self.f["theta"].shape[2] if "theta" in self.f else None

    def theta(self, keep=None, coords=None, draws=None) -> np.ndarray | None:
        """Stored positions (chains, draws, dim), or only the ``keep`` chains, the ``coords``
        (a slice or increasing indices) and the ``draws`` (increasing indices) asked for: one
        read of all chains (a chunk holds several), no more than that part in memory."""
        if "theta" not in self.f:
            return None
        ds, n = self.f["theta"], self.n_draws
        cols = slice(None) if coords is None else coords
        if draws is None:
            out = ds[:, :n, cols]
        else:
            out = ds[:, np.asarray(draws, dtype=np.int64)]
            out = out if coords is None else out[:, :, cols]
        return out if keep is None else out[np.asarray(keep, dtype=bool)]

    def theta_blocks(self, keep=None, max_values: int | None = None):
        """Yield the kept chains' positions in blocks (draws, dim) of consecutive draws of one
        chain, at most ``max_values`` numbers read at a time (default READ_VALUES)."""
        if "theta" in self.f:
            for _, block in self._blocks(self.f["theta"], keep, max_values):
                yield block

    @property
    def has_predictive(self) -> bool:
        """The store holds predictive draws (a dataset with at least one draw written)."""
        return "predictive" in self.f and self.f["predictive"].shape[1] > 0 and self.n_draws > 0

    def predictive(self) -> np.ndarray | None:
        return self.f["predictive"][:, : self.n_draws] if "predictive" in self.f else None

    def predictive_blocks(self, keep=None, max_values: int | None = None):
        """Yield (k, block): draws of the k-th kept chain's predictive, (draws, n_test, K), in
        the order of the draws for each chain, at most ``max_values`` numbers read at a time
        (default READ_VALUES), so that evaluation holds one block in memory whatever the
        number of runs and draws."""
        if "predictive" in self.f:
            yield from self._blocks(self.f["predictive"], keep, max_values)

    def _blocks(self, ds, keep, max_values):
        """(k, ds[c, draws]) for the kept chains c (k-th kept), a block of consecutive draws of
        all chains read at once when it fits (an HDF5 chunk holds several chains: reading one
        chain at a time would read each chunk once per chain), else the chains of one chunk
        at a time when they fit, else chain by chain."""
        n, per_draw = self.n_draws, max(1, int(np.prod(ds.shape[2:])))
        kept = np.arange(ds.shape[0]) if keep is None else np.flatnonzero(keep)
        budget = max_values or READ_VALUES
        if ds.shape[0] * per_draw <= budget:
            per = budget // (ds.shape[0] * per_draw)
            for start in range(0, n, per):
                block = ds[:, start : min(n, start + per)]
                for k, c in enumerate(kept):
                    yield k, block[c]
            return
        group = _chunk_step(ds, 1)  # the chains of one chunk
        if group > 1 and group * per_draw <= budget:
            per = budget // (group * per_draw)
            for g0 in range(0, ds.shape[0], group):
                ks = [(k, c) for k, c in enumerate(kept) if g0 <= c < g0 + group]
                for start in range(0, n, per) if ks else ():
                    block = ds[g0 : g0 + group, start : min(n, start + per)]
                    for k, c in ks:
                        yield k, block[c - g0]
            return
        per = max(1, budget // per_draw)
        for k, c in enumerate(kept):
            for start in range(0, n, per):
                yield k, ds[c, start : min(n, start + per)]

    def predictive_points(self, keep, start: int, stop: int) -> np.ndarray:
        """The kept chains' draws pooled at test points start:stop, (kept chains x draws,
        stop - start, K): evaluation reads a few test points of every draw at a time when a
        statistic needs all draws of one test point (a Kolmogorov distance)."""
        ds, n = self.f["predictive"], self.n_draws
        part = ds[:, :n, start:stop]  # one read of all chains: a chunk holds several chains
        if keep is not None:
            part = part[np.asarray(keep, dtype=bool)]
        return part.reshape(-1, *part.shape[2:])

    def predictive_mean(self, keep=None, last: int | None = None) -> np.ndarray | None:
        """Each kept chain's predictive averaged over its draws, (chains, n_test, K) float64,
        or over its ``last`` draws only (all when None or more than there are); None without a
        predictive or without draws."""
        if "predictive" not in self.f or self.n_draws == 0:
            return None
        if last is not None and int(last) < 1:
            raise ValueError(f"last must be a number of draws >= 1, got {last}")
        ds = self.f["predictive"]
        chains = ds.shape[0] if keep is None else int(np.count_nonzero(keep))
        first = 0 if last is None else max(0, self.n_draws - int(last))
        out = np.zeros((chains, *ds.shape[2:]))
        seen = np.zeros(chains, dtype=np.int64)  # draws of each chain already read: blocks come in draw order
        for k, block in self.predictive_blocks(keep):
            skip = max(0, first - int(seen[k]))
            if skip < len(block):
                out[k] += block[skip:].sum(axis=0, dtype=np.float64)
            seen[k] += len(block)
        return out / (self.n_draws - first)

    def diverged(self) -> np.ndarray:
        return self.f["diverged"][...]

    def diagnostics(self) -> dict[str, np.ndarray]:
        return {k: v[:, : self.n_draws] for k, v in self.f["diagnostics"].items()}

    def read_state(self) -> dict[str, np.ndarray]:
        """The resume state as {"a/b": array} (nested groups flattened)."""
        out = {}
        if "state" in self.f:  # a complete run can be evaluated without it
            self.f["state"].visititems(lambda k, v: out.__setitem__(k, v[...]) if isinstance(v, h5py.Dataset) else None)
        return out

    def array(self, name: str) -> np.ndarray | None:
        return self.f[name][...] if name in self.f else None

    def group(self, name: str) -> dict[str, np.ndarray]:
        return {k: v[...] for k, v in self.f[name].items()} if name in self.f else {}

    @property
    def attrs(self):
        return self.f.attrs

    def config(self) -> dict:
        """The run's resolved config (attrs["config"], YAML) as a dict, checked against the
        checksum written with it; StoreDamaged when it was changed or does not parse."""
        import yaml

        text = self.f.attrs.get("config")
        if text is None:
            return {}
        text = str(text)
        want = self.f.attrs.get("config_sha256")
        if want is not None and _sha256(text) != str(want):
            raise StoreDamaged(
                f"{self.path}: its stored config was changed after the run (its SHA-256 differs from the one written with it)"
            )
        try:
            cfg = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise StoreDamaged(f"{self.path}: its stored config is not valid YAML ({_first_line(e)})") from None
        if not isinstance(cfg, dict):
            raise StoreDamaged(f"{self.path}: its stored config is not a mapping")
        return cfg

    def mark_failed(self, e: OSError) -> OSError | None:
        """A write to the store failed with ``e``: closing commits nothing. Where the disk itself failed (an I/O
        error, a file system shut down or gone: ``disk_errno``), closing leaves the HDF5 file open too, and the
        error naming the store and the cause is returned, for the caller to raise: HDF5 flushing its metadata to
        a failed disk, on close or when the interpreter frees it, crashed the process (SIGSEGV, about 1 in 5 runs
        with the file system shut down between flushes), so the error reaches the command line, which ends the
        process at once (``cli._end_after_io_error``); the next open puts the store back as the last flush left
        it. None where the disk did not fail (e.g. it is full)."""
        self._failed = True
        code = disk_errno(e)
        if code is None:
            return None
        self._left_open = True
        return OSError(code, os.strerror(code), str(self.path))

    def close(self) -> None:
        """Close; a writer's closing writes are committed like a flush (a kill during them
        leaves the store of the last flush), unless a write failed: then the undo log stays,
        and the next open puts the store back as the last flush left it (``mark_failed``: the
        HDF5 file is left open where the disk failed)."""
        undo, self._undo = self._undo, None
        try:
            if self._left_open:
                _LEFT_OPEN.append(self.f)  # never freed: freeing it closes it, as above
            elif self.f.id.valid:
                self.f.close()
            if undo is not None and not self._failed and not undo.broken:
                undo.commit()
        finally:
            if undo is not None:
                undo.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# HDF5 files of stores whose disk failed under a write (``SampleStore.mark_failed``), kept referenced so that HDF5
# is never asked to free them
_LEFT_OPEN: list = []


def disk_errno(e: OSError) -> int | None:
    """The errno of ``e`` where it says the disk failed (not filled) under a write: its errno, or the errno HDF5
    writes into its text ("errno = N"), is an I/O error, a read-only (shut down) file system or a device gone;
    else None."""
    from .plumbing.errors import DISK_FAILED_ERRNOS

    m = re.search(r"errno = (\d+)", str(e))
    code = e.errno if e.errno else int(m.group(1)) if m else None
    return code if code in DISK_FAILED_ERRNOS else None


def _sha256(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def open_checked(path: Path, mode: str = "r") -> SampleStore:
    """Open a store; a file HDF5 cannot open raises StoreDamaged with one line."""
    try:
        return SampleStore(path, mode)
    except OSError as e:
        if isinstance(e, (FileNotFoundError, PermissionError)):
            raise
        if "unable to lock file" in str(e).lower():  # HDF5's own file locking: another program has it open
            from .plumbing.errors import UserError

            raise UserError(f"{path} is open in another program ({_first_line(e)})") from None
        raise StoreDamaged(f"not a readable HDF5 file: {_first_line(e)}") from None


def stored_dataset(store: SampleStore) -> dict:
    """The dataset group of the config a store was made with (``SampleStore.config``: its
    digest checked first), less the description; {} when the store holds no config."""
    ds = dict(store.config().get("dataset") or {})
    ds.pop("description", None)
    return ds


def is_complete(run_dir: Path) -> bool:
    """Whether ``run_dir`` holds a store marked complete: False when it has none, or one that
    does not open (damaged, or being written by another process)."""
    path = Path(run_dir) / FILENAME
    if not path.is_file():
        return False
    try:
        with SampleStore(path) as st:
            return st.complete
    except OSError:
        return False


def open_stores(paths):
    """The stores at ``paths`` open together: a context manager yielding their list, which
    closes them all at its end (and those already open when one fails to open)."""
    from contextlib import ExitStack, contextmanager

    @contextmanager
    def opened():
        with ExitStack() as stack:
            yield [stack.enter_context(SampleStore(p)) for p in paths]

    return opened()

"""Progress bars with an ETA for every phase that can take more than a few seconds (training,
sampling, evaluation, the runs of a sweep, the cells of a figure recipe), and the one switch that
silences them all.

``progress=false`` in a run's config (or ``BNNSAMPLE_PROGRESS=0`` in the environment, for
``bnnsample evaluate``) turns every bar off: what a log file or a batch job wants. The bars
write to stderr (tqdm), so stdout keeps only results.
"""

from __future__ import annotations

import os
import time

_state = {"enabled": os.environ.get("BNNSAMPLE_PROGRESS", "1").lower() not in ("0", "false", "no", "off")}


def message(text: str, file=None) -> None:
    """Print a line (an error, a note) above any open progress bar, never glued to it: tqdm
    clears the bars, prints, and draws them again below."""
    import sys

    file = sys.stderr if file is None else file
    if "tqdm" in sys.modules:
        from tqdm import tqdm

        tqdm.write(text, file=file)
        file.flush()
    else:
        print(text, file=file, flush=True)


def say(text: str, file=None) -> None:
    """A "[bnnsample] ..." status line on stdout (or ``file``) above any open bar, control
    characters of names (a run directory called with an escape code) shown escaped."""
    import sys

    from .errors import printable

    message(f"[bnnsample] {printable(text)}", sys.stdout if file is None else file)


def set_enabled(on: bool) -> None:
    """Switch every bar of this process on or off (the run's ``progress`` key)."""
    _state["enabled"] = bool(on)


def enabled() -> bool:
    return _state["enabled"]


def bar(total: int, desc: str, unit: str = "it", initial: int = 0, enabled_here: bool = True):
    """A tqdm bar (elapsed<remaining shows the ETA), disabled when progress is off."""
    from tqdm.auto import tqdm

    return tqdm(
        total=total,
        initial=initial,
        desc=desc,
        unit=unit,
        disable=not (enabled_here and enabled()),
        dynamic_ncols=True,
        mininterval=0.5,
    )


class BlockBar:
    """The sampling bar inside a block of steps. The loop's blocks end only at draws and
    divergence checks (their boundaries fix the draws: a UBU block merges the OU half-steps
    at its ends), so the bar cannot wait for block ends; instead it advances one step per force
    evaluation inside the block (one gradient per step for most schemes), never past the
    block's last step, and is set exactly at the block's end."""

    def __init__(self, bar):
        self.bar, self.end = bar, bar.n

    def begin(self, n: int) -> None:
        self.end = self.bar.n + n

    def tick(self) -> None:
        if self.bar.n < self.end - 1:
            self.bar.update(1)

    def finish(self) -> None:
        self.bar.update(self.end - self.bar.n)


_sweep = {"start": None, "done": 0}


def sweep_size(argv: list[str]) -> int | None:
    """Jobs of a multirun: the product of the sweep overrides' lengths (a,b,c; range(...)),
    or None when Hydra's parser cannot tell (globs, an experiment's own sweeper config)."""
    try:
        from hydra.core.override_parser.overrides_parser import OverridesParser

        n = 1
        for o in OverridesParser.create().parse_overrides([a for a in argv if "=" in a and not a.startswith("-")]):
            if o.is_sweep_override():
                n *= len(list(o.sweep_string_iterator()))
        return n
    except Exception:  # noqa: BLE001  (a progress line must never stop a sweep)
        return None


def sweep_job_started() -> None:
    if _sweep["start"] is None:
        _sweep["start"] = time.monotonic()


def sweep_job_done(total: int | None, sweep_dir=None) -> None:
    """One line per finished job of a sweep run in this process (Hydra's basic launcher): done
    of total, elapsed and the ETA at the mean time per job so far; the last names the sweep's
    folder and the command that tabulates it."""
    _sweep["done"] += 1
    if _sweep["start"] is None:
        return
    done, spent = _sweep["done"], time.monotonic() - _sweep["start"]
    if total and total > done and enabled():
        eta = spent / done * (total - done)
        say(f"sweep: {done} of {total} jobs done in {spent:.0f} s; about {eta:.0f} s left")
    elif total and total <= done:
        where = f"; runs in {sweep_dir}: `bnnsample evaluate {sweep_dir}` writes sweep.csv, slopes.csv and plots/" if (
            sweep_dir) else ""  # fmt: skip
        say(f"sweep: {done} of {total} jobs done in {spent:.0f} s{where}")


class CellBar:
    """The progress of a recipe's cells: a bar with an ETA, each finished cell's line printed
    above it (``done``)."""

    def __init__(self, fig_id: str, total: int):
        self.fig_id, self.bar = fig_id, bar(total, f"{fig_id} cells", "cell")

    def done(self, text: str) -> None:
        import sys

        message(f"[{self.fig_id}] {text}", sys.stdout)
        self.bar.update()

    def note(self, text: str) -> None:
        """A line above the bar, which does not move (e.g. a cell a worker process finished)."""
        import sys

        message(f"[{self.fig_id}] {text}", sys.stdout)

    def close(self) -> None:
        self.bar.close()

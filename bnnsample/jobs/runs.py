"""Whole ``bnnsample run`` jobs made in process and reused, for callers that need the stores of
many runs (the figure recipes of network and UCI runs): one run (``run_pipeline``), one run
found again where another caller made it (``run_or_reuse``), and a grid of runs by name and
part (``RunGrid``).

A finished run in its directory with the same config is reused, not redone (the runner's
resume rule), so an interrupted caller picks up where it stopped.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ..config import compose


def run_pipeline(run_dir: Path, overrides=(), evaluate: bool = False) -> Path:
    """Run ``bnnsample run`` in process into ``run_dir`` (progress bars when stderr is a
    terminal); returns samples.h5.

    A finished run in ``run_dir`` with the same config is reused, not redone (the runner's
    resume rule), so an interrupted recipe picks up where it stopped. A run directory another
    process owns (a second recipe sharing this run) is waited for, not refused: the recipe
    needs its result.
    """
    from .. import runner
    from ..rundir import owned

    # the runs' own bars (training per step, sampling) where a person watches; none in logs
    cfg = compose([f"progress={str(sys.stderr.isatty()).lower()}", *overrides])
    with owned(run_dir, wait=True):
        path = runner.run(cfg, run_dir)
        if evaluate:
            from ..evaluate.report import evaluate_run

            evaluate_run(run_dir)
    return path


def run_or_reuse(key: str, overrides: list[str], runs_dir: Path, elsewhere=()) -> Path:
    """samples.h5 of the run ``overrides`` in ``runs_dir/<key>`` (``run_pipeline``), or of the
    same run complete in one of the run directories ``elsewhere`` (the same ``key`` is the
    same run: e.g. franzese2021 Fig. 10's C = 5 cells are Fig. 4's LEAPFROG cells). A run
    made under an older global config (one without a key added since) is left as it is, and
    the run made afresh in ``runs_dir/<key>_<hash of the config>``."""
    from ..plumbing.errors import UserError
    from ..store import is_complete

    own = Path(runs_dir) / key
    found = next((d for d in (own, *elsewhere) if is_complete(d)), own)
    try:
        return run_pipeline(found, overrides)
    except UserError as e:
        if "different config" not in str(e):
            raise
        cfg_hash = hashlib.sha1(str(compose(overrides)).encode()).hexdigest()[:8]
        return run_pipeline(Path(runs_dir) / f"{key}_{cfg_hash}", overrides)


class RunGrid:
    """The runs of several named configurations (a recipe's methods) in parts: a run directory
    per name and part, ``root/<name>`` with one part and ``root/part<p>/<name>`` with several
    (a part is a share of the runs that one process makes, e.g. with its own seed), the run's
    overrides ``overrides(name, part)``. ``run`` makes them part by part, each part's in the
    order of ``names`` (a later name may take what an earlier one made in its part, e.g. its
    initial points), reuses the finished ones, and keeps each run's wall and CPU time in its
    timing.json, summed over the invocations that made it. With a ``deadline``
    (``time.monotonic()`` seconds), each run still to make gets the time left (``time_limit=``),
    and none starts with less than a second left (TimeLimit). The parts are numbered ``first``,
    ``first + 1``, ... (``numbers``): parts made elsewhere under other numbers stay apart."""

    def __init__(self, root: Path, names, parts: int, overrides: Callable[[str, int], list[str]],
                 deadline: float | None = None, first: int = 0):  # fmt: skip
        self.root, self.names, self.parts = Path(root), list(names), parts
        self.overrides, self.deadline = overrides, deadline
        self.numbers = range(first, first + parts)

    def dir(self, part: int) -> Path:
        """The folder of one part's runs (the root itself when there is one part, numbered 0)."""
        return self.root if self.parts == 1 and part == 0 else self.root / f"part{part}"

    def todo(self) -> list[tuple[str, int]]:
        """(name, part) of each run not complete yet, part by part."""
        from ..store import is_complete

        return [(n, p) for p in self.numbers for n in self.names if not is_complete(self.dir(p) / n)]

    def complete(self) -> bool:
        return not self.todo()

    def run(self, cells, parts=None) -> dict[str, list[Path]]:
        """{name: [samples.h5 of each part]} of ``parts`` (all by default), each run made or
        reused; ``cells(total)`` shows the progress of the runs (a context manager giving a bar
        with ``note`` and ``done``, as ``Invocation.cells`` does)."""
        parts = self.numbers if parts is None else parts
        paths = {n: [] for n in self.names}
        with cells(len(parts) * len(self.names)) as bar:
            for p in parts:
                for n in self.names:
                    paths[n].append(self._run(n, p, bar))
        return paths

    def _run(self, name: str, part: int, bar) -> Path:
        """The run of ``name`` in ``part`` (resumed or reused when made before), its time added
        to its timing.json."""
        import json

        from ..plumbing.errors import TimeLimit
        from ..rundir import write_file
        from ..store import FILENAME, is_complete

        run_dir = self.dir(part) / name
        label = f"{name}{f' part {part}' if self.dir(part) != self.root else ''}"
        ovr = list(self.overrides(name, part))
        done = is_complete(run_dir)
        if self.deadline is not None and not done:
            left = self.deadline - time.monotonic()
            if left < 1:
                raise TimeLimit(f"time_limit reached before {label}")
            ovr.append(f"time_limit={left:.0f}")
        bar.note(f"{label}: bnnsample run {' '.join(ovr)}")
        timing = run_dir / "timing.json"
        fresh = not (run_dir / FILENAME).exists()
        wall, cpu = time.monotonic(), time.process_time()
        try:
            path = run_pipeline(run_dir, ovr)
        finally:  # an interrupted invocation counts too: a resumed run's time is the sum of its invocations
            if not done and run_dir.is_dir():
                before = json.loads(timing.read_text()) if timing.exists() and not fresh else {}
                write_file(timing, json.dumps({
                    "wall_s": before.get("wall_s", 0.0) + time.monotonic() - wall,
                    "cpu_s": before.get("cpu_s", 0.0) + time.process_time() - cpu,
                }))  # fmt: skip
        bar.done(f"{label}: " + ("finished before, reused" if done else f"{time.monotonic() - wall:.0f} s"))
        return path

    def estimate(self) -> tuple[int, float, str] | None:
        """(runs still to make, their estimated seconds in one process, the device they will
        run on) from the cost model of network runs (models/cost.py: a timed force of each
        name's run on that device, times its steps), or None when every run is made."""
        from ..runner import estimate_cost

        todo = self.todo()
        if not todo:
            return None
        seconds, device = 0.0, None
        for name in dict.fromkeys(n for n, _ in todo):
            cfg = compose(["progress=false", *self.overrides(name, 0)])
            cost = estimate_cost(cfg, training=cfg.init.name == "swa" and not cfg.init.get("reuse"))
            seconds += cost.seconds * sum(1 for n, _ in todo if n == name)
            device = device or cfg.device
        return len(todo), seconds, device

    def times(self) -> tuple[float, float] | None:
        """(wall, CPU) seconds the runs took when they were made (their timing.json), summed over
        parts and names, or None when a run has none."""
        import json

        files = [self.dir(p) / n / "timing.json" for p in self.numbers for n in self.names]
        if not all(f.exists() for f in files):
            return None
        got = [json.loads(f.read_text()) for f in files]
        return sum(g["wall_s"] for g in got), sum(g["cpu_s"] for g in got)

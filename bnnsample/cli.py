"""Command line: bnnsample run | evaluate | figure | info | --help.

`run` hands the remaining arguments to Hydra (overrides, -m for multirun, --help for the
config help), so everything Hydra accepts works: ``bnnsample run -m step_size=1e-3,5e-4``.
"""

from __future__ import annotations

import logging
import signal
import sys
from pathlib import Path

USAGE = """usage: bnnsample <command> [args]

commands:
  run [overrides]        sample a posterior (Hydra overrides: integrator=sms_ubu dataset=two_batch_gaussian
                         step_size=0.0625 chains=4000 ...); `run -m a=1,2` sweeps (Hydra multirun);
                         `run --help` shows the composed config
  evaluate RUN_DIR...    recompute metrics.csv and plots of finished (or partial) runs
  figure ID [--out DIR] [key=value ...]
                         regenerate a figure/table recipe (default DIR: results/);
                         `figure --list` lists the ids, e.g. `figure orders`
  info                   list integrators, batchings, datasets, models and inits
  --help                 this message

Output goes to Hydra's run directory (hydra.run.dir=DIR to choose it): samples.h5,
config.yaml, metrics.csv, plots/, run.log.
"""


def _fail(msg: str, code: int = 2) -> None:
    print(f"bnnsample: error: {msg}", file=sys.stderr)
    sys.exit(code)


def _hydra_run(argv: list[str]) -> None:
    import hydra
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import DictConfig

    from .errors import Interrupted, UserError
    from .paths import conf_dir

    @hydra.main(config_path=str(conf_dir()), config_name="config", version_base="1.3")
    def task(cfg: DictConfig) -> None:
        from . import runner

        run_dir = Path(HydraConfig.get().runtime.output_dir)
        try:
            runner.run(cfg, run_dir)
            if cfg.evaluate:
                from .evaluate.report import evaluate_run

                evaluate_run(run_dir, echo=True)
        except UserError as e:
            logging.getLogger("bnnsample").error(str(e))
            _fail(str(e))
        except (KeyboardInterrupt, Interrupted) as e:
            _fail(f"interrupted ({e or 'at once'}); draws written so far are in {run_dir / 'samples.h5'}", 130)

    from .sampler import request_stop

    # Ctrl-C and a launcher's SIGTERM stop the loop at the next block boundary, draws kept.
    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    sys.argv = ["bnnsample run", *argv]
    task()


def _evaluate(paths: list[str]) -> None:
    from .evaluate.report import evaluate_paths

    if not paths:
        _fail("evaluate needs at least one RUN_DIR (a directory holding samples.h5, or a multirun directory)")
    failed = evaluate_paths([Path(p) for p in paths])
    if failed:
        sys.exit(1)


def _figure(args: list[str]) -> None:
    from .figures import get_recipe, recipes

    if not args or args[0] in ("-h", "--help"):
        print("usage: bnnsample figure ID [--out DIR] [key=value ...] | bnnsample figure --list")
        return
    if args[0] == "--list":
        for rid, r in recipes().items():
            print(f"{rid:<16}  {r.description}")
        return
    fig_id, rest = args[0], args[1:]
    try:
        recipe = get_recipe(fig_id)
    except KeyError as e:
        _fail(e.args[0])
    out_dir, options = Path("results"), {}
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--out" or a.startswith("--out="):
            if a == "--out":
                if i + 1 >= len(rest):
                    _fail("--out needs a directory")
                out_dir, i = Path(rest[i + 1]), i + 2
            else:
                out_dir, i = Path(a.split("=", 1)[1]), i + 1
            continue
        if "=" not in a or a.startswith("-"):
            _fail(f"figure {fig_id}: bad argument {a!r}; expected --out DIR or key=value")
        k, v = a.split("=", 1)
        options[k] = v
        i += 1
    try:
        paths = recipe.make(out_dir, options)
    except (ValueError, TypeError) as e:
        _fail(f"figure {fig_id}: {e}")
    for p in paths:
        print(p)


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return
    cmd, rest = argv[0], argv[1:]
    if cmd == "run":
        _hydra_run(rest)
    elif cmd == "evaluate":
        _evaluate(rest)
    elif cmd == "figure":
        _figure(rest)
    elif cmd == "info":
        from .info import print_info

        print_info()
    else:
        _fail(f"unknown command {cmd!r}; allowed: run, evaluate, figure, info, --help")


if __name__ == "__main__":
    main()

"""Shared test helpers: compose configs and run the pipeline in-process."""

from pathlib import Path

from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra


def compose_cfg(overrides=()):
    GlobalHydra.instance().clear()
    from bnnsample.paths import conf_dir

    with initialize_config_dir(str(conf_dir()), version_base="1.3"):
        return compose("config", overrides=list(overrides))


def run_inprocess(tmp_path: Path, overrides=()):
    from bnnsample import runner

    cfg = compose_cfg(["progress=false", *overrides])
    tmp_path.mkdir(parents=True, exist_ok=True)
    return runner.run(cfg, tmp_path), cfg

"""Every shipped config composes and passes the checks that need no data: each experiment under
conf/experiment/, each dataset and each model config, and each integrator preset. A config that
no longer composes (a renamed key, a group default that moved) fails here, in seconds, rather
than in a user's first run."""

from pathlib import Path

import pytest

from bnnsample.config import compose, validate
from bnnsample.plumbing.paths import conf_dir

CONF = conf_dir()


def _names(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


@pytest.mark.parametrize(
    "group,name",
    # the experiments (each composes a dataset, a model and an integrator) are in the smoke subset
    [
        pytest.param(g, n, marks=pytest.mark.smoke) if g == "experiment" else (g, n)
        for g in ("experiment", "dataset", "model", "integrator", "batching", "init")
        for n in _names(g)
    ],
)
def test_config_composes_and_validates(group, name):
    cfg = compose([f"{group}={name}"])
    plain = validate(cfg)
    if group in ("dataset", "model"):  # the loader or builder is found by this name
        assert plain[group]["name"] == name


@pytest.mark.smoke
def test_every_group_has_configs():
    for group in ("experiment", "dataset", "model", "integrator", "batching", "init"):
        assert _names(group), f"conf/{group}/ has no configs"
    assert Path(CONF / "config.yaml").exists()

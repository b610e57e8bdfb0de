"""The manual's configuration reference (docs/reference/config.md) is generated from conf/ by
scripts/config_reference.py: the committed page must be what conf/ gives now, so that a config
changed without the page regenerated fails here (fix: python scripts/config_reference.py)."""

import importlib.util
from pathlib import Path

import pytest

from bnnsample.plumbing.info import GROUPS, group_options

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("config_reference", ROOT / "scripts" / "config_reference.py")
config_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(config_reference)

pytestmark = pytest.mark.smoke


def test_the_committed_reference_is_what_conf_gives():
    committed = (ROOT / "docs" / "reference" / "config.md").read_text()
    assert committed == config_reference.render(), (
        "docs/reference/config.md is out of date with conf/: run python scripts/config_reference.py"
    )


def test_the_reference_names_every_key_option_and_checked_rule():
    text = config_reference.render()
    for group in GROUPS:
        for option in group_options(group):
            assert f"### {group}={option} " in text, (group, option)
    assert "| `chains` | `4` | an integer >= 1 |" in text  # top-level default and the config's rule
    assert "| `device` | `auto` | auto, cpu, cuda |" in text
    assert "| `model.memory_format` | `auto` | auto, channels_last, contiguous |" in text  # a group key's rule
    assert "### hydra/launcher=slurm " in text and "| `hydra.launcher.timeout_min` | `240` |" in text

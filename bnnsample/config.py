"""Validation of a composed config: one readable line per bad field (ConfigError)."""

from __future__ import annotations

import functools
import math
import numbers
import os
import re
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import yaml
from omegaconf import DictConfig

from .plumbing.errors import ConfigError, UserError

DEVICES = ("auto", "cpu", "cuda")
MAX_COUNT = 2**53  # counts (steps, draws, chains) above this are typos, and overflow HDF5's int64 attributes
MAX_SEED = 2**32 - 1
REQUIRED_GROUPS = ("integrator", "batching", "model", "init", "dataset")
# numbers of the model configs with a range (finite numbers elsewhere): key -> (low, strict)
MODEL_NUMBERS = {
    "prior_precision": (0, False), "noise_var": (0, True), "mean_prior_var": (0, True),
    "precision_shape": (0, True), "precision_rate": (0, True),
}  # fmt: skip
DTYPES = ("float32", "float64")
UNITS = ("step", "epoch")


def _number(cfg, key, *, low=None, strict=True, prefix=""):
    value = cfg.get(key)
    key = prefix + key
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
    if ok and low is not None:
        ok = value > low if strict else value >= low
    if not ok:
        rel = "" if low is None else f" {'>' if strict else '>='} {low}"
        raise ConfigError(key, value, f"must be a finite number{rel}")
    return float(value)


def _integer(cfg, key, *, low, high=MAX_COUNT, what="", prefix=""):
    value = cfg.get(key)
    key = prefix + key
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= low
    if ok and high is not None:
        ok = value <= high
    if not ok:
        # the typo guard MAX_COUNT is no bound a user means: ">= low", and "at most 2^53" only above it
        if high is None or (high == MAX_COUNT and not (isinstance(value, numbers.Integral) and value > high)):
            rng = f"an integer >= {low}"
        elif high == MAX_COUNT:
            rng = f"an integer >= {low}, at most 2^53"
        else:
            rng = f"an integer in {low}..{high}"
        raise ConfigError(key, value, f"must be {rng}{what}")
    return int(value)


def _flag(cfg, key):
    value = cfg.get(key)
    if not isinstance(value, bool):
        raise ConfigError(key, value, "allowed values: true, false")
    return value


def _choice(value, key, allowed):
    if value not in allowed:
        from .plumbing.suggest import did_you_mean

        names = [str(a) for a in allowed]
        raise ConfigError(key, value, f"allowed values: {', '.join(names)}{did_you_mean(value, names)}")
    return value


class _ConfigDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    """libyaml's emitter where PyYAML has it; strings that YAML 1.1 reads as booleans quoted, as
    OmegaConf.to_yaml quotes them (PyYAML's resolver quotes those that read as numbers)."""


_YAML11_BOOLS = frozenset("y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF".split())
_ConfigDumper.add_representer(
    str, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s, style="'" if s in _YAML11_BOOLS else None)
)


class Resolved(dict):
    """A resolved config as plain values (``OmegaConf.to_container(resolve=True)``), read as a
    DictConfig is read, by attribute or by key: a DictConfig lookup costs about 6 us a level, and
    a run reads some hundred values on its way to the first step."""

    __slots__ = ()

    @classmethod
    def of(cls, plain: dict) -> Resolved:
        return cls({k: cls.of(v) if isinstance(v, dict) else v for k, v in plain.items()})

    def __getattr__(self, key: str):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def plain(self) -> dict:
        """The same values as plain dicts, as ``of`` found them (OmegaConf.create refuses this class)."""
        return {k: v.plain() if isinstance(v, Resolved) else v for k, v in self.items()}


def config_text(cfg: DictConfig | dict) -> str:
    """The resolved config as YAML: the text of ``OmegaConf.to_yaml(cfg, resolve=True)``, through
    libyaml's emitter at about a quarter of its CPU time (every run stores it). ``cfg`` may be
    the resolved plain container already (validate's), which spares resolving it again."""
    from omegaconf import OmegaConf

    plain = cfg if isinstance(cfg, dict) else OmegaConf.to_container(cfg, resolve=True)
    return yaml.dump(plain, Dumper=_ConfigDumper, default_flow_style=False, allow_unicode=True, sort_keys=False)


@functools.cache
def top_level_keys() -> tuple[str, ...]:
    """The keys a run config may have: those of conf/config.yaml and the config groups."""
    from .plumbing.info import GROUPS
    from .plumbing.paths import conf_dir

    primary = yaml.safe_load((conf_dir() / "config.yaml").read_text()) or {}
    return tuple(sorted((set(primary) - {"defaults", "hydra"}) | set(GROUPS)))


# keys users reach for that the config names otherwise: the pointer to use instead
KEY_HINTS = {
    "runs": "independent runs are chains=N (vectorized in one process; under init=swa each chain trains its "
    "own network) or a multirun over seed=0,1,... (`bnnsample evaluate SWEEP_DIR` pools the jobs' runs "
    "into ensembles)",
    "n_chains": "the number of chains is chains=N",
    "num_chains": "the number of chains is chains=N",
    "h": "the step size is step_size=H",
    "lr": "the sampler's step size is step_size=H; Adam's rates are init.lr and init.swa_lr",
    "gamma": "the friction is friction=GAMMA",
    "burnin": "burn-in is burn_in=K (in units of `unit`)",
    "n_samples": "the number of draws is samples=K",
}


def unknown_key_message(key: str, known) -> str:
    """What is said about a top-level key the config does not have."""
    from .plumbing.suggest import did_you_mean

    hint = KEY_HINTS.get(str(key))
    if hint:
        return f"unknown key; {hint}"
    return f"unknown key{did_you_mean(key, known)}; top-level keys: {', '.join(sorted(known))}"


def _no_unknown_keys(cfg: DictConfig) -> None:
    """A key added with +key=... that nothing reads would be silently ignored (a typo such as
    +stepsize=0.1): refuse it."""
    known = set(top_level_keys())
    for key in cfg:
        if key not in known:
            raise ConfigError(str(key), cfg.get(key), unknown_key_message(key, known))


def _groups_present(cfg: DictConfig) -> None:
    """A config group deleted on the command line (``~integrator``) is named, not a crash."""
    from .plumbing.info import group_options

    for group in REQUIRED_GROUPS:
        node = cfg.get(group)
        if not isinstance(node, DictConfig) or not isinstance(node.get("name"), str):
            raise ConfigError(group, "(deleted)" if node is None else node,
                              f"required; allowed values: {', '.join(group_options(group))}")  # fmt: skip


# the networks' implementation choices (models/network.py), checked before torch is imported
MODEL_CHOICES = {
    "chain_batching": ("auto", "vmap", "loop"),
    "memory_format": ("auto", "channels_last", "contiguous"),
    "precision": ("auto", "float32", "tf32", "bf16"),
}


def _optional(rule):
    return lambda cfg, key: None if cfg.get(key) is None else rule(cfg, key)


# the rule of each top-level value, applied to the composed config (validate) and, before Hydra
# and torch are loaded, to the values given on the command line (check_override)
VALUE_RULES = {
    "step_size": lambda c, k: _number(c, k, low=0),
    "friction": lambda c, k: _number(c, k, low=0, strict=False),
    "chains": lambda c, k: _integer(c, k, low=1),
    "batch_size": lambda c, k: _integer(c, k, low=1),
    "burn_in": lambda c, k: _integer(c, k, low=0),
    "samples": lambda c, k: _integer(c, k, low=1),
    "thin": lambda c, k: _integer(c, k, low=1),
    "seed": lambda c, k: _integer(c, k, low=0, high=MAX_SEED),
    "check_every": lambda c, k: _integer(c, k, low=1),
    "flush_seconds": lambda c, k: _number(c, k, low=0, strict=False),
    "time_limit": _optional(lambda c, k: _number(c, k, low=0)),  # seconds; null: none
    **dict.fromkeys(
        ("store_theta", "progress", "evaluate", "download", "control_variate", "compile", "deterministic"), _flag
    ),
    "device": lambda c, k: _choice(c.get(k), k, DEVICES),
    "dtype": lambda c, k: _choice(c.get(k), k, DTYPES),
    "unit": lambda c, k: _choice(c.get(k), k, UNITS),
}


def _in_group(prefix: str, rule):
    """A rule of a key of a group (``model.``, ``dataset.``, ``init.``), named with its prefix."""
    return lambda c, k: rule(c, k, prefix=prefix)


def _model_number(low, strict):
    return _in_group("model.", functools.partial(_number, low=low, strict=strict))


# the rules of the group values that need no data, by dotted key: validate applies them to the
# composed config, and the command line applies them to the values given, before Hydra loads
GROUP_RULES = {
    **{f"model.{k}": _model_number(low, strict) for k, (low, strict) in MODEL_NUMBERS.items()},
    "model.noise_var": _optional(_model_number(*MODEL_NUMBERS["noise_var"])),
    "model.n_calibration": _in_group("model.", functools.partial(_integer, low=0)),
    **{
        f"model.{k}": (lambda allowed: lambda c, k: _choice(c.get(k), f"model.{k}", allowed))(v)
        for k, v in MODEL_CHOICES.items()
    },  # fmt: skip
    **dict.fromkeys(
        ("dataset.n_test", "dataset.n_train"),
        _optional(_in_group("dataset.", functools.partial(_integer, low=1, what=" (or null: all)"))),
    ),  # fmt: skip
    "init.train_epochs": _in_group("init.", functools.partial(_integer, low=0)),
    "init.swa_epochs": _in_group("init.", functools.partial(_integer, low=1)),
    **dict.fromkeys(
        ("init.lr", "init.swa_lr", "init.bounce_width"), _in_group("init.", functools.partial(_number, low=0))
    ),
    "init.localization": _in_group("init.", functools.partial(_number, low=0, strict=False)),
}


def reference_paths(value) -> list[Path]:
    """The samples.h5 files named by ``reference`` (a path or a list of paths); each path is a
    samples.h5, a run directory, or a directory of runs (a sweep: the run directories directly
    in it). Missing -> UserError (one line)."""
    if value is None:
        return []
    items = [value] if isinstance(value, (str, Path)) else list(value)
    out = []
    for item in items:
        p = Path(str(item)).expanduser()
        found = [p] if os.path.isfile(p) else _stores_in(p)
        if not found:
            raise UserError(
                f"reference={item}: no samples.h5 there (expected a samples.h5, a run directory "
                "holding one, or a directory of runs, e.g. one made by `bnnsample run -m "
                "experiment=franzese2021_oracle ...`)"
            )
        out += found
    return out


def _stores_in(p: Path) -> list[Path]:
    """The samples.h5 of the run directory ``p``, else of the run directories directly in ``p``.
    The search goes no deeper, so that a path such as / or a home directory is answered at once
    instead of walking the file system (where /proc's entries vanish during the walk)."""
    if os.path.isfile(p / "samples.h5"):
        return [p / "samples.h5"]
    try:
        with os.scandir(p) as entries:
            names = [e.name for e in entries if not e.name.startswith(".")]
    except OSError:  # not a directory, not readable, vanished
        return []
    return sorted(h5 for n in names if os.path.isfile(h5 := p / n / "samples.h5"))


def check_value(key: str, value) -> str | None:
    """The complaint about one value given on the command line (as Hydra parses it), by the
    rule ``validate`` applies, or None: top-level values, the groups' numbers and choices, and
    whether ``reference`` names samples."""
    leaf = key.rsplit(".", 1)[-1]
    rule = VALUE_RULES.get(key) or GROUP_RULES.get(key)
    try:
        if key == "reference":
            reference_paths(value)
        elif rule is not None:
            rule({leaf: value}, leaf)
    except (ConfigError, UserError) as e:
        return str(e)
    return None


CHECKED_KEYS = frozenset({*VALUE_RULES, *GROUP_RULES, "reference"})  # what check_value answers


def _group_values(cfg: dict) -> None:
    """The groups' numbers and choices (GROUP_RULES; init's only under init=swa, which reads
    them); the model's other floats finite."""
    for dotted, rule in GROUP_RULES.items():
        group, key = dotted.split(".", 1)
        if key in cfg[group] and (group != "init" or cfg["init"]["name"] == "swa"):
            rule(cfg[group], key)
    for key, value in cfg["model"].items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"model.{key}", value, "must be a finite number")


def first_difference(a: dict, b: dict) -> str:
    """The first key where two dataset groups differ, as ``dataset.KEY: run .., reference ..``."""
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            return f"dataset.{k}: run {a.get(k)!r}, reference {b.get(k)!r}"
    return ""


def check_reference(cfg) -> list[Path]:
    """Before sampling: the ``reference`` of a run config (DictConfig or dict) exists, is
    readable and was made on the same data set; UserError (one line) otherwise. Cheap (reads
    attributes only); the full check (test set, shapes) runs at evaluation."""
    from omegaconf import OmegaConf

    from .store import SampleStore, stored_dataset

    value = cfg.get("reference")
    if value is not None and not isinstance(value, (str, Path)):
        value = list(value)
    paths = reference_paths(value)
    ds = cfg.get("dataset")
    ds = dict(OmegaConf.to_container(ds, resolve=True) if OmegaConf.is_config(ds) else (ds or {}))
    ds.pop("description", None)
    for p in paths:
        try:
            with SampleStore(p) as s:
                ref_ds = stored_dataset(s)
        except (OSError, KeyError) as e:
            raise UserError(f"reference={p}: unreadable ({type(e).__name__}: {e})") from None
        diff = first_difference(ds, ref_ds)
        if diff:
            raise UserError(f"reference={p}: another data set than the run's ({diff})")
    return paths


def validate(cfg: DictConfig) -> dict:
    """Checks that need no data: types, ranges, names and the reference. Every check that
    needs no torch comes first, so that bad input is answered before torch is loaded. Returns
    the resolved config as plain containers (what the rules read)."""
    from omegaconf import OmegaConf

    _groups_present(cfg)
    _no_unknown_keys(cfg)
    plain = OmegaConf.to_container(cfg, resolve=True)  # the rules read plain values: a DictConfig lookup is ~10 us
    for key, rule in VALUE_RULES.items():
        rule(plain, key)
    _group_values(plain)
    if plain.get("reference") is not None:
        check_reference(cfg)
    # torch comes with these two imports (the registries of schedules and schemes)
    from .batching import KINDS, PARTITIONS
    from .integrators import REGISTRY

    batching = plain["batching"]
    _choice(batching.get("name"), "batching", KINDS)
    _choice(batching.get("partition"), "batching.partition", PARTITIONS)
    _choice(batching.get("per_chain"), "batching.per_chain", ("auto", True, False))
    _choice(plain["integrator"].get("name"), "integrator.name", tuple(sorted(REGISTRY)))
    return plain


MAX_STEPS = 10**12  # a run this long takes years at the fastest step; more is a typo


def validate_against_data(cfg: DictConfig, n_train: int, dataset: str) -> None:
    """Checks that need the training set size."""
    what = f" (the training set of {dataset} has {n_train} points)"
    unit = max(1, n_train // int(cfg.batch_size)) if cfg.unit == "epoch" and cfg.batching.name != "full" else 1
    steps = (int(cfg.burn_in) + int(cfg.samples) * int(cfg.thin)) * unit
    if steps > MAX_STEPS:
        key = max(("burn_in", "samples", "thin"), key=lambda k: int(cfg[k]))
        raise ConfigError(key, cfg[key], f"burn_in + samples x thin = {steps:.3g} steps; at most {MAX_STEPS:.0e} "
                          "(lower thin, samples or burn_in)")  # fmt: skip
    kind = cfg.batching.name
    if kind in ("sms", "reshuffle"):
        _integer(
            cfg,
            "batch_size",
            low=1,
            high=n_train // 2,
            what=what + f"; batching={kind} needs >= 2 minibatches",
        )
        from .batching import partition_error  # torch: not imported by the CLI's parsing

        if why := partition_error(kind, cfg.batching.get("partition", "fixed"), n_train, int(cfg.batch_size)):
            raise ConfigError("batch_size", cfg.batch_size, why)
    elif kind != "full":
        _integer(cfg, "batch_size", low=1, high=n_train, what=what)


GROUP_VALUE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
MAX_KEY = 100


def check_override(key: str, values: list[str]) -> str | None:
    """The complaint about one command-line override, or None. Config-group values are names
    of files in the group, never paths (``dataset=../../x`` would load a YAML from outside
    conf/); keys longer than MAX_KEY characters are typos (Hydra would try them as paths)."""
    from .plumbing.info import GROUPS, group_options

    if len(key) > MAX_KEY:
        return (
            f"{key[:40]}...: a key of {len(key)} characters; no such key in the config; top-level keys: "
            + ", ".join(top_level_keys())
        )
    if key in NAME_KEYS:
        return next(filter(None, (_name_complaint(key, v) for v in values)), None)
    if not (key in GROUPS or "/" in key):
        return None
    for v in values:
        if v == "null":
            continue
        allowed = group_options(key) if key in GROUPS else None
        if not GROUP_VALUE.fullmatch(v) or ".." in v or (allowed is not None and v not in allowed):
            from .plumbing.suggest import did_you_mean

            names = ", ".join(allowed) if allowed is not None else "names of its options (no paths)"
            return f"{key}={v}: allowed values: {names}{did_you_mean(v, allowed or ())}"
    return None


# Hydra's settings that become a file or folder name inside the run (or sweep) directory, with
# what keeps them there (hydra.job.name=../../x would put the log at RUN_DIR/../../x.log)
NAME_KEYS = {
    "hydra.job.name": ("a name without '/' (the log is RUN_DIR/<name>.log)", lambda parts: len(parts) == 1),
    "hydra.sweep.subdir": (
        "a relative path inside the sweep directory (no '..', not absolute)",
        lambda parts: parts[0] != "" and ".." not in parts,
    ),
}


def _name_complaint(key: str, value: str) -> str | None:
    allowed, inside = NAME_KEYS[key]
    return None if inside(value.split("/")) else f"{key}={value}: allowed values: {allowed}"


# keys whose value does not change a run's draws; runner.same_sampling_config and cli.job_seed ignore them.
# (check_every does change them: a UBU block fuses the OU half-steps inside it, so other block
# ends give other draws of the same law.)
NOT_SAMPLING_KEYS = frozenset(
    {"progress", "evaluate", "reference", "flush_seconds", "data_dir", "download", "time_limit"}
)

# keys left out of a multirun job's derived seed (cli.job_seed): jobs that differ only in them
# share their random numbers (common random numbers), so a step-size sweep compares the
# schemes' bias on the same noise and its slopes are not swamped by Monte Carlo scatter
COMMON_RANDOM_KEYS = frozenset({"step_size"})


# The overrides every config composed for one `bnnsample figure` call starts with (data_dir=DIR,
# an option every recipe takes): a context variable the CLI sets around the recipe, so no
# option outlives the call that gave it.
_FIGURE_OVERRIDES: ContextVar[tuple[str, ...]] = ContextVar("figure_overrides", default=())


@contextmanager
def figure_overrides(overrides):
    """Apply ``overrides`` (``key=value`` strings) first to every config ``compose`` builds
    until the block ends."""
    token = _FIGURE_OVERRIDES.set(tuple(overrides))
    try:
        yield
    finally:
        _FIGURE_OVERRIDES.reset(token)


def current_figure_overrides() -> tuple[str, ...]:
    """The overrides of the enclosing ``figure_overrides`` block (a recipe passes them on to
    the worker processes it starts)."""
    return _FIGURE_OVERRIDES.get()


def compose(overrides=()):
    """The resolved run config for Hydra ``overrides``, as ``bnnsample run`` would compose it
    (with the overrides of the enclosing ``figure_overrides`` block, e.g. data_dir, first)."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    from .plumbing.paths import conf_dir

    GlobalHydra.instance().clear()
    with initialize_config_dir(str(conf_dir()), version_base="1.3"):
        return hydra_compose("config", overrides=[*_FIGURE_OVERRIDES.get(), *overrides])

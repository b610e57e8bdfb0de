"""The one registry style: ``Registry`` and the registries of integrators, initial points,
models, datasets and figure recipes built on it."""

import pytest
import torch
from omegaconf import OmegaConf

from bnnsample.plumbing.errors import UserError
from bnnsample.registry import Registry, UnknownName

pytestmark = pytest.mark.smoke  # python -m pytest -m smoke: every registry answers


def test_register_files_the_entry_unchanged_with_its_attrs_in_order():
    reg = Registry("thing")

    @reg.register("b", fast=True)
    def b():
        return "b"

    @reg.register("a")
    class A:
        pass

    assert b() == "b" and reg["b"] is b and reg["a"] is A  # the decorator returns what it was given
    assert list(reg) == ["b", "a"] and reg.names() == ["a", "b"]
    assert reg.attrs == {"b": {"fast": True}, "a": {}}
    assert reg.add("c", 3) == 3 and reg["c"] == 3


def test_a_name_is_registered_once():
    reg = Registry("thing")
    reg.register("a")(len)
    with pytest.raises(ValueError, match=r"thing=a: registered twice"):
        reg.register("a")(max)
    assert reg["a"] is len


def test_unknown_name_is_one_line_naming_the_kind_and_the_allowed_values():
    reg = Registry("thing")
    for name in ("zeta", "alpha", "mu"):
        reg.add(name, name.upper())
    with pytest.raises(UnknownName) as e:
        reg["nope"]
    assert str(e.value) == "thing=nope: allowed values: alpha, mu, zeta"
    assert isinstance(e.value, UserError) and isinstance(e.value, KeyError)  # callers catching KeyError still do
    assert e.value.args == ("thing=nope: allowed values: alpha, mu, zeta",)
    assert reg.get("nope") is None and "nope" not in reg  # only the lookup raises


def test_unknown_name_says_did_you_mean_where_a_name_is_close(cli):
    reg = Registry("thing")
    for name in ("alpha", "beta"):
        reg.add(name, 0)
    with pytest.raises(UnknownName) as e:
        reg["alpah"]
    assert str(e.value) == "thing=alpah: allowed values: alpha, beta (did you mean alpha?)"
    out = cli("figure", "paulin2025-fg4")  # a figure id (papers.get_recipe, a Registry) likewise
    assert out.returncode == 2 and out.stderr.rstrip().endswith("(did you mean paulin2025-fig4?)"), out.stderr


def test_unknown_name_in_order_of_registration_or_with_its_own_message():
    in_order = Registry("thing", sort=False)
    own = Registry("figure", message="unknown figure {name!r}; allowed: {allowed}")
    for name in ("zeta", "alpha"):
        in_order.add(name, 0)
        own.add(name, 0)
    with pytest.raises(UnknownName, match=r"^thing=x: allowed values: zeta, alpha$"):
        in_order["x"]
    with pytest.raises(KeyError) as e:
        own["x"]
    assert str(e.value) == "unknown figure 'x'; allowed: alpha, zeta"


def test_models_are_listed_by_module_in_order_of_registration():
    from bnnsample.models import BUILDERS, MODELS, build_potential

    first = ("gaussian_mean", "noisy_gaussian", "logistic_regression", "logistic", "multinomial_logistic")
    assert tuple(BUILDERS) == MODELS and MODELS[:5] == first
    modules = ["analytic", "logistic", "multinomial", "network", "toys", "mlp", "custom"]
    order = [modules.index(BUILDERS[m].__module__.rsplit(".", 1)[1]) for m in MODELS]
    assert order == sorted(order) and set(order) == set(range(len(modules)))
    assert BUILDERS["logistic"] is BUILDERS["logistic_regression"]
    with pytest.raises(UserError) as e:
        build_potential(OmegaConf.create({"name": "nope"}), None, torch.device("cpu"), torch.float64)
    assert str(e.value) == f"model=nope: allowed values: {', '.join(MODELS)}"


def test_initial_point_strategies_and_their_localization():
    from bnnsample.initial import INITS, initial_points, localization

    assert list(INITS) == ["zeros", "swa"]
    cfg = OmegaConf.create({"init": {"name": "nope", "localization": 2.0}, "chains": 1})
    with pytest.raises(UserError, match=r"^init=nope: allowed values: swa, zeros$"):
        initial_points(cfg, None, None, None, {})
    assert [localization(OmegaConf.merge(cfg, {"init": {"name": n}})) for n in ("zeros", "swa", "nope")] == [0, 2, 0]


def test_integrators_and_datasets_name_the_allowed_values():
    from bnnsample.data import LOADERS, load_data
    from bnnsample.integrators import REGISTRY, get_integrator

    assert {"ubu", "baoab", "sgld", "sms_ghmc", "mt3"} <= set(REGISTRY)
    assert all(REGISTRY[name].name == name for name in REGISTRY)
    with pytest.raises(UserError) as e:
        get_integrator("nope")
    assert str(e.value) == f"integrator.name=nope: allowed values: {', '.join(sorted(REGISTRY))}"
    assert {"two_batch_gaussian", "mnist5k", "boston", "two_class_2d", "gmm3"} <= set(LOADERS)
    with pytest.raises(UserError) as e:
        load_data(OmegaConf.create({"dataset": {"name": "qqqq"}}))  # near no name: no suggestion
    assert str(e.value) == f"dataset=qqqq: allowed values: {', '.join(sorted(LOADERS))}"
    data = LOADERS["boston"](OmegaConf.create({"name": "boston", "data_dir": "."}))  # a UCI set filed in a loop
    assert data.name == "boston" and data.x_train.shape[1] == 13


def test_figure_recipes_keep_their_message():
    from bnnsample.papers import get_recipe, recipes

    listed = recipes()
    assert list(listed) == sorted(listed) and get_recipe("orders") is listed["orders"]
    with pytest.raises(KeyError) as e:
        get_recipe("nope")
    assert e.value.args[0] == f"unknown figure 'nope'; allowed: {', '.join(listed)}"

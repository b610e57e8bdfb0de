"""The house, read from the imports (lazy ones inside functions included): no two packages of
bnnsample/ import each other, the library never imports the papers' wing (only the command line
does, to find the recipes), and each paper package files only its own recipes."""

import ast
import functools
from pathlib import Path

import bnnsample

ROOT = Path(bnnsample.__file__).parent
PAPERS = ("chen2015", "franzese2021", "matthews2018", "paulin2025", "sekkat2023")


def _imports(path: Path) -> set[str]:
    """The bnnsample modules ``path`` imports, as absolute dotted names (a ``from X import name``
    counts as X.name, which is the module when name is one)."""
    rel = path.relative_to(ROOT.parent).with_suffix("")
    package = rel.parts[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("bnnsample")}
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            if mod.startswith("bnnsample"):
                out |= {f"{mod}.{a.name}" for a in node.names}
    return out


def _unit(dotted: str) -> str | None:
    """The top-level package or module of bnnsample a dotted name belongs to."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else None


def _graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in ROOT.rglob("*.py"):
        src = path.relative_to(ROOT).parts[0].removesuffix(".py")
        for dst in filter(None, map(_unit, _imports(path))):
            if dst != src:
                edges.setdefault(src, set()).add(dst)
    return edges


def _packages() -> set[str]:
    return {d.name for d in ROOT.iterdir() if (d / "__init__.py").exists()}


def test_no_two_packages_import_each_other():
    edges, pkgs = _graph(), _packages()
    both = sorted(
        {tuple(sorted((a, b))) for a in pkgs for b in edges.get(a, ()) if b in pkgs and a in edges.get(b, ())}
    )
    assert not both, f"packages that import each other: {both}"


def test_only_the_command_line_imports_the_papers():
    users = sorted(src for src, dst in _graph().items() if "papers" in dst)
    assert users == ["cli"], users


def test_the_graph_sees_lazy_imports():
    """Power: the command line imports the papers only inside a function, and the graph sees it."""
    assert "papers" in _graph()["cli"]


def test_each_paper_files_its_own_recipes():
    from bnnsample.papers import recipes

    def declared_in(make) -> str:
        fn = getattr(make, "__wrapped__", make)
        return fn.args[0].rows.__module__ if isinstance(fn, functools.partial) else fn.__module__

    by_module = {r.id: declared_in(r.make) for r in recipes().values()}
    assert set(PAPERS) == {p.name for p in (ROOT / "papers").iterdir() if (p / "__init__.py").exists()}
    for fig_id, module in by_module.items():
        paper = fig_id.split("-")[0]
        if paper in PAPERS:
            assert module.startswith(f"bnnsample.papers.{paper}."), (fig_id, module)
        else:
            assert module.startswith("bnnsample.figures"), (fig_id, module)


def _claim_dicts(module) -> list[str]:
    """The module-level names of ``module`` that hold a plain dict of Claim (not a Claims)."""
    from bnnsample.figures.claims import Claim, Claims

    return [k for k, v in vars(module).items() if isinstance(v, dict) and not isinstance(v, Claims)
            and any(isinstance(c, Claim) for c in v.values())]  # fmt: skip


def test_every_recipe_declares_its_claims_through_claims():
    """Every paper recipe's module files its claims beside their rules in a ``Claims`` (rule or family),
    and no paper module keeps a module-level dict of Claim."""
    import sys
    import types

    from bnnsample.figures.claims import Claim, Claims
    from bnnsample.papers import recipes

    fake = types.ModuleType("fake")
    fake.CLAIMS = {"a": Claim("t", "§1", "p")}
    assert _claim_dicts(fake) == ["CLAIMS"]  # the check sees a dict of Claim
    from bnnsample.papers.paulin2025.image_sets import ImageSet

    modules = {getattr(r.make, "__wrapped__", r.make).args[0].rows.__module__ for r in recipes().values()
               if r.id.split("-")[0] in PAPERS}  # fmt: skip
    assert len(modules) >= 20
    # the image-set recipes share image_sets' measurement; each declares its claims in its ImageSet
    sets = [v for name, mod in list(sys.modules.items()) if name.startswith("bnnsample.papers.")
            for v in vars(mod).values() if isinstance(v, ImageSet)]  # fmt: skip
    assert len({d.fig for d in sets}) == 3 and all(isinstance(d.claims, Claims) and d.claims for d in sets)
    for name in sorted(modules - {"bnnsample.papers.paulin2025.image_sets"}):
        assert any(isinstance(v, Claims) for v in vars(sys.modules[name]).values()), name
    for name, module in sorted(sys.modules.items()):
        if name.startswith("bnnsample.papers."):
            assert not _claim_dicts(module), (name, _claim_dicts(module))

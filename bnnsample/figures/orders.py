"""`bnnsample figure orders`: measured orders of convergence of every registered integrator
(``analysis.orders``: the method, the targets and the fits) against the orders the papers' theorems
give (THEORY, with SOURCES), written as orders.csv, orders.png, orders.md and claims.csv (a claim
per integrator and batching that a paper gives an order for) under ``<out>/orders/``."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..analysis.orders import BATCHINGS, MAX_EXP, START, TARGETS, Fit, Row, measure_orders, preset_params
from ..plotting import pyplot, save_figure
from ..plumbing.progress import CellBar
from ..rundir import write_csv, write_file
from . import register
from .claims import Claim, Outcome, not_reproduced, partly, reproduced
from .common import CLAIMS_CSV, md_table, recipe_dir, write_claims
from .driver import Option, names, parse_options

# Expected order of the stationary bias per (scheme, batching), from the papers' theorems
# (SOURCES); "exact": no bias on Gaussian targets (var_x at rounding level); None: no claim.
_SPLIT2 = {"full": 2, "iid": 1, "reshuffle": 2, "sms": 2}
_FIRST = {"full": 1, "iid": 1, "reshuffle": 1, "sms": 1}
THEORY: dict[str, dict[str, object]] = {
    "ubu": _SPLIT2,
    "baoab": _SPLIT2,
    "obabo": _SPLIT2,
    "aboba": _SPLIT2,
    "lie_trotter": _SPLIT2,
    "generalized_lie_trotter": _SPLIT2,
    "em": _FIRST,
    "sgld": _FIRST,
    "leapfrog": {"full": 1, "iid": 1, "reshuffle": 1, "sms": None},
    "sghmc": {"full": 1, "iid": 1, "reshuffle": None, "sms": None},
    "mt3": {"full": 3, "iid": 1, "reshuffle": 2, "sms": 2},
    "nogin": {"full": "exact", "iid": None, "reshuffle": None, "sms": None},
    "msgld": {"full": 1, "iid": 1, "reshuffle": None, "sms": None},
    "exact_ou": {"full": "exact", "iid": 1, "reshuffle": 2, "sms": 2},
}
SOURCES = {
    ("ubu", "full"): "paulin2025 §2.1, Algorithm 1, Proposition 8 (full-gradient UBU: O(h^2) pathwise, so 2)",
    ("ubu", "iid"): "paulin2025 §2.2 (stochastic gradients 'reduce the order of accuracy in the stepsize from two "
    "to one', after Vollmer et al. 2016 and Sekkat and Stoltz 2023) and §3.4, Fig. 1; App. C, Theorem 15 bounds "
    "SG-UBU's Wasserstein bias",
    ("ubu", "reshuffle"): "paulin2025 §3.4, Fig. 1 (SG-UBU without replacement observed at 2; no theorem)",
    ("ubu", "sms"): "paulin2025 §2.2, Algorithm 2, Theorem 5 (SMS-UBU: W2 bias O(h^2))",
    "baoab": "paulin2025 §3.4, Fig. 1, App. A Algorithms 5-6 (BAOAB 2; SG 1 and SMS/wor 2 observed, no theorem)",
    "obabo": "paulin2025 §2.1 (weak-order-2 splitting)",
    "aboba": "chen2015 Lemma 8 (2); minibatch bottleneck franzese2021 Thm 3",
    "lie_trotter": "franzese2021 §4 eqs. 12-13 (2); Thm 3 reshuffle min(p,2); iid 1 (derived for this project)",
    "generalized_lie_trotter": "franzese2021 §4 eqs. 14-15, Prop. 2 (order independent of N_l)",
    **{
        (k, "sms"): "paulin2025 §2.3's symmetric splitting (2 for a symmetric order-2 splitting; derived for this "
        "project: franzese2021 Thm 3 covers reshuffled batches, not the forward-then-reverse order)"
        for k in ("obabo", "aboba", "lie_trotter", "generalized_lie_trotter", "mt3")
    },
    "em": "paulin2025 Algorithm 4 (Euler: 1)",
    "sgld": "chen2015 §4 (Euler, K = 1), sekkat2023 Prop. 2 (1)",
    "leapfrog": "franzese2021 App. B.5.1 eq. 31 (1; theta-marginal exact on Gaussians, derived for this project, so "
    "the law's order is E[v^2]'s); reshuffled batches Thm 3, min(p, 2) = 1; no paper result with sms batches",
    "mt3": "franzese2021 App. B.5.2 eqs. 39-43 (3 full batch; min(p,2) with reshuffled batches)",
    "nogin": "matthews2018 §3 Algorithm 1, §4.2, Fig. 1 (exact on Gaussians given Gaussian noise of known covariance; "
    "no claim for minibatch covariance estimates)",
    "msgld": "matthews2018 §5 and the authors' code: second order in their h with eps = h^2/2, i.e. order 1 in the implemented "
    "step eps (SGLD-type)",
    "sghmc": "an Euler discretisation (1; derived for this project: SGHMC is Chen et al. 2014's, not one of the five "
    "papers, none of which states its order); force at the new x (leapfrog at its midpoint); no claim with "
    "reshuffled or sms batches, where the order-1 bias of var_x comes from the noise correction B = h Sigma-hat / 2, "
    "calibrated for i.i.d. gradient noise",
    "exact_ou": "franzese2021 App. E.2 (exact full batch); reshuffle 2, iid 1 (derived for this project)",
}

# What kind of value THEORY holds (claims.SOURCES): a printed theorem's order unless listed here.
# OBABO is named a weak-order-2 candidate without a result (paulin2025 §2.1); the orders paulin2025
# observes in Fig. 1 without a theorem (SG-UBU without replacement, BAOAB with minibatches) are its
# statements; mSGLD's order is converted to the implemented step; the rest are the derivations SOURCES names.
SOURCE_KIND = {"obabo": "statement", "msgld": "derived", "sghmc": "derived", ("ubu", "iid"): "statement", ("lie_trotter", "iid"): "derived",
               ("exact_ou", "iid"): "derived", ("exact_ou", "reshuffle"): "derived",
               ("ubu", "reshuffle"): "statement", ("baoab", "iid"): "statement", ("baoab", "reshuffle"): "statement",
               ("baoab", "sms"): "statement", ("aboba", "sms"): "derived", ("lie_trotter", "sms"): "derived",
               ("generalized_lie_trotter", "sms"): "derived", ("mt3", "sms"): "derived",
               ("obabo", "sms"): "derived"}  # fmt: skip
# sms batches for the splittings other than UBU and BAOAB: franzese2021 Thm 3 covers reshuffled batches, not the
# forward-then-reverse order; their order 2 follows paulin2025 §2.3's symmetric-splitting argument (derived)


def _by_scheme(table: dict, r, default):
    """The entry of ``table`` for the row's (scheme, batching), else for its scheme, else ``default``."""
    return table.get((r.scheme, r.batching), table.get(r.scheme, default))


def claim_rows(rows: list[Row]) -> list[tuple[Claim, Outcome]]:
    """A (Claim, Outcome) per primary row that has a theory: reproduced when ``Row.agrees``;
    partly when the measured order is above the theorem's (its bound holds, not sharply, on this
    target); not reproduced when below."""
    out = []
    for r in rows:
        if not r.primary or r.theory is None:
            continue
        paper = "exact on Gaussian targets" if r.theory == "exact" else f"order {r.theory}"
        claim = Claim(f"{r.scheme} with {r.batching} batches: stationary bias {paper}", _by_scheme(SOURCES, r, ""),
                      paper, _by_scheme(SOURCE_KIND, r, "printed"),
                      tolerance="reproduced: the order lies in the slope's 95% interval or within 0.25 of the "
                                "slope (this project's allowance); partly: the slope above it (the bound holds, not "
                                "sharply); not reproduced: below it",
                      method=f"slope of log|bias| on log h of the exact stationary {r.statistic}, target {r.target}")  # fmt: skip
        ours = "exact (bias at rounding level)" if r.status == "exact" else f"{_p_ci(r.fit)} on {r.statistic}"
        if r.agrees == "yes":
            out.append((claim, reproduced(ours)))
        elif r.status == "measured" and r.theory != "exact" and r.fit.slope > r.theory:
            out.append((claim, partly(ours, "the measured order is higher than the theorem's: its bound holds, "
                                            "not sharply, on this target")))  # fmt: skip
        else:
            out.append((claim, not_reproduced(ours, r.note or r.status)))
    return out


# -- output ------------------------------------------------------------------------------------

CSV_FIELDS = ("scheme", "batching", "target", "statistic", "primary", "theory", "slope", "ci_low", "ci_high",
              "fit_rms", "agrees", "status", "params", "h", "bias", "note")  # fmt: skip


def _fmt(x: float, spec: str = ".3f") -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def _csv_row(r: Row) -> dict:
    return dict(zip(CSV_FIELDS, [
        r.scheme, r.batching, r.target, r.statistic, int(r.primary), "" if r.theory is None else r.theory,
        _fmt(r.fit.slope), _fmt(r.fit.lo), _fmt(r.fit.hi), _fmt(r.fit.rms, ".2e"), r.agrees, r.status,
        " ".join(f"{k}={v}" for k, v in preset_params(r.scheme).items()),
        ";".join(f"{h:.6g}" for h in r.h), ";".join(f"{b:.6e}" for b in r.bias), r.note,
    ]))  # fmt: skip


def plot(rows: list[Row], path: Path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(12, 9), squeeze=False)
    names = sorted({r.scheme for r in rows})
    cmap = plt.get_cmap("tab20")
    colours = {n: cmap(i % 20) for i, n in enumerate(names)}
    markers = "osD^v<>phX*"
    for ax, bt in zip(axes.flat, BATCHINGS):
        sel = [r for r in rows if r.batching == bt and r.primary and r.status == "measured"]
        for r in sel:
            lab = f"{r.scheme} ({r.statistic}) p={r.fit.slope:.2f}"
            ax.loglog(r.h, np.abs(r.bias), marker=markers[names.index(r.scheme) % len(markers)], ms=4, lw=1,
                      color=colours[r.scheme], label=lab)  # fmt: skip
        if sel:
            h0 = min(min(r.h) for r in sel)
            b0 = min(min(np.abs(r.bias)) for r in sel)
            hh = np.array([h0, 8 * h0])
            for p, ls in ((1, ":"), (2, "--"), (3, "-.")):
                ax.loglog(hh, b0 * (hh / h0) ** p, "k", ls=ls, lw=0.8, label=f"slope {p}")
        ax.set(title=f"batching = {bt}", xlabel="step size h", ylabel="|stationary bias|")
        ax.legend(fontsize=6, ncol=2)
        ax.grid(True, which="both", lw=0.2)
    fig.suptitle("Exact stationary bias of each integrator (primary statistic, thin=1 recorded law)")
    save_figure(fig, path)


def write_markdown(rows: list[Row], path: Path) -> None:
    lines = [
        "# Measured orders of convergence",
        "",
        "Generated by `bnnsample figure orders`; do not edit by hand (rerun the command).",
        "",
        "Bias of the exact stationary law of the implemented integrators (affine maps read off",
        "`advance` by `bnnsample/analysis/probe.py`, moments over every batch sequence of one schedule",
        "cycle, pooled over the cycle phases as a thin=1 run records them). Friction 1, float64.",
        "`p` is the least-squares slope of log|bias| on log h over the grid shown (h = 2^-e), with a 95%",
        "t-interval; `rms` the residual in natural-log units. Primary statistic: var_x = Var(x) minus",
        "the posterior variance; m2_v = E[v^2] - 1 when var_x is exact for every h or E[v^2]'s bias has",
        "the lower order by more than 0.5 (the law's order is its lowest). `agrees`: the",
        "theory's order lies in the interval or within 0.25 of p. Targets: "
        + "; ".join(f"`{t.name}` = {t.description}" for t in TARGETS)
        + ".",
        "",
    ]
    by_key: dict = {}
    for r in rows:
        by_key.setdefault((r.scheme, r.batching), []).append(r)
    lines += md_table(["scheme", "batching", "target", "stat", "theory", "p", "95% CI", "rms", "h grid", "agrees",
                       "other stats p", "note"], [_table_cells(rs) for rs in by_key.values()])  # fmt: skip
    dis = [_disagreement(r) for r in rows if r.primary and r.agrees == "no"]
    lines += _md_section("Disagreements with the papers",
                         dis or ["None: every measured order agrees with the theory where the papers make a claim."])  # fmt: skip
    lines += _md_section("Measured where no paper makes a claim",
                         [f"- {r.scheme} / {r.batching}: {_p_ci(r.fit)}" for r in rows
                          if r.primary and r.status == "measured" and r.theory is None])  # fmt: skip
    lines += _md_section("Not measured", [f"- {r.scheme} / {r.batching}: {r.status}: {r.note}" for r in rows
                                          if r.status in ("not affine", "not applicable", "error", "skipped")])  # fmt: skip
    lines += _md_section(
        "Sources of the theory column",
        [f"- {k if isinstance(k, str) else ' / '.join(k)}: {v}" for k, v in SOURCES.items()],
    )
    write_file(path, "\n".join(lines) + "\n")


def _md_section(title: str, items: list[str]) -> list[str]:
    """A '## title' list of orders.md; nothing when there are no items."""
    return ["", f"## {title}", "", *items] if items else []


def _p_ci(f: Fit) -> str:
    return f"p = {f.slope:.3f} [{f.lo:.3f}, {f.hi:.3f}]"


def _table_cells(rs: list[Row]) -> list[str]:
    """The orders.md table cells of one (scheme, batching): its primary row (the first) and the
    slopes of its other statistics."""
    r = rs[0]
    mp = ", ".join(f"{x.statistic} " + ("exact" if x.status == "exact" else f"{x.fit.slope:.2f}")
                   for x in rs if not x.primary)  # fmt: skip
    th = "" if r.theory is None else str(r.theory)
    grid = f"2^-{round(-math.log2(r.h[0]))}..2^-{round(-math.log2(r.h[-1]))}" if r.h else ""
    if r.status == "measured":
        p, ci, rms = f"{r.fit.slope:.3f}", f"[{r.fit.lo:.3f}, {r.fit.hi:.3f}]", f"{r.fit.rms:.1e}"
    else:
        p, ci, rms = r.status, "", ""
    return [r.scheme, r.batching, r.target, r.statistic, th, p, ci, rms, grid, r.agrees, mp, r.note]


def _disagreement(r: Row) -> str:
    b = ", ".join(f"{v:.3e}" for v in r.bias)
    meas = "exact (bias at rounding level)" if r.status == "exact" else _p_ci(r.fit)
    return (f"- **{r.scheme} / {r.batching}**: theory {r.theory} ({_by_scheme(SOURCES, r, 'issue text')}), "
            f"measured {meas} on {r.statistic}, target {r.target}; |bias| at h = "
            f"{', '.join(f'{h:g}' for h in r.h)}: {b}. {r.note}")  # fmt: skip


def _schemes(key: str, text: str) -> list[str]:
    from ..integrators import REGISTRY

    def complaint(bad):
        return f"unknown {', '.join(bad) or '(empty)'}; allowed: {', '.join(REGISTRY)}"

    return names(REGISTRY, complaint)(key, text)


def _grid(key: str, v: str) -> tuple[int, int]:
    try:
        lo, hi = (int(x) for x in v.split(":"))
    except ValueError:
        raise ValueError(f"{key}={v}: expected E1:E2 (h = 2^-E1 .. 2^-E2), e.g. 3:7") from None
    if not (lo >= 0 and hi - lo >= 2 and hi <= MAX_EXP):
        raise ValueError(f"{key}={v}: need 0 <= E1, E2 - E1 >= 2 and E2 <= {MAX_EXP}")
    return lo, hi


def _adapt(key: str, v: str) -> bool:
    if v not in ("0", "1", "true", "false"):
        raise ValueError(f"{key}={v}: allowed values: 0, 1")
    return v in ("1", "true")


OPTIONS = (Option("schemes", _schemes), Option("batchings", lambda k, v: tuple(names(BATCHINGS)(k, v)), BATCHINGS),
           Option("grid", _grid, START), Option("adapt", _adapt, True))  # fmt: skip


@register("orders", "measured order of the stationary bias vs step size, every integrator x batching", scales=(),
          options=tuple(o.key for o in OPTIONS))  # fmt: skip
def make(out_dir: Path, options: dict) -> list[Path]:
    """Write orders.csv, orders.png, orders.md and claims.csv into out_dir/orders. Options:
    schemes=a,b batchings=full,iid grid=E1:E2 (initial window, h = 2^-E) adapt=0|1."""
    from ..integrators import REGISTRY

    keys = [o.key for o in OPTIONS]
    unknown = [k for k in options if k not in keys]
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r} for figure orders; allowed: {', '.join(keys)}")
    opts = parse_options(options, OPTIONS)
    out_dir = recipe_dir(out_dir, "orders")
    schemes = opts["schemes"] or list(REGISTRY)
    bar = CellBar("orders", len(schemes))
    try:
        rows = measure_orders(schemes, opts["batchings"], opts["grid"], opts["adapt"], bar, THEORY)
    finally:
        bar.close()
    paths = [out_dir / "orders.csv", out_dir / "orders.png", out_dir / "orders.md"]
    write_csv(paths[0], [_csv_row(r) for r in rows], float_format=None, columns=CSV_FIELDS)
    plot(rows, paths[1])
    write_markdown(rows, paths[2])
    setting = " ".join(["bnnsample figure orders", *(f"{k}={v}" for k, v in sorted(options.items()))])
    return [*paths, write_claims(out_dir / CLAIMS_CSV, "orders", claim_rows(rows), setting)]

"""Thermostat integrators: SGNHT, Adaptive Langevin (AdL), extended AdL (eAdL) and CC-ADL.

The thermostat variables live in ``state.extra`` (so they are saved and resumed with the
state):

    sgnht   "xi" [C] (scalar) or [C, d] (diagonal, mSGNHT)
    adl     "xi" [C] (scalar), [C, d] (diagonal), [C, G] (groups), [C, d, d] (full)
    eadl    "xi" [C, K], [C, K, d] or [C, K, d, d]: one coefficient per basis function,
            plus "basis_norm" [K] and, while the norms are estimated, "basis_sq" [K]
    ccadl   "xi" [C]

A thermostat mass of ``inf`` freezes the friction at its initial value exactly (1/eta = 0):
each scheme then reduces to a linear Langevin splitting with constant friction.

Two conventions for the scalar thermostat, each the paper's own:
    SGNHT, CC-ADL (Ding et al. 2014):   d xi = (1/mu)  (p^T p / d - 1) dt
    AdL, eAdL (sekkat2023 eq. 59):      d xi = (1/eta) (p^T p - d) dt
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ..plumbing.errors import positive_number
from .base import Force, Integrator, State, StepContext, register
from .langevin import drift, kick, kick_with

FRICTION_KINDS = ("scalar", "diagonal", "full", "groups")


def _inverse_mass(value, field: str = "thermostat_mass") -> float:
    """1/eta for a thermostat mass eta in (0, inf]; inf gives 0 (frozen thermostat)."""
    eta = positive_number(
        value, ValueError, f"{field} must be a number > 0 (inf freezes the thermostat), got {value!r}"
    )
    return 0.0 if math.isinf(eta) else 1.0 / eta


def _optional_float(value, field: str):
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{field} must be a number or null, got {value!r}") from None


def phi1(s: torch.Tensor) -> torch.Tensor:
    """(1 - e^{-s}) / s elementwise, 1 at s = 0; positive for every real s (expm1: no cancellation)."""
    return torch.where(s == 0, 1.0, torch.expm1(-s).div_(-s))  # the 0/0 branch is discarded


def ou_scales(lam: torch.Tensor, gamma: float, t: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Decay and noise std of dp = -lam p dt + sqrt(2 gamma) dW over time t, per eigenvalue lam:

        e^{-t lam},   sqrt(gamma (1 - e^{-2 t lam}) / lam) = sqrt(2 t gamma phi1(2 t lam)),

    with the lam -> 0 limit sqrt(2 gamma t) and valid for lam < 0 (the variance grows)."""
    return torch.exp(-t * lam), torch.sqrt((2 * t * gamma) * phi1((2 * t) * lam))


def matrix_ou(p: torch.Tensor, xi: torch.Tensor, gamma: float, t: float, g: torch.Tensor) -> torch.Tensor:
    """Exact OU flow of dp = -xi p dt + sqrt(2 gamma) dW over time t for symmetric xi [C, d, d]
    (sekkat2023 eq. 54): p' = e^{-t xi} p + S g with S S^T = gamma xi^{-1} (I - e^{-2 t xi})
    (the spectral-calculus value for singular or indefinite xi). With xi = U diag(lam) U^T
    (batched eigh), p' = U (e^{-t lam} * U^T p + s(lam) * g): the noise U diag(s) g has the
    covariance of the symmetric square root's (g is isotropic), one product fewer."""
    lam, U = torch.linalg.eigh(xi)
    e, s = ou_scales(lam, gamma, t)
    q = (U.transpose(1, 2) @ p[..., None])[..., 0]
    return (U @ (e * q + s * g)[..., None])[..., 0]


def matrix_ou_covariance(xi: torch.Tensor, gamma: float, t: float) -> torch.Tensor:
    """gamma xi^{-1} (I - e^{-2 t xi}) for symmetric xi [C, d, d] (the law of matrix_ou's noise)."""
    lam, U = torch.linalg.eigh(xi)
    _, s = ou_scales(lam, gamma, t)
    return U @ torch.diag_embed(s**2) @ U.transpose(1, 2)


class Friction:
    """One friction of sekkat2023's classes (Remark 11): how it is stored, acts and is driven.

        scalar     xi [..]            xi I,                         drive |p|^2 - d
        diagonal   xi [.., d]         diag(xi),                     drive p_i^2 - 1
        groups     xi [.., G]         xi_g on the coordinates of g, drive sum_{i in g} p_i^2 - |g|
        full       xi [.., d, d]      symmetric matrix,             drive p p^T - I

    ``..`` is the chain dimension (eAdL adds a basis dimension after it). The groups drive is
    the scalar rule (eq. 59) applied per group; the paper states no update for this case.
    """

    def __init__(self, kind: str, dim_groups=None):
        if kind not in FRICTION_KINDS:
            raise ValueError(f"friction_kind={kind!r}: allowed values: {', '.join(FRICTION_KINDS)}")
        self.kind = kind
        self.sizes = None
        if kind == "groups":
            if dim_groups is None or len(dim_groups) == 0:
                raise ValueError("friction_kind=groups needs groups=[size, ...] (group sizes summing to d)")
            try:
                self.sizes = [int(s) for s in dim_groups]
            except (TypeError, ValueError):
                raise ValueError(f"groups must be a list of positive integers, got {dim_groups!r}") from None
            if min(self.sizes) < 1:
                raise ValueError(f"groups must be a list of positive integers, got {dim_groups!r}")
        elif dim_groups is not None:
            raise ValueError(f"groups is only used with friction_kind=groups (got friction_kind={kind})")
        self._gid: dict = {}

    def check_dim(self, d: int) -> None:
        if self.sizes is not None and sum(self.sizes) != d:
            raise ValueError(f"groups={self.sizes} sum to {sum(self.sizes)}, but the parameter has d={d}")

    def group_index(self, like: torch.Tensor) -> torch.Tensor:
        """Group of each coordinate, [d]."""
        key = like.device
        if key not in self._gid:
            self._gid[key] = torch.repeat_interleave(
                torch.arange(len(self.sizes), device=like.device), torch.tensor(self.sizes, device=like.device)
            )
        return self._gid[key]

    def shape(self, d: int) -> tuple[int, ...]:
        return {"scalar": (), "diagonal": (d,), "groups": (len(self.sizes or ()),), "full": (d, d)}[self.kind]

    def constant(self, lead: tuple[int, ...], d: int, value: float, like: torch.Tensor) -> torch.Tensor:
        """value * I in this class, shaped [*lead, *shape]."""
        if self.kind == "full":
            return value * torch.eye(d, dtype=like.dtype, device=like.device).expand(*lead, d, d).clone()
        return torch.full((*lead, *self.shape(d)), value, dtype=like.dtype, device=like.device)

    def drive(self, p: torch.Tensor) -> torch.Tensor:
        """The thermostat's force K(p) (p [C, d]): d xi = (1/eta) K(p) dt."""
        d = p.shape[1]
        if self.kind == "scalar":
            return (p * p).sum(1) - d
        if self.kind == "diagonal":
            return p * p - 1
        if self.kind == "groups":
            sq = torch.zeros(p.shape[0], len(self.sizes), dtype=p.dtype, device=p.device)
            sq.index_add_(1, self.group_index(p), p * p)
            return sq - torch.tensor(self.sizes, dtype=p.dtype, device=p.device)
        return p[:, :, None] * p[:, None, :] - torch.eye(d, dtype=p.dtype, device=p.device)

    def mean_diagonal(self, xi: torch.Tensor, d: int) -> torch.Tensor:
        """tr(xi) / d per chain ([C]): the friction's average over coordinates."""
        if self.kind == "scalar":
            return xi
        if self.kind == "full":
            return torch.diagonal(xi, dim1=1, dim2=2).mean(1)
        if self.kind == "groups":
            return (xi * torch.tensor(self.sizes, dtype=xi.dtype, device=xi.device)).sum(1) / d
        return xi.mean(1)

    def factors(self, xi: torch.Tensor, gamma: float, t: float):
        """(U or None, decay, noise std) of the OU flow over time t: per eigenvalue of xi (full,
        U its eigenvectors) or per coordinate ([C, 1] or [C, d])."""
        if self.kind == "full":
            lam, U = torch.linalg.eigh(xi)
            return (U, *ou_scales(lam, gamma, t))
        if self.kind == "scalar":
            xi = xi[:, None]
        elif self.kind == "groups":
            xi = xi.index_select(1, self.group_index(xi))
        return (None, *ou_scales(xi, gamma, t))

    @staticmethod
    def apply(p: torch.Tensor, factors, g: torch.Tensor) -> torch.Tensor:
        U, e, s = factors
        if U is None:
            return torch.addcmul(e * p, s, g)
        q = (U.transpose(1, 2) @ p[..., None])[..., 0]
        return (U @ torch.addcmul(e * q, s, g)[..., None])[..., 0]

    def ou(self, p: torch.Tensor, xi: torch.Tensor, gamma: float, t: float, g: torch.Tensor) -> torch.Tensor:
        """Exact flow of dp = -xi p dt + sqrt(2 gamma) dW over time t (xi [C, *shape])."""
        return self.apply(p, self.factors(xi, gamma, t), g)


@register
class AdaptiveLangevin(Integrator):
    """Adaptive Langevin (AdL), sekkat2023 §3.2.2, eq. 58, Gamma = gamma I, step h:

        p^{m+1/2}  = e^{-h xi^m/2} p^m + [gamma (xi^m)^{-1} (I - e^{-h xi^m})]^{1/2} G^m
        xi^{m+1/2} = xi^m + (h / 2 eta) K(p^{m+1/2})
        x^{m+1/2}  = x^m + (h/2) p^{m+1/2}
        p~         = p^{m+1/2} - h G(x^{m+1/2})             this step's minibatch (energy gradient)
        x^{m+1}    = x^{m+1/2} + (h/2) p~
        xi^{m+1}   = xi^{m+1/2} + (h / 2 eta) K(p~)
        p^{m+1}    = e^{-h xi^{m+1}/2} p~ + [gamma (xi^{m+1})^{-1} (I - e^{-h xi^{m+1}})]^{1/2} G^{m+1/2}

    K(p) = p p^T - I (full), p_i^2 - 1 (diagonal), |p|^2 - d (scalar, eq. 59), per-group sums
    (groups; see ``Friction``). The OU half steps are exact in law for any symmetric xi,
    also singular or indefinite (``matrix_ou``). Initialisation as in the paper: xi_0 = gamma I,
    p_0 = 0. thermostat_mass = eta in (0, inf]; inf freezes xi = gamma I (the scheme is then
    OABAO). One gradient per step. Inside a block of n steps the final half OU of a step and
    the first of the next use the same xi and are fused into one OU over h (exact in law);
    the full-matrix case does one eigendecomposition per step.
    """

    name = "adl"
    summary = "Adaptive Langevin (sekkat2023 eq. 58): OABAO with a thermostat friction (scalar|diagonal|full|groups)"

    def __init__(self, friction_kind: str = "scalar", groups=None, thermostat_mass=1.0):
        self.friction = Friction(friction_kind, groups)
        self.inv_mass = _inverse_mass(thermostat_mass)

    def diagnostics(self, state: State) -> dict[str, torch.Tensor]:
        return {"friction": self.friction.mean_diagonal(state.extra["xi"], state.x.shape[1])}

    def init_state(self, x, ctx: StepContext) -> State:
        self.friction.check_dim(x.shape[1])
        xi = self.friction.constant((x.shape[0],), x.shape[1], ctx.gamma, x)
        return State(x=x.clone(), v=torch.zeros_like(x), extra={"xi": xi})

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        fr, h, gamma = self.friction, ctx.h, ctx.gamma
        c = self.inv_mass * h / 2
        x, v, xi = state.x, state.v, state.extra["xi"]
        half = fr.factors(xi, gamma, h / 2)
        full = None if c else fr.factors(xi, gamma, h)  # a frozen thermostat: constant OU factors
        v = fr.apply(v, half, ctx.normal(*x.shape, like=x))
        for k in range(n):
            if c:
                xi = xi + c * fr.drive(v)
            x = drift(x, v, h / 2)
            if ctx.boundary is not None:
                x, v = ctx.boundary(x, v)
            v = kick(v, next_force(), x, h)
            x = drift(x, v, h / 2)
            if c:
                xi = xi + c * fr.drive(v)
                factors = fr.factors(xi, gamma, h if k < n - 1 else h / 2)
            else:
                factors = full if k < n - 1 else half
            v = fr.apply(v, factors, ctx.normal(*x.shape, like=x))
        return State(x, v, {**state.extra, "xi": xi})


NORMALIZATIONS = ("burn_in", "given", "none")


def _nested(edges: list) -> bool:
    """One list of edges per coordinate (True) or one list for all coordinates (False)."""
    return bool(edges) and all(hasattr(e, "__len__") and not isinstance(e, str) for e in edges)


class PartitionBasis:
    """eAdL basis (sekkat2023 §4.3, eqs. 77-78): a tensor grid of rectangles cut by ``edges``
    (one list of edges per coordinate, or one list for all), and on each rectangle
    D = prod_j [M-_j, M+_j] the tensor-product monomials

        f_{D, i}(x) = 1_D(x) prod_j u_j^{i_j},   u_j = (x_j - M-_j) / (M+_j - M-_j),  0 <= i_j <= degree

    (degree 0: the indicators). K = #rectangles * (degree + 1)^d functions, ordered by
    rectangle (C order over the coordinates' intervals), then multi-index (C order).
    Decision (the paper is silent): the outer rectangles extend to infinity, so the partition
    covers R^d and the friction never vanishes outside the box; there u_j is clamped to [0, 1].
    """

    MAX_FUNCTIONS = 4096

    def __init__(self, edges, degree: int, dim: int):
        if edges is None:
            raise ValueError("eadl needs edges: one list of increasing edges per coordinate, or one list for all")
        edges = list(edges)
        per_coord = [list(e) for e in edges] if _nested(edges) else [edges] * dim
        if len(per_coord) != dim:
            raise ValueError(f"edges has {len(per_coord)} lists for a parameter of dimension d={dim}")
        self.edges = []
        for j, e in enumerate(per_coord):
            try:
                e = [float(v) for v in e]
            except (TypeError, ValueError):
                raise ValueError(f"edges[{j}] must be a list of numbers, got {e!r}") from None
            if len(e) < 2 or any(b <= a for a, b in zip(e, e[1:])):
                raise ValueError(f"edges[{j}] must hold at least 2 strictly increasing numbers, got {e}")
            self.edges.append(e)
        if int(degree) < 0:
            raise ValueError(f"degree must be an integer >= 0, got {degree!r}")
        self.degree = int(degree)
        self.dim = dim
        self.cells_per_coord = [len(e) - 1 for e in self.edges]
        self.n_cells = math.prod(self.cells_per_coord)
        self.per_cell = (self.degree + 1) ** dim
        self.size = self.n_cells * self.per_cell
        if self.size > self.MAX_FUNCTIONS:
            raise ValueError(
                f"eadl basis has {self.size} functions (> {self.MAX_FUNCTIONS}); use fewer edges or a lower degree"
            )
        self._t: dict = {}

    def indicator_mask(self) -> list[bool]:
        """True for the degree-0 (indicator) functions."""
        return [i % self.per_cell == 0 for i in range(self.size)]

    def _tables(self, like):
        key = (like.device, like.dtype)
        if key not in self._t:
            self._t[key] = [torch.tensor(e, dtype=like.dtype, device=like.device) for e in self.edges]
        return self._t[key]

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """f_k(x) for x [C, d]: [C, K]."""
        C = x.shape[0]
        flat = torch.zeros(C, dtype=torch.long, device=x.device)
        mono = torch.ones(C, 1, dtype=x.dtype, device=x.device)
        powers = torch.arange(self.degree + 1, device=x.device, dtype=x.dtype)
        for j, e in enumerate(self._tables(x)):
            m = self.cells_per_coord[j]
            cell = torch.bucketize(x[:, j].contiguous(), e[1:-1], right=True)  # 0..m-1, outer cells unbounded
            lo, hi = e[cell], e[cell + 1]
            u = ((x[:, j] - lo) / (hi - lo)).clamp(0, 1)
            flat = flat * m + cell
            mono = (mono[:, :, None] * u[:, None, None] ** powers).reshape(C, -1)
        out = torch.zeros(C, self.n_cells, self.per_cell, dtype=x.dtype, device=x.device)
        out.scatter_(1, flat[:, None, None].expand(C, 1, self.per_cell), mono[:, None, :])
        return out.reshape(C, self.size)


@register
class ExtendedAdaptiveLangevin(Integrator):
    """Extended AdL (eAdL), sekkat2023 §4.2, eq. 75 (the last line updates p, not xi as printed):
    a position-dependent friction xi(x) = sum_k xi_k f_k(x) on a normalized basis f_k,

        xi^m        = sum_k xi_k^m f_k(x^m)
        p^{m+1/2}   = e^{-h xi^m/2} p^m + [gamma (xi^m)^{-1} (I - e^{-h xi^m})]^{1/2} G^m
        xi_k^{m+1/2}= xi_k^m + (h / 2 eta) f_k(x^m) K(p^{m+1/2})
        x^{m+1/2}   = x^m + (h/2) p^{m+1/2}
        p~          = p^{m+1/2} - h G(x^{m+1/2})
        x^{m+1}     = x^{m+1/2} + (h/2) p~
        xi_k^{m+1}  = xi_k^{m+1/2} + (h / 2 eta) f_k(x^{m+1}) K(p~)
        p^{m+1}     = e^{-h xi^{m+1}/2} p~ + [...]^{1/2} G^{m+1/2},   xi^{m+1} = sum_k xi_k^{m+1} f_k(x^{m+1})

    with K(p) of the friction kind (scalar | diagonal | full; the paper's §4.4 uses full) and
    f_k = (raw basis of ``PartitionBasis``) / c_k, c_k the L2(pi) norm of the raw function
    (the paper: "each basis function is rescaled to have unit L2(pi) norm").

    normalization
        burn_in   (default) c_k = sqrt(mean of f_k(x)^2 over the chains and the second half of
                  the burn-in steps): the burn-in runs with c = 1, then the coefficients are
                  rescaled xi_k <- c_k xi_k so that xi(x) is continuous; c_k = 1 for functions
                  that were zero on every sampled state. The paper takes c_k from preliminary
                  AdL runs; the burn-in is that run. Needs burn_in >= 2 steps.
        given     c_k = basis_norms[k] (K numbers)
        none      c_k = 1
    The norms only rescale each coefficient's thermostat mass (eta c_k^2 in the raw basis).
    Initialisation (the paper is silent): coefficients of the indicators = gamma c_k (times I),
    the others 0, so xi_0(x) = gamma I everywhere; p_0 = 0. thermostat_mass = eta_k for every k.
    """

    name = "eadl"
    summary = "extended AdL (sekkat2023 eq. 75): position-dependent friction on a piecewise-polynomial basis"

    def __init__(self, edges=None, degree: int = 0, friction_kind: str = "full", thermostat_mass=1.0,
                 normalization: str = "burn_in", basis_norms=None):  # fmt: skip
        if friction_kind not in ("scalar", "diagonal", "full"):
            raise ValueError(f"friction_kind={friction_kind!r}: allowed values for eadl: scalar, diagonal, full")
        if normalization not in NORMALIZATIONS:
            raise ValueError(f"normalization={normalization!r}: allowed values: {', '.join(NORMALIZATIONS)}")
        if (normalization == "given") != (basis_norms is not None):
            raise ValueError("basis_norms is required with normalization=given and only used there")
        self.friction = Friction(friction_kind)
        self.inv_mass = _inverse_mass(thermostat_mass)
        self.normalization = normalization
        self.edges, self.degree, self.basis_norms = edges, degree, basis_norms
        self.basis: PartitionBasis | None = None
        if edges is not None and not _nested(list(edges)):
            self._make_basis(1)  # validate early; rebuilt for d > 1 in init_state

    def check_run(self, burn_in: int, total_steps: int) -> None:
        if self.normalization == "burn_in" and burn_in < 2:
            raise ValueError(
                f"normalization=burn_in estimates the basis norms during burn-in: burn_in must be >= 2 steps "
                f"(got {burn_in}), or use normalization=given|none"
            )

    def _make_basis(self, d: int) -> PartitionBasis:
        basis = PartitionBasis(self.edges, self.degree, d)
        if self.basis_norms is not None:
            norms = [float(c) for c in self.basis_norms]
            if len(norms) != basis.size or min(norms) <= 0:
                raise ValueError(f"basis_norms must be {basis.size} positive numbers (one per basis function)")
        self.basis = basis
        return basis

    def _basis_for(self, d: int) -> PartitionBasis:
        return self.basis if self.basis is not None and self.basis.dim == d else self._make_basis(d)

    def init_state(self, x, ctx: StepContext) -> State:
        C, d = x.shape
        basis = self._basis_for(d)
        K = basis.size
        if self.normalization == "given":
            norm = torch.tensor([float(c) for c in self.basis_norms], dtype=x.dtype, device=x.device)
        else:
            norm = torch.ones(K, dtype=x.dtype, device=x.device)
        ind = torch.tensor(basis.indicator_mask(), dtype=x.dtype, device=x.device)
        coef = ctx.gamma * ind * norm  # [K]
        xi = self.friction.constant((C, K), d, 1.0, x) * coef.view(1, K, *([1] * len(self.friction.shape(d))))
        extra = {"xi": xi, "basis_norm": norm}
        if self.normalization == "burn_in":
            extra["basis_sq"] = torch.zeros(K + 1, dtype=x.dtype, device=x.device)  # sums of f_k^2, then the count
        return State(x=x.clone(), v=torch.zeros_like(x), extra=extra)

    def _combine(self, coef: torch.Tensor, f: torch.Tensor) -> torch.Tensor:
        """sum_k coef_k f_k: [C, K, *shape] x [C, K] -> [C, *shape]."""
        return (coef * f.view(*f.shape, *([1] * (coef.dim() - 2)))).sum(1)

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        fr, h, gamma = self.friction, ctx.h, ctx.gamma
        c = self.inv_mass * h / 2
        basis = self._basis_for(state.x.shape[1])
        x, v, coef = state.x, state.v, state.extra["xi"]
        norm = state.extra["basis_norm"]
        sq = state.extra.get("basis_sq")
        estimating = sq is not None
        if estimating and ctx.burn_in < 2:
            raise ValueError("eadl normalization=burn_in needs burn_in >= 2 steps (or normalization=given|none)")
        f = basis(x) / norm
        xi = self._combine(coef, f)
        v = fr.ou(v, xi, gamma, h / 2, ctx.normal(*x.shape, like=x))
        for k in range(n):
            step = ctx.step + k  # steps done before this one
            if c:
                coef = coef + c * f.view(*f.shape, *([1] * (coef.dim() - 2))) * fr.drive(v)[:, None]
            x = drift(x, v, h / 2)
            if ctx.boundary is not None:
                x, v = ctx.boundary(x, v)
            v = kick(v, next_force(), x, h)
            x = drift(x, v, h / 2)
            raw = basis(x)
            f = raw / norm
            if c:
                coef = coef + c * f.view(*f.shape, *([1] * (coef.dim() - 2))) * fr.drive(v)[:, None]
            if estimating and step + 1 >= ctx.burn_in // 2:
                sq = sq + torch.cat([(raw * raw).sum(0), sq.new_tensor([raw.shape[0]])])
                if step + 1 == ctx.burn_in:  # rescale so that xi(x) is unchanged, then stop estimating
                    ms = sq[:-1] / sq[-1]
                    new = torch.where(ms > 0, ms.sqrt(), torch.ones_like(ms))
                    coef = coef * (new / norm).view(1, -1, *([1] * (coef.dim() - 2)))
                    norm, f, estimating, sq = new, raw / new, False, None
            xi = self._combine(coef, f)
            v = fr.ou(v, xi, gamma, h if k < n - 1 else h / 2, ctx.normal(*x.shape, like=x))
        extra = {**state.extra, "xi": coef, "basis_norm": norm}
        if sq is None:
            extra.pop("basis_sq", None)
        else:
            extra["basis_sq"] = sq
        return State(x, v, extra)


SGNHT_FORMS = ("splitting", "euler")


class _ScalarThermostat:
    """Ding et al.'s thermostat, d xi = (1/mu) (p^T p / d - 1) dt (scalar) or the elementwise
    (1/mu) (p_i^2 - 1) of mSGNHT (diagonal)."""

    def __init__(self, thermostat: str):
        if thermostat not in ("scalar", "diagonal"):
            raise ValueError(f"thermostat={thermostat!r}: allowed values: scalar, diagonal")
        self.diagonal = thermostat == "diagonal"

    def drive(self, p):
        return p * p - 1 if self.diagonal else (p * p).mean(1) - 1

    def per_coord(self, xi):
        return xi if self.diagonal else xi[:, None]

    def init(self, x, value: float):
        return torch.full(x.shape if self.diagonal else x.shape[:1], value, dtype=x.dtype, device=x.device)


@register
class SGNHT(Integrator):
    """Stochastic-gradient Nose-Hoover thermostat (chen2015 App. A, Ding et al. 2014; Ding et al. 2014), A = gamma:

        dx = p dt,  dp = -grad U dt - xi p dt + sqrt(2A) dW,  d xi = (1/mu) (p^T p / d - 1) dt

    form=euler (Ding et al. Alg. 2):
        p' = p - h xi p - h G(x) + sqrt(2 A h) zeta
        x' = x + h p'
        xi' = xi + (h/mu) (p'^T p' / d - 1)
    form=splitting (ABOBA, Li et al. 2016 / mSGNHT code), the force at the half-step position:
        A: x += (h/2) p,  xi += (h/2mu) (p^T p/d - 1)
        B: p <- e^{-xi h/2} p
        O: p <- p - h G(x) + sqrt(2 A h) zeta
        B: p <- e^{-xi h/2} p
        A: x += (h/2) p,  xi += (h/2mu) (p^T p/d - 1)
    thermostat=diagonal uses the elementwise p_i^2 - 1 (mSGNHT). Initialisation as Ding et al.:
    p_0 ~ N(0, I), xi_0 = A = gamma (initial_friction overrides). thermostat_mass = mu in
    (0, inf]; inf freezes xi (euler: SGHMC's symplectic Euler; splitting: chen2015's ABOBA).
    """

    name = "sgnht"
    summary = (
        "SGNHT (Ding et al. 2014; chen2015 App. A, Ding et al. 2014): Nose-Hoover thermostat, Euler or ABOBA splitting"
    )

    def __init__(self, form: str = "splitting", thermostat: str = "scalar", thermostat_mass=1.0,
                 initial_friction=None):  # fmt: skip
        if form not in SGNHT_FORMS:
            raise ValueError(f"form={form!r}: allowed values: {', '.join(SGNHT_FORMS)}")
        self.form = form
        self.thermostat = _ScalarThermostat(thermostat)
        self.inv_mass = _inverse_mass(thermostat_mass)
        self.xi0 = _optional_float(initial_friction, "initial_friction")

    def init_state(self, x, ctx: StepContext) -> State:
        st = super().init_state(x, ctx)
        st.extra["xi"] = self.thermostat.init(x, ctx.gamma if self.xi0 is None else self.xi0)
        return st

    def diagnostics(self, state: State) -> dict[str, torch.Tensor]:
        xi = state.extra["xi"]
        return {"friction": xi.mean(1) if xi.dim() == 2 else xi}

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        th, h = self.thermostat, ctx.h
        x, v, xi = state.x, state.v, state.extra["xi"]
        noise = math.sqrt(2 * ctx.gamma * h)
        c = self.inv_mass * h
        for _ in range(n):
            if self.form == "euler":
                f = next_force()(x)
                v = (v - h * th.per_coord(xi) * v).add_(f, alpha=-h).add_(ctx.normal(*x.shape, like=x), alpha=noise)
                x = drift(x, v, h)
                if ctx.boundary is not None:
                    x, v = ctx.boundary(x, v)
                if c:
                    xi = xi + c * th.drive(v)
            else:
                x = drift(x, v, h / 2)
                if c:
                    xi = xi + (c / 2) * th.drive(v)
                if ctx.boundary is not None:
                    x, v = ctx.boundary(x, v)
                damp = torch.exp(th.per_coord(xi) * (-h / 2))
                v = kick(v * damp, next_force(), x, h).add_(ctx.normal(*x.shape, like=x), alpha=noise)
                v = v * damp
                x = drift(x, v, h / 2)
                if c:
                    xi = xi + (c / 2) * th.drive(v)
        return State(x, v, {**state.extra, "xi": xi})


@register
class CCADL(Integrator):
    """Covariance-controlled adaptive Langevin (CC-ADL; Shang et al. 2015, Algorithm 1), as
    matthews2018's authors run it (their public code), with the energy gradient G = -F~, A = gamma:

        x  <- x + h p
        (G, Sigma~) at the new x, from this step's minibatch (oracle.force_and_covariance)
        p  <- p - h G - (h^2/2) Sigma~ p - h xi p + sqrt(2 gamma h) R     (all on the old p)
        xi <- xi + (h/mu) (p^T p / d - 1)

    Sigma~ is the covariance estimate of the force (eps(n) times the batch's per-datum sample
    covariance; 0 for the full batch). Initialisation as the authors' code: xi_0 = 0 (mass
    mu = 1 there; Shang et al. start at xi_0 = A, which changes nothing measurable),
    p_0 ~ N(0, I); initial_friction overrides xi_0. thermostat_mass = mu in (0, inf]; inf
    freezes xi. One gradient (and one covariance) per step.

    shared_thermostat: one xi for all chains (replicas), driven by p^T p averaged over every
    chain's coordinates, xi <- xi + (h/mu) (mean over chains and coordinates of p^2 - 1), as the
    authors' public code runs its replicas (github.com/c-matthews/nogin, lib/integrators/ccadl.py:
    one scalar thermostat, sum(p*p) / p.size over the replicas' momenta). The chains are then
    coupled through xi, which averages C d degrees of freedom and barely fluctuates; diverged
    (non-finite) chains are left out of the mean. Default False: one thermostat per chain, the
    independent chains the rest of bnnsample assumes.

    Stability: the friction is explicit Euler. With xi frozen, on a Gaussian U = w^2 x^2 / 2
    with Sigma = s, the (x, p) map is stable iff 0 < xi + h s/2 < 2/h - h w^2/2; past it p flips
    sign and grows every step, and xi (driven by p^2) follows. The thermostat's mean-field
    equilibrium therefore has a second, unstable root below that bound (the basin edge), and
    chains whose xi wanders past it diverge: matthews2018 Fig. 1 at h >= 0.25 (d = 1) and
    Fig. 2 wherever (h^2/2) lambda_max(Sigma~) approaches 2 (results/ccadl_diagnosis.md).
    """

    name = "ccadl"
    needs = ("covariance",)
    summary = "CC-ADL (Shang et al. 2015 Alg. 1, matthews2018 authors' code): thermostat plus -(h^2/2) Sigma p"

    def __init__(self, thermostat_mass=1.0, initial_friction=None, shared_thermostat=False):
        self.inv_mass = _inverse_mass(thermostat_mass)
        self.xi0 = _optional_float(initial_friction, "initial_friction")
        if not isinstance(shared_thermostat, bool):
            raise ValueError(f"shared_thermostat={shared_thermostat!r}: allowed values: true, false")
        self.shared = shared_thermostat

    def init_state(self, x, ctx: StepContext) -> State:
        st = super().init_state(x, ctx)
        st.extra["xi"] = torch.full(x.shape[:1], 0.0 if self.xi0 is None else self.xi0, dtype=x.dtype, device=x.device)
        return st

    def _temperature(self, v: torch.Tensor) -> torch.Tensor:
        """p^T p / d per chain, or (shared thermostat) its mean over the finite chains, for every chain."""
        per_chain = (v * v).mean(1)
        if not self.shared:
            return per_chain
        return torch.nanmean(per_chain.masked_fill(~torch.isfinite(per_chain), float("nan"))).expand_as(per_chain)

    def diagnostics(self, state: State) -> dict[str, torch.Tensor]:
        return {"friction": state.extra["xi"]}

    def advance(self, state: State, n: int, next_force: Callable[[], Force], ctx: StepContext) -> State:
        h = ctx.h
        x, v, xi = state.x, state.v, state.extra["xi"]
        noise = math.sqrt(2 * ctx.gamma * h)
        c = self.inv_mass * h
        for _ in range(n):
            x = drift(x, v, h)
            if ctx.boundary is not None:
                x, v = ctx.boundary(x, v)
            oracle = next_force()
            if not hasattr(oracle, "force_and_covariance"):
                raise TypeError("ccadl needs a force oracle with force_and_covariance (bnnsample.potential.Oracle)")
            g, cov = oracle.force_and_covariance(x)
            corr = cov.matvec(v)
            v = (v - h * xi[:, None] * v).add_(corr, alpha=-h * h / 2)
            v = kick_with(v, g, h).add_(ctx.normal(*x.shape, like=x), alpha=noise)
            if c:
                xi = xi + c * (self._temperature(v) - 1)
        return State(x, v, {**state.extra, "xi": xi})


__all__ = ["AdaptiveLangevin", "ExtendedAdaptiveLangevin", "SGNHT", "CCADL", "Friction", "PartitionBasis",
           "matrix_ou", "matrix_ou_covariance", "ou_scales", "phi1"]  # fmt: skip

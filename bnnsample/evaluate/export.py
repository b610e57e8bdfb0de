"""`bnnsample export RUN_DIR`: a run as an ArviZ InferenceData (RUN_DIR/posterior.nc), so that
the draws can be looked at with ArviZ's trace, rank and pair plots and its diagnostics.

Groups (chain and draw dimensions throughout):

* ``posterior``: ``theta`` (chain, draw, theta_dim), the stored positions (absent when the run
  was made with ``store_theta=false``); for a network the ``theta_dim`` coordinates are named
  by its parameters and the index in each, ``0.weight[3,0,1,2]``, in the order of the flat
  vector (``theta_names``), elsewhere numbered 0..d-1;
* ``sample_stats``: every per-draw diagnostic the run recorded (``kinetic_temperature``,
  ``minibatch_loss``, ``bounces``, ...), and ``diverging``, True at every draw of a chain that
  hit NaN/Inf (bnnsample marks divergence per chain);
* ``predictions``: ``probabilities`` (chain, draw, test_point, class), the test-set predictive
  of a classifier, where stored; ``observed_data``: ``y``, the test labels.

The attributes hold the run's resolved config (YAML), bnnsample's version and whether the run
is complete (``bnnsample_complete`` 0: a partial run, ``bnnsample_draws_planned`` the draws it
plans).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from ..rundir import check_writable_target, replaced
from ..store import FILENAME, SampleStore

NAME = "posterior.nc"


def theta_names(store: SampleStore) -> list[str] | None:
    """The coordinate names of a network's flat parameter vector, ``<parameter>[<index>]`` in
    the flat (row-major) order of ``models.network.ParamLayout``; None for a model without
    named parameters, or when the network cannot be rebuilt (its data no longer where the run
    found them: the coordinates are then numbered). Rebuilding loads the run's data set."""
    from ..plumbing.errors import UserError
    from ..simulate import target_of

    try:
        layout = getattr(target_of(store.config()).potential, "layout", None)
    except (UserError, OSError):
        return None
    if layout is None or layout.dim != store.theta_dim:
        return None
    names = []
    for name, shape in zip(layout.names, layout.shapes):
        for index in np.ndindex(*shape) if len(shape) else [()]:
            names.append(f"{name}[{','.join(map(str, index))}]")
    return names


def inference_data(store: SampleStore):
    """The InferenceData of an open store (module docstring)."""
    import arviz as az

    diverged = np.asarray(store.diverged(), dtype=bool)
    n = store.n_draws
    posterior, dims, coords = {}, {}, {}
    theta = store.theta()
    if theta is not None:
        posterior["theta"] = theta
        dims["theta"] = ["theta_dim"]
        names = theta_names(store)
        if names is not None:
            coords["theta_dim"] = names
    stats = {k: np.asarray(v) for k, v in store.diagnostics().items()}
    stats["diverging"] = np.repeat(diverged[:, None], n, axis=1)
    predictions, observed = None, None
    if "predictive" in store.f and n:
        predictions = {"probabilities": store.f["predictive"][:, :n]}
        dims["probabilities"] = ["test_point", "class"]
        y = store.array("targets")
        if y is not None:
            observed = {"y": y}
            dims["y"] = ["test_point"]
    attrs = {
        "bnnsample_config": str(store.attrs.get("config", "")),
        "bnnsample_version": str(store.attrs.get("version", "")),
        "bnnsample_complete": int(store.complete),  # 0: a partial run (stopped, to be resumed)
        "bnnsample_draws_planned": int(store.attrs.get("draws_planned", n)),
    }
    with warnings.catch_warnings():  # the arrays are (chain, draw, ...) whichever is longer
        warnings.filterwarnings("ignore", message="More chains")
        return az.from_dict(
            posterior=posterior or None,
            sample_stats=stats,
            predictions=predictions,
            observed_data=observed,
            dims=dims,
            coords=coords or None,
            pred_dims={"probabilities": ["test_point", "class"]} if predictions else None,
            attrs=attrs,
        )


def export_run(run_dir: Path) -> str:
    """Write RUN_DIR/posterior.nc through ``rundir.replaced`` (not ``write_bytes``: netCDF of
    any size is written by arviz to a file, not held in memory), owning the run directory
    (``rundir.owned``: not while a run or an evaluation there writes its store), interruptible
    throughout (``interrupts_kept``). Returns the line that says what was written: a partial
    run (stopped, or still to be resumed) is said to be one, there and in the file's attributes."""
    from ..plumbing.stop import interrupts_kept
    from ..rundir import owned
    from ..store import open_checked

    run_dir = Path(run_dir)
    out = run_dir / NAME
    check_writable_target(out)
    with interrupts_kept() as interrupted, owned(run_dir):
        with open_checked(run_dir / FILENAME) as store:
            store.config()  # a store whose record was changed is not exported
            idata = inference_data(store)
            partial = None if store.complete else f"{store.n_draws} of {store.attrs.get('draws_planned')}"
        with replaced(out) as tmp:
            idata.to_netcdf(str(tmp))
            interrupted()  # a Ctrl-C that came during the write: not renamed over the old export
    if partial is None:
        return f"wrote {out}"
    return f"wrote {out}: a partial run ({partial} draws per chain; the run is not complete: its resume adds the rest)"

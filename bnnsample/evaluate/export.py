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

The attributes hold the run's resolved config (YAML) and bnnsample's version.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..rundir import check_writable_target
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
    }
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


def export_run(run_dir: Path) -> Path:
    """Write RUN_DIR/posterior.nc (never through a link; a temporary file renamed over it).
    Not through ``rundir.write_bytes``: netCDF of any size is written by arviz to a file, not
    held in memory; the same rules hold, and a refused write is one WriteRefused line."""
    run_dir = Path(run_dir)
    out = run_dir / NAME
    check_writable_target(out)
    with SampleStore(run_dir / FILENAME) as store:
        store.config()  # a store whose record was changed is not exported
        idata = inference_data(store)
    tmp = out.with_name(f".{NAME}.tmp-{os.getpid()}")
    try:
        idata.to_netcdf(str(tmp))
        os.replace(tmp, out)
    except OSError as e:
        from ..plumbing.errors import WriteRefused

        raise WriteRefused(f"could not write {out}: {e.strerror or type(e).__name__}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return out

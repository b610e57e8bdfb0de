"""The process plumbing every command shares, kept apart from the science: errors and their one
line (errors), progress bars and status lines (progress), signals (stop), random generators
(rng), deterministic kernels (determinism), threads, a pool of worker processes (workers),
memory and disk checks (resources, hostmem), the
packaged configs (paths, resolvers), the typo helper (suggest), leftovers of refused runs
(leftovers) and ``bnnsample info`` (info). None of it imports torch at import time
unless it must (rng, determinism, hostmem, resources)."""

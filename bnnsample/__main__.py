"""``python -m bnnsample``: the ``bnnsample`` command."""

from .console import main

main()

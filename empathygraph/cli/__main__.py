"""``python -m empathygraph.cli``: the same as the ``empathygraph`` command."""

from empathygraph.cli.app import main

main()

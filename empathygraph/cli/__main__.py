"""``python -m empathygraph.cli``: the same as the ``empathygraph`` command."""

from empathygraph.cli.app import main

if __name__ == "__main__":
    main()

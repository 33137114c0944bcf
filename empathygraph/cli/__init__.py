"""The command line: ``app`` (the ``empathygraph`` command), its commands and terminal views.

``app.py`` registers the commands (``run``, ``chat``, ``graph``, ``eval``, ``trace ...``,
``models ...``), each defined in its own module; ``display.py`` draws turns and traces in
the terminal; ``scenarios.py`` reads scenario files. The library never imports this package.
"""

from empathygraph.cli.app import app, main
from empathygraph.cli.common import console, err_console

__all__ = ["app", "console", "err_console", "main"]

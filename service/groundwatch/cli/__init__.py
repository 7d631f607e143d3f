"""The ``groundwatch`` command line: argument parsing and dispatch (``entry``), the long-running
and operational commands (``commands``), the demo (``demo``) and the configuration table
(``config_doc``). The top layer. ``main`` is the console-script entry point.
"""

from groundwatch.cli.entry import main

__all__ = ["main"]

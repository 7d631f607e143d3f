"""Load a script that is not part of a package (a benchmark, an example, a chart tool) as a
module, once per name, for tests that call its functions.

Usage::

    from tests.modules import load_script
    accuracy = load_script(ROOT / "benchmarks" / "accuracy.py")
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_script(path: Path, name: str | None = None) -> ModuleType:
    """The module at ``path``, registered in ``sys.modules`` under ``name`` (default
    ``gw_<stem>``) so that its dataclasses and pickles resolve their own module."""
    name = name or f"gw_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

"""``shared_path`` / ``SHARED`` of tests/conftest.py, loaded by file path.

Test folders without ``__init__.py`` share the module name ``conftest``; when another test tree's
conftest is imported first, ``from conftest import shared_path`` picks up the wrong module. Loading
tests/conftest.py under a private name keeps these tests independent of collection order.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_NAME = "posecode_tests_root_conftest"
if _NAME in sys.modules:
    _mod = sys.modules[_NAME]
else:
    _spec = importlib.util.spec_from_file_location(
        _NAME, Path(__file__).resolve().parent.parent / "conftest.py")
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules[_NAME] = _mod
    _spec.loader.exec_module(_mod)

shared_path = _mod.shared_path
SHARED = _mod.SHARED

"""Helpers shared by the motion tests (not a test module).

``shared_path`` is tests/conftest.py's, loaded by file path under a private module name: test
folders without ``__init__.py`` share the module name ``conftest``, so ``from conftest import``
could pick up another tree's conftest depending on collection order.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

from posecode_ssg.language import parse
from posecode_ssg.motion import compile_ir

_NAME = "posecode_tests_root_conftest"
if _NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).resolve().parent.parent / "conftest.py")
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules[_NAME] = _mod
    _spec.loader.exec_module(_mod)
shared_path = sys.modules[_NAME].shared_path


def compile_source(src: str, **kw):
    """Parse a Posecode document (dedented) and compile it; fails the test on parse errors."""
    result = parse(textwrap.dedent(src).lstrip("\n"))
    assert not result.errors, [d.to_dict() for d in result.errors]
    return compile_ir(result.ir, **kw)

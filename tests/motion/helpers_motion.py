"""Helpers shared by the motion tests (not a test module)."""

from __future__ import annotations

import textwrap

from posecode_ssg.language import parse
from posecode_ssg.motion import compile_ir


def compile_source(src: str, **kw):
    """Parse a Posecode document (dedented) and compile it; fails the test on parse errors."""
    result = parse(textwrap.dedent(src).lstrip("\n"))
    assert not result.errors, [d.to_dict() for d in result.errors]
    return compile_ir(result.ir, **kw)

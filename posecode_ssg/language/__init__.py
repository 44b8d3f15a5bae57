"""Posecode v0.4 language front end: vocabulary, range-of-motion table, IR, diagnostics and
:func:`parse` (spec ../shared/seeds/000_87ff9483bb3193ea.txt §1–§5, §7).

    from posecode_ssg.language import parse
    result = parse(source)      # never raises for any str
    result.ir                   # IR, or None exactly when result.errors is non-empty
"""

from .diagnostics import Diagnostic
from .ir import IR, Contact, JointTarget, Phase
from .parser import ParseResult, parse

__all__ = ["parse", "ParseResult", "Diagnostic", "IR", "Phase", "JointTarget", "Contact"]

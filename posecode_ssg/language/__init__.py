"""Posecode v0.4 language front end: vocabulary, range-of-motion table, IR, diagnostics and
:func:`parse` (spec ../shared/seeds/000_87ff9483bb3193ea.txt §1–§5, §7)."""

from .diagnostics import Diagnostic
from .ir import IR, Contact, JointTarget, Phase

__all__ = ["parse", "ParseResult", "Diagnostic", "IR", "Phase", "JointTarget", "Contact"]


def __getattr__(name):  # lazy: the parser module may not exist yet in early commits
    if name in ("parse", "ParseResult"):
        from . import parser

        return getattr(parser, name)
    raise AttributeError(name)

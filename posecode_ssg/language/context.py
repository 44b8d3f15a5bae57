"""The state every statement rule of one parse reads and writes: the diagnostics found so far
and the props the document declares (spec §1: contact anchors need their prop), plus the
did-you-mean and number formatting that the rules' messages share.

One :class:`Context` is made per :func:`posecode_ssg.language.parser.parse` call; the statement
modules under ``statements/`` take it as their first argument.
"""

from __future__ import annotations

import difflib

from posecode_ssg.language.diagnostics import Diagnostic
from posecode_ssg.language.ir import _num


def did_you_mean(word: str, candidates) -> str | None:
    """Closest candidate to a misspelt word (difflib ratio ≥ 0.6), as ``did you mean `x`?``."""
    best = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    if not best and word.lower() != word:
        best = difflib.get_close_matches(word.lower(), list(candidates), n=1, cutoff=0.6)
    return f"did you mean `{best[0]}`?" if best else None


def fmt(v: float) -> str:
    """A number as a message shows it: ``40`` for a whole number, else its repr (``1.5``)."""
    return str(int(v)) if float(v).is_integer() else repr(float(v))


class Context:
    """One document's parse state: ``lines`` (the split source), the ``errors``, ``warnings``
    and ``hints`` reported so far, the declared ``props`` and the ``unknown_props`` (line, word)
    of ``prop`` lines whose word is not a prop."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.hints: list[Diagnostic] = []
        self.props: list[str] = []
        self.unknown_props: list[tuple[int, str]] = []

    def err(self, code: str, line: int, col: int, msg: str, hint: str | None = None) -> None:
        """Report an error at ``line``/``col`` (1-based; a column below 1 is reported as 1)."""
        self.errors.append(Diagnostic(code, "error", line, max(1, col), msg, hint))

    def hint(self, code: str, line: int, col: int, msg: str, hint: str | None = None) -> None:
        """Report an authoring hint (never an error)."""
        self.hints.append(Diagnostic(code, "hint", line, max(1, col), msg, hint))

    def closed_word(self, tok, line: int, code: str, what: str, allowed) -> str | None:
        """Return ``tok`` as a word of the closed list ``allowed`` (spec §1: closed vocabularies),
        or report ``code`` ("unknown <what> "word"; expected one of …" with a did-you-mean) and
        return None."""
        word = str(tok)
        if word in allowed:
            return word
        self.err(code, line, tok.column, f'unknown {what} "{word}"; expected one of {", ".join(allowed)}',
                 did_you_mean(word, allowed))
        return None

    def clamp_warning(self, line: int, col: int, phase: str, bone: str, action: str,
                      requested: float, clamped: float, lo: float, hi: float, why: str) -> None:
        """Report a ``rom-clamp`` warning (spec §4) with the conformance record fields:
        ``phase``, ``joint``, ``action``, ``requested``, ``clamped`` and ``limit {min, max}``,
        angles in degrees."""
        msg = (f"`{action} {fmt(requested)}` on {bone} is outside its range of motion; "
               f"clamped to {fmt(clamped)}° ({why})")
        self.warnings.append(Diagnostic(
            "rom-clamp", "warning", line, max(1, col), msg, None,
            {"phase": phase, "joint": bone, "action": action, "requested": _num(requested),
             "clamped": _num(clamped), "limit": {"min": _num(lo), "max": _num(hi)}},
        ))

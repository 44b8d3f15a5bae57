"""Documents to evaluate: ``.posecode`` files, the ```` ```posecode ```` fences of ``.md`` files
(each fence one document, named ``file.md:LINE`` after its fence line) and folders (recursive,
sorted). Discovery, parsing and the kinematic diagnostics are ``posecode-ssg check``'s own
(:mod:`posecode_ssg.checking`); this module only adds the compiled motion JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from posecode_ssg.checking import (
    CheckedDocument,
    add_kinematics,
    check_file,
    find_documents,
)
from posecode_ssg.language.diagnostics import Diagnostic


@dataclass
class EvalDocument:
    """One document: ``name`` as reported (``path`` or ``path.md:LINE``), the ``checked``
    document, its ``motion`` JSON (None when it does not parse) and its kinematic diagnostics
    (lines in the file given)."""

    name: str
    checked: CheckedDocument
    motion: dict[str, Any] | None = None
    kinematic: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        """The parser's errors (file lines and columns)."""
        return list(self.checked.result.errors)


def load_documents(paths: list[str]) -> tuple[list[EvalDocument], list[str]]:
    """Expand PATH arguments and compile every document.

    Returns ``(documents, problems)``; ``problems`` are usage messages (a path that does not
    exist). A document with parse errors is returned with ``motion`` None."""
    from posecode_ssg.motion import compile_ir

    files, problems = find_documents(paths)
    docs: list[EvalDocument] = []
    for f in files:
        for checked in check_file(f):
            name = checked.path if checked.fence_line is None else f"{checked.path}:{checked.fence_line}"
            doc = EvalDocument(name, checked)
            if checked.result.ir is not None:
                program = add_kinematics(checked)
                doc.kinematic = list(checked.kinematic)
                doc.motion = program.to_json() if program is not None else compile_ir(checked.result.ir).to_json()
            docs.append(doc)
    return docs, problems

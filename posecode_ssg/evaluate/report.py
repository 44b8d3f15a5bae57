"""Reports of ``posecode-ssg eval``: the per-document result, the text table and the JSON object
(docs/eval.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TextIO

from posecode_ssg.evaluate.thresholds import METRICS, DocumentMetrics, Violation


@dataclass
class DocumentResult:
    """One evaluated document: ``path`` as reported, ``metrics`` (None when it could not be
    evaluated), ``error`` (a parse or runtime error, already formatted ``file:line:col: ...``),
    runtime ``warnings`` and ``seconds`` spent sampling."""

    path: str
    metrics: DocumentMetrics | None = None
    error: str | None = None
    warnings: list[dict[str, Any]] = field(default_factory=list)
    samples: int = 0

    @property
    def failing(self) -> list[Violation]:
        """Violations that fail the document (not listed-only, not explained)."""
        if self.metrics is None:
            return []
        return [v for v in self.metrics.violations if v.fails and v.explained is None]

    @property
    def explained(self) -> list[Violation]:
        """Crossings of failing metrics that the numpy solve's kinematic diagnostics predict
        (reported, not failing)."""
        return [] if self.metrics is None else [v for v in self.metrics.violations
                                                if v.explained is not None and v.fails]

    @property
    def passed(self) -> bool:
        return self.error is None and not self.failing

    def to_dict(self) -> dict[str, Any]:
        """``{"path", "passed", "metrics": {name: worst}, "violations": [...]}`` plus ``error``,
        ``explained`` (count), ``samples`` and ``runtime_warnings`` when present."""
        d: dict[str, Any] = {"path": self.path, "passed": self.passed}
        if self.metrics is not None:
            d["metrics"] = {k: (None if v is None else round(v, 3)) for k, v in self.metrics.worst.items()}
            d["violations"] = [v.to_dict() for v in self.metrics.violations]
            d["samples"] = self.samples
        else:
            d["metrics"], d["violations"] = {}, []
        if self.error is not None:
            d["error"] = self.error
        if self.warnings:
            d["runtime_warnings"] = self.warnings
        return d


def to_json(results: list[DocumentResult], hz: float) -> dict[str, Any]:
    """The ``--json`` object: ``{"passed", "hz", "thresholds", "documents": [...]}``."""
    return {
        "passed": all(r.passed for r in results),
        "hz": hz,
        "thresholds": {m.key: {"limit": m.limit, "unit": m.unit, "fails": m.fails} for m in METRICS},
        "documents": [r.to_dict() for r in results],
    }


def _cell(v: float | None, key: str) -> str:
    if v is None:
        return "—"
    if key == "rom":
        return str(int(v))
    if key == "velocity_jump":
        return "0" if v == 0 else f"+{v:.1f}"
    return f"{v:.1f}" if v < 100 else f"{v:.0f}"


def write_table(results: list[DocumentResult], out: TextIO, hz: float) -> None:
    """Text report: one row per document with the worst value of every metric and PASS/FAIL
    (``ok*`` when every crossing is explained by a kinematic diagnostic), a legend, then each
    document's violations with t, phase, value and limit."""
    cols = [m for m in METRICS]
    names = [r.path for r in results]
    common = _common_prefix(names)
    shown = [n[len(common):] for n in names]
    w = max([8] + [len(s) for s in shown])
    head = f"{'document':<{w}}  " + " ".join(f"{m.label:>6}" for m in cols) + "  result"
    out.write(f"posecode-ssg eval at {hz:g} Hz" + (f" — {common}" if common else "") + "\n")
    out.write(head + "\n")
    for r, s in zip(results, shown):
        if r.metrics is None:
            out.write(f"{s:<{w}}  {'(not evaluated)':>{len(head) - w - 10}}  ERROR\n")
            continue
        cells = " ".join(f"{_cell(r.metrics.worst.get(m.key), m.key):>6}" for m in cols)
        verdict = "PASS" if r.passed and not r.explained else ("ok*" if r.passed else "FAIL")
        out.write(f"{s:<{w}}  {cells}  {verdict}\n")
    units = ", ".join(f"{m.label} {m.unit}".strip() for m in cols if m.key != "velocity_jump")
    out.write(f"units: {units}; C1 = worst angular-velocity jump beyond its allowance at a keyframe "
              "(rad/s); — = nothing to measure; ok* = crossings explained by a kinematic diagnostic\n")
    out.write("limits: " + ", ".join(
        f"{m.label} ≤ {m.limit:g}" + ("" if m.fails else " (listed, not failed)")
        for m in cols if m.key not in ("velocity_jump",)) + ", C1 jump ≤ allowance\n")
    for r, s in zip(results, shown):
        if r.error:
            out.write(f"\n{r.error}\n")
        if r.metrics is None or not r.metrics.violations:
            continue
        out.write(f"\n{r.path}: {'FAIL' if not r.passed else 'pass'} "
                  f"({len(r.failing)} failing, {len(r.explained)} explained, "
                  f"{sum(1 for v in r.metrics.violations if not v.fails)} listed)\n")
        for v in r.metrics.violations:
            tag = "listed" if not v.fails else ("explained" if v.explained else "FAIL")
            line = (f"  t={v.t:7.3f}s  {v.phase[:24]:<24}  {v.metric:<14} {v.subject:<28} "
                    f"{v.value:9.1f} > {v.limit:g}  {tag}")
            if v.explained:
                line += f" — line {v.explained['line']}: {v.explained['code']}"
            out.write(line + "\n")
    bad = sum(1 for r in results if not r.passed)
    noun = "document" if len(results) == 1 else "documents"
    out.write(f"\n{len(results)} {noun}: {len(results) - bad} pass, {bad} fail\n")


def _common_prefix(names: list[str]) -> str:
    if len(names) < 2:
        return ""
    first, last = min(names), max(names)
    i = 0
    while i < min(len(first), len(last)) and first[i] == last[i]:
        i += 1
    cut = first[:i].rfind("/") + 1
    return first[:cut]

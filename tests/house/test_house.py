"""The house rules of issue 17, enforced on the source tree.

- No module of ``posecode_ssg/`` (Python or JavaScript; the bundle under ``runtime/dist/`` and
  the Lark grammar excepted) is longer than ``MAX_LINES``.
- The import graph has no circles. An edge is every ``import``/``from ... import`` in a module,
  at the top level or inside a function; ``from pkg import name`` where ``name`` is not a
  submodule of ``pkg`` is an edge to ``pkg/__init__.py`` (as grimp counts it), and a package's
  ``__init__.py`` importing its own submodules is an edge like any other. For JavaScript, every
  relative ``import``/``export ... from`` path.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "posecode_ssg"
MAX_LINES = 600
EXEMPT = {"runtime/dist"}


def _sources(suffix: str) -> list[Path]:
    return sorted(
        p for p in PKG.rglob(f"*{suffix}")
        if not any(str(p.relative_to(PKG)).startswith(e) for e in EXEMPT) and "node_modules" not in p.parts
    )


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def python_import_graph() -> dict[str, set[str]]:
    """Module name -> the set of ``posecode_ssg`` modules it imports (any scope)."""
    files = {_module_name(p): p for p in _sources(".py")}
    packages = {name for name, p in files.items() if p.name == "__init__.py"}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        is_pkg = name in packages
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                for alias in node.names:
                    sub = f"{mod}.{alias.name}"
                    targets.append(sub if sub in files else mod)
            for target in targets:
                # `import a.b.c` imports a, a.b and a.b.c; the deepest known module is the edge
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != name and target.startswith("posecode_ssg"):
                    graph[name].add(target)
    return graph


_JS_IMPORT = re.compile(r"""^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"](\.[^'"]+)['"]|^\s*import\s*['"](\.[^'"]+)['"]""", re.M)


def js_import_graph() -> dict[str, set[str]]:
    """JS file (relative to the package) -> the set of runtime files it imports."""
    graph: dict[str, set[str]] = {}
    for path in _sources(".js"):
        key = str(path.relative_to(PKG))
        graph[key] = set()
        for m in _JS_IMPORT.finditer(path.read_text(encoding="utf-8")):
            spec = m.group(1) or m.group(2)
            target = (path.parent / spec).resolve()
            graph[key].add(str(target.relative_to(PKG)))
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_cycle_finder_sees_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_longer_than_the_limit():
    long = {
        str(p.relative_to(PKG)): n
        for p in _sources(".py") + _sources(".js")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"modules over {MAX_LINES} lines: {long}"


def test_no_python_import_circles():
    assert cycles(python_import_graph()) == []


def test_no_javascript_import_circles():
    graph = js_import_graph()
    assert graph, "no runtime JavaScript found"
    assert cycles(graph) == []

"""Fixtures of the editor-package tests: node (and the root package.json's vscode-textmate and
vscode-oniguruma devDependencies), skipped when missing on a developer's machine but a failure
under CI (the environment variable ``CI`` set), where ``pip install -e .`` has run ``npm ci``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from .support import HERE, REPO, SYNTAXES, TEXTMATE_PACKAGES


def under_ci() -> bool:
    """True when the environment variable ``CI`` is set (to anything but empty, 0 or false)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing(what: str) -> None:
    """Skip the calling test locally; fail it under CI, where the tools must be there."""
    if under_ci():
        pytest.fail(f"{what} (required under CI: node on PATH and `npm ci` at the repository root)")
    pytest.skip(what)


@pytest.fixture(scope="session")
def node() -> str:
    """The path of ``node``."""
    path = shutil.which("node")
    if path is None:
        missing("node is not installed")
    return path


@pytest.fixture(scope="session")
def tokenize(node):
    """``tokenize(documents)``: run tests/editors/tokenize.mjs once over ``[(scope, text), ...]``;
    returns, per document, per line, the tokens ``(start, end, scopes)``."""
    absent = [p for p in TEXTMATE_PACKAGES if not (REPO / "node_modules" / p / "package.json").is_file()]
    if absent:
        missing(f"npm packages not installed: {', '.join(absent)} (run `npm ci`)")

    def run(documents: list[tuple[str, str]]) -> list[list[list[tuple[int, int, list[str]]]]]:
        request = {
            "grammars": {
                "source.posecode": str(SYNTAXES / "posecode.tmLanguage.json"),
                "markdown.posecode.codeblock": str(SYNTAXES / "posecode.markdown.tmLanguage.json"),
                "text.html.markdown": str(HERE / "markdown-host.tmLanguage.json"),
            },
            "injections": {"text.html.markdown": ["markdown.posecode.codeblock"]},
            "documents": [{"scope": scope, "text": text} for scope, text in documents],
        }
        proc = subprocess.run([node, str(HERE / "tokenize.mjs")], input=json.dumps(request),
                              capture_output=True, text=True, cwd=REPO, timeout=300)
        assert proc.returncode == 0, f"tokenize.mjs failed:\n{proc.stderr}"
        return [[[(s, e, scopes) for s, e, scopes in line] for line in doc]
                for doc in json.loads(proc.stdout)]

    return run

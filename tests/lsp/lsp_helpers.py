"""Shared helpers of the language-server tests (tests/lsp): the server command, a pytest-lsp
client that records every ``publishDiagnostics`` in order (with its version and arrival time),
and small waiting and editing helpers.

The server runs as ``python -m posecode_ssg lsp --stdio`` with this checkout first on
``PYTHONPATH``, so the local package is the one tested whatever the working directory.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types as T
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("POSECODE_SHARED", REPO.parent / "shared"))
SERVER_COMMAND = [sys.executable, "-m", "posecode_ssg", "lsp", "--stdio"]

#: the page of the ``site_dir`` fixture (conftest.py): front-matter, link, fence-attribute, parser
#: and kinematic diagnostics, its second fence inside a list item after an emoji
SITE_PAGE = '''---
title: Page
difficulty: impossible
---

# Page 💪

See [missing](nowhere.md) and [home](index.md).

```posecode autoplay=maybe
posecode exercise "Lift"
  rig humanoid
  pose start = standing

  step "Down" 1.5s settle:
    hips: flex 20
    ground-lock: feet, hand_left

  step "Up" 1s setle:
    hips: flex 0
    ground-lock: feet
```

- In a list, after an emoji 👣:

  ```posecode
  posecode exercise "Step-up"
    rig humanoid
    prop box
    pose start = standing

    step "Foot up" 1s settle:
      hip_left: flex 20
      knee_left: flex 90
      pin: foot_right floor
      reach: foot_left box

    step "Down" 1s settle:
      hip_left: flex 0
      knee_left: flex 0
      ground-lock: feet
  ```
'''


def case_dir(name: str) -> Path:
    """A public bug case folder (../shared/cases/bugs/NAME), skipping when absent."""
    path = SHARED / "cases" / "bugs" / name
    if not path.is_dir():
        pytest.skip(f"shared case not found: {path}")
    return path


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


class RecordingClient(LanguageClient):
    """A pytest-lsp client that keeps every published diagnostics list in arrival order."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.published: list[tuple[float, T.PublishDiagnosticsParams]] = []


def make_client() -> RecordingClient:
    client = RecordingClient(converter_factory=default_converter)
    features = {k: v for k, v in DEFAULT_CLIENT_FEATURES.items() if k != T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS}
    register_lsp_features(client, features)

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(params: T.PublishDiagnosticsParams):
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append((time.monotonic(), params))

    return client


def config() -> ClientServerConfig:
    return ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client, server_env=server_env())


def init_params(encodings: list[str] | None = None, root: Path | None = None,
                hierarchical: bool = True, document_changes: bool = False) -> T.InitializeParams:
    general = T.GeneralClientCapabilities(position_encodings=encodings) if encodings is not None else None
    caps = T.ClientCapabilities(
        general=general,
        text_document=T.TextDocumentClientCapabilities(
            document_symbol=T.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=hierarchical),
            hover=T.HoverClientCapabilities(content_format=[T.MarkupKind.Markdown, T.MarkupKind.PlainText]),
            completion=T.CompletionClientCapabilities(
                completion_item=T.ClientCompletionItemOptions(documentation_format=[T.MarkupKind.PlainText])),
            publish_diagnostics=T.PublishDiagnosticsClientCapabilities(version_support=True),
        ),
        workspace=T.WorkspaceClientCapabilities(
            workspace_edit=T.WorkspaceEditClientCapabilities(document_changes=document_changes)),
    )
    root_uri = root.resolve().as_uri() if root is not None else None
    folders = [T.WorkspaceFolder(uri=root_uri, name=root.name)] if root is not None else None
    return T.InitializeParams(capabilities=caps, root_uri=root_uri, workspace_folders=folders)


def open_doc(client, uri: str, text: str, version: int = 1, language_id: str | None = None) -> None:
    if language_id is None:
        language_id = "markdown" if uri.endswith(".md") else "posecode"
    client.text_document_did_open(T.DidOpenTextDocumentParams(
        text_document=T.TextDocumentItem(uri=uri, language_id=language_id, version=version, text=text)))


def change_full(client, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))


def change_range(client, uri: str, version: int, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
    client.text_document_did_change(T.DidChangeTextDocumentParams(
        text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[T.TextDocumentContentChangePartial(
            range=T.Range(start=T.Position(line=start[0], character=start[1]),
                          end=T.Position(line=end[0], character=end[1])), text=text)]))


def close_doc(client, uri: str) -> None:
    client.text_document_did_close(T.DidCloseTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri)))


def publishes(client, uri: str, since: int = 0) -> list[T.PublishDiagnosticsParams]:
    return [p for _t, p in client.published[since:] if p.uri == uri]


async def wait_publish(client, uri: str, pred=lambda p: True, since: int = 0, timeout: float = 10.0):
    """The first publish for ``uri`` (after the ``since``-th recorded one) that satisfies
    ``pred``; fails the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in publishes(client, uri, since):
            if pred(p):
                return p
        await asyncio.sleep(0.01)
    got = [(p.version, [(d.code, d.range) for d in p.diagnostics]) for p in publishes(client, uri, since)]
    raise AssertionError(f"no matching publish for {uri} within {timeout} s; got {got}")


async def settle(client, uri: str, version: int | None = None, quiet: float = 0.8,
                 timeout: float = 20.0) -> T.PublishDiagnosticsParams | None:
    """Wait until a publish for ``uri`` (of ``version``, when given) has arrived and nothing more
    for ``quiet`` seconds (the debounced solve has answered); the last publish."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        times = [t for t, p in client.published if p.uri == uri and (version is None or p.version == version)]
        if times and time.monotonic() - max(t for t, p in client.published if p.uri == uri) >= quiet:
            break
        await asyncio.sleep(0.05)
    got = publishes(client, uri)
    return got[-1] if got else None


def rng(r: T.Range) -> tuple[int, int, int, int]:
    return (r.start.line, r.start.character, r.end.line, r.end.character)


def apply_edits(text: str, edits: list[T.TextEdit], encoding: str = "utf-16") -> str:
    """``text`` with LSP text edits applied (client side; positions in ``encoding``)."""
    from posecode_ssg.lsp.documents import Lines

    lines = Lines(text)
    spans = sorted(((lines.offset_at(e.range.start.line, e.range.start.character, encoding),
                     lines.offset_at(e.range.end.line, e.range.end.character, encoding), e.new_text) for e in edits),
                   reverse=True)
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


def uri_of(path: Path) -> str:
    return path.resolve().as_uri()


async def start_client(params: T.InitializeParams) -> RecordingClient:
    """A server of the test's own, initialized with ``params`` (end it with :func:`stop_client`)."""
    client = await config().start()
    client.init_result = await asyncio.wait_for(client.initialize_session(params), 30)
    return client


async def stop_client(client) -> None:
    """Shut a server down (``shutdown`` + ``exit``), killing it if it does not go."""
    server = client._server
    if server is not None and server.returncode is None:
        try:
            await asyncio.wait_for(client.shutdown_session(), 5)
        except Exception:
            pass
        if server.returncode is None:
            server.kill()
    await asyncio.wait_for(client.stop(), 10)

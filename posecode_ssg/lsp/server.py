"""The pygls wiring of the Posecode language server (``posecode-ssg lsp``; docs/lsp.md).

**Documents** live in pygls' workspace (incremental sync) with this package's line splitting and
position conversion (:class:`PosecodeDocument`, :mod:`.documents`): pygls' own rounds a position
past the end of the last line one character short and splits lines on U+2028.

**Diagnostics** are ``posecode-ssg check``'s (:mod:`.analysis`). Every change is parsed at once
and published with the document's version (the fast path: the parser's diagnostics, plus the
kinematic and page diagnostics computed for a unit or page text that is still the same); the
kinematic solve and the page checks run :data:`DEBOUNCE` seconds after the last change in a worker
thread, and their result is published only if the document has not changed meanwhile (a result of
an older version is dropped). Closing a document publishes an empty list; after ``shutdown``
nothing is published.

**Failures** never reach the client: every feature logs its exception (stderr) and answers
nothing, and pygls' "Error in server" message is replaced by a log line.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import queue
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument, Workspace
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

from posecode_ssg import __version__

from . import convert
from .analysis import Analysis, Sites, all_diagnostics, analyze, kinematics, page_key, uri_path
from .documents import UTF16, Pos, apply_change, index_of_units, is_markdown, units

log = logging.getLogger("posecode_ssg.lsp")

#: seconds between the last change and the kinematic solve
DEBOUNCE = 0.15
#: how long a code action waits for the solver-backed fixes, a hover for a step's solve
FIX_TIMEOUT = 15.0
SOLVE_TIMEOUT = 5.0
_KIN_CACHE = 32
_LINE_WITH_END = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


# -- documents ----------------------------------------------------------------------------------

class PosecodeCodec(PositionCodec):
    """pygls' position codec with LSP's rules (:mod:`.documents`): lines split on ``\\r\\n``,
    ``\\r``, ``\\n``; a character past a line's end is its end."""

    @property
    def name(self) -> str:
        return str(getattr(self.encoding, "value", self.encoding) or UTF16)

    def position_from_client_units(self, lines, position: T.Position) -> ServerTextPosition:
        if not lines:
            return ServerTextPosition(0, 0)
        if position.line >= len(lines):
            return ServerTextPosition(len(lines), 0)
        content = lines[position.line].rstrip("\r\n")
        return ServerTextPosition(position.line, index_of_units(content, position.character, self.name))

    def position_to_client_units(self, lines, position) -> T.Position:
        if position.line >= len(lines):
            return T.Position(line=len(lines), character=0)
        content = lines[position.line].rstrip("\r\n")
        return T.Position(line=position.line, character=units(content[:position.character], self.name))


class PosecodeDocument(TextDocument):
    """A pygls text document whose lines and incremental changes follow LSP's line breaks and
    the negotiated position encoding (:func:`.documents.apply_change`)."""

    @property
    def lines(self):
        return tuple(m.group(0) for m in _LINE_WITH_END.finditer(self.source) if m.group(0))

    def _apply_incremental_change(self, change) -> None:
        r = change.range
        enc = getattr(self._position_codec, "name", UTF16)
        self._source = apply_change(self.source, Pos(r.start.line, r.start.character),
                                    Pos(r.end.line, r.end.character), change.text, enc)


class PosecodeWorkspace(Workspace):
    """pygls' workspace holding :class:`PosecodeDocument` s."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._position_codec = PosecodeCodec(encoding=self._position_encoding)

    def _create_text_document(self, doc_uri, source=None, version=None, language_id=None):
        return PosecodeDocument(doc_uri, source=source, version=version, language_id=language_id,
                                sync_kind=self._sync_kind, position_codec=self._position_codec)


# -- the worker thread --------------------------------------------------------------------------

class Worker:
    """One daemon thread running jobs in order (a daemon, so ``exit`` never waits for a solve)."""

    def __init__(self, name: str):
        self.jobs: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:   # stop()
                return
            fn, loop, fut = job
            try:
                result, error = fn(), None
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
                result, error = None, exc
            try:
                loop.call_soon_threadsafe(_settle, fut, result, error)
            except RuntimeError:   # the loop is closed: the server is exiting
                return

    def stop(self) -> None:
        """End the thread once the jobs queued before this call are done."""
        self.jobs.put(None)

    def run(self, fn: Callable[[], Any]) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self.jobs.put((fn, loop, fut))
        return fut


def _settle(fut: asyncio.Future, result, error) -> None:
    if fut.done():
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(result)


# -- server state -------------------------------------------------------------------------------

@dataclass
class DocState:
    """What the server keeps of one open document besides its text."""

    uri: str
    markdown: bool
    path: Path | None
    analysis: Analysis | None = None
    kin: OrderedDict = field(default_factory=OrderedDict)   # unit key -> (diagnostics, program)
    page: tuple | None = None                                 # (page key, diagnostics)
    task: asyncio.Task | None = None
    published: tuple | None = None
    closed: bool = False


class PosecodeLanguageServer(LanguageServer):
    """The Posecode language server: :class:`LanguageServer` plus the document states, the
    solve worker and the site finder."""

    def __init__(self):
        super().__init__("posecode-ssg", __version__)
        self.states: dict[str, DocState] = {}
        self.sites = Sites()
        self.solver = Worker("posecode-solve")
        self.fixer = Worker("posecode-fixes")
        self.fix_cache: OrderedDict = OrderedDict()      # unit source -> fix proposals
        self.fix_pending: dict[str, asyncio.Future] = {}  # unit source -> the search under way
        self.stopping = False

    def report_server_error(self, error, source) -> None:
        log.error("server error (%s): %s", getattr(source, "__name__", source), error)

    @property
    def encoding(self) -> str:
        try:
            enc = self.workspace.position_encoding
        except RuntimeError:
            return UTF16
        return str(getattr(enc, "value", enc) or UTF16)


def safe(fn):
    """Log a feature's exception and answer None instead of an error (sync or async)."""
    if asyncio.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def wrapper(*args, **kwargs):
            try:
                return await fn(*args, **kwargs)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("%s failed", fn.__name__)
                return None
    else:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception:
                log.exception("%s failed", fn.__name__)
                return None
    return wrapper


# -- diagnostics --------------------------------------------------------------------------------

def _carry(st: DocState, a: Analysis) -> None:
    """Attach to a fresh analysis the slow results that are still exactly right for it."""
    a.kinematic = {u.key: st.kin[u.key] for u in a.units if u.key in st.kin}
    if st.markdown and st.page is not None and st.page[0] == page_key(a):
        a.page = st.page[1]


def publish(ls: PosecodeLanguageServer, st: DocState, solved: bool = False) -> None:
    """Publish the document's diagnostics with its version; the same list for the same version is
    not sent twice, except when ``solved`` (the debounced solve of this version ended: an editor or
    script waiting for the kinematic result learns it came, clean or not)."""
    if ls.stopping or st.closed or st.analysis is None:
        return
    a = st.analysis
    enc = ls.encoding
    diags = [convert.diagnostic(a.lines, d, enc) for d in all_diagnostics(a)]
    stamp = (a.version, repr(diags))
    if stamp == st.published and not solved:
        return
    st.published = stamp
    ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=st.uri, version=a.version,
                                                                    diagnostics=diags))


def refresh(ls: PosecodeLanguageServer, uri: str, language_id: str | None = None) -> None:
    """The fast path: parse the document as it is now and publish; schedule the slow path."""
    doc = ls.workspace.get_text_document(uri)
    st = ls.states.get(uri)
    if st is None:
        st = ls.states[uri] = DocState(uri, is_markdown(uri, language_id or doc.language_id), uri_path(uri))
    a = analyze(doc.source, st.markdown, doc.version)
    _carry(st, a)
    st.analysis = a
    publish(ls, st)
    if st.task is not None:
        st.task.cancel()
    st.task = asyncio.get_running_loop().create_task(_slow(ls, st, a))


async def _slow(ls: PosecodeLanguageServer, st: DocState, a: Analysis) -> None:
    try:
        await asyncio.sleep(DEBOUNCE)
        if st.closed or st.analysis is not a or ls.stopping:
            return
        todo = [u for u in a.units if u.result.ir is not None and u.key not in st.kin]
        pkey = page_key(a) if st.markdown else None
        need_page = st.markdown and (st.page is None or st.page[0] != pkey)
        sites, path, text = ls.sites, st.path, a.text

        def work():
            kin = {}
            for u in todo:
                kin[u.key] = kinematics(u)
            page = sites.page_diagnostics(path, text) if need_page else None
            return kin, page

        def keep(fut: asyncio.Future) -> None:
            # cache what was computed even when a newer change cancelled the wait: a unit that
            # comes back to this text needs no second solve
            if fut.cancelled() or fut.exception() is not None:
                return
            kin, page = fut.result()
            for key, value in kin.items():
                st.kin[key] = value
                st.kin.move_to_end(key)
            while len(st.kin) > _KIN_CACHE:
                st.kin.popitem(last=False)
            if page is not None:
                st.page = (pkey, page)

        fut = ls.solver.run(work)
        fut.add_done_callback(keep)
        await asyncio.shield(fut)
        if st.closed or st.analysis is not a:
            return   # a newer version is on its way: this result is stale
        _carry(st, a)
        if st.markdown and a.page is None:
            a.page = []
        publish(ls, st, solved=True)
    except asyncio.CancelledError:
        pass
    except Exception:
        log.exception("the kinematic diagnostics failed")


async def solved_program(ls: PosecodeLanguageServer, st: DocState, unit) -> tuple[Any, bool]:
    """The compiled program of a unit (solving it now when the debounced solve has not yet),
    and whether the solve ran."""
    if unit.result.ir is None:
        return None, False
    hit = st.kin.get(unit.key)
    if hit is None:
        try:
            hit = await asyncio.wait_for(asyncio.shield(ls.solver.run(lambda: kinematics(unit))), SOLVE_TIMEOUT)
        except asyncio.TimeoutError:
            return None, False
        st.kin[unit.key] = hit
    return hit[1], True


# -- the server ---------------------------------------------------------------------------------

def create_server() -> PosecodeLanguageServer:
    """A server with every feature registered (:func:`serve` runs it on stdio)."""
    from . import features

    ls = PosecodeLanguageServer()

    @ls.feature(T.INITIALIZE)
    @safe
    def initialize(params: T.InitializeParams):
        old = ls.protocol._workspace
        ls.protocol._workspace = PosecodeWorkspace(old.root_uri, old._sync_kind, list(old.folders.values()),
                                                   old.position_encoding)
        ls.sites = Sites(_roots(ls))
        ls.solver.jobs.put((_warm_up, asyncio.get_running_loop(), asyncio.get_running_loop().create_future()))

    @ls.feature(T.TEXT_DOCUMENT_DID_OPEN)
    @safe
    def did_open(params: T.DidOpenTextDocumentParams):
        old = ls.states.pop(params.text_document.uri, None)
        if old is not None:
            old.closed = True
        refresh(ls, params.text_document.uri, params.text_document.language_id)

    @ls.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    @safe
    def did_change(params: T.DidChangeTextDocumentParams):
        refresh(ls, params.text_document.uri)

    @ls.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    @safe
    def did_close(params: T.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        st = ls.states.pop(uri, None)
        if st is not None:
            st.closed = True
            if st.task is not None:
                st.task.cancel()
        if not ls.stopping:
            ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @ls.feature(T.SHUTDOWN)
    @safe
    def shutdown(params):
        ls.stopping = True
        for st in ls.states.values():
            if st.task is not None:
                st.task.cancel()

    @ls.feature(T.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @safe
    def folders_changed(params: T.DidChangeWorkspaceFoldersParams):
        ls.sites = Sites(_roots(ls))

    ls.hooks = SimpleNamespace(state_of=state_of, solved_program=solved_program, fix_timeout=FIX_TIMEOUT)
    features.register(ls, safe)
    return ls


def _roots(ls: PosecodeLanguageServer) -> list[Path]:
    """The workspace's folders (its root and its workspace folders) as paths."""
    ws = ls.workspace
    roots = []
    for uri in [ws.root_uri] + [f.uri for f in ws.folders.values()]:
        if uri and uri.startswith("file:"):
            path = to_fs_path(uri)
            if path and Path(path) not in roots:
                roots.append(Path(path))
    return roots


def _warm_up() -> None:
    """Import the motion compiler and solve a small document once, so the first real solve after
    start-up is as fast as the others."""
    try:
        from posecode_ssg.checking import CheckedDocument, add_kinematics
        from posecode_ssg.language import parse

        src = ('posecode exercise "Warm-up"\n  rig humanoid\n  pose start = standing\n'
               '  step "Down" 1s settle:\n    knees: flex 30\n    ground-lock: feet\n')
        add_kinematics(CheckedDocument("", None, parse(src), src.split("\n")))
        from posecode_ssg.site.fences import extract_posecode_blocks

        extract_posecode_blocks("```posecode\n" + src + "```\n")
    except Exception:   # pragma: no cover - only a slower first solve
        log.exception("warm-up failed")


def state_of(ls: PosecodeLanguageServer, uri: str) -> DocState | None:
    """The state of an open document with its analysis of the current text (re-parsed when a
    request arrives before the change's own refresh ran)."""
    st = ls.states.get(uri)
    if st is None:
        try:
            doc = ls.workspace.get_text_document(uri)
        except Exception:
            return None
        if doc.uri not in ls.workspace.text_documents:
            return None
        refresh(ls, uri)
        st = ls.states.get(uri)
    return st


def serve() -> int:
    """Run the server on stdin/stdout until ``exit``; the exit status LSP asks for (0 after a
    ``shutdown`` request, else 1)."""
    import sys

    ls = create_server()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr   # a stray print() must never corrupt the protocol stream
    ls.start_io(stdin, stdout)
    return 0 if getattr(ls.protocol, "_shutdown", False) else 1

"""Live preview server: build into a private folder, watch sources, push updates.

Shape (see ../shared/design/browser-stack.md §5, the measured recipe): a small
Starlette app served by uvicorn, a ``watchfiles.awatch`` task started in the
app's ``lifespan``, and a Server-Sent Events stream at ``/__posecode/events``.
A tiny client (``posecode_ssg/site/livereload.js``) is injected into HTML responses
only by this server; the files the build writes never contain it.

Data flow for one change::

    editor save ─▶ awatch (debounced) ─▶ builder task (one build at a time,
    the newest change wins; waits until the changed files are quiet) ─▶
    [fast path: an edit inside Posecode blocks only is compiled on its own
    and sent at once as an SSE "figures" event] ─▶ build into the private
    output folder (worker thread) ─▶ snapshot + diff of the served files ─▶
    one SSE "build" event (none when the build was superseded by a newer
    change, or changed nothing)

The diff decides what each open tab does: when only the inside of
``<posecode-figure>`` elements changed, the tab swaps those figures' motion in
place (scroll and play state kept); when only the text around unchanged
figures changed (a prose edit), the event carries the new page and the tab
merges its ``<main>`` in place, keeping the live figures; any other change to
a page reloads that page (scroll restored); a changed stylesheet, script or
image reloads every tab. The build behind it is incremental and in place
(``build_site(keep_going=True, in_place=True)``): a prose edit re-renders one
page and rewrites one file. Build errors are sent with every event and drawn as an overlay; a page
whose document has errors keeps being served in its last good version (held
in memory) until the author fixes it.

Page requests wait while a build is running, so a tab that reloads never sees
a half-written site (the MkDocs dev-server rule).

The package, in the order of that flow: ``problems`` (``Problem``, ``BuildReport``),
``source`` (``PreviewSource``, ``ProjectSource``), ``watch`` (the watcher),
``snapshots`` (snapshots of the served files and their diff), ``livesite``
(``LiveSite``, ``ServeOptions``), ``app`` (the Starlette app), ``server``
(uvicorn glue, ``run_server``, ``ThreadedServer``).
"""

from posecode_ssg.site.problems import Problem, read_source_line
from posecode_ssg.site.serve.app import CLIENT_TAG, create_app, inject_client
from posecode_ssg.site.serve.livesite import LiveSite, ServeOptions
from posecode_ssg.site.serve.problems import BuildReport
from posecode_ssg.site.serve.server import ThreadedServer, run_server
from posecode_ssg.site.serve.snapshots import (
    SiteChanges,
    Snapshot,
    diff_snapshots,
    split_figures,
    take_snapshot,
)
from posecode_ssg.site.serve.source import PreviewSource, ProjectSource
from posecode_ssg.site.serve.watch import SourceFilter

__all__ = [
    "CLIENT_TAG",
    "BuildReport",
    "LiveSite",
    "PreviewSource",
    "Problem",
    "ProjectSource",
    "ServeOptions",
    "SiteChanges",
    "Snapshot",
    "SourceFilter",
    "ThreadedServer",
    "create_app",
    "diff_snapshots",
    "inject_client",
    "read_source_line",
    "run_server",
    "split_figures",
    "take_snapshot",
]

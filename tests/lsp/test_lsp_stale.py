"""Public fault ls-stale-diagnostics (../shared/cases/bugs/ls-stale-diagnostics): a fixed
document gets an empty list, a closed one is cleared and stays quiet, a deleted fence's
diagnostics go, no result of an older version arrives after a newer one's, a reopened document
has its diagnostic once, and the server exits 0 after shutdown and exit without publishing.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from lsp_helpers import (
    case_dir,
    change_full,
    change_range,
    close_doc,
    init_params,
    open_doc,
    publishes,
    rng,
    settle,
    start_client,
    stop_client,
    wait_publish,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

CASE = "ls-stale-diagnostics"


def _read(name: str) -> str:
    return (case_dir(CASE) / name).read_text("utf-8")


async def test_fixed_document_publishes_an_empty_list_and_close_clears(client):
    uri = "file:///home/author/stale/hinge.posecode"
    broken, fixed = _read("hinge-broken.posecode"), _read("hinge-fixed.posecode")
    open_doc(client, uri, broken)
    p = await wait_publish(client, uri, lambda p: p.version == 1)
    assert [(d.code, rng(d.range)) for d in p.diagnostics] == [("unknown-action", (6, 11, 6, 14))]
    assert p.diagnostics[0].message == 'unknown action: "flx"\nhint: did you mean `flex`?'

    since = len(client.published)
    change_full(client, uri, fixed, 2)                       # full change
    p = await wait_publish(client, uri, since=since)
    assert p.version == 2 and list(p.diagnostics) == []

    since = len(client.published)
    change_range(client, uri, 3, (6, 11), (6, 15), "flx")    # incremental: back to broken
    p = await wait_publish(client, uri, since=since)
    assert p.version == 3 and [d.code for d in p.diagnostics] == ["unknown-action"]
    since = len(client.published)
    change_range(client, uri, 4, (6, 11), (6, 14), "flex")   # incremental fix
    p = await wait_publish(client, uri, since=since)
    assert p.version == 4 and list(p.diagnostics) == []

    since = len(client.published)
    change_full(client, uri, broken, 5)
    close_doc(client, uri)
    p = await wait_publish(client, uri, lambda p: p.version is None, since=since, timeout=5)
    assert list(p.diagnostics) == []
    assert [(q.version, len(q.diagnostics)) for q in publishes(client, uri, since)] == [(5, 1), (None, 0)]
    after = len(client.published)
    await asyncio.sleep(1.0)                                 # past the debounce: nothing more
    assert publishes(client, uri, after) == []
    assert list(client.diagnostics[uri]) == []


async def test_deleted_fence_is_cleared(client):
    uri = "file:///home/author/stale/page.md"
    open_doc(client, uri, _read("page.md"))
    p = await wait_publish(client, uri, lambda p: p.version == 1)
    assert [(d.code, rng(d.range)) for d in p.diagnostics] == [("unknown-ground-lock-effector", (9, 17, 9, 20))]
    since = len(client.published)
    change_full(client, uri, _read("page-first-fence-deleted.md"), 2)
    p = await wait_publish(client, uri, since=since)
    assert p.version == 2 and list(p.diagnostics) == []
    last = await settle(client, uri, 2)
    assert last.version == 2 and list(last.diagnostics) == []
    close_doc(client, uri)


async def test_typing_race_ends_on_the_newest_version(client):
    uri = "file:///home/author/stale/race.posecode"
    fixed = _read("hinge-fixed.posecode")
    open_doc(client, uri, fixed)
    await wait_publish(client, uri, lambda p: p.version == 1)
    since = len(client.published)
    change_full(client, uri, _read("hinge-typing.posecode"), 2)
    change_full(client, uri, _read("hinge-broken.posecode"), 3)
    change_full(client, uri, fixed, 4)
    await wait_publish(client, uri, lambda p: p.version == 4, since=since)
    await asyncio.sleep(2.0)
    got = publishes(client, uri, since)
    first4 = next(i for i, p in enumerate(got) if p.version == 4)
    assert all(p.version == 4 for p in got[first4:]), [p.version for p in got]
    assert got[-1].version == 4 and list(got[-1].diagnostics) == []
    versions = [p.version for p in got]
    assert versions == sorted(versions)                      # never an older version after a newer
    assert list(client.diagnostics[uri]) == []               # the client's final state
    close_doc(client, uri)


async def test_reopened_document_reports_its_diagnostic_once(client):
    uri = "file:///home/author/stale/reopen.posecode"
    broken = _read("hinge-broken.posecode")
    open_doc(client, uri, broken)
    await wait_publish(client, uri, lambda p: p.version == 1)
    since = len(client.published)
    close_doc(client, uri)
    await wait_publish(client, uri, lambda p: p.version is None and not p.diagnostics, since=since)
    since = len(client.published)
    open_doc(client, uri, broken)
    p = await wait_publish(client, uri, lambda p: p.version == 1, since=since)
    assert [d.code for d in p.diagnostics] == ["unknown-action"]
    last = await settle(client, uri)
    assert [(d.code, rng(d.range)) for d in last.diagnostics] == [("unknown-action", (6, 11, 6, 14))]
    assert all(len(p.diagnostics) == 1 for p in publishes(client, uri, since))
    close_doc(client, uri)


async def test_shutdown_then_exit_exits_0_quietly():
    client = await start_client(init_params(["utf-16"]))
    try:
        uri = "file:///home/author/stale/exit.posecode"
        open_doc(client, uri, _read("hinge-fixed.posecode"))
        await wait_publish(client, uri, lambda p: p.version == 1)
        change_full(client, uri, _read("hinge-broken.posecode"), 2)   # a debounced solve is pending
        await client.shutdown_async(None)
        after = len(client.published)
        t0 = time.monotonic()
        client.exit(None)
        code = await asyncio.wait_for(client._server.wait(), 2.0)
        assert code == 0
        assert time.monotonic() - t0 < 2.0
        await asyncio.sleep(0.3)
        assert [p for _t, p in client.published[after:]] == []
    finally:
        await stop_client(client)

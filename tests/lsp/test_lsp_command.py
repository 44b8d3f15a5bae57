"""``posecode-ssg lsp`` as a command: a clear message and status 2 without pygls, and a failing
feature that logs and answers nothing (no error response, no "Error in server" message).
"""

from __future__ import annotations

import asyncio
import logging
import sys

from posecode_ssg.cli import main


def test_missing_pygls_says_how_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pygls", None)   # import pygls -> ImportError
    assert main(["lsp", "--stdio"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'posecode-ssg[lsp]'" in err and "pygls" in err


def test_lsp_is_a_subcommand(capsys):
    assert main(["lsp", "--help"]) == 0
    assert "--stdio" in capsys.readouterr().out


def test_a_failing_feature_logs_and_answers_nothing(caplog):
    from posecode_ssg.lsp.server import safe

    @safe
    def broken(params):
        raise ValueError("boom")

    @safe
    async def broken_async(params):
        raise KeyError("boom")

    with caplog.at_level(logging.ERROR, logger="posecode_ssg.lsp"):
        assert broken(None) is None
        assert asyncio.run(broken_async(None)) is None
    assert [r.message for r in caplog.records] == ["broken failed", "broken_async failed"]
    assert all(r.exc_info for r in caplog.records)


def test_server_errors_are_logged_not_shown(monkeypatch):
    from pygls.exceptions import FeatureNotificationError

    from posecode_ssg.lsp.server import create_server

    ls = create_server()
    shown = []
    monkeypatch.setattr(ls, "window_show_message", lambda params: shown.append(params))
    try:
        ls.report_server_error(RuntimeError("boom"), FeatureNotificationError)
        assert shown == []
    finally:   # no worker thread outlives the test (a threaded process does not fork page workers)
        for worker in (ls.solver, ls.fixer):
            worker.stop()
            worker.thread.join(timeout=5)

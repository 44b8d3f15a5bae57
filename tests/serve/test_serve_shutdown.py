"""Ctrl-C and SIGTERM stop the dev server promptly even while a browser holds
the live-reload stream open (uvicorn waits for open streams unless told
otherwise: browser-stack.md §5), and the private output folder is removed."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

SCRIPT = textwrap.dedent("""
    import sys
    from pathlib import Path
    sys.path[:0] = [{repo!r}, {here!r}]
    from serve_standin import StandInSource
    from posecode_ssg.site.serve import LiveSite, run_server
    live = LiveSite(StandInSource(Path({root!r})))
    print("OUT", live.out_dir, flush=True)
    sys.exit(run_server(live, host="127.0.0.1", port=0))
""")


def start(tmp_path: Path) -> tuple[subprocess.Popen[str], str, Path]:
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "index.md").write_text("# Home\n\nHello.\n", encoding="utf-8")
    code = SCRIPT.format(repo=str(REPO), here=str(HERE), root=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    out_dir = url = None
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("OUT "):
            out_dir = Path(line[4:].strip())
        match = re.search(r"Serving on (http://\S+)", line)
        if match:
            url = match.group(1)
            break
    assert url and out_dir, "server did not report its address"
    return proc, url, out_dir


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_signal_stops_server_with_a_live_stream_open(tmp_path, sig):
    proc, url, out_dir = start(tmp_path)
    try:
        assert out_dir.is_dir()
        with httpx.stream("GET", url + "__posecode/events", timeout=10) as stream:
            lines = stream.iter_lines()
            assert next(lines).startswith("retry:")
            started = time.monotonic()
            proc.send_signal(sig)
            proc.wait(timeout=8)
            elapsed = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
    output = proc.stdout.read() if proc.stdout else ""
    assert elapsed < 5, f"shutdown took {elapsed:.1f} s"
    assert "Traceback" not in output
    assert not out_dir.exists(), "private output folder left behind"
    if sig == signal.SIGINT:
        assert proc.returncode == 0 and "Stopped." in output
    else:
        assert proc.returncode in (0, -signal.SIGTERM)


def test_port_in_use_is_a_clear_error(tmp_path):
    import socket

    from posecode_ssg.site.serve import LiveSite, run_server

    sys.path.insert(0, str(HERE))
    from serve_standin import StandInSource

    (tmp_path / "content").mkdir()
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    messages: list[str] = []
    try:
        live = LiveSite(StandInSource(tmp_path), watch=False)
        status = run_server(live, host="127.0.0.1", port=busy.getsockname()[1], log=messages.append)
    finally:
        busy.close()
    assert status == 2
    assert "cannot listen on 127.0.0.1" in messages[0] and "--port" in messages[0]

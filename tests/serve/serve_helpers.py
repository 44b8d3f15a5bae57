"""Helpers for live dev-server tests: a running server and an SSE event log."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx


class EventLog:
    """Reads ``/__posecode/events`` on a thread and keeps every parsed event."""

    def __init__(self, base_url: str, on_build: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.base_url = base_url
        self.on_build = on_build
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self.wait_for(lambda e: e["type"] == "hello", timeout=10)

    def _run(self) -> None:
        with httpx.stream("GET", self.base_url + "__posecode/events", timeout=None) as response:
            kind = None
            for line in response.iter_lines():
                if self._stop.is_set():
                    return
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:") and kind:
                    event = json.loads(line[5:])
                    if event["type"] == "build" and self.on_build is not None:
                        self.on_build(event)  # runs before the event is visible to waiters
                    with self._lock:
                        self.events.append(event)

    def builds(self) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self.events if e["type"] == "build"]

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        """Return the first event (old or new) matching ``predicate``; fail after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                for event in self.events:
                    if predicate(event):
                        return event
            time.sleep(0.01)
        raise AssertionError(f"no matching event within {timeout} s; got {self.events}")

    def wait_build_after(self, version: int, timeout: float = 10.0) -> dict[str, Any]:
        """The first build event with a version greater than ``version``."""
        return self.wait_for(lambda e: e["type"] == "build" and e["version"] > version, timeout)

    def close(self) -> None:
        self._stop.set()


def raw_get(base_url: str, target: bytes, host: bytes = b"127.0.0.1") -> tuple[int, bytes]:
    """Send ``GET target`` byte for byte (no client-side normalisation); return (status, body)."""
    hostport = base_url.split("//", 1)[1].strip("/")
    name, port = hostport.rsplit(":", 1)
    with socket.create_connection((name, int(port)), timeout=10) as sock:
        sock.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def settle(seconds: float = 0.6) -> None:
    """Give the watcher time to see (or not see) a change: step + debounce margins."""
    time.sleep(seconds)

"""The figure cache: compiled figures on disk, content-addressed, in one SQLite database."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import ClassVar

from posecode_ssg.site.digest import json_bytes
from posecode_ssg.site.figures import CompiledFigure


class FigureCache:
    """Compiled figures on disk, content-addressed by :func:`figures.figure_key`: one SQLite
    database, ``<cache_dir>/figures.sqlite`` (table ``figures``: ``key`` text primary key, ``data``
    the figure's JSON), written in batched transactions (Python's ``sqlite3``). A file per figure
    costs a directory entry, a temporary file and a rename; a row in a batched transaction
    costs a small fraction of that. A cache that cannot be opened, read or
    written only costs time: its errors are misses, and a damaged database is started afresh.
    Transactions are not synced to the disk (``PRAGMA synchronous = OFF``; SQLite docs,
    "PRAGMA synchronous"): a commit survives the process ending, not necessarily a power cut.

    :meth:`put` keeps a figure pending until :meth:`flush` (every :data:`BATCH` puts, the end of
    a compilation and :meth:`close`); :meth:`get` sees pending figures. The connection is made on
    first use and may be used from the thread that builds (the dev server builds in a worker
    thread); forked compile workers never touch it."""

    #: Figures this process read or wrote most recently (the dev server rebuilds a page with
    #: the same figures again and again): key -> figure, oldest first.
    recent: ClassVar[dict[str, CompiledFigure]] = {}
    RECENT = 256
    #: puts written in one transaction
    BATCH = 512

    def __init__(self, root: Path):
        self.file = root / "figures.sqlite"
        self._db: sqlite3.Connection | None = None
        self._pending: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            for attempt in (0, 1):
                db = sqlite3.connect(self.file, timeout=10, check_same_thread=False)
                try:
                    # no fsync per transaction: a cache lost to a power cut only costs time
                    # (a synced commit waits for the disk, on the build's critical path)
                    db.execute("PRAGMA synchronous = OFF")
                    db.execute("CREATE TABLE IF NOT EXISTS figures (key TEXT PRIMARY KEY, data BLOB NOT NULL)")
                    break
                except sqlite3.DatabaseError:
                    db.close()
                    if attempt:
                        raise
                    self.file.unlink(missing_ok=True)   # not a database (damaged): start afresh
            self._db = db
        return self._db

    def get(self, key: str) -> CompiledFigure | None:
        figure = self.recent.get(key)
        if figure is not None:
            return figure
        data = self._pending.get(key)
        if data is None:
            with self._lock:
                try:
                    row = self._connect().execute("SELECT data FROM figures WHERE key = ?", (key,)).fetchone()
                except (sqlite3.Error, OSError):
                    return None
            if row is None:
                return None
            data = row[0]
        try:
            figure = CompiledFigure.from_dict(json.loads(data))
        except (ValueError, TypeError, KeyError):
            return None
        self._remember(figure)
        return figure

    def _remember(self, figure: CompiledFigure) -> None:
        self.recent[figure.key] = figure
        if len(self.recent) > self.RECENT:
            del self.recent[next(iter(self.recent))]

    def put(self, figure: CompiledFigure) -> None:
        self._remember(figure)
        self._pending[figure.key] = json_bytes(figure.to_dict())
        if len(self._pending) >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        """Write the pending figures in one transaction."""
        if not self._pending:
            return
        rows, self._pending = list(self._pending.items()), {}
        with self._lock:
            try:
                with self._connect() as db:
                    db.executemany("INSERT OR REPLACE INTO figures (key, data) VALUES (?, ?)", rows)
            except (sqlite3.Error, OSError):
                pass

    def close(self) -> None:
        """Flush, and close the connection (a later use opens it again)."""
        self.flush()
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

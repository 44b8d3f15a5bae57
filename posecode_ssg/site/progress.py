"""The build's progress bars (tqdm on stderr), shown only on long builds."""

from __future__ import annotations

import sys

PROGRESS_THRESHOLD = 200  # pages before a progress bar is shown


def progress(iterable, total: int, desc: str, enabled: bool):
    if not enabled:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, unit="page" if desc != "compile" else "fig",
                leave=False, file=sys.stderr, dynamic_ncols=True)

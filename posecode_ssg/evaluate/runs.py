"""Run grouping shared by the metric families: one violation per contiguous run of offending
samples, at its worst sample, and the worst value per metric."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from posecode_ssg.evaluate.context import Context
from posecode_ssg.evaluate.thresholds import DocumentMetrics, Violation


def intervals(mask: np.ndarray, label: np.ndarray | None = None) -> Iterable[tuple[int, int]]:
    """Contiguous runs of samples where ``mask`` holds (and ``label`` stays the same):
    (first, last) indices."""
    i, n = 0, len(mask)
    while i < n:
        if not mask[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and mask[j + 1] and (label is None or label[j + 1] == label[i]):
            j += 1
        yield i, j
        i = j + 1


def run_violations(ctx: Context, metric: str, subject: str, values: np.ndarray, mask: np.ndarray,
                limit: float, fails: bool = True) -> list[Violation]:
    """One :class:`Violation` per contiguous run of samples where ``mask`` holds and ``values``
    exceeds ``limit``, at the run's worst sample."""
    out = []
    for i, j in intervals(mask & (values > limit + 1e-9)):
        k = i + int(np.argmax(values[i:j + 1]))
        out.append(Violation(metric, float(ctx.loop_t[k]), ctx.phase_name(k), float(values[k]), limit,
                             subject, fails))
    return out


def worst_of(values: np.ndarray, mask: np.ndarray) -> float | None:
    """The largest of ``values`` where ``mask`` holds (None: nowhere)."""
    return float(np.max(values[mask])) if np.any(mask) else None


def merge_worst(res: DocumentMetrics, key: str, worst: float | None) -> None:
    """Fold ``worst`` into ``res.worst[key]`` (the larger; None leaves nothing measured)."""
    if worst is None:
        res.worst.setdefault(key, None)
        return
    cur = res.worst.get(key)
    res.worst[key] = worst if cur is None else max(cur, worst)

"""Screenshot comparison for the frame tests: numpy + Pillow, with a documented tolerance.

A frame passes when at most :data:`MAX_CHANGED_FRACTION` of its pixels differ from the baseline
by more than :data:`CHANNEL_TOLERANCE` in any of R, G, B (0–255). Why these numbers
(docs/testing.md, ../shared/design/browser-stack.md §3):

* On one machine a seeked frame is byte-identical between runs and browser launches, so any
  tolerance only has to absorb a Chromium / SwiftShader / three.js update, which moves
  anti-aliased edge pixels by a few levels and, rarely, by a whole shade along a silhouette.
  A channel tolerance of 40 ignores shading and anti-aliasing drift; 0.4 % of a 320×320 frame
  is ~410 pixels, a one-pixel shift of the whole outline of the figure.
* A visible change is far above that: a knee bent the other way, an arm on the wrong side or a
  prop moved changes thousands of pixels by much more than 40 levels (the sign-flip
  demonstration in docs/testing.md changed 5–20 % of the frame).

No image-diff library is used: pixelmatch's PyPI port is pure Python (seconds per frame) and
this check is a few array operations.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

#: per-channel difference (0–255) above which a pixel counts as changed
CHANNEL_TOLERANCE = 40
#: largest fraction of changed pixels a frame may have and still match its baseline
MAX_CHANGED_FRACTION = 0.004


@dataclass
class Comparison:
    """Result of :func:`compare`: ``changed`` pixels out of ``total``, the largest channel
    difference ``max_delta`` (0–255), ``ok`` within tolerance, and ``reason`` when the sizes
    differ (then ``changed == total``)."""

    changed: int
    total: int
    max_delta: int
    ok: bool
    reason: str = ""

    @property
    def fraction(self) -> float:
        """Changed pixels / all pixels (0–1)."""
        return self.changed / self.total if self.total else 0.0

    def describe(self) -> str:
        """One line for an assertion message."""
        if self.reason:
            return self.reason
        return (f"{self.changed} of {self.total} pixels ({self.fraction:.2%}) differ by more than "
                f"{CHANNEL_TOLERANCE}/255 (max {self.max_delta}); allowed {MAX_CHANGED_FRACTION:.2%}")


def load_rgb(data: bytes | Path) -> np.ndarray:
    """An image (PNG bytes or a path) as an ``(h, w, 3)`` uint8 RGB array."""
    src = io.BytesIO(data) if isinstance(data, (bytes, bytearray)) else data
    with Image.open(src) as im:
        return np.asarray(im.convert("RGB"))


def compare(actual: np.ndarray, expected: np.ndarray) -> Comparison:
    """Compare two ``(h, w, 3)`` uint8 images under the module's tolerance."""
    if actual.shape != expected.shape:
        total = actual.shape[0] * actual.shape[1]
        return Comparison(total, total, 255, False,
                          f"size {actual.shape[1]}×{actual.shape[0]} differs from the baseline's "
                          f"{expected.shape[1]}×{expected.shape[0]}")
    delta = np.abs(actual.astype(np.int16) - expected.astype(np.int16)).max(axis=2)
    changed = int((delta > CHANNEL_TOLERANCE).sum())
    total = delta.size
    return Comparison(changed, total, int(delta.max()), changed <= MAX_CHANGED_FRACTION * total)


def diff_image(actual: np.ndarray, expected: np.ndarray) -> Image.Image:
    """A picture of the difference: the baseline faded to grey, changed pixels (over the
    tolerance) in red, smaller differences in orange. Sizes may differ (the larger is used)."""
    h, w = max(actual.shape[0], expected.shape[0]), max(actual.shape[1], expected.shape[1])
    a = np.zeros((h, w, 3), np.int16)
    e = np.zeros((h, w, 3), np.int16)
    a[:actual.shape[0], :actual.shape[1]] = actual
    e[:expected.shape[0], :expected.shape[1]] = expected
    delta = np.abs(a - e).max(axis=2)
    grey = (e.mean(axis=2) * 0.3 + 178).astype(np.uint8)
    out = np.stack([grey, grey, grey], axis=2)
    out[(delta > 0) & (delta <= CHANNEL_TOLERANCE)] = (255, 170, 0)
    out[delta > CHANNEL_TOLERANCE] = (220, 0, 0)
    return Image.fromarray(out)


def save_png(image: np.ndarray | Image.Image, path: Path) -> None:
    """Write an RGB array or image as an optimised PNG, creating the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    im = image if isinstance(image, Image.Image) else Image.fromarray(image)
    im.save(path, optimize=True)

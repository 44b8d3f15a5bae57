"""Content hashes and the canonical JSON bytes of the build (cache rows, manifest, assets)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def json_bytes(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False).encode("utf-8")

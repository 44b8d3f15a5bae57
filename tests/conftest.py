"""Shared fixtures: locate ../shared (test data provided beside the repository)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("POSECODE_SHARED", REPO.parent / "shared"))


def shared_path(*parts: str) -> Path:
    """Return a path under ../shared, skipping the calling test when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared test data not found: {path}")
    return path


@pytest.fixture
def shared():
    """The ../shared folder (skips the test when absent)."""
    return shared_path()

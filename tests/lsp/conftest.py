"""Fixtures of the language-server tests: a real ``posecode-ssg lsp --stdio`` process driven by a
pytest-lsp client over stdio.

pytest-asyncio runs in its default strict mode here (pyproject.toml is not changed): the client
fixtures are ``pytest_lsp.fixture`` s (pytest-asyncio fixtures) and every test module marks its
tests ``pytest.mark.asyncio(loop_scope="module")``, the loop every fixture here runs in (``client``
is one server per test module; ``fresh`` and ``utf8_client`` one per test).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lsp_helpers import SITE_PAGE, config, init_params  # noqa: E402


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: LanguageClient):
    """A server initialized by a client that offers only UTF-16, its workspace the checkout."""
    from lsp_helpers import REPO

    lsp_client.init_result = await lsp_client.initialize_session(init_params(["utf-16"], root=REPO))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=config(), loop_scope="module")
async def fresh(lsp_client: LanguageClient):
    """A server of the test's own, initialized without any position encoding offered."""
    lsp_client.init_result = await lsp_client.initialize_session(init_params(None))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=config(), loop_scope="module")
async def utf8_client(lsp_client: LanguageClient):
    """A server initialized by a client that offers UTF-8 first, then UTF-16."""
    lsp_client.init_result = await lsp_client.initialize_session(init_params(["utf-8", "utf-16"]))
    yield
    await lsp_client.shutdown_session()




@pytest.fixture(scope="module")
def site_dir(tmp_path_factory):
    """A small site (posecode.toml, content/) whose page has front-matter, link, fence-attribute,
    parser and kinematic diagnostics, one fence inside a list item."""
    root = tmp_path_factory.mktemp("site")
    (root / "posecode.toml").write_text("", "utf-8")
    content = root / "content"
    content.mkdir()
    (content / "index.md").write_text("---\ntitle: Home\n---\n# Home\n", "utf-8")
    (content / "page.md").write_text(SITE_PAGE, "utf-8")
    return root


@pytest_lsp.fixture(config=config(), scope="module")
async def site_client(lsp_client: LanguageClient, site_dir):
    """A server whose workspace is :func:`site_dir` (UTF-16, versioned workspace edits)."""
    lsp_client.init_result = await lsp_client.initialize_session(
        init_params(["utf-16"], root=site_dir, document_changes=True))
    yield
    await lsp_client.shutdown_session()

"""The dev server's HTTP surface against a live server on an ephemeral port:
only the site's files are served (no traversal by ``..``, encoded forms,
backslashes or symlinks), content types, the client injected only into
served HTML, non-ASCII and spaced paths, the Host guard."""

from __future__ import annotations

import os

import httpx
import pytest
from serve_helpers import raw_get
from serve_standin import StandInSource

from posecode_ssg.cli import build_parser
from posecode_ssg.site.serve import CLIENT_TAG, LiveSite, ServeOptions, ThreadedServer

SECRET = "TOP-SECRET-0xC0FFEE"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("proj")
    (root / "content" / "Plié drills").mkdir(parents=True)
    (root / "content" / "index.md").write_text("# Index\n\nHello.\n", encoding="utf-8")
    (root / "content" / "Plié drills" / "demi plié.md").write_text(
        "# Demi plié\n\n```posecode\nposecode exercise \"Demi-plié\"\n```\n", encoding="utf-8")
    (root / "content" / "über uns.md").write_text("# Über uns\n", encoding="utf-8")
    theme = root / "theme"
    (theme / "js").mkdir(parents=True)
    (theme / "js" / "app.js").write_text("export const a = 1;\n")
    (theme / "js" / "mod.mjs").write_text("export const b = 2;\n")
    (theme / "data.json").write_text('{"ok": true}\n')
    (theme / "icon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>\n')
    (theme / "style.css").write_text("body{}\n")
    (theme / "assets").mkdir()
    (theme / "assets" / "runtime.0123456789.js").write_text("export {};\n")
    (root / "secret.txt").write_text(SECRET)
    live = LiveSite(StandInSource(root), out_dir=root / "preview" / "site", watch=False,
                    options=ServeOptions(quiet=True))
    (root / "preview" / "secret.txt").parent.mkdir(parents=True, exist_ok=True)
    (root / "preview" / "secret.txt").write_text(SECRET)
    with ThreadedServer(live) as url:
        # Symlinks planted inside the served folder, pointing out of it.
        os.symlink(root / "secret.txt", live.out_dir / "leak.txt")
        os.symlink(root, live.out_dir / "leakdir")
        yield url, live, root


TRAVERSALS = [
    b"/../secret.txt",
    b"/../../secret.txt",
    b"/%2e%2e/secret.txt",
    b"/%2E%2E/%2E%2E/secret.txt",
    b"/..%2fsecret.txt",
    b"/..%2F..%2Fsecret.txt",
    b"/%2e%2e%2fsecret.txt",
    b"/..%5csecret.txt",
    b"/..\\secret.txt",
    b"/%252e%252e/secret.txt",
    b"/js/../../secret.txt",
    b"//../secret.txt",
    b"/leak.txt",
    b"/leakdir/secret.txt",
    b"/leakdir/content/index.md",
    b"/%00/../secret.txt",
    b"/index.html%00.txt",
]


@pytest.mark.parametrize("target", TRAVERSALS, ids=[t.decode("latin-1") for t in TRAVERSALS])
def test_traversal_attempts_never_leave_the_site(served, target):
    url, _live, _root = served
    status, body = raw_get(url, target)
    assert SECRET.encode() not in body
    assert status in (400, 404), (target, status)


def test_absolute_url_in_request_line_does_not_escape(served):
    url, _live, root = served
    status, body = raw_get(url, ("http://127.0.0.1" + str(root / "secret.txt")).encode())
    assert SECRET.encode() not in body and status in (400, 404)


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("js/app.js", "text/javascript"),
        ("js/mod.mjs", "text/javascript"),
        ("data.json", "application/json"),
        ("icon.svg", "image/svg+xml"),
        ("style.css", "text/css"),
        ("", "text/html"),
    ],
)
def test_content_types(served, path, content_type):
    url, _live, _root = served
    response = httpx.get(url + path)
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == content_type


def test_cache_policy(served):
    url, _live, _root = served
    hashed = httpx.get(url + "assets/runtime.0123456789.js")
    assert hashed.headers["cache-control"] == "max-age=31536000, immutable"
    assert hashed.headers["content-type"].startswith("text/javascript")
    assert httpx.get(url + "style.css").headers["cache-control"] == "no-cache"
    assert httpx.get(url).headers["cache-control"] == "no-store"


def test_client_is_injected_only_into_served_html(served):
    url, live, _root = served
    response = httpx.get(url)
    assert response.text.count(CLIENT_TAG) == 1
    assert response.text.index(CLIENT_TAG) < response.text.index("</body>")
    on_disk = [p for p in live.out_dir.rglob("*.html")]
    assert len(on_disk) == 3
    for page in on_disk:
        assert "__posecode" not in page.read_text(encoding="utf-8")
    assert "__posecode" not in httpx.get(url + "js/app.js").text
    client = httpx.get(url + "__posecode/livereload.js")
    assert client.status_code == 200 and "EventSource" in client.text


@pytest.mark.parametrize(
    "target",
    [
        "/Pli%C3%A9%20drills/demi%20pli%C3%A9/".encode(),  # percent-encoded UTF-8
        "/Plié%20drills/demi%20plié/".encode("utf-8"),  # raw UTF-8 bytes
        "/Plie\u0301%20drills/demi%20plie\u0301/".encode("utf-8"),  # decomposed (NFD) spelling
    ],
)
def test_non_ascii_and_spaced_paths(served, target):
    url, live, _root = served
    status, body = raw_get(url, target)
    assert status == 200
    expected = (live.out_dir / "Plié drills" / "demi plié" / "index.html").read_bytes()
    assert body.replace(CLIENT_TAG.encode(), b"") == expected


def test_directory_without_slash_redirects_with_encoded_location(served):
    url, _live, _root = served
    response = httpx.get(url + "%C3%BCber%20uns", follow_redirects=False)
    assert response.status_code in (301, 302, 307, 308)
    assert response.headers["location"].endswith("/%C3%BCber%20uns/")
    assert httpx.get(url + "%C3%BCber%20uns", follow_redirects=True).status_code == 200


def test_missing_page_is_404_with_the_client(served):
    url, _live, _root = served
    response = httpx.get(url + "no/such/page/")
    assert response.status_code == 404
    assert CLIENT_TAG in response.text


def test_foreign_host_header_is_refused(served):
    url, _live, _root = served
    status, body = raw_get(url, b"/", host=b"attacker.example")
    assert status == 400
    assert raw_get(url, b"/", host=b"localhost")[0] == 200


def test_only_get_and_head(served):
    url, _live, _root = served
    assert httpx.post(url, content=b"x").status_code == 405
    assert httpx.head(url).status_code == 200


def test_cli_binds_loopback_unless_told():
    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port == 8000 and args.watch is True
    assert build_parser().parse_args(["serve", "--no-watch"]).watch is False


def test_state_endpoint_reports_no_errors(served):
    url, _live, _root = served
    state = httpx.get(url + "__posecode/state").json()
    assert state["errors"] == [] and state["version"] == 1

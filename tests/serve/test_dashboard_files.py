"""The dashboard's page shells and static files: preloaded modules, the inlined guard, and files
sent compressed with ETags and 304s (no snapshot needed)."""

import gzip
import re

import brotli
import pytest
from litestar.testing import TestClient

from serve.app import create_app
from serve.dashboard.files import StaticFile, static_file
from serve.dashboard.routes import PAGES, STATIC, page_html, page_modules
from tests.serve.conftest import api_settings


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    empty = tmp_path_factory.mktemp("no-snapshot")
    with TestClient(create_app(api_settings(warehouse=str(empty)))) as test_client:
        yield test_client


def _imports(module: str) -> set[str]:
    text = (STATIC / module).read_text()
    return set(re.findall(r'from "\./([\w-]+\.js)"', text))


@pytest.mark.parametrize("page", sorted(PAGES))
def test_a_page_preloads_every_module_its_script_reaches(page):
    reached, waiting = set(), [f"{page}.js"]
    while waiting:  # the closure, found independently of page_modules' own walk
        for name in _imports(waiting.pop()) - reached:
            reached.add(name)
            waiting.append(name)
    assert set(page_modules(page)) == reached and reached
    html = page_html(page)
    assert sorted(re.findall(r'<link rel="modulepreload" href="/dashboard/static/([\w-]+\.js)">', html)) == sorted(reached)


def test_the_guard_is_written_into_every_page():
    guard = (STATIC / "guard.js").read_text().strip()
    for page in PAGES:
        html = page_html(page)
        assert guard in html and "{{" not in html and "guard.js" not in html


@pytest.mark.parametrize(("accept", "encoding", "decode"), [
    ("br", "br", brotli.decompress), ("gzip, deflate", "gzip", gzip.decompress),
    ("gzip;q=0.5, br;q=0.9", "br", brotli.decompress), ("identity", None, bytes)])
def test_a_static_file_is_sent_as_the_client_accepts(client, accept, encoding, decode):
    raw = (STATIC / "board.js").read_bytes()
    response = client.get("/dashboard/static/board.js", headers={"accept-encoding": accept})
    assert response.status_code == 200
    assert response.headers.get("content-encoding") == encoding
    assert response.headers["content-type"] == "text/javascript; charset=utf-8"
    assert response.headers["vary"] == "Accept-Encoding"
    assert response.headers["cache-control"] == "public, max-age=300"
    # httpx undoes a content encoding itself; the bytes sent are checked against the file.
    assert decode(response.read() if encoding is None else _sent(client, accept)) == raw
    if encoding:
        assert len(_sent(client, accept)) < len(raw) / 2


def _sent(client, accept: str) -> bytes:
    with client.stream("GET", "/dashboard/static/board.js", headers={"accept-encoding": accept}) as response:
        return b"".join(response.iter_raw())


def test_a_static_file_the_client_has_gets_a_304_whatever_the_tag_form(client):
    tag = client.get("/dashboard/static/chart.js", headers={"accept-encoding": "gzip"}).headers["etag"]
    assert tag.endswith('-gzip"')
    for if_none_match in (tag, f"W/{tag}", tag.replace("-gzip", ""), "*", f'"other", {tag}'):
        response = client.get("/dashboard/static/chart.js", headers={"if-none-match": if_none_match,
                                                                      "accept-encoding": "br"})
        assert response.status_code == 304 and response.content == b"", if_none_match
        assert response.headers["etag"].endswith('-br"')
    assert client.get("/dashboard/static/chart.js", headers={"if-none-match": '"other"'}).status_code == 200


@pytest.mark.parametrize("name", ["missing.js", ".hidden", "..%2Fshell.html", "%2E%2E%2Froutes.py"])
def test_a_name_that_is_not_a_dashboard_file_is_a_404(client, name):
    response = client.get(f"/dashboard/static/{name}")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")


def test_a_small_file_is_sent_as_it_is(tmp_path):
    (tmp_path / "tiny.css").write_text("main{}")
    found = static_file(tmp_path, "tiny.css")
    assert isinstance(found, StaticFile) and found.media_type == "text/css"
    status, headers, body = found.answer("br, gzip", "")
    assert (status, body, "Content-Encoding" in headers) == (200, b"main{}", False)
    assert static_file(tmp_path, "../tiny.css") is None and static_file(tmp_path, "none.css") is None


def test_every_page_sets_the_dashboard_cookie_for_the_api_only(client):
    for path in ("/dashboard", "/dashboard/models/O3", "/dashboard/calculator", "/dashboard/index",
                 "/dashboard/accuracy"):
        cookie = client.get(path).headers["set-cookie"]
        attributes = {part.strip().split("=")[0].lower(): part.strip() for part in cookie.split(";")}
        assert cookie.startswith("oracle_dashboard=1;")
        assert attributes["path"] == "Path=/v1" and "httponly" in attributes
        assert attributes["samesite"] == "SameSite=Strict"

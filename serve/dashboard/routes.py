"""Routes of the dashboard: one page shell per permalink, and the static files the pages load.

Every page is the same shell (`static/shell.html`) naming its own ES module; the module reads the
page's URL and fetches `/v1` like any other client (anonymous, or with the visitor's key), so the
pages show exactly what the API answers. Nothing here reads the snapshot, and none of these
routes is part of the API's OpenAPI document.
"""

from __future__ import annotations

import html
from functools import cache
from pathlib import Path

from litestar import Response, get
from litestar.datastructures import CacheControlHeader
from litestar.static_files import create_static_files_router

STATIC = Path(__file__).resolve().parent / "static"
PREFIX = "/dashboard"
# page -> its title; the page's module is static/<page>.js
PAGES = {
    "board": "Ticker board",
    "model": "Model",
    "calculator": "Cost calculator",
    "index": "Inference Cost Index",
    "accuracy": "Forecast accuracy",
}
# Short, so a new release's files are picked up within minutes, yet page views reuse them.
STATIC_MAX_AGE = 300


@cache
def _shell() -> str:
    return (STATIC / "shell.html").read_text(encoding="utf-8")


def page_html(page: str) -> str:
    return _shell().replace("{{title}}", html.escape(PAGES[page])).replace("{{page}}", page)


def _page(page: str) -> Response[str]:
    # The shell is tiny and changes with a release: revalidate rather than keep a stale copy.
    return Response(page_html(page), media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-cache"})


@get(PREFIX, include_in_schema=False, sync_to_thread=False)
def board() -> Response[str]:
    return _page("board")


@get(f"{PREFIX}/models/{{name:path}}", include_in_schema=False, sync_to_thread=False)
def model(name: str) -> Response[str]:
    # Any name the API resolves (ticker, model id, `vendor/model` alias); the page asks /v1 which.
    return _page("model")


@get(f"{PREFIX}/calculator", include_in_schema=False, sync_to_thread=False)
def calculator() -> Response[str]:
    return _page("calculator")


@get(f"{PREFIX}/index", include_in_schema=False, sync_to_thread=False)
def index() -> Response[str]:
    return _page("index")


@get(f"{PREFIX}/accuracy", include_in_schema=False, sync_to_thread=False)
def accuracy() -> Response[str]:
    return _page("accuracy")


def dashboard_routes() -> list:
    """The page handlers and the static files router, for `create_app` to mount."""
    static = create_static_files_router(
        path=f"{PREFIX}/static", directories=[STATIC], name="dashboard-static", include_in_schema=False,
        cache_control=CacheControlHeader(max_age=STATIC_MAX_AGE, public=True))
    return [board, model, calculator, index, accuracy, static]

"""Routes of the dashboard: one page shell per permalink, and the static files the pages load.

Every page is the same shell (`static/shell.html`) naming its own ES module; the module reads the
page's URL and fetches `/v1` like any other client (anonymous, or with the visitor's key), so the
pages show exactly what the API answers. Each page sets the dashboard's cookie, so that its
keyless `/v1` requests count against the address's browsing limit rather than its free tier
(`serve.access.middleware`). Nothing here reads the snapshot, and none of these routes is part
of the API's OpenAPI document.
"""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path

from litestar import Request, Response
from litestar.handlers import HTTPRouteHandler

from serve.access.middleware import DASHBOARD_COOKIE
from serve.dashboard.files import static_file
from serve.problems import Problem
from serve.routing import get

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
# page -> its permalink below PREFIX. The model page answers any name the API resolves (ticker,
# model id, `vendor/model` alias); the page asks /v1 which.
PAGE_PATHS = {"board": "", "model": "/models/{name:path}", "calculator": "/calculator", "index": "/index",
              "accuracy": "/accuracy"}
# Short, so a new release's files are picked up within minutes, yet page views reuse them.
STATIC_MAX_AGE = 300


@cache
def _shell() -> str:
    # The guard is written into the page rather than linked: a browser opens at most six
    # connections to a host, and a page's first files already fill them.
    guard = (STATIC / "guard.js").read_text(encoding="utf-8").strip()
    return (STATIC / "shell.html").read_text(encoding="utf-8").replace("{{guard}}", guard)


# `import … from "./name.js"`: how the pages' modules name each other (always relative, in STATIC).
_IMPORT = re.compile(r'^import\b[^;]*?\bfrom\s+"\./([\w-]+\.js)"', re.MULTILINE)


@cache
def page_modules(page: str) -> tuple[str, ...]:
    """Every module the page's script imports, directly or not, in the order first met. The
    shell names them all for preloading: otherwise the browser learns of each level of imports
    only once the level above has arrived, one round trip per level, which a slow connection
    feels most."""
    found: list[str] = []
    waiting = [f"{page}.js"]
    while waiting:
        module = waiting.pop(0)
        for name in _IMPORT.findall((STATIC / module).read_text(encoding="utf-8")):
            if name not in found:
                found.append(name)
                waiting.append(name)
    return tuple(found)


@cache
def page_html(page: str) -> str:
    preloads = "\n".join(f'<link rel="modulepreload" href="{PREFIX}/static/{name}">' for name in page_modules(page))
    return (_shell().replace("{{title}}", html.escape(PAGES[page])).replace("{{page}}", page)
            .replace("{{preloads}}", preloads))


# The page's /v1 requests carry it, and count against the dashboard's limit, not the free tier's.
DASHBOARD_COOKIE_HEADER = f"{DASHBOARD_COOKIE}=1; Path=/v1; Max-Age=86400; SameSite=Strict; HttpOnly"


def _page_route(page: str) -> HTTPRouteHandler:
    def shell() -> Response[str]:
        # The shell is tiny and changes with a release: revalidate rather than keep a stale copy.
        return Response(page_html(page), media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-cache", "Set-Cookie": DASHBOARD_COOKIE_HEADER})

    return get(PREFIX + PAGE_PATHS[page], include_in_schema=False, sync_to_thread=False)(shell)


@get(f"{PREFIX}/static/{{name:str}}", include_in_schema=False, sync_to_thread=False)
def static(name: str, request: Request) -> Response[bytes]:
    found = static_file(STATIC, name)
    if found is None:
        raise Problem(404, "not_found", f"the dashboard has no file {name!r}")
    status, headers, body = found.answer(request.headers.get("accept-encoding", ""),
                                         request.headers.get("if-none-match", ""))
    return Response(body, status_code=status, media_type=found.media_type,
                    headers={**headers, "Cache-Control": f"public, max-age={STATIC_MAX_AGE}"})


def dashboard_routes() -> list:
    """The page handlers and the static files, for `create_app` to mount."""
    return [*(_page_route(page) for page in PAGES), static]

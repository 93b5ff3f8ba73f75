"""The ceiling app: the oracle's stack (Litestar served by uvicorn) with no oracle work in it,
and no access log: the bare stack.

For every endpoint under test there is one bare GET handler and one bare POST handler on the
same path as the real endpoint, each returning a constant JSON payload precomputed from the real
response, byte for byte. Measured against the real app, it shows what the framework, the server
and the network cost by themselves, so the rest is the oracle's own work.

Settings come from arguments, else `CEILING_*` environment variables, like `serve.settings`:
`payloads` names a JSON file mapping each path to the body to serve, as a string; `headers`, if
given, one mapping each path to headers sent with it (the real answer's own, to measure what the
stack itself pays for them).

    python -m bench.ceiling --host 127.0.0.1 --port 8100 --payloads payloads.json
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path

from litestar import Litestar, Response, get, post
from litestar.handlers import HTTPRouteHandler


@dataclass(frozen=True)
class CeilingSettings:
    payloads: str = "payloads.json"
    headers: str = ""

    @classmethod
    def from_env(cls, **overrides) -> CeilingSettings:
        value = overrides.get("payloads") or os.environ.get("CEILING_PAYLOADS") or cls.payloads
        return cls(payloads=value, headers=overrides.get("headers") or os.environ.get("CEILING_HEADERS", ""))


def constant_handlers(path: str, body: bytes, headers: dict[str, str] | None = None) -> list[HTTPRouteHandler]:
    """A GET and a POST handler on `path`, both answering `body` as it is, already encoded, with
    `headers` beside the type and length."""

    async def constant() -> Response[bytes]:
        return Response(content=body, media_type="application/json", status_code=200, headers=headers)

    name = path.strip("/").replace("/", "_").replace("-", "_")
    return [get(path, name=f"get_{name}")(constant),
            post(path, name=f"post_{name}", status_code=200)(constant)]


@get("/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}


def create_app(settings: CeilingSettings) -> Litestar:
    payloads = json.loads(Path(settings.payloads).read_text())
    headers = json.loads(Path(settings.headers).read_text()) if settings.headers else {}
    handlers = [h for path, body in payloads.items() for h in constant_handlers(path, body.encode(), headers.get(path))]
    return Litestar(route_handlers=[health, *handlers], openapi_config=None)


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument("--payloads")
    parser.add_argument("--headers")
    args = parser.parse_args()
    app = create_app(CeilingSettings.from_env(payloads=args.payloads, headers=args.headers))
    uvicorn.run(app, host=args.host, port=args.port, log_level="info", access_log=False)


if __name__ == "__main__":
    main()

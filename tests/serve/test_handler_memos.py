"""What the middlewares work out once per route handler (the query parameters it reads, its
endpoint's name) belongs to that handler, never to whatever handler once had the same id(): the
tests make and drop many apps, and CPython reuses a collected object's id at once."""

import gc
import tempfile

import pytest

from serve.access.middleware import _endpoint
from serve.app import create_app
from serve.direct import _queries
from tests.serve.conftest import api_settings


def _handlers():
    app = create_app(api_settings(warehouse=tempfile.mkdtemp(prefix="no-snapshot-")))
    return [handler for route in app.routes for handler in getattr(route, "route_handlers", [])
            if any(path.startswith("/v1") for path in handler.paths)]


def _worked_out(handler) -> tuple:
    method = sorted(handler.http_methods)[0]
    return _queries(handler), _endpoint({"method": method, "route_handler": handler})


def _key(handler) -> tuple:
    return tuple(sorted(handler.paths)), tuple(sorted(handler.http_methods))


@pytest.mark.slow  # makes and drops apps
def test_a_handler_of_a_new_app_is_not_taken_for_one_of_a_dropped_app():
    first = {_key(handler): _worked_out(handler) for handler in _handlers()}  # worked out, then dropped
    gc.collect()
    for _ in range(3):
        handlers = _handlers()
        # in reverse, so that a handler's id is likely to be another's of the dropped app
        for handler in reversed(handlers):
            assert _worked_out(handler) == first[_key(handler)], _key(handler)
        del handlers
        gc.collect()
    (declared, _), _ = next(worked for (paths, _), worked in first.items()
                            if paths == ("/v1/monte-carlo/{ticker:path}",))
    assert {"taskCategory", "horizonMonths", "paths", "seed"} <= declared

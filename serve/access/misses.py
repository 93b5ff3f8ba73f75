"""Requests no route serves, under the same access control and access log as every other.

The router answers a path no route serves (404) and a method a path does not take (405) before
any route's middleware runs. So the two are brought under access control and into the access log
through the framework's public hooks for errors: `after_exception` (asynchronous, so it can ask
the counter store: the request is counted and limited like any other, a bad key is a 401) leaves
its decision in the scope, and the exception handler answers with the decision's rate-limit
headers, or with its refusal in place of the 404, and writes the request's log line.
"""

from __future__ import annotations

import time

from litestar import Request, Response
from litestar.exceptions import MethodNotAllowedException, NotFoundException

from serve.access.middleware import AccessControl
from serve.access_log import AccessLog
from serve.problems import handle, problem_response

MISS_KEY = "oracle_router_miss"


class RouterMisses:
    def __init__(self, control: AccessControl, log: AccessLog | None):
        self.control, self.log = control, log

    async def decide(self, exc: Exception, scope) -> None:
        """The app's `after_exception` hook: access control's decision for a router miss."""
        if scope.get("type") == "http" and scope.get("route_handler") is None and \
                isinstance(exc, NotFoundException | MethodNotAllowedException):
            started = time.perf_counter()
            scope[MISS_KEY] = (await self.control.decide(scope), started)

    def handle(self, request: Request, exc: Exception) -> Response:
        """The app's exception handler: every error as a problem (`serve.problems.handle`); a
        router miss with what access control decided, and logged."""
        missed = request.scope.pop(MISS_KEY, None)
        if missed is None:
            return handle(request, exc)
        decision, started = missed
        response = problem_response(decision.refusal) if decision.refusal is not None else handle(request, exc)
        for name, value in decision.headers:
            response.headers[name.decode()] = value.decode()
        if self.log is not None:
            content = response.render(response.content, response.media_type)
            sent = {"status": response.status_code, "bytes": len(content), "took": time.perf_counter() - started}
            self.log.add(request.scope, sent)
        return response

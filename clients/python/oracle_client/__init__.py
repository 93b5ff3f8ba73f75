"""A typed client for the Inference Pricing Oracle's API (sync and async, on httpx).

`OracleClient` and `AsyncOracleClient` have one method per operation of the API's OpenAPI
document, generated from it (`operations.py`, `methods.py`), with its summary and description as
the docstring; answers are TypedDicts (`oracle_client.models`). Lists the API pages are iterators
over every page. Refusals are `OracleError` subclasses: `BadRequest` (with the field `errors`),
`Unauthorized`, `NotFound` (with `suggestions`), `RateLimited` (with `retry_after` seconds),
`ServiceUnavailable`, and `ConnectionFailed` when the server could not be reached.
"""

from __future__ import annotations

from oracle_client.client import AsyncOracle, AsyncOracleClient, Oracle, OracleClient
from oracle_client.errors import (
    BadRequest,
    ConnectionFailed,
    NotFound,
    OracleError,
    RateLimited,
    ServiceUnavailable,
    Unauthorized,
)
from oracle_client.streams import StreamMessage

__all__ = [
    "AsyncOracle",
    "AsyncOracleClient",
    "BadRequest",
    "ConnectionFailed",
    "NotFound",
    "Oracle",
    "OracleClient",
    "OracleError",
    "RateLimited",
    "ServiceUnavailable",
    "StreamMessage",
    "Unauthorized",
]

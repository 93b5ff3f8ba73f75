"""What the endpoints share in reading a request: the modes, list limits, enumerated query
parameters (a value outside the list is a 400 that lists it), and the problem of a model without
a price in a mode."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar.params import Parameter

from serve.problems import Problem, invalid

SYNC, BATCH = "sync", "batch"
MODES = (SYNC, BATCH)
DEFAULT_LIMIT, MAX_LIMIT = 100, 1000

# The bounds of a task profile, the same on every endpoint that takes one. A trillion tokens: far
# beyond any request, and a bound that keeps every count finite.
MAX_TOKENS = 1e12
Tokens = Annotated[float, msgspec.Meta(ge=0, le=MAX_TOKENS, description="Token count, a finite number ≥ 0.")]
Eta = Annotated[float, msgspec.Meta(ge=0, le=1, description="Cache-hit share of the prompt, 0 to 1.")]


def enum_param(description: str, allowed: tuple[str, ...], query: str | None = None) -> Any:
    return Parameter(query=query, description=description, schema_extra={"enum": list(allowed)})


ModeParam = Annotated[str | None, enum_param("sync or batch; default sync, or batch for a batch ticker (`X.B`)", MODES)]
LimitParam = Annotated[int, Parameter(ge=1, le=MAX_LIMIT, description=f"1 to {MAX_LIMIT}; default {DEFAULT_LIMIT}")]


def one_of(field: str, value: str | None, allowed: tuple[str, ...]) -> str | None:
    """`value` when it is one of `allowed` (or absent), else a 400 that lists them."""
    if value is None or value in allowed:
        return value
    problem = invalid(field, f"must be one of {', '.join(allowed)}; got '{value}'")
    problem.extra["allowed"] = list(allowed)
    raise problem


def no_price(ticker: str, mode: str, when: str = "") -> Problem:
    """A model without a price in the mode asked for: `no_batch_price` for batch, `no_price` for
    sync, the same on every endpoint; `when` says at what date, for a price asked at a past one."""
    code = "no_batch_price" if mode == BATCH else "no_price"
    return Problem(404, code, f"{ticker} has no {mode} price{when}", ticker=ticker, mode=mode)


def in_mode(column: str, mode: str) -> str:
    """The Greek sheet's name of a figure in a mode: `theta` in sync, `theta_batch` in batch."""
    return column if mode == SYNC else f"{column}_batch"

"""Operations made methods: each function of `operations.py` (arguments in, a `Call` out) becomes a
method of the sync client that sends the call and returns its answer, and of the async client
that does the same awaited, with the function's signature and docstring. A list the API pages
becomes an iterator of every record, page after page (`paging.py`)."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, Concatenate, ParamSpec, TypeVar

from oracle_client.call import Call
from oracle_client.paging import Paging
from oracle_client.runners import AsyncRunner, SyncRunner

P = ParamSpec("P")
T = TypeVar("T")
R = TypeVar("R")
I = TypeVar("I")  # noqa: E741 - an item of a list

__all__ = ["AsyncRunner", "SyncRunner", "async_call", "async_pages", "sync_call", "sync_pages"]


def sync_call(build: Callable[P, Call[T]]) -> Callable[Concatenate[SyncRunner, P], T]:
    @functools.wraps(build)
    def method(self: SyncRunner, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run(build(*args, **kwargs))

    return method


def async_call(build: Callable[P, Call[T]]) -> Callable[Concatenate[AsyncRunner, P], Coroutine[Any, Any, T]]:
    @functools.wraps(build)
    async def method(self: AsyncRunner, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(build(*args, **kwargs))

    return method


def sync_pages(build: Callable[P, Call[R]], paging: Paging[R, I]) -> Callable[Concatenate[SyncRunner, P], Iterator[I]]:
    def method(self: SyncRunner, /, *args: P.args, **kwargs: P.kwargs) -> Iterator[I]:
        call: Call[R] | None = build(*args, **kwargs)
        while call is not None:
            page = self._run(call)
            yield from paging.items(page)
            call = paging.following(call, page)

    return _documented(method, build, paging)


def async_pages(build: Callable[P, Call[R]],
                paging: Paging[R, I]) -> Callable[Concatenate[AsyncRunner, P], AsyncIterator[I]]:
    async def method(self: AsyncRunner, /, *args: P.args, **kwargs: P.kwargs) -> AsyncIterator[I]:
        call: Call[R] | None = build(*args, **kwargs)
        while call is not None:
            page = await self._run(call)
            for item in paging.items(page):
                yield item
            call = paging.following(call, page)

    return _documented(method, build, paging)


F = TypeVar("F", bound=Callable[..., Any])


def _documented(method: F, build: Callable[..., Any], paging: Paging[Any, Any]) -> F:
    functools.update_wrapper(method, build)
    method.__doc__ = f"Every record of every page, one after another ({paging.how}).\n\n{build.__doc__ or ''}"
    return method

"""Server-sent events (`GET /v1/events/stream`) read line by line into messages."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class StreamMessage:
    """One message of the stream: `event` is `price_event`, `reset` (read `/v1/events` again) or
    `end` (the stream's life is over; reconnect with its `id` as `last_event_id`)."""

    event: str
    data: str
    id: str | None = None
    retry: int | None = None

    def json(self) -> Any:
        """The data as JSON: a `price_event`'s event, as `/v1/events` gives it."""
        return json.loads(self.data)


@dataclass
class MessageReader:
    """Feeds lines in, gives each message once its blank line has come (comments are skipped)."""

    _event: str = ""
    _data: list[str] = field(default_factory=list)
    _id: str | None = None
    _retry: int | None = None

    def feed(self, line: str) -> StreamMessage | None:
        if line == "":
            if not self._data and not self._event:
                return None
            message = StreamMessage(self._event or "message", "\n".join(self._data), self._id, self._retry)
            self._event, self._data, self._retry = "", [], None
            return message
        if line.startswith(":"):
            return None  # a comment that keeps the connection open
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            self._id = value
        elif name == "retry" and value.isdigit():
            self._retry = int(value)
        return None


def messages(lines: Iterable[str]) -> Iterator[StreamMessage]:
    reader = MessageReader()
    for line in lines:
        message = reader.feed(line)
        if message is not None:
            yield message

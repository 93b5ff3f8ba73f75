"""The original oracle's names for request fields, read as ours: its clients send `ticker` or
`modelId` for `model`, and camelCase twins of the token fields. One renaming of the raw body,
before it is decoded, serves every POST endpoint, rather than twin fields on every request type.

A body that gives a field under both names with different values is refused (which one was
meant cannot be told), as the twin spellings of `/v1/swap` and `/v1/simulate` are. A body
without the original's names (almost every one) is passed on as it is, after a few substring
checks.
"""

from __future__ import annotations

import msgspec

from serve.problems import invalid

ORIGINAL_NAMES = {"ticker": "model", "modelId": "model", "nIn": "n_in", "nOut": "n_out", "nThink": "n_think",
                  "horizonMonths": "horizon_months"}
_QUOTED = tuple(f'"{name}"'.encode() for name in ORIGINAL_NAMES)


def with_our_names(raw: bytes, kind: type[msgspec.Struct]) -> bytes:
    """`raw` with each of the original's field names that `kind` has under our name renamed to
    ours; `raw` itself when there is none (or when it is not a JSON object: the strict decoding
    says what is wrong with it)."""
    if not any(name in raw for name in _QUOTED):
        return raw
    try:
        body = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return raw
    if not isinstance(body, dict):
        return raw
    fields, renamed, sent_as = set(kind.__struct_fields__), {}, {}
    for key, value in body.items():
        ours = ORIGINAL_NAMES.get(key)
        name = ours if ours in fields else key
        if name in renamed and renamed[name] != value:
            raise invalid(name, f"sent as '{sent_as[name]}' and as '{key}' with different values; send it once")
        renamed[name], sent_as[name] = value, key
    return msgspec.json.encode(renamed)

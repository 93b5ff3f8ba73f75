"""Compressed answers: which encoding a client accepts, and envelopes compressed once.

A snapshot answer's envelope is the same bytes for the life of the snapshot except its last
field, `cache_age_seconds`, which grows every second. So everything up to that field is
compressed once per answer and encoding (`Stream`), and each request appends the few bytes left
as an uncompressed final block, which both formats define:

- gzip (RFC 1952 around RFC 1951's deflate): the head ends with a sync flush, so it stops on a
  byte boundary; the tail is one stored block marked final (header byte 0x01, LEN, NLEN, the
  bytes), then the member's trailer, the CRC-32 and length of everything, carried on from the
  head's.
- brotli (RFC 7932): the head ends with a flush, which also stops on a byte boundary; the tail is
  one uncompressed meta-block (ISLAST 0, MNIBBLES 4, MLEN − 1, ISUNCOMPRESSED 1, padding), then
  an empty last meta-block (ISLAST 1, ISLASTEMPTY 1: the byte 0x03).

Appending costs microseconds, and the client receives one ordinary stream. A snapshot answer is
compressed at the `BEST` settings worth paying once per snapshot; an answer computed for a request
body (a comparison, a price), which may never be asked again, at the `FAST` ones.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

import brotli

GZIP, BROTLI = "gzip", "br"
ENCODINGS = (BROTLI, GZIP)  # preferred first, when a client accepts both equally
MIN_BYTES = 1024  # smaller answers gain less than the encoding's own overhead
MAX_TAIL = 65_535  # a stored block's, and an uncompressed meta-block's (4 nibbles), largest length
# (gzip level, brotli quality). Brotli 8 is within a tenth of its best size (11) at a thirtieth of the time.
BEST, FAST = (9, 8), (6, 4)


def accepted_encoding(accept_encoding: str) -> str | None:
    """The encoding to send for an Accept-Encoding header (RFC 9110 §12.5.3): the one of
    ENCODINGS with the highest q-value above 0, brotli on a tie; `*` stands for any not named.
    None: send the answer as it is."""
    if not accept_encoding:
        return None
    weights: dict[str, float] = {}
    for item in accept_encoding.lower().split(","):
        name, _, params = item.strip().partition(";")
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0  # a q-value that cannot be read is not an acceptance
        weights[name.strip()] = weight
    best, best_weight = None, 0.0
    for name in ENCODINGS:
        weight = weights.get(name, weights.get("*", 0.0))
        if weight > best_weight:
            best, best_weight = name, weight
    return best


@dataclass(frozen=True)
class Stream:
    """A compressed head that can be finished with any short tail of uncompressed bytes."""

    encoding: str
    head: bytes
    crc: int  # gzip: the CRC-32 of the head's uncompressed bytes
    size: int  # gzip: their length

    @classmethod
    def of(cls, encoding: str, prefix: bytes, level: tuple[int, int] = BEST) -> Stream:
        """`prefix` compressed at `level` (BEST or FAST)."""
        if encoding == GZIP:
            packer = zlib.compressobj(level[0], zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # 16+: a gzip member
            return cls(GZIP, packer.compress(prefix) + packer.flush(zlib.Z_SYNC_FLUSH), zlib.crc32(prefix),
                       len(prefix))
        if encoding == BROTLI:
            packer = brotli.Compressor(quality=level[1])
            return cls(BROTLI, packer.process(prefix) + packer.flush(), 0, len(prefix))
        raise ValueError(f"unknown encoding {encoding!r}")

    def finish(self, tail: bytes) -> bytes:
        length = len(tail)
        if not 0 < length <= MAX_TAIL:
            raise ValueError(f"a tail of {length} bytes cannot be appended")
        if self.encoding == GZIP:
            stored = b"\x01" + struct.pack("<HH", length, length ^ 0xFFFF) + tail
            trailer = struct.pack("<II", zlib.crc32(tail, self.crc), (self.size + length) & 0xFFFFFFFF)
            return b"".join((self.head, stored, trailer))
        header = ((length - 1) << 3) | (1 << 19)  # ISLAST 0, MNIBBLES 00 (four), MLEN − 1, ISUNCOMPRESSED
        return b"".join((self.head, header.to_bytes(3, "little"), tail, b"\x03"))

"""The dashboard's static files, read and compressed once per process and sent as the client
accepts (brotli, gzip or as they are), with an ETag per file and encoding and 304 on a match.

A page's modules, style sheet and guard script are most of what a first visit transfers; sent
compressed they are about a third of their size, which a slow connection feels.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import brotli

from serve.answers import matches, tagged
from serve.compression import BROTLI, GZIP, MIN_BYTES, accepted_encoding

# Litestar adds `; charset=utf-8` to a text/ type itself.
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}


@dataclass(frozen=True)
class StaticFile:
    media_type: str
    etag: str
    bodies: dict[str | None, bytes]  # by encoding; None: the file as it is

    @classmethod
    def read(cls, path: Path) -> StaticFile:
        raw = path.read_bytes()
        bodies: dict[str | None, bytes] = {None: raw}
        if len(raw) >= MIN_BYTES:
            bodies[GZIP] = gzip.compress(raw, compresslevel=9, mtime=0)
            bodies[BROTLI] = brotli.compress(raw, quality=11)
        media_type = MEDIA_TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return cls(media_type, f'"{hashlib.sha256(raw).hexdigest()[:24]}"', bodies)

    def answer(self, accept_encoding: str, if_none_match: str) -> tuple[int, dict[str, str], bytes]:
        """(status, headers, body) for a request with these two headers."""
        encoding = accepted_encoding(accept_encoding) if len(self.bodies) > 1 else None
        headers = {"ETag": tagged(self.etag, encoding), "Vary": "Accept-Encoding"}
        if if_none_match and matches(if_none_match, self.etag):
            return 304, headers, b""
        if encoding is not None:
            headers["Content-Encoding"] = encoding
        return 200, headers, self.bodies[encoding]


@cache
def _files_in(folder: Path) -> dict[str, StaticFile]:
    """Every plain, visible file directly in `folder`, read once per process."""
    return {path.name: StaticFile.read(path) for path in sorted(folder.iterdir())
            if path.is_file() and not path.name.startswith(".")}


def static_file(folder: Path, name: str) -> StaticFile | None:
    """The file `name` directly in `folder`, or None when there is none. Only the folder's own
    files are ever looked up, so a name never reaches outside it, and names that match nothing
    cost no memory however many a client tries."""
    return _files_in(folder).get(name)

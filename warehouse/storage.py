"""Where the warehouse keeps its files: a local folder, or any filesystem fsspec can open.

The warehouse is named by a path or a URL. A path (or a `file://` URL) is the local disk, written
the durable way: a temp file in the same folder, fsync, then `os.replace`; a folder rename is one
`os.rename`, and the folder is fsynced after it. Any other URL (`memory://`, `s3://`, `gs://`,
`az://`, with the fsspec implementation installed) goes through fsspec. There a file is written
whole and appears when its upload completes, which object stores make atomic per object; a folder
"rename" is a copy then a delete, which is safe because no reader looks inside a snapshot folder
before the pointer names it, and the pointer is one object written last.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import BinaryIO

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq
from fsspec.implementations.local import LocalFileSystem

Writer = Callable[[BinaryIO], object]


class Storage:
    """A folder on some filesystem, with the few operations the warehouse needs.

    Paths are strings: `join` builds them under `root`, and every method takes what `join` gave.
    """

    def __init__(self, url: str | os.PathLike):
        self.url = os.fspath(url)
        self.fs, self.root = fsspec.core.url_to_fs(self.url)
        self.local = isinstance(self.fs, LocalFileSystem)

    @classmethod
    def of(cls, root: str | os.PathLike | Storage) -> Storage:
        """`root` itself when it is already a Storage, else the storage it names."""
        return root if isinstance(root, Storage) else cls(root)

    def __repr__(self) -> str:
        return f"Storage({self.url!r})"

    def join(self, *parts: str) -> str:
        return "/".join([self.root.rstrip("/"), *parts])

    def address(self, path: str) -> str:
        """A path as a person would name it: plain on a local disk, a full URL elsewhere."""
        return path if self.local else self.fs.unstrip_protocol(path)

    # -- writing -------------------------------------------------------------------------------

    def write(self, path: str, writer: Writer) -> None:
        """Write a whole file through `writer(handle)`; readers see the old file or the new one."""
        if self.local:
            _atomic_local_write(path, writer)
            return
        buffer = io.BytesIO()  # one upload of the finished bytes: no half-written object
        writer(buffer)
        self.fs.pipe_file(path, buffer.getvalue())

    def write_bytes(self, path: str, data: bytes) -> None:
        self.write(path, lambda handle: handle.write(data))

    def copy(self, source: str, target: str) -> None:
        def copy_into(handle):
            with self.fs.open(source, "rb") as original:
                shutil.copyfileobj(original, handle)

        self.write(target, copy_into)

    def makedirs(self, path: str) -> None:
        self.fs.makedirs(path, exist_ok=True)

    def rename(self, source: str, target: str) -> None:
        """Move a folder. Local: one atomic rename, made durable; elsewhere a copy, then a delete."""
        if self.local:
            os.rename(source, target)
            _fsync_dir(os.path.dirname(target))
        else:
            self.fs.mv(source, target, recursive=True)

    def remove(self, path: str) -> None:
        """Delete a file or a folder and all it holds; what is already gone is no error."""
        if self.local:
            if os.path.isdir(path):
                shutil.rmtree(path, ignore_errors=True)
            elif os.path.lexists(path):
                os.unlink(path)
            return
        try:
            self.fs.rm(path, recursive=True)
        except FileNotFoundError:
            pass

    # -- reading -------------------------------------------------------------------------------

    def read_bytes(self, path: str) -> bytes:
        return self.fs.cat_file(path)

    def read_text(self, path: str) -> str:
        return self.read_bytes(path).decode("utf-8")

    def read_parquet(self, path: str, columns: list[str] | None = None, filters: list | None = None) -> pa.Table:
        """The table, or the rows `filters` keeps (pyarrow's filter form), with `columns`."""
        if self.local:  # memory-mapped by Arrow: no copy through Python
            return pq.read_table(path, columns=columns, filters=filters)
        with self.fs.open(path, "rb") as handle:
            return pq.read_table(handle, columns=columns, filters=filters)

    @contextmanager
    def parquet_file(self, path: str) -> Iterator[pq.ParquetFile]:
        """The file open for reading a row group at a time."""
        with (nullcontext(path) if self.local else self.fs.open(path, "rb")) as source, pq.ParquetFile(source) as file:
            yield file

    def parquet_rows(self, path: str) -> int:
        with self.fs.open(path, "rb") as handle:
            return pq.read_metadata(handle).num_rows

    def sha256(self, path: str) -> str:
        digest = hashlib.sha256()
        with self.fs.open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
        return digest.hexdigest()

    def isfile(self, path: str) -> bool:
        return os.path.isfile(path) if self.local else self.fs.isfile(path)

    def exists(self, path: str) -> bool:
        return os.path.exists(path) if self.local else self.fs.exists(path)

    def entries(self, folder: str) -> list[tuple[str, bool]]:
        """(name, is_folder) for each entry of `folder`; none when the folder does not exist."""
        try:
            listed = self.fs.ls(folder, detail=True)
        except FileNotFoundError:
            return []
        return [(entry["name"].rstrip("/").rsplit("/", 1)[-1], entry["type"] == "directory") for entry in listed]

    def age_seconds(self, path: str) -> float | None:
        """How long ago a file or folder last changed; None when the filesystem cannot say (an
        object store keeps no time for a folder, so it is judged by its newest file)."""
        try:
            if self.local:
                return time.time() - os.stat(path).st_mtime
            times = [self.fs.modified(file) for file in self.fs.find(path)] or [self.fs.modified(path)]
            return time.time() - max(times).timestamp()
        except (OSError, NotImplementedError, ValueError):
            return None

    def signature(self, path: str) -> object | None:
        """Something that changes whenever the file is replaced; None when it is missing. Local:
        one `stat` (cheap enough for every request). Elsewhere: the file's bytes, since object
        stores differ in which metadata they keep; callers poll it on an interval."""
        try:
            if self.local:
                info = os.stat(path)
                return info.st_mtime_ns, info.st_size, info.st_ino
            return self.read_bytes(path)
        except (OSError, ValueError):
            return None


def _atomic_local_write(path: str, writer: Writer) -> None:
    """Write via a temp file in the target's folder (same filesystem, so os.replace is atomic)."""
    folder, name = os.path.split(path)
    temp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        with open(temp, "wb") as handle:
            writer(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
        _fsync_dir(folder)
    finally:
        if os.path.lexists(temp):
            os.unlink(temp)


def _fsync_dir(folder: str) -> None:
    # Makes a rename durable after a power cut; only POSIX can (and needs to) fsync a directory.
    if os.name != "posix":
        return
    fd = os.open(folder or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

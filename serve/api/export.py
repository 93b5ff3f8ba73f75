"""`GET /v1/export/{table}`: any published table of the current snapshot, as Parquet or CSV."""

from __future__ import annotations

from typing import Annotated

from litestar import Request
from litestar.response import Stream

from serve.access.middleware import SCOPE_KEY, Access
from serve.documented import problem
from serve.export import FORMATS, check_csv_allowed, chosen_format, csv_chunks, file_chunks, repr_digest
from serve.params import enum_param
from serve.problems import Problem
from serve.routing import get
from serve.settings import Settings
from serve.state import LoadedSnapshot


def _keyed(request: Request) -> bool:
    """Whether the request presented a key (access control has checked it is a good one)."""
    access: Access | None = request.scope.get(SCOPE_KEY)
    return access is not None and access.key is not None


@get("/v1/export/{table:str}", summary="A published table as a file", tags=["export"],
     description="The table as the current snapshot publishes it: Parquet (the file itself, whose sha256 is "
                 "`X-Table-SHA256`, also as `Repr-Digest`) or CSV (made from it, lists and records as JSON), by "
                 "`format` or, without it, by `Accept` (text/csv; Parquet otherwise). `X-Snapshot-Id` names the "
                 "snapshot. One export is one request against the rate limit. Without a key, CSV is made only of "
                 "tables of at most 25,000 rows (by default; a 401 beyond, code key_required): CSV costs CPU in "
                 "proportion to the rows, Parquet does not. An unknown table is a 404 that lists the tables.",
     responses={401: problem("The API key presented is unknown or revoked (code invalid_key), or CSV of a table "
                             "longer than a client without a key may have (code key_required, with `max_rows` "
                             "and `rows`).")})
async def export(
    request: Request,
    settings: Settings,
    snapshot: LoadedSnapshot,
    table: str,
    format: Annotated[str | None, enum_param("parquet or csv; default by Accept, else parquet",  # noqa: A002
                                             tuple(FORMATS))] = None,
) -> Stream:
    kind = chosen_format(format, request.headers.get("accept", ""))
    info = snapshot.manifest.tables.get(table)
    if info is None:
        raise Problem(404, "unknown_table", f"snapshot {snapshot.snapshot_id} publishes no table '{table}'; tables: "
                                            f"{', '.join(sorted(snapshot.manifest.tables))}",
                      tables=sorted(snapshot.manifest.tables))
    headers = {"X-Snapshot-Id": snapshot.snapshot_id, "X-Table-SHA256": info.sha256,
               "Content-Disposition": f'attachment; filename="{table}-{snapshot.snapshot_id}.{kind}"',
               "Cache-Control": "no-store"}
    if kind == "csv":
        check_csv_allowed(table, info.rows, _keyed(request), settings.export_keyless_csv_max_rows)
        return Stream(csv_chunks(snapshot.table(table)), media_type=FORMATS["csv"], headers=headers)
    storage = snapshot.store.storage
    path = storage.join(snapshot.snapshot_id, info.file)
    try:
        size, handle = storage.fs.size(path), storage.fs.open(path, "rb")
    except FileNotFoundError:  # pruned while this server still serves it: the next snapshot has it
        raise Problem(503, "snapshot_replaced", f"snapshot {snapshot.snapshot_id} was replaced while this answer was "
                                                "made; retry", headers={"Retry-After": "5"}) from None
    return Stream(file_chunks(handle), media_type=FORMATS["parquet"],
                  headers={**headers, "Repr-Digest": repr_digest(info.sha256), "Content-Length": str(size)})


ROUTES = [export]

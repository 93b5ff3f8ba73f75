"""Model lines and their forwards: every maker's product lines, and the price of each line's
then-current model at 1–12 months (methodology §5, "Lines" and "Line forwards").

A line is named `maker/name` (`anthropic/sonnet`), so its forwards are at
`/v1/lines/anthropic/sonnet/forwards`; a line nobody calls that is a 404 naming it, with the
closest names.
"""

from __future__ import annotations

import difflib
from typing import Annotated, Any

import msgspec
from litestar import Response

from serve.deps import Reply
from serve.documented import problem
from serve.line_follow import lines_table
from serve.params import MODES, SYNC, enum_param, one_of
from serve.problems import Problem
from serve.records import memoized
from serve.respond import envelope_type, records
from serve.routing import get
from serve.state import LoadedSnapshot
from serve.structs import struct_from_schema
from warehouse.schemas import LINE_FORWARDS, LINES

LINE_FIELDS = ("line", "maker", "family", "members")
Member = struct_from_schema("LineMember", LINES, exclude=LINE_FIELDS)
LineForwardPoint = struct_from_schema("LineForwardPoint", LINE_FORWARDS,
                                      exclude=("line", "maker", "mode", "current", "current_released", "spot"))


class Line(msgspec.Struct, kw_only=True):
    line: str
    maker: str
    family: str
    count: int
    members: list[Member]


class LineList(msgspec.Struct, kw_only=True):
    lines: list[Line]
    count: int
    makers: int


class LineForwards(msgspec.Struct, kw_only=True):
    line: str
    maker: str
    mode: str
    current: str
    current_released: str
    spot: float
    members: list[str]
    forwards: list[LineForwardPoint]
    as_of: str


LineModeParam = Annotated[str | None, enum_param("sync (default) or batch", MODES)]
LinesResponse = envelope_type("LineListResponse", LineList)
LineForwardsResponse = envelope_type("LineForwardsResponse", LineForwards)


def _every_line(snapshot: LoadedSnapshot) -> dict[str, Any]:
    table = lines_table(snapshot, "lines").sort_values(["line", "position"], kind="stable")
    answer = []
    for line, rows in table.groupby("line", sort=True):
        head = rows.iloc[0]
        members = [{name: row[name] for name in Member.__struct_fields__} for row in records(rows)]
        answer.append({"line": line, "maker": head["maker"], "family": head["family"], "count": len(members),
                       "members": members})
    return {"lines": answer, "count": len(answer), "makers": int(table["maker"].nunique())}


def line_named(snapshot: LoadedSnapshot, name: str) -> str:
    """The published line called `name` (any case), or a 404 naming it with the closest names."""
    names = memoized(snapshot, ("line_names",),
                     lambda: {line.lower(): line for line in lines_table(snapshot, "lines")["line"].unique()})
    wanted = name.strip().strip("/").lower()
    if wanted in names:
        return names[wanted]
    ending = [names[n] for n in sorted(names) if n.split("/", 1)[-1] == wanted.split("/")[-1]]
    close = ending or [names[c] for c in difflib.get_close_matches(wanted, list(names), n=5, cutoff=0.6)]
    hint = f"; did you mean {', '.join(close)}?" if close else "; lines are maker/name, e.g. anthropic/sonnet"
    raise Problem(404, "unknown_line", f"no line is called '{name}'{hint}", suggestions=close)


def _line_forwards(snapshot: LoadedSnapshot, line: str, mode: str) -> dict[str, Any]:
    table = lines_table(snapshot, "line_forwards")
    rows = table[(table["line"] == line) & (table["mode"] == mode)].sort_values("months", kind="stable")
    if rows.empty:
        raise Problem(404, "no_line_forward", f"no {mode} forward is published for the line {line}: it has no live, "
                                              f"priced current model in {mode}")
    members = lines_table(snapshot, "lines")
    head = records(rows.head(1))[0]
    return {
        "line": line, "maker": head["maker"], "mode": mode, "current": head["current"],
        "current_released": head["current_released"], "spot": head["spot"],
        "members": members.loc[members["line"] == line].sort_values("position")["ticker"].tolist(),
        "forwards": records(rows, list(LineForwardPoint.__struct_fields__)), "as_of": snapshot.as_of,
    }


@get("/v1/lines", summary="Every maker's model lines, with their members", tags=["curves"],
     description="Each line (`maker/name`, e.g. anthropic/sonnet) with its members in release order: each "
                 "member's release date and how it was read (`release_basis`), its deprecation and retirement, "
                 "the evidence of its membership, and its launch price over its predecessor's that day "
                 "(`successor_ratio`). Methodology §5, \"Lines\".")
async def lines(reply: Reply) -> Response[LinesResponse]:
    snapshot = reply.snapshot
    return reply(memoized(snapshot, ("lines",), lambda: _every_line(snapshot)))


LINE_FORWARDS_DESCRIPTION = (
    "The expected output price (β, the mean), its median and 5%–95% band of the line's then-current model at 1 to "
    "12 months: the current model's own forecast (`fixed_forward`, as `/v1/forwards/{ticker}`), the chance a "
    "successor has come by then (`p_successor`, from the line's `succession_rate`) and the succession law (the "
    "successor's launch price over its predecessor's). `mode` is sync (default) or batch. Methodology §5, "
    "\"Line forwards\".")


UNKNOWN_LINE = {404: problem("No line is called that (code unknown_line, with `suggestions`: the closest line "
                             "names), or the line has no live, priced current model in the mode asked for "
                             "(no_line_forward).")}


def _forwards_reply(reply: Reply, name: str, mode: str | None) -> Response:
    snapshot = reply.snapshot
    line = line_named(snapshot, name)
    chosen = one_of("mode", mode, MODES) or SYNC
    return reply(memoized(snapshot, ("line_forwards", line, chosen), lambda: _line_forwards(snapshot, line, chosen)))


@get("/v1/lines/{maker:str}/{name:str}/forwards", summary="Forward of a model line at 1M–12M", tags=["curves"],
     description=LINE_FORWARDS_DESCRIPTION, responses=UNKNOWN_LINE)
async def line_forwards(reply: Reply, maker: str, name: str,
                        mode: LineModeParam = None) -> Response[LineForwardsResponse]:
    return _forwards_reply(reply, f"{maker}/{name}", mode)


@get("/v1/lines/{name:str}/forwards", summary="A line named without its maker: the closest lines", tags=["curves"],
     description="A line is `maker/name` (`/v1/lines/anthropic/sonnet/forwards`); a name without its maker is "
                 "a 404 that suggests the lines it could be.", responses=UNKNOWN_LINE)
async def line_forwards_unqualified(reply: Reply, name: str,
                                    mode: LineModeParam = None) -> Response[LineForwardsResponse]:
    return _forwards_reply(reply, name, mode)


ROUTES = [lines, line_forwards, line_forwards_unqualified]

"""A model's forward curve as the API answers it, one model at a time or every model at once.

The per-model endpoint (`/v1/forwards/{ticker}`) and the list (`/v1/forwards`) build each curve
with the same function, so a curve in the list is exactly the model's own answer.
"""

from __future__ import annotations

from itertools import groupby
from operator import itemgetter
from typing import Any

import msgspec

from serve.params import SYNC, in_mode
from serve.records import record_of
from serve.respond import records
from serve.state import LoadedSnapshot
from serve.structs import struct_from_schema
from warehouse.schemas import FORWARD_CURVES

ForwardPoint = struct_from_schema("ForwardPoint", FORWARD_CURVES, exclude=("ticker", "mode", "spot"))
FORWARD_POINT = list(ForwardPoint.__struct_fields__)
LAW_FIELDS = ("sigma", "jump_rate", "jump_mean", "jump_std", "prior_weight")  # of the Greek sheet, per mode

ForwardCurve = msgspec.defstruct("ForwardCurve", [
    ("ticker", str), ("ticker_forward_prefix", str), ("mode", str), ("model_id", str), ("display_name", str),
    ("provider", str), ("spot", float), ("theta", float | None), ("forwards", list[ForwardPoint]),
    *((name, float | None) for name in LAW_FIELDS), ("as_of", str)], kw_only=True, module=__name__)


def forward_curve_answer(snapshot: LoadedSnapshot, model: dict[str, Any], mode: str, spot: float,
                         points: list[dict[str, Any]]) -> dict[str, Any]:
    """One model's curve as `/v1/forwards` answers it, from its Greek-sheet record and its
    `forward_curves` points (FORWARD_POINT columns) of that mode in month order."""
    return {
        "ticker": model["ticker"],
        "ticker_forward_prefix": model["ticker"] if mode == SYNC else model["ticker_batch"],
        "mode": mode,
        "model_id": model["model_id"],
        "display_name": model["display_name"],
        "provider": model["provider"],
        "spot": spot,
        "theta": model[in_mode("theta", mode)],
        "forwards": points,
        **{name: model[in_mode(name, mode)] for name in LAW_FIELDS},
        "as_of": snapshot.as_of,
    }


def every_forward_curve(snapshot: LoadedSnapshot, mode: str) -> list[dict[str, Any]]:
    """One curve per model with a `mode` curve, in ticker order, each built as the per-model
    endpoint builds it, from one pass over the table (not a table scan per model)."""
    curves = snapshot.table("forward_curves")
    rows = curves[(curves["mode"] == mode).to_numpy(dtype=bool)].sort_values(["ticker", "months"], kind="stable")
    answer = []
    for ticker, group in groupby(records(rows, ["ticker", "spot", *FORWARD_POINT]), key=itemgetter("ticker")):
        points = list(group)
        answer.append(forward_curve_answer(snapshot, record_of(snapshot, "greeks", ticker), mode, points[0]["spot"],
                                           [{name: point[name] for name in FORWARD_POINT} for point in points]))
    return answer

"""Context-tier thresholds written in thousands of tokens, read at the boundary a source states exactly.

A tier `{"above": A}` applies when the prompt has more than A tokens. model-prices (models.dev's
`context_over_200k`) and LiteLLM (`input_cost_per_token_above_200k_tokens`) name a tier by a
whole thousand, so neither can write a boundary that includes the thousand itself: xAI bills
"≥ 200k prompt tokens" at the higher rate, which genai-prices writes exactly as `above 199,999`.
Where one source states a ticker's threshold one token short of a whole thousand, a statement
of that ticker at the whole thousand is the same boundary in the coarser notation, and is read
at the exact one (its note says so). Without such an exact statement a threshold stands as written.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from pipelines.ingest_litellm import SOURCE as LITELLM_SOURCE
from pipelines.ingest_model_prices import SOURCE as MODEL_PRICES_SOURCE

THOUSANDS_NOTATION = (MODEL_PRICES_SOURCE, LITELLM_SOURCE)
THOUSAND = 1000
NOTE = "tier threshold written in thousands by its source, read as above {exact} (the boundary another source states)"


def _thresholds(tiers) -> list[int]:
    return [int(t["above"]) for t in json.loads(tiers)] if isinstance(tiers, str) and tiers else []


def exact_boundaries(frame: pd.DataFrame) -> dict[str, set[int]]:
    """Per ticker, the thresholds one token short of a whole thousand that a source states
    exactly (any source not writing thousands)."""
    exact = frame[~frame["source"].isin(THOUSANDS_NOTATION) & frame["tiers"].notna()]
    out: dict[str, set[int]] = {}
    for ticker, tiers in zip(exact["ticker"], exact["tiers"], strict=True):
        for above in _thresholds(tiers):
            if (above + 1) % THOUSAND == 0:
                out.setdefault(ticker, set()).add(above)
    return out


def read_at_exact_boundaries(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` (statements with `ticker`, `source`, `tiers`, `note`) with each thousands-notation
    threshold read at the exact boundary another source states for the ticker (`exact_boundaries`)."""
    boundaries = exact_boundaries(frame)
    if not boundaries:
        return frame
    candidates = (frame["source"].isin(THOUSANDS_NOTATION) & frame["ticker"].isin(set(boundaries))
                  & frame["tiers"].notna())
    tiers, notes = frame["tiers"].copy(), frame["note"].astype("object").copy()
    changed = np.zeros(len(frame), dtype=bool)
    for position in np.flatnonzero(candidates.to_numpy()):
        index = frame.index[position]
        exact = boundaries[frame.at[index, "ticker"]]
        rows = json.loads(tiers.at[index])
        moved = [above - 1 for above in (int(t["above"]) for t in rows) if above - 1 in exact]
        if not moved:
            continue
        for t in rows:
            if int(t["above"]) - 1 in exact:
                t["above"] = int(t["above"]) - 1
        tiers.at[index] = json.dumps(rows, separators=(",", ":"))
        note = NOTE.format(exact=", ".join(f"{a:,}" for a in sorted(moved)))
        previous = notes.at[index]
        notes.at[index] = f"{previous}; {note}" if isinstance(previous, str) and previous else note
        changed[position] = True
    if not changed.any():
        return frame
    return frame.assign(tiers=tiers, note=notes)

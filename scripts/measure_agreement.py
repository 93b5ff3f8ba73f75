"""How often the spot prices agree with each source, on the tickers both price.

    python scripts/measure_agreement.py SNAPSHOT_DIR [--before SNAPSHOT_DIR]

For each source (genai-prices, model-prices, LiteLLM), take its latest statement of the maker's
own sync price per model on the snapshot date (`pipelines.evidence.latest_statements`) and
count the tickers whose spot input (and output) price equals it, to one part in a million.
With --before, an older snapshot's spots are measured against the same statements: each of its
tickers is resolved through the newer registry (an old ticker is a name of the model it now
resolves to), so the two columns differ only by what the oracle chose.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipelines.evidence import AGREEMENT_RTOL, latest_statements  # noqa: E402
from pipelines.listings import prices_agree  # noqa: E402
from serve.lookup import ModelLookup  # noqa: E402

SOURCES = ("genai-prices", "model-prices", "litellm")
FIELDS = {"input": "input_sync", "output": "beta_sync"}


def _read(directory: Path, table: str) -> pd.DataFrame:
    return pd.read_parquet(directory / f"{table}.parquet")


def agreement(spots: pd.DataFrame, statements: pd.DataFrame) -> dict[tuple[str, str], tuple[int, int]]:
    """(source, field) → (tickers agreeing, tickers both price)."""
    out = {}
    for source in SOURCES:
        stated = statements[statements["source"] == source].set_index("ticker")
        both = spots[spots["model_ticker"].isin(stated.index) & spots["beta_sync"].notna()]
        for field, column in FIELDS.items():
            theirs = stated.loc[both["model_ticker"], field].to_numpy(dtype=float)
            ours = both[column].to_numpy(dtype=float)
            same = prices_agree(ours, theirs, AGREEMENT_RTOL)
            out[(source, field)] = (int(same.sum()), int((~np.isnan(theirs)).sum()))
    return out


def measure(directory: Path, lookup: ModelLookup, statements: pd.DataFrame) -> dict:
    spots = _read(directory, "spots")
    spots["model_ticker"] = [lookup.resolve(t).ticker for t in spots["ticker"]]
    return agreement(spots, statements)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--before", type=Path)
    args = parser.parse_args(argv)
    manifest = json.loads((args.snapshot.parent / "manifest.json").read_text())
    if manifest["snapshot_id"] != args.snapshot.name:
        parser.error(f"{args.snapshot} is not its warehouse's current snapshot, whose manifest gives the date")
    as_of = date.fromisoformat(manifest["extra"]["as_of"])
    observations = _read(args.snapshot, "price_observations")
    statements = latest_statements(observations, as_of)
    statements = statements[statements["mode"] == "sync"]
    lookup = ModelLookup(_read(args.snapshot, "models"))
    columns = {"after": measure(args.snapshot, lookup, statements)}
    if args.before:
        columns = {"before": measure(args.before, lookup, statements), **columns}
    print(f"Sync prices equal to each source's latest statement (as of {as_of}), tickers both price:")
    print("| field | source | " + " | ".join(columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for source in SOURCES:
        for field in FIELDS:
            cells = [f"{c[(source, field)][0]}/{c[(source, field)][1]} "
                     f"({100 * c[(source, field)][0] / max(c[(source, field)][1], 1):.1f}%)" for c in columns.values()]
            print(f"| sync {field} | {source} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

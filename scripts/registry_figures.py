"""The registry's figures, as `docs/methodology.md` ("Model records") and the release notes quote them.

    python scripts/registry_figures.py SNAPSHOT_DIR

Reads the snapshot's `models` and `spots` tables and prints: tickers; context windows and
maximum outputs known (of all and of active tickers); display names spelt from the ticker;
statuses; tickers whose sources state image input against those published without it; names
that more than one ticker answers to; active tickers published twice (one name, one price); and
the lifecycle of the models named in `RETIRED_BY_THEIR_MAKERS`, each with whether a default
comparison ranks it (it ranks active models only).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipelines.quality import active_twins, names_on_several_tickers  # noqa: E402

DERIVED = "derived from the ticker"
UNKNOWN = "unknown"
# Models the price sources listed as alive (or removed without a day) that their makers retired.
RETIRED_BY_THEIR_MAKERS = ("HAIKU-3", "OPUS-3", "SONNET-3", "SONNET-3.5", "MISTRAL-7B", "MIXTRAL-8X7B",
                           "MISTRAL-LARGE", "CODEX-MINI", "GROK-CODE-FAST-1", "GPT-4O-SEARCH-PREVIEW", "GPT-4-32K",
                           "GPT-3.5-TURBO-0613", "GPT-3.5", "GEMINI-PRO", "GEMINI-1.0-PRO-VISION", "COMMAND",
                           "MISTRAL-MEDIUM-2312", "R1-1776")


def share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f}%)" if whole else "0/0"


def image_input(models: pd.DataFrame) -> tuple[int, int]:
    """(tickers some source states image input for, those of them published without it)."""
    stated = models["input_modalities_source"].fillna("").str.contains(r"\bimage\b")
    published = models["input_modalities"].map(lambda modalities: "image" in list(modalities))
    return int(stated.sum()), int((stated & ~published).sum())


def figures(models: pd.DataFrame, spots: pd.DataFrame) -> list[str]:
    active = models["status"] == "active"
    window = models["context_window"].notna()
    stated_image, text_only = image_input(models)
    lines = [
        f"tickers: {len(models)}",
        f"context windows known: {share(int(window.sum()), len(models))}; "
        f"of active tickers {share(int((window & active).sum()), int(active.sum()))}",
        f"maximum outputs known: {share(int(models['max_output_tokens'].notna().sum()), len(models))}",
        "display names spelt from the ticker: "
        f"{share(int((models['display_name_source'] == DERIVED).sum()), len(models))}",
        "statuses: " + ", ".join(f"{k} {v}" for k, v in models["status"].value_counts().items()),
        f"image input stated by a source but published without it: {share(text_only, stated_image)}",
        f"names on several tickers: {len(names_on_several_tickers(models))}",
        f"active tickers published twice (one name, one price): {len(active_twins(models, spots))}",
        "models their makers retired:",
    ]
    by_ticker = models.set_index("ticker")
    for ticker in RETIRED_BY_THEIR_MAKERS:
        row = by_ticker.loc[ticker]
        ranked = "ranked by a default comparison" if row["status"] == "active" else "not ranked by default"
        lines.append(f"  {ticker:<24} {row['status']:<10} retired_on {row['retired_on']}  deprecated_on "
                     f"{row['deprecated_on']}  {ranked}; {row['status_source']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path)
    args = parser.parse_args(argv)
    models = pd.read_parquet(args.snapshot / "models.parquet")
    spots = pd.read_parquet(args.snapshot / "spots.parquet")
    print("\n".join(figures(models, spots)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Price a task, page through a provider's spots and the year's price cuts, and read a refusal."""

from __future__ import annotations

import sys

from oracle_client import NotFound, OracleClient


def main(base_url: str) -> None:
    with OracleClient(base_url) as oracle:  # key="ipo_…" for a key's tier; none: the free tier
        price = oracle.price("SONNET-4", 30000, 800, eta=0.6)
        print(f"{price['model']}: ${price['spot_cost']:.4f} a task, kappa {price['kappa']}")
        for spot in oracle.list_spots(provider="anthropic", limit=50):  # every page, 50 at a time
            print(spot["ticker"], spot["beta_sync"])
        cuts = list(oracle.events(since="2025-01-01", kind="price_cut"))  # every page, by cursor
        print(f"{len(cuts)} price cuts since 2025, the newest {cuts[0]['ticker'] if cuts else None}")
        try:
            oracle.one_spot("SONET-4")
        except NotFound as missing:
            print(missing.code, "- did you mean", ", ".join(missing.suggestions))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://localhost:8000")

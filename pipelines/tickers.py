"""Tickers: short, upper-case, stable names derived from the maker's model id.

Rule (documented in docs/operations.md, "Tickers"):
1. Start from the maker's id; drop snapshot suffixes (dates, `-latest`, Bedrock packaging) and a
   trailing `-0` version (`identity.strip_snapshot`), keeping dots.
2. Claude ids drop the `claude-` brand (Anthropic's lines are distinct on their own), and the
   old `claude-3-5-sonnet` order becomes `SONNET-3.5`.
3. A version written with dashes becomes dotted (`4-1` → `4.1`), then everything is upper case.
4. Curated overrides (`warehouse/seed/model_overrides.csv`) name the few ids that say nothing of
   the model (`deepseek-chat` → `DEEPSEEK-V3`).
5. Collisions are broken deterministically: among models with the same base ticker, an id with
   no snapshot suffix keeps it, then the earliest first seen, then the shortest and
   lexicographically first id (then maker); the others take the ticker of their full id, and if that
   still collides, the maker's name as a suffix. A later model therefore never takes over a
   ticker an earlier one holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from pipelines.identity import strip_snapshot

BATCH_SUFFIX = ".B"


def _format(stem: str) -> str:
    stem = stem.lower()
    old_claude = re.match(r"^claude-(\d+)(?:-(\d))?-(opus|sonnet|haiku)(.*)$", stem)
    if old_claude:
        major, minor, line, rest = old_claude.groups()
        stem = f"{line}-{major}{'.' + minor if minor else ''}{rest}"
    stem = re.sub(r"^claude-(?=(?:opus|sonnet|haiku|fable|mythos)\b)", "", stem)
    # Dashed single-digit versions read as one dotted version: sonnet-4-5 → sonnet-4.5.
    stem = re.sub(r"(?<![\d.])(\d)-(\d)(?=$|-)", r"\1.\2", stem)
    return re.sub(r"[^A-Z0-9.\-]", "-", stem.upper()).strip("-")


def base_ticker(model_id: str) -> str:
    return _format(strip_snapshot(model_id))


def full_ticker(model_id: str) -> str:
    return _format(model_id)


def has_snapshot_suffix(model_id: str) -> bool:
    return strip_snapshot(model_id) != model_id.lower()


@dataclass(frozen=True)
class TickerRequest:
    maker: str
    model_id: str
    first_seen: date
    override: str | None = None


def assign_tickers(requests: list[TickerRequest]) -> dict[tuple[str, str], str]:
    """(maker, model_id) → ticker, unique, by the rule in this module's docstring."""
    wanted: dict[str, list[TickerRequest]] = {}
    for request in requests:
        wanted.setdefault(request.override or base_ticker(request.model_id), []).append(request)
    assigned: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    losers: list[TickerRequest] = []
    for ticker, claimants in sorted(wanted.items()):
        claimants.sort(key=lambda r: (r.override is None, has_snapshot_suffix(r.model_id),
                                      r.first_seen, len(r.model_id), r.model_id, r.maker))
        winner, *rest = claimants
        assigned[(winner.maker, winner.model_id)] = ticker
        taken.add(ticker)
        losers += rest
    for request in sorted(losers, key=lambda r: (r.first_seen, r.model_id, r.maker)):
        ticker = full_ticker(request.model_id)
        if ticker in taken:
            ticker = f"{ticker}-{request.maker.upper()}"
        suffix = 2
        while ticker in taken:  # same id listed twice by one maker: last resort, still deterministic
            ticker, suffix = f"{ticker}-{suffix}", suffix + 1
        assigned[(request.maker, request.model_id)] = ticker
        taken.add(ticker)
    return assigned

"""Finding a model by what a client calls it: ticker, batch or forward ticker, model id, alias.

Matching is case-insensitive. An unknown name raises `UnknownModel` carrying the closest
tickers, so the 404 can say what the client probably meant.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import pandas as pd

BATCH_SUFFIX = ".B"
FORWARD = re.compile(r"^(?P<base>.+)-(?P<months>\d{1,2})M$", re.IGNORECASE)


class UnknownModel(LookupError):
    """A name no model goes by; its `suggestions` are looked for only when read (a caller that
    tries another reading of the name never pays for them)."""

    def __init__(self, name: str, suggest: Callable[[str], list[str]]):
        super().__init__(name)
        self.name, self._suggest = name, suggest

    @cached_property
    def suggestions(self) -> list[str]:
        return self._suggest(self.name)


@dataclass(frozen=True)
class Resolved:
    ticker: str  # the canonical ticker (sync), whatever name was asked
    mode: str = "sync"  # sync or batch
    tenor_months: int | None = None  # the horizon a forward ticker names


class ModelLookup:
    def __init__(self, models: pd.DataFrame):
        self._names: dict[str, str] = {}
        for row in models.itertuples(index=False):
            for alias in [row.ticker, row.model_id, *list(row.aliases)]:
                self._names.setdefault(str(alias).lower(), row.ticker)
        # A ticker is always itself, whatever alias happens to spell the same.
        self._names.update({t.lower(): t for t in models["ticker"]})
        self.tickers = sorted(models["ticker"])

    def resolve(self, name: str, *, batch: bool = True, forward: bool = False) -> Resolved:
        key = name.strip().lower()
        if key in self._names:
            return Resolved(self._names[key])
        if batch and key.endswith(BATCH_SUFFIX.lower()) and key[: -len(BATCH_SUFFIX)] in self._names:
            return Resolved(self._names[key[: -len(BATCH_SUFFIX)]], "batch")
        match = FORWARD.match(name.strip())
        if forward and match:
            inner = self.resolve(match["base"], batch=batch, forward=False)
            return Resolved(inner.ticker, inner.mode, int(match["months"]))
        raise UnknownModel(name, self.suggest)

    def suggest(self, name: str, limit: int = 5) -> list[str]:
        candidates = difflib.get_close_matches(name.upper(), self.tickers, n=limit, cutoff=0.5)
        return candidates or [t for t in self.tickers if name.upper()[:3] in t][:limit]

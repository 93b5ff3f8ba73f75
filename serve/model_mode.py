"""A model in a mode, as every endpoint that prices one model resolves it.

A request names a model (a ticker, a batch ticker `X.B`, a model id or an alias; a forward ticker
`X.3M` where the endpoint prices forwards) and may ask for a mode. The mode is the one asked for,
else the one the name implies (batch for `X.B`, sync otherwise). A batch ticker asked for in sync
is a contradiction (400); a model without a price in the mode is `no_batch_price` or `no_price`
(404, `serve.params.no_price`); both answered the same on every endpoint. So is a profile the
model cannot serve (`check_fit`): thinking tokens on a model that bills none, or more tokens than
its context window.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pipelines.quotes import CONTEXT_WINDOW, NO_PRICE, NO_THINKING, describe, unfit_reasons
from pipelines.tasks import Profile
from serve.lookup import Resolved
from serve.params import BATCH, MODES, SYNC, no_price, one_of
from serve.problems import invalid
from serve.records import record_of, ticker_of
from serve.state import LoadedSnapshot


@dataclass(frozen=True)
class ModelInMode(Resolved):
    @classmethod
    def of(cls, snapshot: LoadedSnapshot, name: str, mode: str | None, *, model_field: str = "model",
           mode_field: str = "mode", forward: bool = False) -> ModelInMode:
        """The model `name` in the mode asked for, or in the mode its name implies."""
        asked = one_of(mode_field, mode, MODES)
        if not name.strip():
            raise invalid(model_field, "must name a model: a ticker, batch ticker or model_id")
        resolved = ticker_of(snapshot, name, batch=True, forward=forward)
        if resolved.mode == BATCH and asked == SYNC:
            raise invalid(mode_field, f"'{name.strip().lstrip('/')}' is the batch ticker of {resolved.ticker}, "
                                      f"which prices batch; ask for {resolved.ticker} for sync prices, or leave "
                                      "mode out")
        return cls(resolved.ticker, asked or resolved.mode, resolved.tenor_months)

    def greeks(self, snapshot: LoadedSnapshot) -> dict[str, Any]:
        """The model's Greek-sheet record, once it is known to have a price in this mode."""
        row = record_of(snapshot, "greeks", self.ticker)
        if row.get(f"beta_{self.mode}") is None:
            raise no_price(self.ticker, self.mode)
        return row


def check_fit(record: dict[str, Any], mode: str, profile: Profile, *, priced: bool = True, when: str = "",
              field: str = "") -> None:
    """A 404 or 400 when the model of `record` (a spots or Greek-sheet record) cannot serve `profile`
    in `mode`: no price (`when` says the date of a past one), thinking tokens on a model that bills
    none, more tokens than its context window. `field` names the request field the profile came
    from (a task type's); without it, the profile's own fields are named."""
    ticker = record["ticker"]
    reasons = unfit_reasons(profile, priced=priced, beta=record[f"beta_{mode}"], is_reasoning=record["is_reasoning"],
                            context_window=record["context_window"])
    if NO_PRICE in reasons:
        raise no_price(ticker, mode, when)
    if NO_THINKING in reasons:
        raise invalid(field or "n_think", f"{ticker} bills no thinking tokens (it is not a reasoning model); "
                                          f"{'choose a task without thinking' if field else 'send n_think 0'}")
    if CONTEXT_WINDOW in reasons:
        raise invalid(field or "n_in", describe(CONTEXT_WINDOW, profile, mode, record["context_window"]))

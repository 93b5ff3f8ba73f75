"""When did a catalogue first assert today's price? Dating undated prices by the releases that listed them.

A catalogue's current price carries no date, but every release of the catalogue is a dated
statement: the release uploaded on day D listed model M at price P. The spans in
warehouse/seed/genai_release_history.csv.gz record, per model, the runs of consecutive releases
that listed one price. A current price is asserted from the first release of the unbroken run
of releases that listed the same input and output price up to the release in use (a change of
cache price alone does not restart it), and confirmed by every release since.

Why the first release and not the newest: a catalogue that keeps repeating a price after the
provider changed it is lagging (genai-prices still listed DeepSeek's 2025 prices a year after
the documented cut), so a repetition is no new evidence of the price; the first listing is.
A dated statement from another source then beats the catalogue only when it is dated later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from itertools import groupby

import pandas as pd

from pipelines.listings import same_price

RUN_KEY = ["provider_id", "model_id"]


@dataclass(frozen=True)
class ReleaseDating:
    """What the release history says about one catalogue release (`version`).

    `released`: that release's upload date, or None when the history does not reach it (a newer
    package than the seed file). `since`: (provider_id, model_id) → (input, output, first date
    of the run of releases up to `version` that listed that input and output price).
    """

    version: str
    released: date | None = None
    since: dict[tuple[str, str], tuple[float, float, date]] = field(default_factory=dict)
    # Every run of the history, folded as `since`'s: (provider_id, model_id) → ((input, output,
    # first release date, last release date), ...) in release order.
    runs: dict[tuple[str, str], tuple[tuple[float, float, date, date], ...]] = field(default_factory=dict)

    def asserted_since(self, provider_id: str, model_id: str, input_price: float | None,
                       output_price: float | None) -> date | None:
        """The first release date of the unbroken run that listed exactly this price, if any."""
        run = self.since.get((provider_id, model_id))
        if run is None or input_price is None or output_price is None:
            return None
        run_input, run_output, day = run
        return day if same_price(run_input, input_price) and same_price(run_output, output_price) else None

    def first_published(self, provider_id: str, model_id: str, input_price: float | None,
                        output_price: float | None, day: date) -> date | None:
        """The first day the catalogue published a price dated `day`: the first release of the
        run listing exactly that price on `day`, else of the first such run after it, else of the
        last one before it (a price in force before a change, last listed before the change's
        date). None when no release of the history lists the price."""
        if input_price is None or output_price is None:
            return None
        runs = [(first, last) for run_input, run_output, first, last in self.runs.get((provider_id, model_id), ())
                if same_price(run_input, input_price) and same_price(run_output, output_price)]
        covering = [first for first, last in runs if first <= day <= last]
        after = [first for first, _ in runs if first > day]
        before = [first for first, last in runs if last < day]
        chosen = covering or after or before[-1:]
        return chosen[0] if chosen else None


def release_dating(spans: pd.DataFrame, releases: list[tuple[str, date]], version: str) -> ReleaseDating:
    """Fold the spans that reach `version` back through contiguous spans of the same input and
    output price. `releases` lists (version, upload date) in release order."""
    released = dict(releases).get(version)
    if released is None:
        return ReleaseDating(version)
    position = {v: i for i, (v, _) in enumerate(releases)}
    spans = spans.assign(_first=spans["first_version"].map(position), _last=spans["last_version"].map(position))
    spans = spans.sort_values([*RUN_KEY, "_first"], kind="stable")
    since: dict[tuple[str, str], tuple[float, float, date]] = {}
    runs: dict[tuple[str, str], tuple[tuple[float, float, date, date], ...]] = {}
    records = spans.to_dict("records")  # once: a frame per model costs more than the work on it
    for key, rows in groupby(records, key=lambda span: (span["provider_id"], span["model_id"])):
        folded = _folded(list(rows))
        runs[key] = tuple(run[:4] for run in folded)
        if folded[-1][4] == version:  # the release in use lists the model
            since[key] = folded[-1][:3]
    return ReleaseDating(version, released, since, runs)


def _folded(spans: list[dict]) -> list[tuple[float, float, date, date, str]]:
    """One model's spans in release order as runs: a span that `_continues` the one before joins
    its run. Each run is (input, output as its last span lists them, first release date, last
    release date, last version)."""
    runs: list[tuple[float, float, date, date, str]] = []
    for i, span in enumerate(spans):
        first = runs.pop()[2] if i and _continues(spans[i - 1], span) else span["first_released"]
        runs.append((span["input"], span["output"], first, span["last_released"], span["last_version"]))
    return runs


def _continues(before: dict, after: dict) -> bool:
    """The later span follows the earlier with no release between and the same input and output."""
    return (after["_first"] == before["_last"] + 1
            and same_price(before["input"], after["input"]) and same_price(before["output"], after["output"]))


def releases_of(meta: dict) -> list[tuple[str, date]]:
    """(version, upload date) in release order, from the release history's meta."""
    return [(r["version"], date.fromisoformat(r["uploaded"][:10])) for r in meta["release_files"]]

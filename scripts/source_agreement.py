"""How far the published spot prices agree with genai-prices and with LiteLLM, on every field.

    python scripts/source_agreement.py SNAPSHOT_DIR [--markdown docs/source-agreement.md]
        [--litellm warehouse/seed/litellm_prices.json.gz] [--classes docs/agreement/litellm_disagreements.csv]

An instrument independent of the oracle's ingest: it reads only the published snapshot's Parquet
files, genai-prices through its own package (its snapshot, its lookup of a model id at a provider,
its conditional prices on the snapshot's day) and LiteLLM's price map as shipped in the seed. It
imports nothing from `pipelines`, `assets` or `serve`, so a fault of the ingest cannot hide itself.

Each maker-priced ticker (`pricing_basis == maker`) is looked up at its maker, by its model id and
then its aliases, the way a user would ask the source for the model. A field is compared when both
sides state it and agrees when the two are equal to one part in a million; a ticker agrees "on every
field" when every field both state agrees. LiteLLM's disagreements are classified by rules where a
rule can decide (`source stale`, `unit or tier`, `identity`) and by a curated file with evidence
where it cannot (`docs/agreement/litellm_disagreements.csv`); `--unclassified PATH` writes the rows
still unclassified in that file's columns, for a person to complete with the evidence.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import agreement_classes as classes  # noqa: E402
import agreement_sources as sources  # noqa: E402

MODES = ("sync", "batch")
# A published spot field → its column stem in spots.parquet (`<stem>_<mode>`).
SPOT_FIELDS = {
    "input": "input", "output": "beta", "cache_read": "cache_read", "cache_write": "cache_write",
    "cache_write_1h": "cache_write_1h", "reasoning": "reasoning", "citation": "citation",
    "request_fee": "request_fee", "web_search_fee": "web_search_fee", "file_search_fee": "file_search_fee",
    "grounding_fee": "grounding_fee", "tiers": "tiers", "peak": "peak",
}
STRUCTURED = ("tiers", "peak")  # JSON in the spot, compared rate by rate


def compare(ours: dict, theirs: dict) -> tuple[dict[str, bool], list[str], list[str]]:
    """({field both state: agrees}, fields only ours state, fields only theirs state)."""
    both = {f: classes.field_agrees(f, ours[f], theirs[f]) for f in ours if f in theirs}
    return both, sorted(set(ours) - set(theirs)), sorted(set(theirs) - set(ours))


# LiteLLM names a context tier by a key in thousands of tokens (`input_cost_per_token_above_200k_tokens`,
# billed when the prompt has more than 200,000): it has no way to write a tier that starts at
# 200,000 itself (xAI's "≥ 200k prompt tokens", which we and genai-prices write `above 199,999`).
THOUSANDS = 1000


def in_thousands(tiers: list[dict]) -> list[dict]:
    """Tiers with a threshold one token short of a whole thousand written at that thousand, the
    closest LiteLLM's notation comes to it."""
    return [dict(t, above=int(t["above"]) + 1) if (int(t["above"]) + 1) % THOUSANDS == 0 else t for t in tiers]


def period_stated(ours: dict, theirs: dict) -> str | None:
    """Which of our peak and off-peak periods a source's one flat sync rate states, for a model
    billed by the time of day: the period whose input rate it equals, else None. A map with no
    notation for the hour (LiteLLM) gives one period's rates as the model's."""
    periods = ours.get("sync.peak")
    if not isinstance(periods, dict) or "sync.peak" in theirs or "sync.input" not in theirs:
        return None
    for name in ("off_peak", "peak"):
        rates = periods.get(name) or {}
        if "input" in rates and classes.close(float(rates["input"]), float(theirs["sync.input"])):
            return name
    return None


def like_for_like(ours: dict, theirs: dict) -> tuple[dict, list[str]]:
    """Our statement in LiteLLM's notation: tier thresholds at its precision, and for a model
    billed by the hour the sync rates of the period its flat rate states. The notes say what was
    rewritten, so the report can count it."""
    view, notes = dict(ours), []
    for name in ("sync.tiers", "batch.tiers"):
        if name in view and name in theirs:
            rounded = in_thousands(view[name])
            if rounded != view[name]:
                view[name] = rounded
                notes.append(f"{name} in thousands")
    period = period_stated(ours, theirs)
    if period == "peak":
        for rate, value in ours["sync.peak"]["peak"].items():
            if f"sync.{rate}" in view:
                view[f"sync.{rate}"] = value
        notes.append("sync rates of the peak period")
    return view, notes


def spot_statement(spot: pd.Series) -> dict:
    """Every field the spot states, named `<mode>.<field>`."""
    out = {}
    for mode in MODES:
        for name, stem in SPOT_FIELDS.items():
            value = spot.get(f"{stem}_{mode}")
            if value is None or (not isinstance(value, str) and pd.isna(value)):
                continue
            if name in STRUCTURED:
                value = json.loads(value)
                if not value:
                    continue
            out[f"{mode}.{name}"] = value
    return out


def lookup_ids(model_id: str, aliases) -> list[str]:
    """The ids a user would ask the maker for: the model id, then the aliases that are the
    maker's own (a `maker/` prefix dropped); host routes (`us.`, `eu/`, `accounts/…`) are not."""
    out = [model_id]
    for alias in list(aliases if aliases is not None else []):
        head, sep, tail = alias.partition("/")
        if sep:
            candidate = tail if head.lower() in sources.MAKER_PREFIXES and "/" not in tail else None
        else:
            candidate = None if "." in alias.split("-")[0] else alias  # `us.anthropic.…`: a route
        if candidate and candidate not in out:
            out.append(candidate)
    return out


@dataclass
class Match:
    ticker: str
    maker: str
    source_id: str | None  # the source's key or model id matched, None when unmatched
    looked_up: str | None  # which of our ids found it
    statement: dict = field(default_factory=dict)
    fields: dict[str, bool] = field(default_factory=dict)
    only_ours: list[str] = field(default_factory=list)
    only_theirs: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)  # `like_for_like`'s notes
    ours: dict = field(default_factory=dict)  # our statement as compared (after `like_for_like`)

    @property
    def agrees(self) -> bool:
        return all(self.fields.values())


def measure(tickers: pd.DataFrame, find, view=None) -> list[Match]:
    """Each maker-priced ticker against what `find(maker, ids)` returns: (source id, id used,
    statement) or None. `view(ours, theirs)` puts our statement in the source's notation
    (`like_for_like`), where the source needs it."""
    out = []
    for row in tickers.itertuples(index=False):
        found = find(row.provider, lookup_ids(row.model_id, row.aliases))
        if found is None or not row.statement:
            out.append(Match(row.ticker, row.provider, None, None))
            continue
        source_id, used, theirs = found
        ours, notes = view(row.statement, theirs) if view else (row.statement, [])
        both, only_ours, only_theirs = compare(ours, theirs)
        out.append(Match(row.ticker, row.provider, source_id, used, theirs, both, only_ours, only_theirs, notes, ours))
    return out


def maker_priced(snapshot: Path) -> pd.DataFrame:
    """The maker-priced tickers, with their ids and the spot's statement."""
    models = pd.read_parquet(snapshot / "models.parquet")
    spots = pd.read_parquet(snapshot / "spots.parquet").set_index("ticker")
    models = models[models["pricing_basis"] == "maker"].copy()
    models["statement"] = [spot_statement(spots.loc[t]) for t in models["ticker"]]
    return models.reset_index(drop=True)


# price_history's column for a spot field where the two differ (the spot's β is the output price).
HISTORY_STEMS = {**SPOT_FIELDS, "output": "output"}


def history_statement(days: pd.DataFrame) -> dict:
    """Every field our price history states on one day (its rows of that day, one per mode), as
    `spot_statement` names them: our price in force that day."""
    out = {}
    for row in days.itertuples(index=False):
        spot = pd.Series({f"{SPOT_FIELDS[name]}_{row.mode}": getattr(row, stem)
                          for name, stem in HISTORY_STEMS.items() if hasattr(row, stem)})
        out.update({k: v for k, v in spot_statement(spot).items() if k.startswith(f"{row.mode}.")})
    return out


def on_day(tickers: pd.DataFrame, snapshot: Path, day: date) -> pd.DataFrame:
    """The maker-priced tickers with our statement in force on `day` (price_history) in place of
    the spot's: empty where the ticker has no price that day."""
    history = pd.read_parquet(snapshot / "price_history.parquet")
    history = history[pd.to_datetime(history["date"]).dt.date == day]
    by_ticker = {t: history_statement(rows) for t, rows in history.groupby("ticker")}
    return tickers.assign(statement=[by_ticker.get(t, {}) for t in tickers["ticker"]])


@dataclass
class Summary:
    source: str
    version: str
    tickers: int
    matched: int
    agreeing: int
    per_field: dict[str, tuple[int, int]]  # field → (agree, compared)
    only_ours: int
    only_theirs: int


def summarise(source: str, version: str, matches: list[Match]) -> Summary:
    matched = [m for m in matches if m.source_id is not None]
    per_field: dict[str, list[int]] = {}
    for m in matched:
        for f, ok in m.fields.items():
            per_field.setdefault(f, [0, 0])
            per_field[f][0] += ok
            per_field[f][1] += 1
    return Summary(source, version, len(matches), len(matched), sum(m.agrees for m in matched),
                   {f: tuple(v) for f, v in sorted(per_field.items())},
                   sum(len(m.only_ours) for m in matched), sum(len(m.only_theirs) for m in matched))


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "n/a"


def render(summaries: list[Summary], on_release: list[Summary], disagreements: dict[str, list[dict]], head: dict,
           notes: list[str]) -> str:
    """The published table: per source the agreement with our price on the snapshot day (the
    headline) and with our price in force on the source's release day (like for like: a source
    cannot know a change after its release), per field, then every disagreement."""
    lines = ["# Agreement of the spot prices with genai-prices and LiteLLM", "",
             f"Measured {head['measured']} by `scripts/source_agreement.py` on snapshot `{head['snapshot']}` "
             f"(as of {head['as_of']}); genai-prices {head['genai-prices']} (released {head['genai_released']}; "
             f"its prices in force at {head['clock']} UTC of the day compared), LiteLLM {head['litellm']} (released "
             f"{head['litellm_released']}). Only maker-priced tickers; a ticker is looked up at its maker "
             "by its model id, then its aliases; a genai-prices entry found only because its prefix begins "
             "the id (another model's entry) is no match. A field is compared when both state it and agrees "
             "when equal to one part in a million; LiteLLM is read in its own notation (a tier threshold "
             "in thousands of tokens; one flat rate for a model billed by the hour is the period it equals).", "",
             "The headline is our price on the snapshot day. Beside it, like for like, our price in force "
             "on the source's release day: a source cannot state a change that came after it was released.", "",
             "| source | maker-priced tickers | matched | agree on every field (snapshot day) | "
             "agree on every field (our price on the source's release day) | "
             "fields stated by one side only (ours / theirs) |",
             "|---|---|---|---|---|---|"]
    for s, r in zip(summaries, on_release, strict=True):
        lines.append(f"| {s.source} {s.version} | {s.tickers} | {s.matched} | "
                     f"{s.agreeing} ({pct(s.agreeing, s.matched)}) "
                     f"| {r.agreeing}/{r.matched} ({pct(r.agreeing, r.matched)}) | {s.only_ours} / {s.only_theirs} |")
    if notes:
        lines += [""] + [f"- {n}" for n in notes]
    columns = [(s.source, s) for s in summaries] + [(f"{r.source}, release day", r) for r in on_release]
    lines += ["", "Per field (agree / compared):", "",
              "| field | " + " | ".join(name for name, _ in columns) + " |",
              "|---|" + "---|" * len(columns)]
    names = sorted({f for _, s in columns for f in s.per_field}, key=field_order)
    for f in names:
        cells = [f"{s.per_field[f][0]}/{s.per_field[f][1]} ({pct(*s.per_field[f])})" if f in s.per_field else "—"
                 for _, s in columns]
        lines.append(f"| {f} | " + " | ".join(cells) + " |")
    for source, rows in disagreements.items():
        lines += ["", f"## Disagreements with {source}", ""]
        counts = pd.Series([r["class"] for r in rows]).value_counts() if rows else pd.Series(dtype=int)
        if source == "litellm":
            lines += ["Classes: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + ".", ""]
        classified = source == "litellm"
        lines += ["| ticker | field | source id | ours | theirs |" + (" class | evidence |" if classified else ""),
                  "|---|---|---|---|---|" + ("---|---|" if classified else "")]
        for r in rows:
            tail = f" {r['class']} | {r['evidence']} |" if classified else ""
            lines.append(f"| {r['ticker']} | {r['field']} | `{r['source_id']}` | {cell(r['ours'])} | "
                         f"{cell(r['theirs'])} |" + tail)
    return "\n".join(lines) + "\n"


def field_order(name: str) -> tuple:
    mode, kind = name.split(".", 1)
    return MODES.index(mode), list(SPOT_FIELDS).index(kind)


def cell(value) -> str:
    """A rate as a short number, a structure as compact JSON."""
    if isinstance(value, (list, dict)):
        return "`" + json.dumps(_rounded(value), separators=(",", ":"), sort_keys=True) + "`"
    return f"{float(value):g}"


def _rounded(value):
    """Rates to 10 significant digits (0.32000000000000006 → 0.32), for reading."""
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return float(f"{value:.10g}") if isinstance(value, float) else value


def disagreement_rows(matches: list[Match]) -> list[dict]:
    return [{"ticker": m.ticker, "maker": m.maker, "field": f, "source_id": m.source_id, "looked_up": m.looked_up,
             "ours": None, "theirs": m.statement[f], "their_statement": m.statement, "ours_statement": m.ours}
            for m in matches for f, ok in sorted(m.fields.items(), key=lambda kv: field_order(kv[0])) if not ok]


def write_rows(path: Path, rows: list[dict]) -> None:
    """Rows in the curated file's columns (class and evidence left for a person to fill)."""
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=classes.CURATED_COLUMNS)
        writer.writeheader()
        for r in rows:
            writer.writerow({"ticker": r["ticker"], "field": r["field"], "source_id": r["source_id"],
                             "ours": cell(r["ours"]).strip("`"), "theirs": cell(r["theirs"]).strip("`"),
                             "class": "", "evidence": ""})


def genai_released(snapshot: Path, version: str) -> date | None:
    """The release day of a genai-prices version, as the snapshot's observations record it."""
    observations = pd.read_parquet(snapshot / "price_observations.parquet",
                                   columns=["source", "source_version", "source_released"])
    days = observations.loc[(observations["source"] == "genai-prices") & (observations["source_version"] == version),
                            "source_released"].dropna()
    return pd.to_datetime(days).min().date() if len(days) else None


def report_notes(results: dict[str, list[Match]], genai, tickers: pd.DataFrame) -> list[str]:
    """What the reader should know the measurement did: tickers left unmatched because genai-prices'
    lookup landed on another model's entry, and LiteLLM comparisons made in its notation."""
    notes = []
    unmatched = {m.ticker for m in results["genai-prices"] if m.source_id is None}
    elsewhere = []
    for row in tickers.itertuples(index=False):
        if row.ticker in unmatched:
            landed = {i: e for i, e in genai.elsewhere.get(row.provider, {}).items()
                      if i in lookup_ids(row.model_id, row.aliases)}
            if landed:
                elsewhere.append(f"{row.ticker} (" + ", ".join(f"`{i}` → `{e}`" for i, e in landed.items()) + ")")
    if elsewhere:
        notes.append(f"genai-prices: {len(elsewhere)} tickers unmatched because its lookup finds them only "
                     "under another model's entry: " + "; ".join(elsewhere) + ".")
    rewritten: dict[str, list[str]] = {}
    for m in results["litellm"]:
        for n in m.rewritten:
            rewritten.setdefault(n, []).append(f"{m.ticker} ({'agrees' if m.agrees else 'disagrees'})")
    for what, names in rewritten.items():
        notes.append(f"litellm: our {what}, {len(names)} tickers: " + ", ".join(names) + ".")
    return notes


def main(argv: list[str] | None = None) -> int:
    root = Path(__file__).resolve().parents[1]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--litellm", type=Path, default=root / "warehouse" / "seed" / "litellm_prices.json.gz")
    parser.add_argument("--classes", type=Path, default=root / "docs" / "agreement" / "litellm_disagreements.csv")
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--unclassified", type=Path, help="write the unclassified LiteLLM rows here (CSV)")
    args = parser.parse_args(argv)
    manifest = json.loads((args.snapshot.parent / "manifest.json").read_text())
    as_of = date.fromisoformat(manifest["extra"]["as_of"])
    clock = datetime.combine(as_of, sources.GENAI_CLOCK, tzinfo=UTC)
    tickers = maker_priced(args.snapshot)
    ours = {r.ticker: r.statement for r in tickers.itertuples(index=False)}

    genai = sources.GenaiPrices(clock)
    litellm_meta = json.loads(args.litellm.with_name(args.litellm.name.replace(".json.gz", ".meta.json")).read_text())
    litellm = sources.LiteLLM(sources.read_litellm(args.litellm))
    results = {"genai-prices": measure(tickers, genai.find), "litellm": measure(tickers, litellm.find, like_for_like)}
    summaries = [summarise("genai-prices", genai.version, results["genai-prices"]),
                 summarise("litellm", litellm_meta["source_version"], results["litellm"])]
    # Like for like: our price in force on each source's release day (genai-prices asked at that day).
    released = {"genai-prices": genai_released(args.snapshot, genai.version) or as_of,
                "litellm": date.fromisoformat(litellm_meta["released"])}
    genai_then = genai.at(datetime.combine(released["genai-prices"], sources.GENAI_CLOCK, tzinfo=UTC))
    on_release = [summarise("genai-prices", genai.version,
                            measure(on_day(tickers, args.snapshot, released["genai-prices"]), genai_then.find)),
                  summarise("litellm", litellm_meta["source_version"],
                            measure(on_day(tickers, args.snapshot, released["litellm"]), litellm.find, like_for_like))]
    notes = report_notes(results, genai, tickers)

    history = classes.read_history(args.snapshot / "price_history.parquet", as_of)
    makers = dict(zip(tickers["ticker"], tickers["provider"], strict=True))
    context = classes.Context(ours=ours, makers=makers, history=history,
                              source_released=date.fromisoformat(litellm_meta["released"]),
                              curated=classes.read_curated(args.classes))
    disagreements = {}
    for source, matches in results.items():
        rows = disagreement_rows(matches)
        for r in rows:
            r["ours"] = r["ours_statement"][r["field"]]
            r["class"], r["evidence"] = classes.classify(r, context) if source == "litellm" else ("", "")
        disagreements[source] = rows

    for s, r in zip(summaries, on_release, strict=True):
        unmatched = [m.ticker for m in results[s.source] if m.source_id is None]
        print(f"{s.source} {s.version}: {s.tickers} maker-priced tickers, {s.matched} matched "
              f"({len(unmatched)} unmatched), {s.agreeing} agree on every field ({pct(s.agreeing, s.matched)}); "
              f"fields stated by one side only: ours {s.only_ours}, theirs {s.only_theirs}; with our price on its "
              f"release day {released[s.source]}: {r.agreeing}/{r.matched} ({pct(r.agreeing, r.matched)})")
        for f, (a, n) in sorted(s.per_field.items(), key=lambda kv: field_order(kv[0])):
            print(f"  {f:22} {a:4}/{n:<4} {pct(a, n)}")
    for source, rows in disagreements.items():
        print(f"\n{source} disagreements ({len(rows)} fields on "
              f"{len({r['ticker'] for r in rows})} tickers):")
        for r in rows:
            print(f"  {r['ticker']:34} {r['field']:20} {r['source_id']:40} ours {cell(r['ours'])} theirs "
                  f"{cell(r['theirs'])} {r['class']} {r['evidence']}")
    for note in notes:
        print(f"- {note}")
    unclassified = [r for r in disagreements["litellm"] if r["class"] == classes.UNCLASSIFIED]
    print(f"\nLiteLLM disagreements unclassified: {len(unclassified)}")

    if args.unclassified:
        write_rows(args.unclassified, unclassified)
    if args.markdown:
        head = {"measured": date.today().isoformat(), "snapshot": args.snapshot.name, "as_of": as_of.isoformat(),
                "genai-prices": genai.version, "clock": sources.GENAI_CLOCK.strftime("%H:%M"),
                "genai_released": released["genai-prices"].isoformat(),
                "litellm": litellm_meta["source_version"], "litellm_released": litellm_meta["released"]}
        args.markdown.write_text(render(summaries, on_release, disagreements, head, notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())

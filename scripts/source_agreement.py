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
from datetime import date, datetime, timezone
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

    @property
    def agrees(self) -> bool:
        return all(self.fields.values())


def measure(tickers: pd.DataFrame, find) -> list[Match]:
    """Each maker-priced ticker against what `find(maker, ids)` returns: (source id, id used,
    statement) or None."""
    out = []
    for row in tickers.itertuples(index=False):
        found = find(row.provider, lookup_ids(row.model_id, row.aliases))
        if found is None:
            out.append(Match(row.ticker, row.provider, None, None))
            continue
        source_id, used, theirs = found
        both, only_ours, only_theirs = compare(row.statement, theirs)
        out.append(Match(row.ticker, row.provider, source_id, used, theirs, both, only_ours, only_theirs))
    return out


def maker_priced(snapshot: Path) -> pd.DataFrame:
    """The maker-priced tickers, with their ids and the spot's statement."""
    models = pd.read_parquet(snapshot / "models.parquet")
    spots = pd.read_parquet(snapshot / "spots.parquet").set_index("ticker")
    models = models[models["pricing_basis"] == "maker"].copy()
    models["statement"] = [spot_statement(spots.loc[t]) for t in models["ticker"]]
    return models.reset_index(drop=True)


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


def render(summaries: list[Summary], disagreements: dict[str, list[dict]], head: dict) -> str:
    lines = [f"# Agreement of the spot prices with genai-prices and LiteLLM", "",
             f"Measured {head['measured']} by `scripts/source_agreement.py` on snapshot `{head['snapshot']}` "
             f"(as of {head['as_of']}); genai-prices {head['genai-prices']} (prices in force on "
             f"{head['as_of']} at {head['clock']} UTC), LiteLLM {head['litellm']} (released "
             f"{head['litellm_released']}). Only maker-priced tickers; a ticker is looked up at its maker "
             "by its model id, then its aliases. A field is compared when both state it and agrees when "
             "equal to one part in a million.", "",
             "| source | maker-priced tickers | matched | agree on every field | fields stated by one side only (ours / theirs) |",
             "|---|---|---|---|---|"]
    for s in summaries:
        lines.append(f"| {s.source} {s.version} | {s.tickers} | {s.matched} | {s.agreeing} ({pct(s.agreeing, s.matched)}) "
                     f"| {s.only_ours} / {s.only_theirs} |")
    lines += ["", "Per field (agree / compared):", "",
              "| field | " + " | ".join(s.source for s in summaries) + " |",
              "|---|" + "---|" * len(summaries)]
    names = sorted({f for s in summaries for f in s.per_field}, key=field_order)
    for f in names:
        cells = [f"{s.per_field[f][0]}/{s.per_field[f][1]} ({pct(*s.per_field[f])})" if f in s.per_field else "—"
                 for s in summaries]
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
             "ours": None, "theirs": m.statement[f], "their_statement": m.statement}
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
    clock = datetime.combine(as_of, sources.GENAI_CLOCK, tzinfo=timezone.utc)
    tickers = maker_priced(args.snapshot)
    ours = {r.ticker: r.statement for r in tickers.itertuples(index=False)}

    genai = sources.GenaiPrices(clock)
    litellm_meta = json.loads(args.litellm.with_name(args.litellm.name.replace(".json.gz", ".meta.json")).read_text())
    litellm = sources.LiteLLM(sources.read_litellm(args.litellm))
    results = {"genai-prices": measure(tickers, genai.find), "litellm": measure(tickers, litellm.find)}
    summaries = [summarise("genai-prices", genai.version, results["genai-prices"]),
                 summarise("litellm", litellm_meta["source_version"], results["litellm"])]

    history = classes.read_history(args.snapshot / "price_history.parquet", as_of)
    context = classes.Context(ours=ours, makers=dict(zip(tickers["ticker"], tickers["provider"])), history=history,
                              source_released=date.fromisoformat(litellm_meta["released"]),
                              curated=classes.read_curated(args.classes))
    disagreements = {}
    for source, matches in results.items():
        rows = disagreement_rows(matches)
        for r in rows:
            r["ours"], r["ours_statement"] = ours[r["ticker"]][r["field"]], ours[r["ticker"]]
            r["class"], r["evidence"] = classes.classify(r, context) if source == "litellm" else ("", "")
        disagreements[source] = rows

    for s in summaries:
        unmatched = [m.ticker for m in results[s.source] if m.source_id is None]
        print(f"{s.source} {s.version}: {s.tickers} maker-priced tickers, {s.matched} matched "
              f"({len(unmatched)} unmatched), {s.agreeing} agree on every field ({pct(s.agreeing, s.matched)}); "
              f"fields stated by one side only: ours {s.only_ours}, theirs {s.only_theirs}")
        for f, (a, n) in sorted(s.per_field.items(), key=lambda kv: field_order(kv[0])):
            print(f"  {f:22} {a:4}/{n:<4} {pct(a, n)}")
    for source, rows in disagreements.items():
        print(f"\n{source} disagreements ({len(rows)} fields on "
              f"{len({r['ticker'] for r in rows})} tickers):")
        for r in rows:
            print(f"  {r['ticker']:34} {r['field']:20} {r['source_id']:40} ours {cell(r['ours'])} theirs "
                  f"{cell(r['theirs'])} {r['class']} {r['evidence']}")
    unclassified = [r for r in disagreements["litellm"] if r["class"] == classes.UNCLASSIFIED]
    print(f"\nLiteLLM disagreements unclassified: {len(unclassified)}")

    if args.unclassified:
        write_rows(args.unclassified, unclassified)
    if args.markdown:
        head = {"measured": date.today().isoformat(), "snapshot": args.snapshot.name, "as_of": as_of.isoformat(),
                "genai-prices": genai.version, "clock": sources.GENAI_CLOCK.strftime("%H:%M"),
                "litellm": litellm_meta["source_version"], "litellm_released": litellm_meta["released"]}
        args.markdown.write_text(render(summaries, disagreements, head))
    return 0


if __name__ == "__main__":
    sys.exit(main())

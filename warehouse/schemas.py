"""One explicit Parquet schema per warehouse table.

Prices are USD per million tokens (float64, null where a source does not give the field);
dates are calendar dates (UTC). `tiers` holds a JSON list of context tiers,
`[{"above": <prompt tokens>, "input": .., "output": .., "cache_read": ..}]`, where crossing the
threshold moves the whole request to that tier's rates (the providers' cliff billing). Fees
(`*_fee`) are USD per 1,000 requests or tool calls. `peak` holds, for a price that depends on
the hour, both periods' rates and the peak windows (pipelines/peak.py).
"""

import pyarrow as pa

# The same fields as pipelines.listings.PRICE_FIELDS (a frame with a column its schema lacks is
# refused when written): token rates, then fees.
PRICE_FIELDS = ("input", "output", "cache_read", "cache_write", "cache_write_1h", "reasoning", "citation",
                "request_fee", "web_search_fee", "file_search_fee", "grounding_fee")
TEXT_PRICE_FIELDS = ("tiers", "peak")

_PRICES = [pa.field(name, pa.float64()) for name in PRICE_FIELDS] + [pa.field(name, pa.string())
                                                                      for name in TEXT_PRICE_FIELDS]

_PROVENANCE = [
    pa.field("source", pa.string(), nullable=False),
    pa.field("source_version", pa.string(), nullable=False),
    pa.field("source_url", pa.string()),
    pa.field("provenance", pa.string(), nullable=False),
]

# What every source asset emits: one row per (provider, model id, mode, effective date) as the
# source states it, before identities are reconciled.
SOURCE_LISTING = pa.schema(
    [
        pa.field("provider", pa.string(), nullable=False),
        pa.field("source_model_id", pa.string(), nullable=False),
        pa.field("display_name", pa.string()),
        pa.field("context_window", pa.int64()),
        pa.field("deprecated", pa.bool_()),
        pa.field("mode", pa.string(), nullable=False),
        pa.field("effective_date", pa.date32(), nullable=False),
        *_PRICES,
        *_PROVENANCE,
        pa.field("source_released", pa.date32()),
        # The first day the statement could be read, where earlier than source_released (a price
        # an older release first published); null: source_released.
        pa.field("known_from", pa.date32()),
        pa.field("note", pa.string()),
    ]
)

PRICE_OBSERVATIONS = pa.schema(
    [
        pa.field("ticker", pa.string(), nullable=False),
        pa.field("provider", pa.string(), nullable=False),
        pa.field("provider_model_id", pa.string(), nullable=False),
        pa.field("is_origin", pa.bool_(), nullable=False),
        pa.field("mode", pa.string(), nullable=False),
        pa.field("effective_date", pa.date32(), nullable=False),
        *_PRICES,
        *_PROVENANCE,
        pa.field("source_released", pa.date32()),
        pa.field("known_from", pa.date32()),  # as in SOURCE_LISTING
        pa.field("authority", pa.int8(), nullable=False),
        pa.field("superseded", pa.bool_(), nullable=False),
        pa.field("superseded_by", pa.string()),
        pa.field("note", pa.string()),
    ]
)

MODELS = pa.schema(
    [
        pa.field("ticker", pa.string(), nullable=False),
        pa.field("ticker_batch", pa.string()),
        pa.field("model_id", pa.string(), nullable=False),
        pa.field("display_name", pa.string(), nullable=False),
        pa.field("display_name_source", pa.string(), nullable=False),
        pa.field("provider", pa.string(), nullable=False),
        pa.field("family", pa.string(), nullable=False),
        pa.field("tier", pa.string(), nullable=False),
        # rule (a curated rule on its name) or price (its latest sync output price: the tier of today).
        pa.field("tier_basis", pa.string(), nullable=False),
        pa.field("is_reasoning", pa.bool_(), nullable=False),
        # Which evidence decided it: a curated rule, LiteLLM's supports_reasoning at the maker or
        # its hosts, or the default (`pipelines.model_metadata.reasoning`).
        pa.field("is_reasoning_source", pa.string(), nullable=False),
        pa.field("context_window", pa.int64()),
        pa.field("max_output_tokens", pa.int64()),
        pa.field("input_modalities", pa.list_(pa.string()), nullable=False),
        pa.field("output_modalities", pa.list_(pa.string()), nullable=False),
        pa.field("aliases", pa.list_(pa.string()), nullable=False),
        pa.field("first_seen", pa.date32(), nullable=False),
        # The release date models.dev states (null: unknown), or the first price where that is
        # earlier; released_on_source says which (`pipelines/release_dates.py`).
        pa.field("released_on", pa.date32()),
        pa.field("released_on_source", pa.string(), nullable=False),
        # active, deprecated or retired; retired_on may lie after the snapshot date (announced).
        pa.field("status", pa.string(), nullable=False),
        pa.field("deprecated_on", pa.date32()),
        pa.field("retired_on", pa.date32()),
        # The first date the model is known to be retired: retired_on once passed, else the
        # publication date of the source that says it was removed (which gives no date).
        pa.field("retired_by", pa.date32()),
        # The evidence that set a status other than active: which source said what of which id.
        pa.field("status_source", pa.string()),
        pa.field("host_count", pa.int64(), nullable=False),
        # maker (its own list price) or host_median (an open-weight model priced at its hosts' median).
        pa.field("pricing_basis", pa.string(), nullable=False),
        # The lowest and highest sync price among the model's hosts today (null without a host).
        pa.field("host_min_input", pa.float64()),
        pa.field("host_max_input", pa.float64()),
        pa.field("host_min_output", pa.float64()),
        pa.field("host_max_output", pa.float64()),
        # Where each limit and modality list comes from: "<source> at <provider>" for a limit
        # ("unknown: no source states it" where none does), "<source>: <modalities>; ..." for
        # the modalities (every source that stated some), `pipelines/model_metadata.py`.
        pa.field("context_window_source", pa.string(), nullable=False),
        pa.field("max_output_tokens_source", pa.string(), nullable=False),
        pa.field("input_modalities_source", pa.string(), nullable=False),
        pa.field("output_modalities_source", pa.string(), nullable=False),
    ]
)

# Every provider that sells a model, origin and hosts alike, at its latest known price.
PROVIDERS = pa.schema(
    [
        pa.field("ticker", pa.string(), nullable=False),
        pa.field("provider", pa.string(), nullable=False),
        pa.field("provider_model_id", pa.string(), nullable=False),
        pa.field("is_origin", pa.bool_(), nullable=False),
        pa.field("mode", pa.string(), nullable=False),
        pa.field("effective_date", pa.date32(), nullable=False),
        *_PRICES,
        *_PROVENANCE,
    ]
)

PRICE_HISTORY = pa.schema(
    [
        pa.field("ticker", pa.string(), nullable=False),
        pa.field("mode", pa.string(), nullable=False),
        pa.field("date", pa.date32(), nullable=False),
        *_PRICES,
        *_PROVENANCE,
        # The first day the statement behind the point could be known (pipelines.listings.known_on).
        pa.field("known_on", pa.date32()),
        pa.field("observed_on", pa.date32(), nullable=False),
    ]
)

def _schema(**columns: pa.DataType | tuple[pa.DataType, bool]) -> pa.Schema:
    """Columns in order; a type alone is nullable, (type, False) is required."""
    return pa.schema([
        pa.field(name, *(spec if isinstance(spec, tuple) else (spec, True))) for name, spec in columns.items()
    ])


_STR, _F64, _I64, _DATE, _BOOL = pa.string(), pa.float64(), pa.int64(), pa.date32(), pa.bool_()


def _mode_prices(mode: str) -> dict:
    fields = ("output", "input", *(f for f in PRICE_FIELDS if f not in ("input", "output")), *TEXT_PRICE_FIELDS)
    return {f"{'beta' if f == 'output' else f}_{mode}": (_STR if f in TEXT_PRICE_FIELDS else _F64) for f in fields}


def _mode_provenance(mode: str) -> dict:
    return {f"source_{mode}": _STR, f"source_version_{mode}": _STR, f"provenance_{mode}": _STR,
            f"observed_on_{mode}": _DATE, f"source_url_{mode}": _STR, f"known_from_{mode}": _DATE}


_SPOT_COLUMNS = dict(
    ticker=(_STR, False), ticker_batch=_STR, model_id=(_STR, False), display_name=(_STR, False),
    provider=(_STR, False), family=(_STR, False), tier=(_STR, False), is_reasoning=(_BOOL, False),
    context_window=_I64, status=(_STR, False), input_modalities=(pa.list_(_STR), False),
    output_modalities=(pa.list_(_STR), False), **_mode_prices("sync"), **_mode_prices("batch"),
    r_in=_F64, r_cache=_F64, r_think=_F64, r_batch=_F64, **_mode_provenance("sync"), **_mode_provenance("batch"),
    # The evidence behind the sync price (pipelines/evidence.py): sources whose latest statement
    # agrees or not, the newest publication date that confirms it, and the grade.
    sources_agreeing=(pa.list_(_STR), False), sources_disagreeing=(pa.list_(_STR), False),
    last_confirmed=_DATE, evidence=(_STR, False),
)
SPOTS = _schema(**_SPOT_COLUMNS)

_PROCESS = dict(theta=_F64, sigma=_F64, jump_rate=_F64, jump_mean=_F64, jump_std=_F64, prior_weight=_F64,
                pool=_STR, exposure_months=_F64, n_jumps=_I64)
GREEKS = _schema(**_SPOT_COLUMNS, **_PROCESS, **{f"{k}_batch": v for k, v in _PROCESS.items()})

FORWARD_CURVES = _schema(
    ticker=(_STR, False), mode=(_STR, False), ticker_forward=(_STR, False), tenor=(_STR, False),
    months=(_F64, False), spot=(_F64, False), scheduled=(_F64, False), p_change=(_F64, False),
    decay_factor=(_F64, False), beta_forward=(_F64, False), beta_median=(_F64, False), p05=(_F64, False),
    p95=(_F64, False), change_mean=(_F64, False), change_p05=(_F64, False), change_p50=(_F64, False),
    change_p95=(_F64, False), evidence=(_STR, False), outlook=(_STR, False),
)
# The forecast law (pipelines/forecast.py): per ticker and mode, P(a change by the end of each
# month 1–12), the change law it follows and the family rise behind it; each change law's ratios
# and weights.
PROCESSES = _schema(ticker=(_STR, False), mode=(_STR, False), months=(_F64, False), p_change=(_F64, False),
                    change_law=(_STR, False), rise_evidence=(_STR, False))
CHANGE_LAWS = _schema(change_law=(_STR, False), ratio=(_F64, False), weight=(_F64, False),
                      prior_weight=(_F64, False))

# Model lines (pipelines/lines.py): one row per member, in release order, with the evidence of
# its membership and of its succession's price (its launch price over its predecessor's that day).
LINES = _schema(
    line=(_STR, False), maker=(_STR, False), family=(_STR, False), position=(_I64, False), members=(_I64, False),
    ticker=(_STR, False), model_id=(_STR, False), released=(_DATE, False), release_basis=(_STR, False),
    dated=(_BOOL, False), out_of_order=(_BOOL, False), deprecated_on=_DATE, retired_on=_DATE, status=_STR,
    is_reasoning=_BOOL, evidence=(_STR, False), launch_date=_DATE, launch_price=_F64, predecessor=_STR,
    predecessor_price=_F64, successor_ratio=_F64,
)
# Line forwards (pipelines/line_forwards.py): per line, mode and month 1–12, the fixed model's
# forecast, the chance of a successor and the succession law, and the line's price.
LINE_FORWARDS = _schema(
    line=(_STR, False), maker=(_STR, False), mode=(_STR, False), tenor=(_STR, False), months=(_F64, False),
    current=(_STR, False), current_released=(_DATE, False), spot=(_F64, False), scheduled=(_F64, False),
    p_change=(_F64, False), fixed_forward=(_F64, False), fixed_median=(_F64, False), fixed_p05=(_F64, False),
    fixed_p95=(_F64, False), p_successor=(_F64, False), succession_rate=(_F64, False), successions=(_I64, False),
    exposure_months=(_F64, False), maker_rate=(_F64, False), successor_mean=(_F64, False),
    successor_p05=(_F64, False), successor_p50=(_F64, False), successor_p95=(_F64, False),
    law_successions=(_I64, False), retires_on=_DATE, beta_forward=(_F64, False), beta_median=(_F64, False),
    p05=(_F64, False), p95=(_F64, False),
)

ICI = _schema(
    type=(_STR, False), as_of=(_DATE, False), value=(_F64, False), methodology_version=(_STR, False),
    verification_hash=(_STR, False), link_factor=(_F64, False), covers=(_STR, False),
    rebalance_date=(_DATE, False), ticker=(_STR, False),
    weight=(_F64, False), price=(_F64, False), contribution=(_F64, False),
    carried_forward=(_I64, False), oldest_input_days=(_I64, False),
)
# link_factor: the chained level over the day's weighted average (contribution = link_factor ·
# weight · price); covers: which basket the variant's level covers, in words.
# composition_effect: the relative jump the level would have made that day were it not
# chain-linked (0 where neither basket nor constituents priced changed; null without two levels);
# carried_forward: constituents priced that day from an older statement; oldest_input_days: the
# age of the oldest statement used (null on a day without a level).
ICI_HISTORY = _schema(type=(_STR, False), date=(_DATE, False), value=_F64, rebalance_date=(_DATE, False),
                      constituents=(_I64, False), composition_effect=_F64, carried_forward=(_I64, False),
                      oldest_input_days=_I64)
# Every basket of the index's history, per variant: what chose each constituent on its rebalance
# date (tier and hosts then), its weight, and its price in the variant that day (null: none).
ICI_CONSTITUENTS = _schema(rebalance_date=(_DATE, False), type=(_STR, False), ticker=(_STR, False),
                           maker=(_STR, False), tier=(_STR, False), hosts=(_I64, False), weight=(_F64, False),
                           price=_F64)

# The index's record (pipelines/ici_record.py), kept beside the snapshots and copied into each.
_UTC_MS = pa.timestamp("ms", tz="UTC")
ICI_PUBLISHED = _schema(date=(_DATE, False), type=(_STR, False), level=(_F64, False), constituents=(_I64, False),
                        carried_forward=(_I64, False), published_at=(_UTC_MS, False), snapshot_id=(_STR, False),
                        methodology_version=(_STR, False))
ICI_REVISIONS = _schema(date=(_DATE, False), type=(_STR, False), old=(_F64, False), new=_F64,
                        constituents_before=(_I64, False), constituents_after=(_I64, False), reason=(_STR, False),
                        revised_at=(_UTC_MS, False), snapshot_id=(_STR, False), methodology_version=(_STR, False))

EVENTS = _schema(
    event_id=(_STR, False), ticker=(_STR, False), mode=(_STR, False), kind=(_STR, False), field=(_STR, False),
    before=_F64, after=_F64, pct_change=_F64, effective_date=(_DATE, False), observed_on=_DATE,
    source=(_STR, False), source_version=(_STR, False), source_url=_STR, provenance=(_STR, False),
    reverted=(_BOOL, False),
    detail=_STR,
)

BACKTEST = _schema(
    anchor=(_DATE, False), ticker=(_STR, False), family=(_STR, False), tier=(_STR, False),
    fixed_name=(_BOOL, False), tenor=(_STR, False), months=(_F64, False), method=(_STR, False),
    target_date=(_DATE, False), spot=(_F64, False), forecast=(_F64, False), median=(_F64, False),
    p05=(_F64, False), p95=(_F64, False), p_change=(_F64, False), p_base=_F64, realised=(_F64, False),
    changed=(_BOOL, False), revision=(_BOOL, False), revision_kind=_STR, rel_error=(_F64, False),
    log_error=(_F64, False), ape=(_F64, False), crps=(_F64, False), pit_low=(_F64, False), pit_high=(_F64, False),
    covered=(_F64, False),
)
# The line forwards' walk-forward cases (pipelines/line_backtest.py): per anchor, line, tenor and
# method (line, fixed, flat), the forecast law's mean and median in $/M, its scores in units of the
# spot, and whether the line's current model had changed by the target date.
LINE_BACKTEST = _schema(
    anchor=(_DATE, False), line=(_STR, False), maker=(_STR, False), tenor=(_STR, False), months=(_F64, False),
    target_date=(_DATE, False), current=(_STR, False), spot=(_F64, False), successor=(_STR, False),
    arrived=(_BOOL, False), realised=(_F64, False), method=(_STR, False), forecast=(_F64, False),
    median=(_F64, False), p_successor=(_F64, False), p_base=(_F64, False), rel_error=(_F64, False),
    log_error=(_F64, False), ape=(_F64, False), crps=(_F64, False), covered=(_F64, False),
)
_METRICS = dict(n=(_I64, False), changed_share=_F64, rel_rmse=_F64, log_rmse=_F64, mape=_F64, median_ape=_F64,
                bias=_F64, crps=_F64, brier=_F64, coverage=_F64)
BACKTEST_SUMMARY = _schema(tenor=(_STR, False), method=(_STR, False), **_METRICS)
BACKTEST_FAMILIES = _schema(family=(_STR, False), tenor=(_STR, False), method=(_STR, False), **_METRICS)
_VERSUS = {f"{metric}{suffix}": _F64 for metric in ("rel_rmse", "log_rmse", "mape", "median_ape", "crps",
                                                      "coverage", "bias")
           for suffix in ("", "_flat", "_single_exp", "_fixed")}
# One row per scope and tenor (pipelines/scorecard.py): scopes `all` and `fixed_name` score the
# oracle's forecasts of a model against flat and the single exponential; scope `line` scores line
# forwards against flat and the fixed model's own forecast (the `_fixed` columns); `blocks`: the
# bootstrap's independent units (tickers; lines for `line`).
ACCURACY = _schema(
    scope=(_STR, False), tenor=(_STR, False), n=(_I64, False), blocks=(_I64, False), revisions_excluded=(_I64, False),
    excluded_switch=(_I64, False), excluded_hosts_changed=(_I64, False), excluded_restated=(_I64, False),
    excluded_slip=(_I64, False), changed_share=_F64, **_VERSUS, rel_rmse_gap_se=_F64, crps_gap_se=_F64,
    rel_rmse_fixed_gap_se=_F64, crps_fixed_gap_se=_F64, brier=_F64, brier_base=_F64, brier_gap_se=_F64,
    coverage_se=_F64, verdict=(_STR, False),
)
BACKTEST_RELIABILITY = _schema(tenor=(_STR, False), low=(_F64, False), high=(_F64, False), n=(_I64, False),
                               predicted=(_F64, False), observed=(_F64, False))

# The warehouse's tables, declared here and nowhere else, in pipeline order (each table after
# the tables it is built from). The snapshot publishes exactly these; assets/definitions.py refuses
# to build the code location unless each has one asset of the same name and each table asset a schema.
# Which model a pointer id (`mistral-medium-latest`) served from `valid_from` to `valid_to`
# (null: still), decided by `basis` (`price`: a model priced as the pointer was; `source_match`:
# the source's own match rules) on the statement of `source`.
MODEL_ALIASES = _schema(alias=(_STR, False), maker=(_STR, False), ticker=(_STR, False), model_id=(_STR, False),
                        valid_from=(_DATE, False), valid_to=_DATE, basis=(_STR, False), source=(_STR, False))

# Every (ticker, mode, field) on which a source's latest statement disagrees with the price in
# force on the snapshot date: one row per source stating the field, with its value, the date it
# asserts and the date it was published, the chosen value, and the rule that decided between them.
PRICE_DISPUTES = _schema(
    ticker=(_STR, False), mode=(_STR, False), field=(_STR, False), source=(_STR, False),
    source_version=(_STR, False), provenance=(_STR, False), value=(_F64, False), asserted_on=(_DATE, False),
    published_on=_DATE, chosen_value=(_F64, False), chosen_source=(_STR, False),
    chosen_asserted_on=(_DATE, False), rule=(_STR, False), reason=(_STR, False),
)

# Every (ticker, limit) on which the sources state different values (field: context_window or
# max_output_tokens): one row per statement (source, the provider whose listing it is, the id it
# is about, value), with the value the rule chose, its source and the rule
# (`pipelines.model_metadata.LIMIT_RULES`). Field released_on: a release date stated after the
# model's first price, its dates in value_date and chosen_date (value, chosen_value null), rule
# `pipelines.release_dates.RULE`.
METADATA_DISPUTES = _schema(
    ticker=(_STR, False), field=(_STR, False), source=(_STR, False), provider=(_STR, False),
    provider_model_id=(_STR, False), value=_I64, chosen_value=_I64, value_date=_DATE, chosen_date=_DATE,
    chosen_source=(_STR, False), rule=(_STR, False),
)

# Every change of a price field that a source announces for a date after the snapshot, against
# the value in force before it (pipelines/scheduled.py); announced_on: the source's publication.
SCHEDULED_CHANGES = _schema(
    ticker=(_STR, False), mode=(_STR, False), effective_date=(_DATE, False), field=(_STR, False), before=_F64,
    after=(_F64, False), pct_change=_F64, source=(_STR, False), source_version=(_STR, False), source_url=_STR,
    announced_on=_DATE,
)

# Every live fetch up to the snapshot day, failed ones included (`warehouse.raw_store`).
SOURCE_FETCHES = _schema(source=(_STR, False), as_of=(_DATE, False), fetched_at=(pa.timestamp("ms", tz="UTC"), False),
                         outcome=(_STR, False), url=(_STR, False), status=_I64, bytes=(_I64, False), sha256=_STR,
                         models=_I64, attempts=(_I64, False), reason=_STR, fallback=_STR, run_id=_STR)

SCHEMAS: dict[str, pa.Schema] = {
    "source_fetches": SOURCE_FETCHES,
    "genai_prices": SOURCE_LISTING,
    "model_prices": SOURCE_LISTING,
    "price_archive": SOURCE_LISTING,
    "litellm_prices": SOURCE_LISTING,
    "openrouter_prices": SOURCE_LISTING,
    "price_observations": PRICE_OBSERVATIONS,
    "model_aliases": MODEL_ALIASES,
    "providers": PROVIDERS,
    "models": MODELS,
    "metadata_disputes": METADATA_DISPUTES,
    "price_history": PRICE_HISTORY,
    "price_disputes": PRICE_DISPUTES,
    "spots": SPOTS,
    "scheduled_changes": SCHEDULED_CHANGES,
    "events": EVENTS,
    "processes": PROCESSES,
    "change_laws": CHANGE_LAWS,
    "greeks": GREEKS,
    "forward_curves": FORWARD_CURVES,
    "lines": LINES,
    "line_forwards": LINE_FORWARDS,
    "ici_history": ICI_HISTORY,
    "ici_constituents": ICI_CONSTITUENTS,
    "ici": ICI,
    "ici_published": ICI_PUBLISHED,
    "ici_revisions": ICI_REVISIONS,
    "backtest": BACKTEST,
    "backtest_summary": BACKTEST_SUMMARY,
    "backtest_families": BACKTEST_FAMILIES,
    "line_backtest": LINE_BACKTEST,
    "accuracy": ACCURACY,
    "backtest_reliability": BACKTEST_RELIABILITY,
}

"""One explicit Parquet schema per warehouse table.

Prices are USD per million tokens (float64, null where a source does not give the field);
dates are calendar dates (UTC). `tiers` holds a JSON list of context tiers,
`[{"above": <prompt tokens>, "input": .., "output": .., "cache_read": ..}]`, where crossing the
threshold moves the whole request to that tier's rates (the providers' cliff billing).
"""

import pyarrow as pa

PRICE_FIELDS = ("input", "output", "cache_read", "cache_write", "reasoning")

_PRICES = [pa.field(name, pa.float64()) for name in PRICE_FIELDS] + [pa.field("tiers", pa.string())]

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
        pa.field("provider", pa.string(), nullable=False),
        pa.field("family", pa.string(), nullable=False),
        pa.field("tier", pa.string(), nullable=False),
        pa.field("is_reasoning", pa.bool_(), nullable=False),
        pa.field("context_window", pa.int64()),
        pa.field("aliases", pa.list_(pa.string()), nullable=False),
        pa.field("first_seen", pa.date32(), nullable=False),
        pa.field("status", pa.string(), nullable=False),
        pa.field("host_count", pa.int64(), nullable=False),
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
        pa.field("observed_on", pa.date32(), nullable=False),
    ]
)

SCHEMAS: dict[str, pa.Schema] = {
    "genai_prices": SOURCE_LISTING,
    "model_prices": SOURCE_LISTING,
    "price_archive": SOURCE_LISTING,
    "price_observations": PRICE_OBSERVATIONS,
    "models": MODELS,
    "providers": PROVIDERS,
    "price_history": PRICE_HISTORY,
}

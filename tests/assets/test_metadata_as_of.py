"""models.dev's statements reach the registry only from the package's upload day (2026-08-18)."""

from datetime import date

import pandas as pd

from assets.registry import _metadata_sources
from tests.small_universe import SmallUniverse

LISTING = pd.DataFrame({"provider": ["openai"], "source_model_id": ["gpt-4o"]})


def test_a_build_before_the_upload_day_reads_no_models_dev_statement():
    sources = SmallUniverse()
    *_, before = _metadata_sources(LISTING, LISTING, sources, date(2026, 8, 17))
    *_, on_the_day = _metadata_sources(LISTING, LISTING, sources, date(2026, 8, 18))
    assert before.empty and not on_the_day.empty
    assert ("openai", "gpt-4o") in set(zip(on_the_day["provider"], on_the_day["source_model_id"], strict=True))

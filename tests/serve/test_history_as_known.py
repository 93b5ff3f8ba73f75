"""`GET /v1/history/{ticker}?as_known=D`: the history as it could be known on D.

DEEPSEEK-V4-PRO's maker raised it on 2026-08-17 (0.435/0.87 to 0.66/1.98 $/M); genai-prices
published that dated rise in its release of 2026-08-31. Known on 2026-08-20, the price on
2026-08-17 to 20 was still the old one; known today, the rise is dated back to 2026-08-17.
"""

import pytest

URL = "/v1/history/DEEPSEEK-V4-PRO"


def _prices(client, query: str) -> list[tuple[str, float, float]]:
    answer = client.get(f"{URL}?{query}")
    assert answer.status_code == 200, answer.text
    return [(p["timestamp"], p["input"], p["beta"]) for p in answer.json()["data"]["prices"]]


def test_the_history_known_on_a_day_holds_what_was_published_by_then(client):
    assert _prices(client, "from=2026-08-16&as_known=2026-08-20") == [
        (f"2026-08-{day}", 0.435, 0.87) for day in range(16, 21)]
    assert _prices(client, "from=2026-08-16&to=2026-08-20") == [
        ("2026-08-16", 0.435, 0.87), *((f"2026-08-{day}", 0.66, 1.98) for day in range(17, 21))]
    # Once the release of 2026-08-31 is out, the rise is known, dated the maker's day.
    assert _prices(client, "from=2026-08-16&to=2026-08-20&as_known=2026-09-02") == \
        _prices(client, "from=2026-08-16&to=2026-08-20")


def test_the_history_known_on_the_snapshot_day_is_the_published_one(client, store):
    as_of = store.current().extra["as_of"]
    for ticker in ("DEEPSEEK-V4-PRO", "SONNET-4", "GPT-4O"):
        known = client.get(f"/v1/history/{ticker}?as_known={as_of}").json()["data"]
        published = client.get(f"/v1/history/{ticker}").json()["data"]
        assert known == published, ticker


@pytest.mark.parametrize("query, field", [("as_known=2030-01-01", "as_known"),
                                          ("as_known=2026-08-20&to=2026-09-01", "to")])
def test_a_day_not_known_yet_is_a_400_that_names_the_parameter(client, query, field):
    answer = client.get(f"{URL}?{query}")
    assert answer.status_code == 400
    assert answer.json()["errors"][0]["field"] == field

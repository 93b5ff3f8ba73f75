"""`GET /v1/events` pages: `cursor` in, `next_cursor` and `truncated` out. Read page by page, the
events of a window are each read once, in the order of one long page; a client that sends no
cursor gets the answer it always got, now saying whether the list was cut."""

from datetime import date

import pandas as pd
import pytest

from pipelines.events import VIEW_CHANGES
from serve.event_pages import cursor_of, event_page

WINDOW = "/v1/events?since=2020-01-01"


def _data(client, url):
    response = client.get(url)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def _pages(client, url, limit):
    pages, cursor = [], None
    while True:
        page = _data(client, f"{url}&limit={limit}" + (f"&cursor={cursor}" if cursor else ""))
        pages.append(page)
        cursor = page["next_cursor"]
        if cursor is None:
            return pages
        assert len(pages) < 1000, "the cursor never reached the end"


def test_cursor_pages_give_every_event_once_in_order(client, store):
    whole = _data(client, f"{WINDOW}&limit=1000")
    ids = [event["event_id"] for event in whole["events"]]
    events = store.read_table("events")
    assert len(ids) == (~events["kind"].isin(VIEW_CHANGES)).sum() > 20  # the small universe's whole history
    assert whole["truncated"] is False and whole["next_cursor"] is None
    pages = _pages(client, WINDOW, 7)
    assert [event["event_id"] for page in pages for event in page["events"]] == ids
    assert len(pages) == -(-len(ids) // 7)
    assert all(page["truncated"] and page["count"] == 7 for page in pages[:-1])
    assert pages[-1]["truncated"] is False and 1 <= pages[-1]["count"] <= 7


@pytest.mark.parametrize("query", ["&ticker=O3", "&kind=price_cut", "&ticker=o3.b", "&kind=hosts_changed"])
def test_cursor_pages_keep_the_filters(client, query):
    whole = [event["event_id"] for event in _data(client, f"{WINDOW}{query}&limit=1000")["events"]]
    paged = [event["event_id"] for page in _pages(client, f"{WINDOW}{query}", 2) for event in page["events"]]
    assert paged == whole and whole


def test_without_a_cursor_the_answer_is_the_first_page_and_says_it_was_cut(client):
    first = _data(client, f"{WINDOW}&limit=3")
    whole = _data(client, f"{WINDOW}&limit=1000")
    assert [e["event_id"] for e in first["events"]] == [e["event_id"] for e in whole["events"][:3]]
    assert (first["count"], first["limit"], first["since"]) == (3, 3, "2020-01-01")
    assert first["truncated"] is True and isinstance(first["next_cursor"], str)
    exact = _data(client, f"{WINDOW}&limit={whole['count']}")
    assert exact["truncated"] is False and exact["next_cursor"] is None


def test_a_cursor_after_the_last_event_is_an_empty_last_page(client):
    whole = _data(client, f"{WINDOW}&limit=1000")["events"]
    last = pd.Series({**whole[-1], "effective_date": date.fromisoformat(whole[-1]["effective_date"])})
    page = _data(client, f"{WINDOW}&cursor={cursor_of(last)}")
    assert page["events"] == [] and page["truncated"] is False and page["next_cursor"] is None


@pytest.mark.parametrize("cursor", ["x", "bm90IGpzb24", "WzEsMiwzXQ", "WyIyMDI1LTEzLTAxIiwiYSIsImIiLCJjIiwiZCJd",
                                    "%C3%A9", "W" * 2001])
def test_a_cursor_the_server_did_not_give_is_a_400_on_cursor(client, cursor):
    response = client.get(f"{WINDOW}&cursor={cursor}")
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "invalid_input" and body["errors"][0]["field"] == "cursor"


def _events(*rows):
    return pd.DataFrame([{"effective_date": date.fromisoformat(day), "ticker": ticker, "mode": "sync",
                          "field": "output", "event_id": f"{ticker}:sync:output:{day}"} for day, ticker in rows])


def test_a_cursor_whose_event_a_new_snapshot_dropped_goes_on_after_its_place():
    """A later build without the cursor's event: the page starts at the first event that sorts
    after it (newest first, then by ticker), so nothing is given twice or passed over."""
    before = _events(("2025-06-10", "A"), ("2025-06-10", "C"), ("2025-06-09", "A"))
    cursor = event_page(before, None, 1).next_cursor
    # Z is new and newer than any page read; A of the 10th is gone; B of the 10th is new.
    after = _events(("2025-06-11", "Z"), ("2025-06-10", "B"), ("2025-06-10", "C"), ("2025-06-09", "A"))
    page = event_page(after, cursor, 10)
    assert list(page.events["event_id"]) == ["B:sync:output:2025-06-10", "C:sync:output:2025-06-10",
                                             "A:sync:output:2025-06-09"]
    assert page.next_cursor is None and not page.truncated

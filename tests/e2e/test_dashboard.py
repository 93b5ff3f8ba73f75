"""The dashboard in a real browser: every page against a server on the session's snapshot, each
figure it shows (table cells and chart marks carry the API's value in data-* attributes) compared
with the same /v1 answer read directly, and the calculator used. (`scripts/screenshots.py` takes
the README's screenshots.)"""

import json
import re
import shlex
import shutil
import subprocess
from datetime import date

import pytest

from tests.e2e.conftest import DESKTOP, PHONE, open_page, stop_server
from tests.servers import start_server

pytestmark = pytest.mark.slow  # a real `oracle serve` process and Chromium

MODEL = "GPT-4O"  # its sync history holds all five provenance markers and two price changes
EVENTS_SINCE = "1970-01-01"


def _data(response):
    assert response.status_code == 200, response.text
    return response.json()["data"]


def _value(text):
    """A data-value attribute as the API's value: numbers, booleans, null (empty)."""
    if text in ("", None):
        return None
    if text in ("true", "false"):
        return text == "true"
    try:
        return float(text)
    except ValueError:
        return text


def _table(page, name):
    """{row key: {column: value}} of a table whose rows carry data-ticker (or data-tenor)."""
    return page.evaluate("""name => Object.fromEntries([...document.querySelectorAll(
        `table[data-table="${name}"] tbody tr`)].map(row => [row.dataset.ticker || row.dataset.tenor,
        Object.fromEntries([...row.querySelectorAll('td[data-col]')].map(td => [td.dataset.col, td.dataset.value]))]))""",
                         name)


def _cells(page, name):
    """Every row of a table as the list of its cells' data-value."""
    return page.evaluate("""name => [...document.querySelectorAll(`table[data-table="${name}"] tbody tr`)]
        .map(row => [...row.querySelectorAll('td')].map(td => td.dataset.value ?? td.textContent))""", name)


def _marks(page, selector):
    return page.evaluate("selector => [...document.querySelectorAll(selector)].map(mark => ({...mark.dataset}))",
                         selector)


def _last_changes(events):
    newest = {}
    for event in events:
        if event["mode"] != "sync":
            continue
        known = newest.get(event["ticker"])
        if (known is None or event["effective_date"] > known["effective_date"]
                or (event["effective_date"] == known["effective_date"] and event["field"] == "output"
                    and known["field"] != "output")):
            newest[event["ticker"]] = event
    return newest


BOARD_PRICES = ("input_sync", "cache_read_sync", "beta_sync", "beta_batch", "context_window")


def _current_text(model):
    return model["status"] == "active" and "text" in model["input_modalities"] and "text" in model["output_modalities"]


def test_board_holds_the_api_numbers(page, dashboard_base, api):
    spots = _data(api.get("/v1/spots"))
    open_page(page, f"{dashboard_base}/dashboard")
    board = _table(page, "board")
    # Current text models by default; deprecated, retired and non-text ones behind the box.
    assert set(board) == {model["ticker"] for model in spots if _current_text(model)}
    assert len(board) < len(spots)
    page.check("input[name=all]")
    assert "all=1" in page.url
    board = _table(page, "board")
    assert set(board) == {model["ticker"] for model in spots}
    for model in spots:
        row = board[model["ticker"]]
        for column in BOARD_PRICES:
            assert _value(row[column]) == model[column], (model["ticker"], column)
        blended = (3 * model["input_sync"] + model["beta_sync"]) / 4  # three input tokens to one output token
        assert _value(row["blended"]) == pytest.approx(blended, rel=1e-12), model["ticker"]
        assert row["status"] == model["status"]
        assert row["modality"] == f"{', '.join(model['input_modalities'])} → {', '.join(model['output_modalities'])}"
    assert page.locator("#status").is_hidden()
    assert "Snapshot" in page.locator("#snapshot").inner_text()
    page.uncheck("input[name=all]")


def _changes_since(page, other=""):
    """The `since` of the recent changes once they are shown (and differ from `other`)."""
    page.wait_for_function("other => (document.querySelector('[data-changes]').dataset.since || other) !== other",
                           arg=other)
    return page.locator("[data-changes]").get_attribute("data-since")


def test_board_lists_recent_cuts_and_rises_apart(page, dashboard_base, api):
    open_page(page, f"{dashboard_base}/dashboard")
    default_since = _changes_since(page)
    assert default_since == _data(api.get("/v1/events?kind=price_cut&limit=1"))["since"]  # the API's 30 days
    page.select_option("select[name=days]", "90")
    assert "days=90" in page.url
    since = _changes_since(page, default_since)
    assert (date.fromisoformat(default_since) - date.fromisoformat(since)).days == 60  # 90 days back, not 30
    for kind, name in (("price_cut", "cuts"), ("price_increase", "rises")):
        events = [e for e in _data(api.get(f"/v1/events?since={since}&kind={kind}&limit=1000"))["events"]
                  if e["mode"] == "sync"]
        changes = [_value(row[-1]) for row in _cells(page, name)]
        known = [change for change in changes if change is not None]  # none: a price that was 0 before
        assert sorted(known) == sorted(e["percent_change"] for e in events if e["percent_change"] is not None), kind
        assert changes == known + [None] * (len(events) - len(known))  # the unknown last
        assert known == sorted(known, reverse=name == "rises")  # the biggest cut, the biggest rise first


def test_board_on_a_phone_shows_current_prices_first(page, dashboard_base, api):
    spots = {model["ticker"]: model for model in _data(api.get("/v1/spots"))}
    page.set_viewport_size(PHONE)
    open_page(page, f"{dashboard_base}/dashboard")
    first = page.locator("table[data-table=board] tbody tr").first
    ticker = first.get_attribute("data-ticker")
    assert _current_text(spots[ticker])
    for column in ("input_sync", "beta_sync"):
        price = first.locator(f"td[data-col={column}]")
        assert price.is_visible() and price.bounding_box()["y"] < PHONE["height"], column
        assert price.bounding_box()["x"] + price.bounding_box()["width"] <= PHONE["width"]
        assert _value(price.get_attribute("data-value")) == spots[ticker][column]


def test_board_filters_sorts_and_searches(page, dashboard_base, api):
    spots = [model for model in _data(api.get("/v1/spots")) if _current_text(model)]
    open_page(page, f"{dashboard_base}/dashboard?provider=anthropic&tier=frontier")
    expected = {m["ticker"] for m in spots if m["provider"] == "anthropic" and m["tier"] == "frontier"}
    assert set(_table(page, "board")) == expected
    page.select_option("select[name=reasoning]", "yes")
    expected = {m["ticker"] for m in spots if m["provider"] == "anthropic" and m["tier"] == "frontier"
                and m["is_reasoning"]}
    assert set(_table(page, "board")) == expected
    assert "reasoning=yes" in page.url and "provider=anthropic" in page.url

    open_page(page, f"{dashboard_base}/dashboard")
    page.click("th[data-key=beta_sync] button")
    page.click("th[data-key=beta_sync] button")
    assert "sort=beta_sync" in page.url and "dir=desc" in page.url
    first = page.locator("table[data-table=board] tbody tr").first.get_attribute("data-ticker")
    top = max(m["beta_sync"] for m in spots if m["beta_sync"] is not None)
    assert next(m for m in spots if m["ticker"] == first)["beta_sync"] == top

    page.fill("input[name=q]", "sonnet-4")
    shown = set(_table(page, "board"))
    assert "SONNET-4" in shown and all("sonnet-4" in " ".join(
        str(m[k]) for k in ("ticker", "ticker_batch", "model_id", "display_name")).lower()
        for m in spots if m["ticker"] in shown)
    # An alias only the API knows opens the model it names.
    page.fill("input[name=q]", "anthropic/claude-sonnet-4")
    page.press("input[name=q]", "Enter")
    page.wait_for_url("**/dashboard/models/SONNET-4")


def test_model_page_holds_the_api_numbers(page, dashboard_base, api):
    curve = _data(api.get(f"/v1/forwards/{MODEL}"))
    history = _data(api.get(f"/v1/history/{MODEL}?points=changes"))
    events = _data(api.get(f"/v1/events?ticker={MODEL}&since={EVENTS_SINCE}&limit=1000"))
    greeks = _data(api.get(f"/v1/greeks/{MODEL}"))
    open_page(page, f"{dashboard_base}/dashboard/models/{MODEL}")

    forwards = _marks(page, "[data-chart=forward-curve] [data-layer=points-forwards] .point")
    assert [(m["tenor"], float(m["value"]), float(m["p05"]), float(m["p95"]), float(m["p_change"]))
            for m in forwards] == [(p["tenor"], p["beta_forward"], p["p05"], p["p95"], p["p_change"])
                                   for p in curve["forwards"]]
    assert float(_marks(page, "[data-chart=forward-curve] [data-layer=points-spot] .point")[0]["value"]) == curve["spot"]
    table = _cells(page, "forwards")
    assert [(row[0], _value(row[2]), _value(row[3]), _value(row[6])) for row in table] == [
        (p["tenor"], p["beta_forward"], p["beta_median"], p["p_change"]) for p in curve["forwards"]]

    points = sorted(_marks(page, "[data-chart=history] .point"), key=lambda m: m["date"])
    assert [(m["date"], float(m["value"]), m["provenance"]) for m in points] == [
        (p["timestamp"], p["beta"], p["provenance"]) for p in history["prices"]]
    provenances = {p["provenance"] for p in history["prices"]}
    assert provenances == {"published", "archived", "current"}  # change points: none carried forward
    legend = page.locator("[data-legend=provenance] li")
    for key in provenances:
        text = legend.filter(has=page.locator(f".point.{key}")).inner_text()
        count = sum(p["provenance"] == key for p in history["prices"])
        assert f"({count} point" in text and " — " in text
    # Each marker is drawn its own way: shape and colour class differ.
    shapes = {key: page.eval_on_selector(f"[data-chart=history] .point.{key}", "m => m.tagName + m.getAttribute('class')")
              for key in provenances}
    assert len(set(shapes.values())) == len(shapes)

    assert [row[0] for row in _cells(page, "events")] == [e["effective_date"] for e in events["events"]]
    assert page.locator(f"text={events['count']} price events in its whole history, newest first.").count() == 1
    six = next(p for p in curve["forwards"] if p["tenor"] == "6M")
    assert page.locator("[data-facts=now] dd").nth(1).inner_text() == f"{six['outlook']} (sync)"
    assert [_value(row[6]) for row in _cells(page, "events")] == [e["percent_change"] for e in events["events"]]
    sheet = dict(page.evaluate("""() => [...document.querySelectorAll('[data-facts=greeks] dd')]
        .map(dd => [dd.dataset.key, dd.dataset.value])"""))
    assert page.locator("details[data-fold=greeks]").get_attribute("open") is None  # folded until asked
    for key in ("theta", "sigma", "jump_rate", "prior_weight", "beta_sync", "r_in"):
        assert _value(sheet[key]) == greeks[key], key

    page.click("a[data-mode=batch]")
    page.wait_for_url("**?mode=batch")
    page.wait_for_selector("main[aria-busy='false'] [data-chart=forward-curve]")
    batch = _data(api.get(f"/v1/forwards/{MODEL}?mode=batch"))
    spot = _marks(page, "[data-chart=forward-curve] [data-layer=points-spot] .point")[0]
    assert float(spot["value"]) == batch["spot"]


def test_a_retired_models_page_gives_its_dates(page, dashboard_base, api):
    record = _data(api.get("/v1/models/BABBAGE-002"))
    assert record["status"] == "retired" and record["retired_on"]
    open_page(page, f"{dashboard_base}/dashboard/models/BABBAGE-002")
    dates = ", ".join(f"{word} {record[f'{word}_on']}" for word in ("deprecated", "retired") if record[f"{word}_on"])
    assert page.locator("[data-facts=now] dd").first.inner_text() == f"retired ({dates})"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_model_page_shows_its_prices_first_and_every_host(page, dashboard_base, api, viewport):
    ticker = "DEEPSEEK-V4-PRO"  # priced by the hour, hosted by others
    greeks = _data(api.get(f"/v1/greeks/{ticker}"))
    hosts = _data(api.post("/v1/providers", json={"model": ticker, "n_in": 3000, "n_out": 1000}))
    page.set_viewport_size(viewport)
    open_page(page, f"{dashboard_base}/dashboard/models/{ticker}")
    prices = page.locator("table[data-table=prices]")
    assert prices.bounding_box()["y"] < viewport["height"]  # above the fold
    shown = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('table[data-table=prices] tr[data-price]')]
        .map(row => [row.dataset.price, [...row.querySelectorAll('td')].map(td => td.dataset.value)]))""")
    assert _value(shown["output"][0]) == greeks["beta_sync"] and _value(shown["input"][0]) == greeks["input_sync"]
    assert all(_value(values[0]) == greeks[f"{'beta' if key == 'output' else key}_sync"] for key, values in shown.items())
    assert page.locator("[data-peak]").count() == 1
    rows = page.evaluate("""() => [...document.querySelectorAll('table[data-table=providers] tbody tr')].map(row => [row.dataset.provider,
        row.querySelector('td[data-col=spot_cost]').dataset.value])""")
    # Cheapest first, as the API lists them, the hosts that state no price last.
    assert [(name, _value(value)) for name, value in rows] == [(h["provider"], h["spot_cost"]) for h in
                                                               _priced_first(hosts["providers"])]
    assert len(rows) >= 2


def _states_no_price(host):
    return not (isinstance(host["spot_cost"], (int, float)) and host["spot_cost"] > 0)


def _priced_first(hosts):
    return [h for h in hosts if not _states_no_price(h)] + [h for h in hosts if _states_no_price(h)]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_hosts_without_a_price_are_marked_and_never_first(page, dashboard_base, api, viewport):
    ticker = "DEEPSEEK-V4-PRO"  # one of its hosts lists it at $0 input and $0 output
    hosts = _data(api.post("/v1/providers", json={"model": ticker, "n_in": 3000, "n_out": 1000}))["providers"]
    unpriced = [h["provider"] for h in hosts if _states_no_price(h)]
    assert unpriced and hosts[0]["provider"] in unpriced  # the API ranks the $0 host cheapest
    page.set_viewport_size(viewport)
    open_page(page, f"{dashboard_base}/dashboard/models/{ticker}")
    rows = page.evaluate("""() => [...document.querySelectorAll('table[data-table=providers] tbody tr')].map(row => ({
        provider: row.dataset.provider, unpriced: row.hasAttribute('data-unpriced'),
        badge: row.querySelector('[data-badge=unpriced]')?.textContent ?? null}))""")
    assert not rows[0]["unpriced"] and rows[0]["badge"] is None
    assert [row["provider"] for row in rows if row["unpriced"]] == unpriced
    assert [row["provider"] for row in rows[-len(unpriced):]] == unpriced  # listed last
    assert all(row["badge"] == "no price stated" for row in rows if row["unpriced"])
    assert all(row["badge"] is None for row in rows if not row["unpriced"])


def test_model_page_follows_aliases_and_explains_unknown_names(page, dashboard_base, api):
    open_page(page, f"{dashboard_base}/dashboard/models/claude-sonnet-4-0")
    assert page.url.endswith("/dashboard/models/SONNET-4")
    assert page.locator("h1[data-ticker=SONNET-4]").count() == 1

    problem = api.get("/v1/greeks/NO-SUCH-MODEL").json()
    open_page(page, f"{dashboard_base}/dashboard/models/NO-SUCH-MODEL")
    box = page.locator(".problem[role=alert]")
    assert problem["detail"] in box.inner_text() and "HTTP 404" in box.inner_text()


def test_calculator_ranks_as_the_api_does(page, dashboard_base, api):
    open_page(page, f"{dashboard_base}/dashboard/calculator")
    for name, value in {"n_in": "12000", "n_out": "900", "eta": "0.25", "n_think": "1500", "horizon": "3"}.items():
        page.fill(f"input[name={name}]", value)
    page.click("form[data-form=calculator] button[type=submit]")
    page.wait_for_url("**n_think=1500**")
    page.wait_for_selector("[data-results][aria-busy=false] table[data-table=ranking]")
    assert "n_in=12000" in page.url and "horizon=3" in page.url
    body = {"n_in": 12000, "n_out": 900, "eta": 0.25, "n_think": 1500, "horizon_months": 3}
    answer = _data(api.post("/v1/compare", json=body))

    ranking = _table(page, "ranking")
    order = page.evaluate("() => [...document.querySelectorAll('table[data-table=ranking] tbody tr')]"
                          ".map(row => row.dataset.ticker)")
    assert order == [model["ticker"] for model in answer["models"]]
    for model in answer["models"]:
        for column in ("spot_cost", "forward_cost", "kappa", "beta", "r_in_eff"):
            assert _value(ranking[model["ticker"]][column]) == model[column], (model["ticker"], column)
        assert ranking[model["ticker"]]["outlook"] == model["outlook"]  # "will it get cheaper?" in words
    bars = _marks(page, "[data-chart=compare-bars] .bar")
    assert [(b["ticker"], float(b["value"])) for b in bars] == [
        (m["ticker"], m["spot_cost"]) for m in answer["models"][:20]]
    assert [(row[0], row[1]) for row in _cells(page, "excluded")] == [
        (item["ticker"], item["reason"]) for item in answer["excluded"]]

    curl = page.locator("[data-curl]").inner_text()
    assert curl == (f"curl -s -X POST '{dashboard_base}/v1/compare' -H 'content-type: application/json' "
                    f"-d '{json.dumps(body, separators=(',', ':'))}'")
    if shutil.which("curl"):  # the command, run as shown, answers what the page shows
        replayed = subprocess.run(shlex.split(curl), capture_output=True, text=True, timeout=60, check=True)
        assert json.loads(replayed.stdout)["data"]["models"] == answer["models"]
    assert page.locator("[data-permalink]").get_attribute("href") == page.url
    page.evaluate("window.scrollTo(0, 0)")

    page.fill("input[name=eta]", "1.5")
    page.click("form[data-form=calculator] button[type=submit]")
    page.wait_for_selector("[data-results] .problem")
    problem = api.post("/v1/compare", json={**body, "eta": 1.5}).json()
    assert problem["detail"] in page.locator("[data-results] .problem").inner_text()
    assert page.locator("[data-error-for=eta]").inner_text() == problem["errors"][0]["message"]


def test_calculator_budgets_a_month_of_a_task_preset(page, dashboard_base, api):
    coding = next(task for task in _data(api.get("/v1/task-types")) if task["task_type"] == "coding")
    open_page(page, f"{dashboard_base}/dashboard/calculator")
    page.select_option("select[name=task]", "coding")
    assert {name: float(page.input_value(f"input[name={name}]")) for name in ("n_in", "n_out", "eta", "n_think")} == \
        {name: coding[name] for name in ("n_in", "n_out", "eta", "n_think")}
    # The preset says what its thinking tokens stand for: none, so a reasoning model's cost is a floor.
    assert page.inner_text("[data-name=task-thinking]") == f"coding {coding['thinking']}."
    page.fill("input[name=n_think]", "500")
    assert page.input_value("select[name=task]") == "" and page.inner_text("[data-name=task-thinking]") == ""
    profile = {name: coding[name] for name in ("n_in", "n_out", "eta", "n_think")}
    # The address holds every input: the same calculation from it.
    query = "&".join(f"{name}={value:g}" for name, value in profile.items())
    open_page(page, f"{dashboard_base}/dashboard/calculator?task=coding&{query}&requests=100000"
                    "&models=SONNET-4,GPT-4O,O3,GEMINI-2.5-FLASH")
    assert page.input_value("select[name=task]") == "coding"
    page.wait_for_selector("[data-budget][aria-busy=false] table[data-table=budget]")
    answer = _data(api.post("/v1/compare", json={**profile, "models": ["SONNET-4", "GPT-4O", "O3", "GEMINI-2.5-FLASH"]}))
    assert [row[0] for row in _cells(page, "ranking")][:1] == ["1"]
    assert list(_table(page, "ranking")) == [model["ticker"] for model in answer["models"]]
    budget = _table(page, "budget")
    assert list(budget) == [model["ticker"] for model in answer["models"][:3]]
    for model in answer["models"][:3]:
        month = _data(api.post("/v1/simulate", json={"items": [{"model": model["ticker"], "mode": "sync", "profile": profile,
                                                                "requests_per_month": 100000}],
                                                     "horizon_months": 1, "paths": 2000, "seed": 1}))["months"][0]
        row = budget[model["ticker"]]
        assert (_value(row["expected_spend"]), _value(row["p05"]), _value(row["p95"])) == (
            month["expected_spend"], month["p05"], month["p95"])
        assert month["p05"] <= month["p95"]
    per_thousand = _table(page, "ranking")[answer["models"][0]["ticker"]]["per_thousand"]
    assert _value(per_thousand) == pytest.approx(answer["models"][0]["spot_cost"] * 1000, rel=1e-12)
    # Results come before the curl command, and no cost is written in e-notation.
    assert page.evaluate("""() => !!(document.querySelector('[data-results]').compareDocumentPosition(
        document.querySelector('[data-curl]')) & Node.DOCUMENT_POSITION_FOLLOWING)""")
    assert "e-" not in page.locator("[data-results]").inner_text()


def test_calculator_budgets_following_the_line(page, dashboard_base, api):
    """"follow the line": each budget row is the API's simulation following the model's line, with its
    line forward in the API's words; a model that is not its line's current one says why."""
    shortlist = ["HAIKU-5.5", "GPT-5.4", "SONNET-4"]
    profile = {"n_in": 2000, "n_out": 500, "eta": 0, "n_think": 0}
    query = "&".join(f"{name}={value:g}" for name, value in profile.items())
    open_page(page, f"{dashboard_base}/dashboard/calculator?{query}&horizon=6&requests=100000&follow=line"
                    f"&models={','.join(shortlist)}")
    assert page.input_value("select[name=follow]") == "line"
    page.wait_for_selector("[data-budget][aria-busy=false] table[data-table=budget]")
    budget = _table(page, "budget")
    assert set(budget) == set(shortlist)
    for ticker in ("HAIKU-5.5", "GPT-5.4"):
        data = _data(api.post("/v1/simulate", json={"items": [{"model": ticker, "mode": "sync", "profile": profile,
                                                               "requests_per_month": 100000, "follow": "line"}],
                                                    "horizon_months": 6, "paths": 2000, "seed": 1}))
        month, line = data["months"][5], data["workloads"][0]["line"]
        assert (_value(budget[ticker]["expected_spend"]), _value(budget[ticker]["p95"])) == (
            month["expected_spend"], month["p95"])
        cell = page.locator(f"table[data-table=budget] tr[data-ticker='{ticker}'] td[data-col=line_outlook]")
        assert cell.inner_text() == line["outlook"] and line["outlook"].startswith("following the line: expected ")
    refused = page.locator("table[data-table=budget] tr[data-ticker='SONNET-4'] td[data-col=line_outlook]")
    assert refused.inner_text().startswith("cannot follow: SONNET-4 is not the current model of its line")
    assert _value(budget["SONNET-4"]["expected_spend"]) is None
    # Staying on each model (the default) has no such column.
    page.select_option("select[name=follow]", "model")
    page.click("form[data-form=calculator] button[type=submit]")
    page.wait_for_selector("[data-budget][aria-busy=false] table[data-table=budget]")
    assert page.locator("td[data-col=line_outlook]").count() == 0 and "follow=" not in page.url


def test_model_page_says_its_lines_forward_when_it_is_the_current_model(page, dashboard_base, api):
    priced = _data(api.post("/v1/price", json={"model": "HAIKU-5.5", "n_in": 3000, "n_out": 1000,
                                               "horizon_months": 6, "follow": "line"}))
    open_page(page, f"{dashboard_base}/dashboard/models/HAIKU-5.5")
    facts = page.locator("[data-facts=now] dd")
    assert page.locator("[data-facts=now] dt").nth(2).inner_text() == "Its line, anthropic/haiku"
    assert facts.nth(2).inner_text() == priced["line_forward"]["outlook"]
    open_page(page, f"{dashboard_base}/dashboard/models/SONNET-4")  # not its line's current model
    assert page.locator("[data-facts=now] dt", has_text="Its line").count() == 0


def test_calculator_filters_the_ranking_by_provider_and_tier(page, dashboard_base, api):
    profile = {"n_in": 8000, "n_out": 1200, "eta": 0.5, "n_think": 0}
    answer = _data(api.post("/v1/compare", json=profile))
    tiers = {row["ticker"]: row["tier"] for row in _data(api.get("/v1/spots?fields=ticker,tier"))}
    query = "&".join(f"{name}={value:g}" for name, value in profile.items())
    for provider, tier in (("openai", ""), ("", "efficient"), ("anthropic", "frontier")):
        open_page(page, f"{dashboard_base}/dashboard/calculator?{query}&requests=100000&provider={provider}&tier={tier}")
        page.wait_for_selector("[data-budget][aria-busy=false]")
        wanted = [m["ticker"] for m in answer["models"]
                  if provider in ("", m["provider"]) and tier in ("", tiers[m["ticker"]])]
        assert wanted, (provider, tier)
        assert list(_table(page, "ranking")) == wanted
        assert list(_table(page, "budget")) == wanted[:3]
        assert page.input_value("select[name=provider]") == provider and page.input_value("select[name=tier]") == tier
        summary = page.locator("dl[data-facts=summary]").inner_text()
        assert wanted[0] in summary
    # The filters are the page's: the curl command is the API call over every model.
    assert "provider" not in page.locator("[data-curl]").inner_text()


def test_index_page_holds_the_three_variants(page, dashboard_base, api):
    open_page(page, f"{dashboard_base}/dashboard/index")
    for variant in ("unified", "batch", "sync"):
        level = _data(api.get(f"/v1/ici?type={variant}"))
        line = page.locator(f"[data-chart=ici-history] path[data-series={variant}]")
        values = [None if v == "null" else float(v) for v in line.get_attribute("data-values").split(",")]
        assert values == [point["value"] for point in level["history"]]
        assert line.get_attribute("data-first") == level["history"][0]["date"]
        table = _table(page, f"constituents-{variant}")
        assert list(table) == [item["ticker"] for item in level["constituents"]]
        for item in level["constituents"]:
            for column in ("weight", "price", "contribution"):
                assert _value(table[item["ticker"]][column]) == item[column]
        facts = page.locator(f"[data-facts=ici-{variant}] dd")
        assert level["verification_hash"] in facts.nth(4).inner_text()
        assert _value(facts.nth(0).get_attribute("data-value")) == level["value"]
        assert _value(facts.nth(5).get_attribute("data-value")) == level["link_factor"]
        # Each variant is labelled with the basket it covers: batch is another basket, not batch vs sync.
        assert level["covers"] in page.locator(f"[data-covers={variant}]").inner_text()
        heading = page.locator(f"[data-variant={variant}] h2").inner_text()
        assert heading.startswith({"unified": "unified (whole basket", "sync": "sync (whole basket)",
                                   "batch": "batch (only constituents offering batch)"}[variant])
        # The headline's changes: today's level over the last one a month before and at the end of last year.
        as_of = date.fromisoformat(level["as_of"])
        for name, since in (("1M", as_of.replace(month=as_of.month - 1) if as_of.month > 1 else
                             as_of.replace(year=as_of.year - 1, month=12)), ("YTD", date(as_of.year - 1, 12, 31))):
            before = [p["value"] for p in level["history"] if p["date"] <= since.isoformat() and p["value"] is not None]
            shown = page.locator(f"[data-headline={variant}] [data-change='{name}']").get_attribute("data-value")
            if before:
                assert _value(shown) == pytest.approx((level["value"] / before[-1] - 1) * 100, rel=1e-12), name
            else:
                assert shown == "", name
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_accuracy_page_holds_the_backtest(page, dashboard_base, api):
    accuracy = _data(api.get("/v1/accuracy"))
    open_page(page, f"{dashboard_base}/dashboard/accuracy")
    assert page.locator("[data-name=headline]").inner_text() == accuracy["headline"]
    # A plain word per tenor on whether the oracle beats "the price stays flat", by CRPS and its gap's s.e.
    for row in (row for row in accuracy["tenors"] if row["scope"] == "all"):
        gap = row["crps_flat"] - row["crps"]
        expected = "better" if gap > row["crps_gap_se"] else "about_the_same" if gap >= -row["crps_gap_se"] else "worse"
        verdict = page.locator(f"ul.plain-verdicts li[data-tenor='{row['tenor']}']")
        assert verdict.get_attribute("data-verdict") == expected, row["tenor"]
        assert verdict.inner_text().startswith(f"At {row['tenor']}, ")
        left_out = page.locator(f"ul.exclusions li[data-tenor='{row['tenor']}']").inner_text()
        assert left_out.startswith(f"At {row['tenor']}, {row['n']} cases scored; {row['revisions_excluded']} left out")
        for key, words in (("hosts_changed", "a host median moving"), ("restated", "a restated listing"),
                           ("switch", "a switch of source"), ("slip", "a move undone within 62 days")):
            assert (f"{row[f'excluded_{key}']} {words}" in left_out) == (row[f"excluded_{key}"] > 0), (key, left_out)
    for scope in ("all", "fixed_name"):
        table = _table(page, f"accuracy-{scope}")
        rows = [row for row in accuracy["tenors"] if row["scope"] == scope]
        assert sorted(table) == sorted(row["tenor"] for row in rows)
        for row in rows:
            for column in ("n", "changed_share", "crps", "crps_flat", "crps_gap_se", "brier", "brier_base",
                           "rel_rmse", "rel_rmse_flat", "rel_rmse_single_exp", "coverage", "coverage_flat"):
                assert _value(table[row["tenor"]][column]) == row[column], (scope, row["tenor"], column)
    every = [row for row in accuracy["tenors"] if row["scope"] == "all"]
    bars = {(b["tenor"], b["method"]): float(b["value"]) for b in _marks(page, "[data-chart=accuracy-bars] .bar")}
    for row in every:
        assert bars[(row["tenor"], "flat")] == row["crps_flat"]
        assert bars[(row["tenor"], "oracle")] == row["crps"]
    verdicts = page.locator("ul.verdicts li").all_inner_texts()
    assert verdicts == [row["verdict"] for row in every]
    # Line forwards, scored like the rest: their table beside flat and the fixed model, and their verdicts.
    lines = [row for row in accuracy["tenors"] if row["scope"] == "line"]
    assert lines, "the accuracy table publishes the line forwards' scores"
    table = _table(page, "accuracy-line")
    assert sorted(table) == sorted(row["tenor"] for row in lines)
    for row in lines:
        for column in ("n", "changed_share", "crps", "crps_fixed", "crps_flat", "crps_gap_se", "crps_fixed_gap_se",
                       "brier", "brier_base", "rel_rmse", "rel_rmse_fixed", "rel_rmse_flat", "coverage",
                       "coverage_fixed", "coverage_flat"):
            assert _value(table[row["tenor"]][column]) == row[column], ("line", row["tenor"], column)
    assert page.locator("ul.line-verdicts li").all_inner_texts() == [row["verdict"] for row in lines]

    backtest = _data(api.get("/v1/backtest?method=oracle&tenor=3M&limit=1000&offset=0"))
    drawn = _marks(page, "[data-chart=predictions] .point")
    expected = [p for p in backtest["predictions"] if p["forecast"] > 0 and p["realised"] > 0]
    assert [(d["ticker"], d["anchor"], float(d["forecast"]), float(d["realised"])) for d in drawn] == [
        (p["ticker"], p["anchor"], p["forecast"], p["realised"]) for p in expected]
    assert page.locator("[data-total]").get_attribute("data-total") == str(backtest["total"])

    page.click(".tabs a[data-tenor='6M']")
    page.wait_for_url("**tenor=6M")
    page.wait_for_selector("main[aria-busy='false'] [data-chart=predictions]")
    assert page.locator("[data-total]").get_attribute("data-total") == str(
        _data(api.get("/v1/backtest?method=oracle&tenor=6M&limit=1"))["total"])


@pytest.mark.parametrize("path", ["/dashboard", f"/dashboard/models/{MODEL}", "/dashboard/calculator",
                                  "/dashboard/index", "/dashboard/accuracy"])
def test_pages_fit_a_narrow_screen(page, dashboard_base, path):
    page.set_viewport_size(PHONE)
    open_page(page, f"{dashboard_base}{path}")
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width


WIDE = {"width": 1440, "height": 900}
# Every page with a table or a chart; the model with the most hosts, and the calculator with a
# horizon (its widest ranking: the forward cost and the outlook in words) and a monthly budget.
EVERY_PAGE = ["/dashboard", f"/dashboard/models/{MODEL}", "/dashboard/models/DEEPSEEK-V4-PRO",
              "/dashboard/calculator?horizon=3&requests=100000", "/dashboard/index", "/dashboard/accuracy"]


def _open_whole(page, url):
    """A page once every panel is in (the board's changes, the calculator's budget)."""
    open_page(page, url)
    page.wait_for_load_state("networkidle")
    page.wait_for_function("() => ![...document.querySelectorAll('[aria-busy]')].some(node => node.ariaBusy === 'true')")


# [table, row, column, left, right, right edge of the box it scrolls in] of every cell of the first
# five rows shown of every table on the page.
FIRST_CELLS = """() => [...document.querySelectorAll('table[data-table]')].flatMap(table => {
    const box = (table.closest('.table-scroll') || table.parentElement).getBoundingClientRect();
    return [...table.tBodies[0].rows].filter(row => row.getClientRects().length).slice(0, 5).flatMap((row, i) =>
        [...row.cells].map(cell => { const edge = cell.getBoundingClientRect();
            return [table.dataset.table, i, cell.dataset.col || cell.dataset.label, edge.left, edge.right, box.right]; }));
})"""

# [chart, text, its size on the screen in CSS pixels] of every label drawn in a chart.
CHART_TEXT = """() => [...document.querySelectorAll('svg.chart text')].filter(text => text.textContent).map(text => {
    const chart = text.ownerSVGElement;
    const scale = chart.getBoundingClientRect().width / chart.viewBox.baseVal.width;
    return [chart.dataset.chart, text.textContent, parseFloat(getComputedStyle(text).fontSize) * scale];
})"""


@pytest.mark.parametrize("path", EVERY_PAGE)
def test_no_table_is_cut_off_on_a_wide_screen(page, dashboard_base, path):
    page.set_viewport_size(WIDE)
    _open_whole(page, f"{dashboard_base}{path}")
    tables = page.locator(".table-scroll table").count()
    cut = page.evaluate("""() => [...document.querySelectorAll('.table-scroll')]
        .filter(box => box.scrollWidth > box.clientWidth + 1).map(box => box.querySelector('table').dataset.table)""")
    assert tables and cut == []
    small = [(chart, text, size) for chart, text, size in page.evaluate(CHART_TEXT) if size < 11]
    assert small == []


@pytest.mark.parametrize("path", EVERY_PAGE)
def test_every_table_keeps_its_figures_on_a_phone(page, dashboard_base, path):
    """At 390 px each row of a table is a card of labelled figures: nothing to scroll sideways to."""
    page.set_viewport_size(PHONE)
    _open_whole(page, f"{dashboard_base}{path}")
    cells = page.evaluate(FIRST_CELLS)
    assert cells
    outside = [cell[:3] for cell in cells if cell[3] < 0 or cell[4] > min(PHONE["width"], cell[5]) + 0.5]
    assert outside == []
    labels = page.evaluate(CHART_TEXT)
    assert labels or "calculator" not in path and "accuracy" not in path and "models" not in path
    assert [(chart, text, size) for chart, text, size in labels if size < 11] == []
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= inner_width


def test_board_sorts_on_a_phone(page, dashboard_base, api):
    spots = [model for model in _data(api.get("/v1/spots")) if _current_text(model)]
    page.set_viewport_size(PHONE)
    open_page(page, f"{dashboard_base}/dashboard")
    assert page.locator("table[data-table=board] thead").bounding_box()["x"] < 0  # the headers are off screen
    menu = page.locator("[data-sort-menu=board]")
    assert menu.is_visible() and menu.bounding_box()["x"] + menu.bounding_box()["width"] <= PHONE["width"]
    page.select_option("[data-sort-menu=board] select[name=sort]", "beta_sync")
    page.select_option("[data-sort-menu=board] select[name=dir]", "desc")
    assert "sort=beta_sync" in page.url and "dir=desc" in page.url
    shown = [_value(row["beta_sync"]) for row in _table(page, "board").values()]
    assert shown[0] == max(m["beta_sync"] for m in spots if m["beta_sync"] is not None)
    known = [value for value in shown if value is not None]
    assert known == sorted(known, reverse=True)
    assert page.input_value("[data-sort-menu=board] select[name=sort]") == "beta_sync"
    # The filters are at hand too.
    page.select_option("select[name=provider]", "anthropic")
    assert {row["provider"] for row in _table(page, "board").values()} == {"anthropic"}


def test_a_long_list_shows_its_first_cards_on_a_phone(page, dashboard_base, api):
    answer = _data(api.post("/v1/compare", json={"n_in": 1000, "n_out": 500}))
    page.set_viewport_size(PHONE)
    open_page(page, f"{dashboard_base}/dashboard/calculator?n_in=1000&n_out=500&eta=0&n_think=0&requests=")
    page.wait_for_selector("[data-results][aria-busy=false] table[data-table=ranking]")
    rows = page.locator("table[data-table=ranking] tbody tr")

    def visible():
        return sum(rows.nth(i).is_visible() for i in range(rows.count()))

    total = answer["count"]
    assert rows.count() == total > 10  # every row is in the table, for the page's checks and a wide screen
    assert visible() == 10
    more = page.locator("[data-more=ranking]")
    assert more.is_visible() and more.inner_text() == f"Show {min(10, total - 10)} more (10 of {total} shown)"
    while more.count():
        more.click()
    assert visible() == total
    open_page(page, page.url)
    page.wait_for_selector("[data-results][aria-busy=false] table[data-table=ranking]")
    page.set_viewport_size(WIDE)  # a wide screen shows every row, in a box of its own, and no button
    assert visible() == total and page.locator("[data-more=ranking]").is_hidden()


def without_age(reason):
    return re.sub(r"data is [\d.]+ h old", "data is _ h old", reason)


def test_stale_data_and_api_errors_are_said_plainly(chromium, built_warehouse, tmp_path):
    # Data older than a millisecond is stale, and browsing without a key allows two requests an hour.
    process, base = start_server(built_warehouse, tmp_path / "data", stale_after_hours="0.0000003",
                                 dashboard_requests_per_hour="2")
    context = chromium.new_context()
    try:
        page = context.new_page()
        open_page(page, f"{base}/dashboard")
        descriptor = page.request.get(f"{base}/").json()
        assert descriptor["status"] == "degraded"
        banner = page.locator("#status")
        banner.wait_for(state="visible")
        assert banner.get_attribute("data-status") == "degraded"
        # The data's age moves on between the page's fetch of / and this one, so it is left out.
        assert without_age(descriptor["status_reason"]) in without_age(banner.inner_text())
        # The board needs three /v1 answers; beyond the second the API answers 429.
        problem = page.locator(".problem[role=alert]")
        assert "HTTP 429" in problem.inner_text()
        assert "dashboard's limit of 2 requests per hour" in problem.inner_text()
        assert "An API key has a higher limit" in problem.inner_text()

        # A key created in the access panel lifts the page to its tier's limit.
        page.locator("details.access summary").click()
        page.locator("#key-create").click()
        key = page.locator("#new-key").inner_text()
        assert page.evaluate("localStorage.getItem('oracle.apiKey')") == key
        usage = page.request.get(f"{base}/v1/keys/usage", headers={"X-API-Key": key}).json()["data"]
        assert (usage["tier"], usage["window"]["limit"]) == ("developer", 1000)
        with page.expect_request(lambda request: "/v1/spots" in request.url) as sent:
            open_page(page, f"{base}/dashboard")
        assert sent.value.headers.get("x-api-key") == key
        assert page.locator(".problem").count() == 0
        page.check("input[name=all]")
        assert page.locator("table[data-table=board] tbody tr").count() == descriptor["oracle"]["model_count"]
        summary = page.locator("#access-summary")
        assert summary.get_attribute("data-limit") == "1000"
        assert int(summary.get_attribute("data-remaining")) < 1000
        # The key's own usage counts what the board asked for (what the browser had not cached:
        # the two answers the free tier allowed are reused for their max-age).
        usage = page.request.get(f"{base}/v1/keys/usage", headers={"X-API-Key": key}).json()["data"]
        assert usage["per_endpoint"].get("GET /v1/events", 0) >= 1, usage["per_endpoint"]

        # A key the server does not know is refused with 401, and the page says what to do.
        page.evaluate("localStorage.setItem('oracle.apiKey', 'not-a-real-key')")
        open_page(page, f"{base}/dashboard/models/O3")  # answers not yet in the browser's cache
        assert "HTTP 401" in problem.inner_text() and "forget it or paste another" in problem.inner_text()
        page.locator("details.access summary").click()
        page.locator("#key-forget").click()
        assert page.evaluate("localStorage.getItem('oracle.apiKey')") is None
    finally:
        context.close()
        stop_server(process)


def test_browsing_every_page_leaves_the_free_tier_alone(chromium, built_warehouse, tmp_path):
    """The pages' /v1 requests carry the dashboard's cookie and count against the address's
    browsing limit, so a free tier of one request an hour does not stop them."""
    process, base = start_server(built_warehouse, tmp_path / "data", free_requests_per_hour="1",
                                 dashboard_requests_per_hour="800")
    context = chromium.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        for path in ("/dashboard", f"/dashboard/models/{MODEL}", "/dashboard/calculator", "/dashboard/index",
                     "/dashboard/accuracy"):
            open_page(page, base + path)
            page.wait_for_load_state("networkidle")
            assert page.locator(".problem").count() == 0, path
        summary = page.locator("#access-summary")
        assert summary.get_attribute("data-limit") == "800"
        # The five pages asked for 20 answers between them.
        assert 800 - 25 <= int(summary.get_attribute("data-remaining")) < 800
        # The same address outside the pages still has its one free request.
        free = page.request.get(f"{base}/v1/spots/O3", headers={"Cookie": ""})
        assert free.status == 200 and free.headers["ratelimit-limit"] == "1"
    finally:
        context.close()
        stop_server(process)


@pytest.mark.parametrize("broken", ["syntax", "missing"])
def test_a_page_whose_script_fails_says_so_instead_of_loading_forever(chromium, dashboard_base, broken):
    """The guard (static/guard.js) replaces "Loading…" with an alert when the page's module does
    not parse or does not load; the pages' own scripts are replaced here to make them fail."""
    context = chromium.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        if broken == "syntax":
            page.route("**/dashboard/static/board.js", lambda route: route.fulfill(
                status=200, content_type="text/javascript", body="export const = ;"))
        else:
            page.route("**/dashboard/static/board.js", lambda route: route.fulfill(status=404, body="gone"))
        page.goto(f"{dashboard_base}/dashboard")
        alert = page.locator("[data-page-error][role=alert]")
        alert.wait_for(timeout=10_000)
        assert "This page could not be shown." in alert.inner_text()
        assert "board.js" in alert.inner_text() or "failed" in alert.inner_text()
        assert page.locator("p.loading").count() == 0
    finally:
        context.close()


def test_the_keyboard_finds_a_skip_link_and_a_visible_focus(page, dashboard_base):
    open_page(page, f"{dashboard_base}/dashboard")
    page.keyboard.press("Tab")
    focused = page.evaluate("[document.activeElement.className, document.activeElement.getAttribute('href')]")
    assert focused == ["skip", "#main"]
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"


def test_chart_values_are_reached_by_keyboard_and_by_touch(page, dashboard_base, api):
    curve = _data(api.get(f"/v1/forwards/{MODEL}"))
    open_page(page, f"{dashboard_base}/dashboard/models/{MODEL}")
    forward = page.locator("[data-chart=forward-curve] [data-layer=points-forwards] .point").first
    forward.focus()
    readout = page.locator("[data-chart=forward-curve] [data-readout]")
    assert readout.text_content() == forward.get_attribute("aria-label")
    assert readout.text_content().startswith(f"{curve['forwards'][0]['tenor']}: mean ")
    assert forward.get_attribute("tabindex") == "0"
    point = page.locator("[data-chart=history] .point").last
    point.click()  # a tap
    assert page.locator("[data-chart=history] [data-readout]").text_content() == point.get_attribute("aria-label")

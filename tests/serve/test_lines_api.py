"""`/v1/lines` and `/v1/lines/{line}/forwards` on the small universe: the lines with their members,
and each line forward recomputed here from the published tables (`lines`, `processes`,
`change_laws`, `scheduled_changes`, `spots`) by the law of methodology §5, "Line forwards"."""

from datetime import date, timedelta

import numpy as np
import pytest

from tests.conftest import AS_OF

DAYS_PER_MONTH = 30.4375
PRIOR_MONTHS = 12.0  # the methodology's prior exposure


def _months(start: date, end: date) -> float:
    return (end - start).days / DAYS_PER_MONTH


def _rates_by_hand(lines, as_of: date) -> dict[str, float]:
    """λ of every line: successions over months observed, shrunk to the maker, the maker to all lines."""
    counts, exposure, maker_of = {}, {}, {}
    for line, rows in lines.groupby("line"):
        rows = rows[rows["released"] <= as_of]
        bounded = rows["release_basis"] == "before_retirement"
        start = min(rows.loc[~bounded, "released"]) if (~bounded).any() else min(rows["released"])
        retired = list(rows["retired_on"])
        end = max(retired) if all(d is not None and d <= as_of for d in retired) else as_of
        later = rows[rows["dated"] & ~rows["out_of_order"] & (rows["released"] > start)]
        counts[line], exposure[line] = later["released"].nunique(), max(_months(start, end), 0.0)
        maker_of[line] = rows["maker"].iloc[0]
    pooled = sum(counts.values()) / sum(exposure.values())
    maker_rate = {}
    for maker in set(maker_of.values()):
        mine = [line for line in counts if maker_of[line] == maker]
        maker_rate[maker] = ((sum(counts[x] for x in mine) + PRIOR_MONTHS * pooled)
                             / (sum(exposure[x] for x in mine) + PRIOR_MONTHS))
    return {line: (counts[line] + PRIOR_MONTHS * maker_rate[maker_of[line]]) / (exposure[line] + PRIOR_MONTHS)
            for line in counts}


def test_every_line_with_its_members_in_release_order(client, store):
    answer = client.get("/v1/lines")
    assert answer.status_code == 200
    body = answer.json()
    assert {"data", "oracle_timestamp", "cache_age_seconds"} <= set(body)
    lines = {line["line"]: line for line in body["data"]["lines"]}
    assert body["data"]["count"] == len(lines) == store.read_table("lines")["line"].nunique()
    haiku = lines["anthropic/haiku"]
    assert haiku["maker"] == "anthropic" and haiku["count"] == 2
    assert [m["ticker"] for m in haiku["members"]] == ["HAIKU-4.5", "HAIKU-5.5"]
    assert [m["position"] for m in haiku["members"]] == [1, 2]
    assert haiku["members"][0]["released"] == "2025-10-15" and haiku["members"][0]["release_basis"] == "first_seen"
    assert "family anthropic/haiku" in haiku["members"][1]["evidence"]
    assert [m["ticker"] for m in lines["anthropic/sonnet"]["members"]] == ["SONNET-3.7", "SONNET-4", "SONNET-4.5"]
    assert {"meta/llama-70b", "meta/llama-8b", "meta/llama-405b"} <= set(lines)  # sizes are lines


@pytest.mark.parametrize("line", ["anthropic/haiku", "google/gemini-flash", "anthropic/opus", "anthropic/sonnet"])
def test_a_line_forward_at_each_month_by_hand(client, store, by_hand, line):
    as_of = date.fromisoformat(AS_OF)
    answer = client.get(f"/v1/lines/{line}/forwards")
    assert answer.status_code == 200
    data = answer.json()["data"]
    assert [p["tenor"] for p in data["forwards"]] == [f"{h}M" for h in range(1, 13)]
    lines = store.read_table("lines")
    members = lines[lines["line"] == line]
    assert data["members"] == members.sort_values("position")["ticker"].tolist()
    # The current model: the newest in-order member released by the snapshot day and not retired then.
    live = members[[not later and ((r is not None and r > as_of) or (r is None and s != "retired"))
                    for r, s, later in zip(members["retired_on"], members["status"], members["out_of_order"],
                                           strict=True)]]
    current = live.sort_values("position")["ticker"].iloc[-1]
    assert data["current"] == current
    launched = lines[[d is not None and d <= as_of for d in lines["launch_date"]]]
    ratios = launched["successor_ratio"].dropna().to_numpy(float)
    law_mean = float(ratios.mean())
    rate = _rates_by_hand(lines, as_of)[line]
    retires = members.set_index("ticker").loc[current, "retired_on"]
    for point in data["forwards"]:
        h = point["months"]
        p_successor = 1 - np.exp(-rate * h)
        if retires is not None and retires <= as_of + timedelta(days=round(h * DAYS_PER_MONTH)):
            p_successor = 1.0
        fixed = by_hand.forward(current, "sync", h)
        assert point["succession_rate"] == pytest.approx(rate, rel=1e-9)
        assert point["p_successor"] == pytest.approx(p_successor, rel=1e-9)
        assert point["successor_mean"] == pytest.approx(law_mean, rel=1e-9)
        assert point["fixed_forward"] == pytest.approx(fixed, rel=1e-9)
        assert point["beta_forward"] == pytest.approx(fixed * (1 + p_successor * (law_mean - 1)), rel=1e-9)
        assert point["p05"] <= point["beta_median"] <= point["p95"]


def test_the_fixed_part_is_the_models_own_forward_curve(client):
    line = client.get("/v1/lines/anthropic/haiku/forwards").json()["data"]
    curve = client.get(f"/v1/forwards/{line['current']}").json()["data"]
    fixed = {p["tenor"]: p["fixed_forward"] for p in line["forwards"]}
    for point in curve["forwards"]:
        assert fixed[point["tenor"]] == pytest.approx(point["beta_forward"], rel=1e-12)


def test_an_unknown_line_is_a_404_that_names_it_and_suggests_close_names(client):
    answer = client.get("/v1/lines/anthropic/haiko/forwards")
    assert answer.status_code == 404
    body = answer.json()
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert body["code"] == "unknown_line" and "anthropic/haiko" in body["detail"]
    assert "anthropic/haiku" in body["suggestions"] and body["error"] == body["detail"]
    bare = client.get("/v1/lines/haiku/forwards").json()  # a name without its maker
    assert bare["code"] == "unknown_line" and bare["suggestions"] == ["anthropic/haiku"]
    nothing = client.get("/v1/lines/nobody/nothing-like-it/forwards").json()
    assert nothing["suggestions"] == [] and "maker/name" in nothing["detail"]


def test_a_bad_mode_is_a_400(client):
    answer = client.get("/v1/lines/anthropic/haiku/forwards?mode=flex")
    assert answer.status_code == 400 and answer.json()["errors"][0]["field"] == "mode"

"""An outsider's implementation of the index, written from `docs/methodology.md` §7 alone, must
reproduce the index cases of `docs/test_vectors.json` (methodology `ici-4.0`) and those of the
earlier version kept as published (`docs/test_vectors_ici-3.0.json`); and the code must still give
the current file's figures.

The implementation below imports nothing from `pipelines/` (a test checks that) and uses only
the standard library: if the document leaves a rule out, or the code does something the document
does not say, one of these tests fails."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from datetime import date
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILE = json.loads((ROOT / "docs" / "test_vectors.json").read_text())
VECTORS = FILE["index"]
CONSTANTS = VECTORS["constants"]
EARLIER = json.loads((ROOT / "docs" / "test_vectors_ici-3.0.json").read_text())
assert EARLIER["constants"] == CONSTANTS  # the constants did not change with ici-4.0


# --- ici-3.0 (kept as published), as the methodology states it: shared parts first ---------------

def blend(input_price: float, output_price: float) -> float:
    shares = CONSTANTS["blend"]
    return (shares["input"] * input_price + shares["output"] * output_price) / (shares["input"] + shares["output"])


def price_on(case: dict, ticker: str, mode: str, day: date) -> dict | None:
    """The statement in force on `day`, if any (a later entry restates an earlier one)."""
    found = None
    for entry in case["prices"]:
        if (entry["ticker"], entry["mode"]) == (ticker, mode) and \
                date.fromisoformat(entry["from"]) <= day <= date.fromisoformat(entry["to"]):
            found = entry
    return found


def positive_price_on(case: dict, ticker: str, mode: str, day: date) -> dict | None:
    """From ici-4.0: a statement prices nothing unless its input and output are both positive."""
    entry = price_on(case, ticker, mode, day)
    return entry if entry is not None and entry["input"] > 0 and entry["output"] > 0 else None


def first_sync_day(case: dict, ticker: str) -> date:
    return min(date.fromisoformat(e["from"]) for e in case["prices"] if (e["ticker"], e["mode"]) == (ticker, "sync"))


def tier_on(case: dict, model: dict, day: date) -> str | None:
    if model["tier_basis"] == "rule":
        return model["tier"]
    statement = price_on(case, model["ticker"], "sync", day)
    if statement is None:
        return None
    rule = CONSTANTS["tier_by_price"]
    if statement["output"] >= rule["frontier_output_at_least"]:
        return "frontier"
    return "efficient" if statement["output"] <= rule["efficient_output_at_most"] else "mid"


def host_count(case: dict, ticker: str, day: date) -> int:
    return len({h["provider"] for h in case["hosts"] if h["ticker"] == ticker and not h["is_origin"]
                and not h["superseded"] and date.fromisoformat(h["effective_date"]) <= day})


def unfinished(ticker: str) -> bool:
    return any(word in CONSTANTS["unfinished_words"] for word in ticker.upper().split("-"))


def capped_weights(raw: list[float]) -> list[float]:
    cap, n = CONSTANTS["cap"], len(raw)
    if n * cap < 1:
        return [1 / n] * n
    capped = [False] * n
    weights = [r / sum(raw) for r in raw]
    while any(w > cap + 1e-15 for w in weights):
        capped = [c or w > cap + 1e-15 for c, w in zip(capped, weights, strict=True)]
        free = sum(r for r, c in zip(raw, capped, strict=True) if not c)
        left = 1 - cap * sum(capped)
        weights = [cap if c else left * r / free for r, c in zip(raw, capped, strict=True)]
    return weights


def basket(case: dict) -> list[dict]:
    day = date.fromisoformat(case["rebalance_date"])
    best: dict[tuple[str, str], tuple] = {}
    for model in case["models"]:
        ticker, tier = model["ticker"], tier_on(case, model, day)
        retired = model["retired_by"] is not None and date.fromisoformat(model["retired_by"]) <= day
        if (model["maker"] not in CONSTANTS["major_makers"] or tier not in CONSTANTS["tiers"]
                or price_on(case, ticker, "sync", day) is None or model["pricing_basis"] != "maker"
                or unfinished(ticker) or retired):
            continue
        hosts = host_count(case, ticker, day)
        # Most hosts, then the newest first sync day, then the first ticker alphabetically.
        rank = (-hosts, -first_sync_day(case, ticker).toordinal(), ticker)
        if (model["maker"], tier) not in best or rank < best[(model["maker"], tier)][0]:
            best[(model["maker"], tier)] = (rank, {"ticker": ticker, "tier": tier, "hosts": hosts})
    chosen = sorted((member for _, member in best.values()), key=lambda m: m["ticker"])
    for member, weight in zip(chosen, capped_weights([1 + m["hosts"] for m in chosen]), strict=True):
        member["weight"] = weight
    return chosen


def level(case: dict, members: list[dict], day: date, variant: str) -> dict | None:
    priced = []
    retired = {m["ticker"]: m["retired_by"] for m in case["models"]}
    for member in members:
        gone = retired[member["ticker"]]
        if gone is not None and date.fromisoformat(gone) <= day:  # known retired: missing from that day
            continue
        sync = price_on(case, member["ticker"], "sync", day)
        batch = price_on(case, member["ticker"], "batch", day)
        used = {"sync": [sync], "batch": [batch], "unified": [sync, batch] if batch else [sync]}[variant]
        if sync is None and variant != "batch" or batch is None and variant == "batch":
            continue
        blends = [blend(s["input"], s["output"]) for s in used]
        share = CONSTANTS["batch_share"]
        value = blends[0] if len(blends) == 1 else (1 - share) * blends[0] + share * blends[1]
        stated = min(date.fromisoformat(s["stated_on"]) for s in used)
        priced.append((member["ticker"], member["weight"], value, stated))
    if not priced:
        return None
    total = sum(weight for _, weight, _, _ in priced)
    constituents = [[ticker, weight / total, value] for ticker, weight, value, _ in priced]
    payload = {"methodology_version": EARLIER["methodology_version"], "type": variant, "as_of": day.isoformat(),
               "constituents": sorted([t, round(w, 12), round(p, 12)] for t, w, p in constituents)}
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return {"value": sum(w * p for _, w, p in constituents),
            "carried_forward": sum(stated < day for *_, stated in priced),
            "oldest_input_days": max((day - stated).days for *_, stated in priced),
            "constituents": constituents,
            "verification_hash": hashlib.sha256(canonical.encode("utf-8")).hexdigest()}


# --- ici-4.0: positive rates, ties by release, chain-linked levels ---------------------------------

def release_day(model: dict) -> date | None:
    day = model.get("released_on") or model.get("first_seen")
    return date.fromisoformat(day) if day else None


def basket_v4(case: dict, day: date) -> list[dict]:
    best: dict[tuple[str, str], tuple] = {}
    for model in case["models"]:
        ticker = model["ticker"]
        sync = positive_price_on(case, ticker, "sync", day)
        tier = model["tier"] if model["tier_basis"] == "rule" else tier_by_price(sync)
        retired = model["retired_by"] is not None and date.fromisoformat(model["retired_by"]) <= day
        if (model["maker"] not in CONSTANTS["major_makers"] or tier not in CONSTANTS["tiers"] or sync is None
                or model["pricing_basis"] != "maker" or unfinished(ticker) or retired):
            continue
        hosts = host_count(case, ticker, day)
        released = release_day(model)
        # Most hosts, then the later release (a model without a date last), then the first ticker.
        rank = (-hosts, 0 if released else 1, -(released.toordinal() if released else 0), ticker)
        if (model["maker"], tier) not in best or rank < best[(model["maker"], tier)][0]:
            best[(model["maker"], tier)] = (rank, {"ticker": ticker, "tier": tier, "hosts": hosts})
    chosen = sorted((member for _, member in best.values()), key=lambda m: m["ticker"])
    for member, weight in zip(chosen, capped_weights([1 + m["hosts"] for m in chosen]), strict=True):
        member["weight"] = weight
    return chosen


def tier_by_price(statement: dict | None) -> str | None:
    if statement is None:
        return None
    rule = CONSTANTS["tier_by_price"]
    if statement["output"] >= rule["frontier_output_at_least"]:
        return "frontier"
    return "efficient" if statement["output"] <= rule["efficient_output_at_most"] else "mid"


def prices_v4(case: dict, members: list[dict], day: date, variant: str) -> dict[str, tuple[float, date]]:
    """ticker → (its price in the variant on `day`, the oldest statement it uses), for the members
    priced that day."""
    retired = {m["ticker"]: m["retired_by"] for m in case["models"]}
    out = {}
    for member in members:
        ticker = member["ticker"]
        if retired[ticker] is not None and date.fromisoformat(retired[ticker]) <= day:
            continue
        sync, batch = (positive_price_on(case, ticker, mode, day) for mode in ("sync", "batch"))
        used = {"sync": [sync], "batch": [batch], "unified": [sync, batch] if batch else [sync]}[variant]
        if None in used:
            continue
        blends = [blend(s["input"], s["output"]) for s in used]
        share = CONSTANTS["batch_share"]
        value = blends[0] if len(blends) == 1 else (1 - share) * blends[0] + share * blends[1]
        out[ticker] = (value, min(date.fromisoformat(s["stated_on"]) for s in used))
    return out


def history_v4(case: dict) -> tuple[dict[date, list[dict]], dict[str, dict[str, dict | None]]]:
    """The baskets, and per day and variant the published level, as §7 states them."""
    start, as_of = date.fromisoformat(case["start"]), date.fromisoformat(case["as_of"])
    days = [date.fromordinal(n) for n in range(start.toordinal(), as_of.toordinal() + 1)]
    basket_days = [d for d in days if d == start or (d.day == 1 and d.month in (1, 4, 7, 10))]
    baskets = {d: basket_v4(case, d) for d in basket_days}
    levels: dict[str, dict[str, dict | None]] = {d.isoformat(): {} for d in days}
    for variant in ("sync", "batch", "unified"):
        level, link_before, set_before = None, None, None
        for position, day in enumerate(days):
            members = baskets[max(d for d in basket_days if d <= day)]
            weights = {m["ticker"]: m["weight"] for m in members}
            today = prices_v4(case, members, day, variant)
            if position and level is not None:
                # The move from the day before, with the basket in force the day before.
                before_members = baskets[max(d for d in basket_days if d <= days[position - 1])]
                before_weights = {m["ticker"]: m["weight"] for m in before_members}
                old = prices_v4(case, before_members, days[position - 1], variant)
                new = prices_v4(case, before_members, day, variant)
                both = [t for t in old if t in new]
                if both:
                    level *= (sum(before_weights[t] * new[t][0] for t in both)
                              / sum(before_weights[t] * old[t][0] for t in both))
            if not today:
                levels[day.isoformat()][variant] = None
                link_before, set_before = None, None
                continue
            total = sum(weights[t] for t in today)
            raw = sum(weights[t] * p for t, (p, _) in today.items()) / total
            if level is None:
                level = raw
            link = level / raw
            changed = day in basket_days or set(today) != set_before
            effect = None if link_before is None else (link_before / link - 1 if changed else 0.0)
            constituents = [[t, weights[t] / total, p] for t, (p, _) in sorted(today.items())]
            payload = {"methodology_version": VECTORS["methodology_version"], "type": variant,
                       "as_of": day.isoformat(), "link_factor": round(link, 12),
                       "constituents": [[t, round(w, 12), round(p, 12)] for t, w, p in constituents]}
            canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
            levels[day.isoformat()][variant] = {
                "value": level, "link_factor": link, "composition_effect": effect,
                "carried_forward": sum(stated < day for _, stated in today.values()),
                "oldest_input_days": max((day - stated).days for _, stated in today.values()),
                "constituents": constituents,
                "verification_hash": hashlib.sha256(canonical.encode("utf-8")).hexdigest()}
            link_before, set_before = link, set(today)
    return baskets, levels


# --- the checks ------------------------------------------------------------------------------------

CASES = [pytest.param(case, id=case["name"][:40]) for case in VECTORS["cases"]]
EARLIER_CASES = [pytest.param(case, id=case["name"][:40]) for case in EARLIER["cases"]]


def _same_basket(mine: list[dict], theirs: list[dict]) -> None:
    assert [(m["ticker"], m["tier"], m["hosts"]) for m in mine] == [(t["ticker"], t["tier"], t["hosts"]) for t in theirs]
    assert [m["weight"] for m in mine] == pytest.approx([t["weight"] for t in theirs], abs=1e-12)


@pytest.mark.parametrize("case", CASES)
def test_the_documented_rules_reproduce_every_basket_of_the_history(case):
    baskets, _ = history_v4(case)
    assert [d.isoformat() for d in baskets] == list(case["expected"]["baskets"])
    for day, mine in baskets.items():
        _same_basket(mine, case["expected"]["baskets"][day.isoformat()])


@pytest.mark.parametrize("case", CASES)
def test_the_documented_rules_reproduce_every_chained_level_its_link_and_its_hash(case):
    _, levels = history_v4(case)
    assert list(levels) == list(case["expected"]["levels"])
    for day, by_variant in case["expected"]["levels"].items():
        for variant, expected in by_variant.items():
            mine = levels[day][variant]
            if expected is None:
                assert mine is None, (day, variant)
                continue
            for field in ("value", "link_factor"):
                assert mine[field] == pytest.approx(expected[field], rel=1e-12), (day, variant, field)
            if expected["composition_effect"] is None:
                assert mine["composition_effect"] is None, (day, variant)
            else:
                assert mine["composition_effect"] == pytest.approx(expected["composition_effect"], rel=1e-12,
                                                                   abs=1e-15), (day, variant)
            assert (mine["carried_forward"], mine["oldest_input_days"]) == (
                expected["carried_forward"], expected["oldest_input_days"]), (day, variant)
            assert [c[0] for c in mine["constituents"]] == [c[0] for c in expected["constituents"]]
            assert [c[1:] for c in mine["constituents"]] == [pytest.approx(c[1:], abs=1e-12)
                                                              for c in expected["constituents"]]
            assert mine["verification_hash"] == expected["verification_hash"], (day, variant)


def test_the_cases_show_what_ici_4_changed():
    """The chained case keeps its level across the change of basket and publishes the jump it
    would have made; the $0 model is never a constituent; the tie goes to the later release."""
    chained = VECTORS["cases"][0]["expected"]
    assert "GLM-FREE" not in {m["ticker"] for basket in chained["baskets"].values() for m in basket}
    rebalance = chained["levels"]["2026-04-01"]["sync"]
    assert rebalance["composition_effect"] != 0
    tie = VECTORS["cases"][1]["expected"]["baskets"]["2025-10-01"]
    assert [m["ticker"] for m in tie] == ["GEMINI-2.5-PRO", "SONNET-NEW"]


# --- ici-3.0, kept as published ------------------------------------------------------------------

@pytest.mark.parametrize("case", EARLIER_CASES)
def test_the_earlier_rules_reproduce_the_basket(case):
    _same_basket(basket(case), case["expected"]["basket"])


@pytest.mark.parametrize("case", EARLIER_CASES)
def test_the_earlier_rules_reproduce_every_level_its_flags_and_its_hash(case):
    members = basket(case)
    for day_text, levels in case["expected"]["levels"].items():
        for variant, expected in levels.items():
            mine = level(case, members, date.fromisoformat(day_text), variant)
            if expected is None:
                assert mine is None, (day_text, variant)
                continue
            assert mine["value"] == pytest.approx(expected["value"], abs=1e-12), (day_text, variant)
            assert (mine["carried_forward"], mine["oldest_input_days"]) == (
                expected["carried_forward"], expected["oldest_input_days"]), (day_text, variant)
            assert [c[0] for c in mine["constituents"]] == [c[0] for c in expected["constituents"]]
            assert [c[1:] for c in mine["constituents"]] == [pytest.approx(c[1:], abs=1e-12)
                                                              for c in expected["constituents"]]
            assert mine["verification_hash"] == expected["verification_hash"], (day_text, variant)


@pytest.mark.slow  # recomputes every test vector's index
def test_the_code_still_gives_the_files_figures():
    """The vectors are written by scripts/test_vectors.py from `pipelines/`; rewritten now, they
    must be the file as shipped."""
    spec = importlib.util.spec_from_file_location("test_vectors", ROOT / "scripts" / "test_vectors.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.vectors() == FILE

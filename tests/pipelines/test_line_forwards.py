"""The line forward's law (methodology §5, "Line forwards") on hand-made tables, with hand numbers."""

from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.forecast import ChangeLaw
from pipelines.line_forwards import (
    PRIOR_EXPOSURE_MONTHS,
    build_line_forwards,
    current_members,
    mixture_atoms,
    product_quantiles,
    succession_law,
    succession_rates,
)
from pipelines.months import months_between

AS_OF = date(2026, 1, 1)


def member(line, ticker, released, *, maker="m", basis="first_seen", retired_on=None, status="active",
           out_of_order=False, launch_date=None, ratio=np.nan):
    return {"line": line, "maker": maker, "family": line, "ticker": ticker, "released": date.fromisoformat(released),
            "release_basis": basis, "dated": basis == "first_seen", "out_of_order": out_of_order,
            "retired_on": date.fromisoformat(retired_on) if retired_on else None, "status": status,
            "launch_date": date.fromisoformat(launch_date) if launch_date else None, "successor_ratio": ratio}


LINES = pd.DataFrame([
    member("m/a", "A-1", "2024-01-01"),
    member("m/a", "A-2", "2024-07-01", launch_date="2024-07-02", ratio=0.5),
    member("m/a", "A-3", "2025-01-01", launch_date="2025-01-01", ratio=2.0),
    member("m/b", "B-1", "2025-01-01"),
    member("n/c", "C-1", "2023-07-26", maker="n", basis="data_start", retired_on="2024-01-01", status="retired"),
    member("n/c", "C-2", "2025-06-01", maker="n", out_of_order=True),
    member("n/c", "C-3", "2026-06-01", maker="n", launch_date="2026-06-01", ratio=9.0),  # after as_of
])


def test_succession_rates_shrink_each_line_to_its_maker_and_the_maker_to_every_line():
    rates = succession_rates(LINES, AS_OF).set_index("line")
    t_a, t_b = float(months_between(date(2024, 1, 1), AS_OF)), float(months_between(date(2025, 1, 1), AS_OF))
    t_c = float(months_between(date(2023, 7, 26), AS_OF))  # C-2 is out of order: no succession, line still open
    assert rates.loc["m/a", "successions"] == 2 and rates.loc["m/b", "successions"] == 0
    assert rates.loc["n/c", "successions"] == 0
    assert rates.loc["m/a", "exposure_months"] == pytest.approx(t_a)
    pooled = 2 / (t_a + t_b + t_c)
    maker_m = (2 + PRIOR_EXPOSURE_MONTHS * pooled) / (t_a + t_b + PRIOR_EXPOSURE_MONTHS)
    assert rates.loc["m/b", "maker_rate"] == pytest.approx(maker_m)
    assert rates.loc["m/a", "rate"] == pytest.approx((2 + PRIOR_EXPOSURE_MONTHS * maker_m) / (t_a + PRIOR_EXPOSURE_MONTHS))
    assert rates.loc["m/b", "rate"] == pytest.approx(PRIOR_EXPOSURE_MONTHS * maker_m / (t_b + PRIOR_EXPOSURE_MONTHS))


def test_a_line_whose_members_all_retired_is_observed_to_its_last_retirement():
    ended = pd.DataFrame([member("x/d", "D-1", "2024-01-01", retired_on="2024-07-01", status="retired"),
                          member("x/d", "D-2", "2024-03-01", retired_on="2024-10-01", status="retired")])
    rates = succession_rates(ended, AS_OF).set_index("line")
    assert rates.loc["x/d", "exposure_months"] == pytest.approx(float(months_between(date(2024, 1, 1),
                                                                                     date(2024, 10, 1))))


def test_the_succession_law_and_the_current_members_are_as_known_on_the_day():
    law = succession_law(LINES, AS_OF)
    assert law.ratios.tolist() == [0.5, 2.0] and law.mean == pytest.approx(1.25)  # 9.0 launched after as_of
    current = current_members(LINES, AS_OF).set_index("line")["ticker"].to_dict()
    assert current == {"m/a": "A-3", "m/b": "B-1"}  # C-1 retired, C-2 out of order, C-3 not yet released


def test_the_quantiles_of_a_product_of_two_atoms_and_laws():
    fixed = mixture_atoms(0.2, ChangeLaw(np.array([0.5]), np.array([1.0])))  # 1 w.p. 0.8, 0.5 w.p. 0.2
    successor = mixture_atoms(0.5, ChangeLaw(np.array([3.0]), np.array([1.0])))  # 1 or 3, even odds
    # X·Y: 0.5 (0.1), 1 (0.4), 1.5 (0.1), 3 (0.4); cumulative 0.1, 0.5, 0.6, 1.0.
    assert product_quantiles(fixed, successor, (0.05, 0.1, 0.5, 0.55, 0.95)).tolist() == [0.5, 0.5, 1.0, 1.5, 3.0]


def test_build_line_forwards_by_hand():
    lines = LINES[LINES["line"] == "m/a"].copy()
    lines.loc[lines["ticker"] == "A-3", "retired_on"] = date(2026, 3, 15)  # announced: the line must move by then
    months = np.arange(1, 13, dtype=float)
    by_month = 1 - 0.9 ** months  # a 10% chance of a change each month
    processes = pd.DataFrame({"ticker": "A-3", "mode": "sync", "months": months, "p_change": by_month,
                              "change_law": "cut", "rise_evidence": ""})
    laws = pd.DataFrame({"change_law": ["cut"], "ratio": [0.8], "weight": [1.0], "prior_weight": [0.0]})
    spots = pd.DataFrame({"ticker": ["A-3"], "beta_sync": [10.0], "beta_batch": [np.nan]})
    forwards = build_line_forwards(lines, processes, laws, spots, None, AS_OF)
    assert forwards["tenor"].tolist() == [f"{h}M" for h in range(1, 13)] and set(forwards["mode"]) == {"sync"}
    rate = float(succession_rates(lines, AS_OF)["rate"].iloc[0])
    one = forwards.iloc[0]
    p_successor = 1 - np.exp(-rate)
    assert one["p_successor"] == pytest.approx(p_successor)
    fixed = 10.0 * (1 + 0.1 * (0.8 - 1))
    assert one["fixed_forward"] == pytest.approx(fixed)
    assert one["beta_forward"] == pytest.approx(fixed * (1 + p_successor * (1.25 - 1)))
    # 2026-03-15 is 73 days on: from 3M (as_of + 91 days) a successor has come for sure.
    assert forwards["p_successor"].iloc[1] < 1 and (forwards["p_successor"].iloc[2:] == 1).all()
    assert forwards["retires_on"].iloc[0] == date(2026, 3, 15)
    # At 3M: R is 0.8 w.p. 0.271, else 1; Q is 0.5 or 2 at even odds. X = 10·R·Q: 4 (.1355), 5 (.3645),
    # 16 (.1355), 20 (.3645); the median is 5 (cumulative .5), the band 4 to 20.
    three = forwards.iloc[2]
    assert (three["p05"], three["beta_median"], three["p95"]) == pytest.approx((4.0, 5.0, 20.0))
    assert three["beta_forward"] == pytest.approx(10 * (1 - 0.271 * 0.2) * 1.25)

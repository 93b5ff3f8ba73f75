"""The original oracle's request names are read as ours, by one renaming of the raw body."""

import msgspec
import pytest

from serve.api.pricing import CompareRequest, PriceRequest
from serve.api.simulation import SimulateRequest
from serve.original_names import with_our_names
from serve.problems import Problem


def test_a_body_in_our_names_is_passed_on_as_it_is():
    raw = b'{"model": "SONNET-4", "n_in": 1000, "n_out": 200}'
    assert with_our_names(raw, PriceRequest) is raw


@pytest.mark.parametrize("name", ["ticker", "modelId"])
def test_ticker_and_model_id_are_the_model(name):
    raw = msgspec.json.encode({name: "SONNET-4", "nIn": 1000, "nOut": 200, "nThink": 50, "horizonMonths": 3})
    assert msgspec.json.decode(with_our_names(raw, PriceRequest)) == {
        "model": "SONNET-4", "n_in": 1000, "n_out": 200, "n_think": 50, "horizon_months": 3}


def test_only_fields_the_request_has_are_renamed():
    # A comparison has no `model`: a `ticker` there stays unknown, and strict decoding refuses it.
    raw = b'{"ticker": "SONNET-4", "nIn": 10, "nOut": 10}'
    assert msgspec.json.decode(with_our_names(raw, CompareRequest)) == {"ticker": "SONNET-4", "n_in": 10,
                                                                        "n_out": 10}


def test_one_field_under_both_names_must_agree():
    same = b'{"items": [], "horizonMonths": 3, "horizon_months": 3}'
    assert msgspec.json.decode(with_our_names(same, SimulateRequest))["horizon_months"] == 3
    with pytest.raises(Problem) as refused:
        with_our_names(b'{"model": "O3", "ticker": "GPT-4O", "n_in": 1, "n_out": 1}', PriceRequest)
    assert (refused.value.status, refused.value.errors[0]["field"]) == (400, "model")
    assert "'model' and as 'ticker' with different values" in refused.value.detail


def test_what_is_not_an_object_is_left_to_the_strict_decoding():
    assert with_our_names(b'["nIn", 1]', PriceRequest) == b'["nIn", 1]'
    assert with_our_names(b'{"nIn": 1', PriceRequest) == b'{"nIn": 1'

"""A long computed answer runs in a worker thread, so the event loop keeps serving other requests:
ranking every model (`/v1/compare`) is computed off the loop, a single price on it."""

import threading

import serve.api.pricing as pricing
from serve.direct import DIRECT


def test_compare_is_computed_in_a_worker_thread_and_price_on_the_loop(client):
    seen = {}
    specs = {"compare": pricing.compare.opt[DIRECT], "price": pricing.price.opt[DIRECT]}
    computes = {route: spec.compute for route, spec in specs.items()}

    def recording(route):
        def compute(snapshot, body):
            seen[route] = threading.current_thread().name
            return computes[route](snapshot, body)
        return compute

    try:
        for route, spec in specs.items():  # the specs are frozen: swapped in place for this test only
            object.__setattr__(spec, "compute", recording(route))
        assert client.post("/v1/compare", json={"n_in": 1000, "n_out": 500}).status_code == 200
        assert client.post("/v1/price", json={"model": "O3", "n_in": 1000, "n_out": 500}).status_code == 200
    finally:
        for route, spec in specs.items():
            object.__setattr__(spec, "compute", computes[route])
    assert seen["compare"] != seen["price"] and "worker" in seen["compare"].lower()

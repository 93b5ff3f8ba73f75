"""A long computed answer runs in a worker thread, so the event loop keeps serving other requests:
ranking every model (`/v1/compare`), a Monte Carlo run and a budget simulation are computed off
the loop, a single price on it. Bodies are ones no other test sends, so no answer comes from memory."""

import threading

import pytest

import serve.api.pricing as pricing
import serve.api.simulation as simulation
from pipelines.forecast import Process
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
        assert client.post("/v1/compare", json={"n_in": 1000.25, "n_out": 500}).status_code == 200
        assert client.post("/v1/price", json={"model": "O3", "n_in": 1000.25, "n_out": 500}).status_code == 200
    finally:
        for route, spec in specs.items():
            object.__setattr__(spec, "compute", computes[route])
    assert seen["compare"] != seen["price"] and "worker" in seen["compare"].lower()


MONTE_CARLO = "/v1/monte-carlo/O3?taskCategory=chat&horizonMonths=3&seed={}"
BUDGET = {"items": [{"model": "O3", "taskType": "chat", "requests_per_month": 1000}], "horizon_months": 3}


def _recording(seen, real):
    def record(*args, **kwargs):
        seen.append(threading.current_thread().name)
        return real(*args, **kwargs)
    return record


@pytest.mark.parametrize("call", [
    lambda client: client.get(MONTE_CARLO.format(424242)),
    lambda client: client.post("/v1/simulate", json={**BUDGET, "seed": 424242}),
], ids=["monte-carlo", "simulate"])
def test_the_paths_of_the_law_are_drawn_in_a_worker_thread(client, monkeypatch, call):
    """Both draw their paths with `Process.sample` (the law's own sampler): each call is watched
    where it runs."""
    seen = []
    monkeypatch.setattr(Process, "sample", _recording(seen, Process.sample))
    assert call(client).status_code == 200
    assert len(seen) == 1 and "worker" in seen[0].lower() and seen[0] != threading.main_thread().name


def test_the_budget_simulation_is_computed_in_a_worker_thread(client, monkeypatch):
    seen = []
    monkeypatch.setattr(simulation, "simulate_budget", _recording(seen, simulation.simulate_budget))
    assert client.post("/v1/simulate", json={**BUDGET, "seed": 434343}).status_code == 200
    assert len(seen) == 1 and "worker" in seen[0].lower() and seen[0] != threading.main_thread().name

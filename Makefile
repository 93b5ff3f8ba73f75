# Two commands do all the set-up on a fresh machine:
#   make run   build the warehouse from the bundled data and start the services
#   make test  run the whole test suite
# and `make test-fast` runs all but the slow tests (every API test among them), on every core.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
ORACLE_WAREHOUSE ?= $(CURDIR)/warehouse/snapshots
# Dagster keeps its runs and the schedule's state here, so they survive a restart.
DAGSTER_HOME ?= $(CURDIR)/.dagster_home
SERVICE_ENV := ORACLE_WAREHOUSE=$(ORACLE_WAREHOUSE) DAGSTER_HOME=$(DAGSTER_HOME)

.PHONY: install run refresh test test-fast lint bench screenshots validate clean

# Python keeps compiled modules (and pytest its assertion-rewritten tests) in __pycache__; where
# the environment forbids that, every test run, server and worker process compiles the project's
# sources again: collecting the tests alone took 10 s instead of 3.5 s.
unexport PYTHONDONTWRITEBYTECODE

$(INSTALLED): pyproject.toml clients/python/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]" -e clients/python
	touch $(INSTALLED)

install: $(INSTALLED)

# The instance's settings: telemetry off, since the oracle makes no network calls of its own.
$(DAGSTER_HOME)/dagster.yaml: $(INSTALLED) assets/instance.py
	$(BIN)/python -m assets.instance $(DAGSTER_HOME)

refresh: install $(DAGSTER_HOME)/dagster.yaml
	$(SERVICE_ENV) $(BIN)/oracle refresh

# Builds a snapshot, then serves the API (port 8000) and the Dagster UI (port 3000) with its
# daemon, so the daily 06:00 UTC schedule keeps the API's data fresh. Ctrl-C stops both. Both
# listen on this machine only unless told (`make run HOST=0.0.0.0`).
HOST ?= 127.0.0.1
run: refresh
	$(SERVICE_ENV) $(BIN)/oracle up --host $(HOST)

validate: install
	$(BIN)/dagster definitions validate -w workspace.yaml

# On every core (pytest-xdist): tests that must share one server or port carry the same
# `xdist_group` and run on one worker. The 15 slowest tests are listed at the end.
test: install
	$(BIN)/python -m pytest -n auto --dist loadgroup --durations=15

# Every test not marked slow: none builds the full bundled data's snapshot, starts or kills a
# server process, drives the browser or fuzzes. The API tests run here, on the small universe.
test-fast: install
	$(BIN)/python -m pytest -m "not slow" -n auto --dist loadgroup

# Benchmarks, run on purpose (never in the tests): in-process pricing and Monte Carlo, HTTP
# serving against the same stack's ceiling with wrk (Debian's package), and full refreshes of
# the bundled data and of synthetic universes 10x and 100x its tickers, and the refresh as the
# daemon runs it beside `oracle refresh` (about half an hour in
# all). Each writes its figures as JSON (and its own log); the report prints one table and
# writes it into docs/benchmarks.md.
bench: refresh
	$(BIN)/python -m bench.inprocess --warehouse $(ORACLE_WAREHOUSE) --json bench-inprocess.json > bench-inprocess.log; \
	$(BIN)/python -m bench.http --warehouse $(ORACLE_WAREHOUSE) --duration 5 --workers --json bench-http.json > bench-http.log; \
	$(BIN)/python -m bench.pipeline --json bench-pipeline.json > bench-pipeline.log; \
	$(BIN)/python -m bench.scheduled --json bench-scheduled.json > bench-scheduled.log; \
	$(BIN)/python -m bench.report

# The README's screenshots: every dashboard page at 1440x900 and 390x844, in headless Chromium
# (Debian's package), into docs/screenshots/.
screenshots: refresh
	$(BIN)/python scripts/screenshots.py --warehouse $(ORACLE_WAREHOUSE)

lint: install
	$(BIN)/ruff check pipelines assets warehouse serve tests scripts bench clients cli.py

clean:
	rm -rf $(VENV) .pytest_cache warehouse/snapshots .dagster_home

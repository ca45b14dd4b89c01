# The two commands: `make run` and `make test`. Both create .venv when missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Prefect's state (database, logs, a local server's) per checkout, never ~/.prefect
export PREFECT_HOME := $(CURDIR)/.prefect
export PREFECT_SERVER_ANALYTICS_ENABLED := false

.PHONY: run test bench lint clean system-packages

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/etplan demo

# the report test renders in headless Chromium; the server test runs PostgreSQL natively
SYSTEM_PACKAGES := $(if $(shell command -v chromium),,chromium) \
                   $(if $(wildcard /usr/lib/postgresql/*/bin/initdb),,postgresql)

system-packages:
	@if [ -n "$(strip $(SYSTEM_PACKAGES))" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SYSTEM_PACKAGES); \
	  else echo "note: install $(SYSTEM_PACKAGES) (Debian packages) or their tests skip"; fi; \
	fi

test: $(STAMP) system-packages
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

# every figure of docs/benchmarks.md and docs/results.md (46 min on the quiet 2-core machine,
# 2026-12-07; each script writes bench/results/ and, where it has one, only its own generated
# section of the docs, so one can be re-run alone)
bench: $(STAMP)
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/estimation.py
	$(BIN)/python bench/solver.py
	$(BIN)/python bench/solver.py --deadline
	$(BIN)/python bench/solver.py --scale
	$(BIN)/python bench/backtest.py
	$(BIN)/python bench/replay_speed.py
	$(BIN)/python bench/backtest.py --faithful tiresias,optimus-oracle,mip,mip-preemptive,optimus,greedy,fifo --time-limit 0.3
	$(BIN)/python bench/churn.py --processes 2 --time-limit 0.2 --settings defaults,kappa1,kappa3,critical1200-kappa4
	$(BIN)/python bench/elastic.py --time-limit 0.3
	$(BIN)/python bench/sweep.py

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) data/etplan.duckdb out .prefect

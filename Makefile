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

bench: $(STAMP)
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/estimation.py
	$(BIN)/python bench/solver.py
	$(BIN)/python bench/backtest.py

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) data/etplan.duckdb out .prefect

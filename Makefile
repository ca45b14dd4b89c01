# The two commands: `make run` and `make test`. Both create .venv when missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test bench lint clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/etplan demo

test: $(STAMP)
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
	rm -rf $(VENV) data/etplan.duckdb out

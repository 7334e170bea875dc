# tradeoff: everything installs into a local virtual environment (.venv).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# The tests of pools measured from scikit-learn and read from MLflow need their extras.
$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,sklearn,mlflow]'
	touch $@ $(VENV)/.installed

## run: install and open the app on the default scenario
run: $(VENV)/.installed
	$(BIN)/tradeoff

## lint: ruff, mypy --strict and the import contract
lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks scenarios sessions
	$(BIN)/mypy src
	$(BIN)/lint-imports

## test: install the test extras, lint, and run the test suite on two workers; the tests
## marked slow run in CI (CI=true) or with TRADEOFF_SLOW=1, and are skipped with that reason
## otherwise
test: lint
	$(BIN)/pytest -n 2

## bench: run every benchmark and write benchmarks/results/
bench: $(VENV)/.installed-test
	$(BIN)/python -m benchmarks.population
	$(BIN)/python -m benchmarks.elicitation
	$(BIN)/python -m benchmarks.copa
	$(BIN)/python -m benchmarks.evaluation
	$(BIN)/python -m benchmarks.tui_latency
	$(BIN)/python -m benchmarks.selection
	$(BIN)/python -m benchmarks.trace
	$(BIN)/python -m benchmarks.people
	$(BIN)/python -m benchmarks.decision
	$(BIN)/python -m benchmarks.omega
	$(BIN)/python -m benchmarks.synthetic
	$(BIN)/python -m benchmarks.first_weight

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build src/*.egg-info

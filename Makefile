# tradeoff: everything installs into a local virtual environment (.venv).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run check core test test-other-path lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# The tests of pools measured from scikit-learn and read from MLflow or Optuna, and of
# simulated people on a Dask cluster, need their extras.
$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,sklearn,mlflow,optuna,cluster]'
	# The decision-curve reference (tests/test_curves_dcurves.py), a peer for the tests only:
	# lifelines, which dcurves imports, pins pandas below 3 in its metadata though it runs on
	# it, so it is installed without its pins rather than let it downgrade pandas.
	$(BIN)/python -m pip install --quiet statsmodels 'autograd>=1.5' 'autograd-gamma>=0.3' \
		'formulaic>=0.2.2'
	$(BIN)/python -m pip install --quiet --no-deps 'dcurves>=1.1' 'lifelines>=0.27'
	touch $@ $(VENV)/.installed

## run: install and open the app on the default scenario
run: $(VENV)/.installed
	$(BIN)/tradeoff

## lint: ruff (its checks and its formatting), mypy --strict and the import contract
lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks scenarios sessions
	$(BIN)/ruff format --check src tests benchmarks scenarios sessions
	$(BIN)/mypy src
	$(BIN)/lint-imports

# Each test worker's numeric calls use one thread, as the engine's do in the command line
# and the study server (src/tradeoff/threads.py): two workers with OpenBLAS's thread per
# core each would crowd two cores with four threads.
test core test-other-path: export OPENBLAS_NUM_THREADS = 1

## test: install the test extras, lint, and run the test suite on two workers; the tests
## marked slow run in CI (CI=true) or with TRADEOFF_SLOW=1, and are skipped with that reason
## otherwise; then the numeric, snapshot and replay tests again on another numeric path
test: lint
	$(BIN)/pytest -n 2
	$(MAKE) test-other-path

## check: lint and the core tier only (no statistical, end-to-end or browser tests), side by
## side (mypy takes one core; the first run, without its cache, half a minute) (under a minute
## on two cores). Every test file declares its tier (`pytestmark = pytest.mark.core`, or
## stats, e2e, browser); a statistical test in a core file is marked stats, and so is every
## slow one; a test that runs whole sessions, commands or processes is in a file marked e2e.
## The run does not import the files it cannot select (tests/conftest.py), and the property
## tests that do not set their own number of examples try 25 (TRADEOFF_CHECK_EXAMPLES; `make
## test` tries hypothesis's 100).
check: $(VENV)/.installed-test
	$(MAKE) --no-print-directory -j 2 --output-sync=target lint core

## core: the core tier's tests alone
core: $(VENV)/.installed-test
	TRADEOFF_CHECK_EXAMPLES=1 $(BIN)/pytest -n 2 -m "core and not stats"

## test-other-path: the tests whose results a CPU's kernels could change (the engine's
## strategies, sessions and their replay, the export's posterior, the recommendation, the
## app's screens; each file marked `other_path`) under the numeric path most unlike this
## machine's default (numpy's AVX-512 kernels off and OpenBLAS's Haswell kernels on a CPU
## with AVX-512; see `python -m tradeoff.machines` and docs/architecture.md)
test-other-path: $(VENV)/.installed-test
	$(BIN)/python -m tradeoff.machines other -- $(BIN)/pytest -n 2 -m other_path

## bench: run every benchmark and write benchmarks/results/
bench: $(VENV)/.installed-test
	$(BIN)/python -m benchmarks.population
	$(BIN)/python -m benchmarks.elicitation
	taskset -c 0 $(BIN)/python -m benchmarks.engine_step
	$(BIN)/python -m benchmarks.study_load --participants 25 50 100 200 300 --workers 2
	$(BIN)/python -m benchmarks.copa
	$(BIN)/python -m benchmarks.evaluation
	$(BIN)/python -m benchmarks.tui_latency
	$(BIN)/python -m benchmarks.commands
	$(BIN)/python -m benchmarks.selection
	$(BIN)/python -m benchmarks.trace
	$(BIN)/python -m benchmarks.people
	$(BIN)/python -m benchmarks.decision
	$(BIN)/python -m benchmarks.omega
	$(BIN)/python -m benchmarks.synthetic
	$(BIN)/python -m benchmarks.first_weight
	$(BIN)/python -m benchmarks.cross_path
	$(BIN)/python -m benchmarks.slow_clients --slow 600 --addresses 10
	$(BIN)/python -m benchmarks.weights_mode --runs 30
	$(BIN)/python -m benchmarks.measurement_noise
	$(BIN)/python -m benchmarks.walk

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build src/*.egg-info

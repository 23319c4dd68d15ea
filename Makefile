# vcperf — two commands do all set-up:  make reproduce   and   make test
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: reproduce test test-fast lint data-check lock clean browser bench bench-readme readme app lab

# Create .venv with the pinned dependencies and the package (editable). Re-runs only when
# pyproject.toml or the lock change; no network is needed after this step.
# The lock is installed with uv (pinned in requirements/bootstrap.txt; it reads the same pinned
# requirements as pip, in parallel: about 3x faster on a fresh machine); pip does it if uv cannot be had.
# Both leave the bytecode of every installed module (.pyc), so no process compiles them from source.
VOILA_TEMPLATE := binder/voila/templates/vcperf/index.html.j2 binder/voila/templates/vcperf/conf.json
$(STAMP): pyproject.toml requirements/lock.txt requirements/bootstrap.txt binder/overrides.json $(VOILA_TEMPLATE)
	@echo "set-up: a virtual environment in $(VENV) with the pinned dependencies (once; 20 s to a few minutes)"
	$(PYTHON) -m venv $(VENV)
	@echo "set-up: installing requirements/lock.txt with uv (pip if uv fails), bytecode compiled ..."
	{ $(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements/bootstrap.txt && \
	  $(BIN)/uv pip install --quiet --python $(BIN)/python -r requirements/lock.txt --compile-bytecode && \
	  $(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e . ; } || \
	{ echo "note: uv failed; installing with pip" && \
	  $(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements/lock.txt && \
	  $(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e . ; }
	@# The editable package's bytecode too (uv's --compile-bytecode and pip compile site-packages, not the
	@# checkout). compileall writes .pyc even with PYTHONDONTWRITEBYTECODE=1 set (which many images and CI
	@# runners set, so that no process would ever write one and every import compiled from source, every time);
	@# timestamp-checked, so an edited module is compiled from source until it is compiled again.
	@echo "set-up: compiling the package's bytecode ..."
	$(BIN)/python -m compileall -q -j 0 --invalidation-mode timestamp vcperf
	@# JupyterLab of this venv opens notebooks/*.py as notebooks (Jupytext Notebook the default viewer of
	@# Python files), as binder/postBuild sets it up on Binder.
	mkdir -p $(VENV)/share/jupyter/lab/settings
	cp binder/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	@# The what-if app's Voila template (no style sheet from a CDN), as binder/postBuild installs it on Binder.
	mkdir -p $(VENV)/share/jupyter/voila/templates
	cp -r binder/voila/templates/vcperf $(VENV)/share/jupyter/voila/templates/
	touch $@
	@echo "set-up: done ($(VENV))"

## JupyterLab on the notebooks (start with index.py, the landing notebook; .py files open as notebooks) on
## port LAB_PORT, with LAB_ARGS added (e.g. LAB_ARGS="--no-browser --ip=0.0.0.0 --IdentityProvider.token=secret");
## as root (a container) with --allow-root, which Jupyter otherwise refuses to start without.
LAB_PORT ?= 8888
LAB_ARGS ?=
LAB_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/ --port=$(LAB_PORT) $(LAB_ROOT) $(LAB_ARGS)

## Regenerate every figure and table into build/ (it says what it does from the first second: the set-up, the
## calibration cache, each notebook started and finished).
reproduce: $(STAMP)
	@echo "reproduce: vcperf regenerate --jobs 2 (every notebook into build/, then the report and its API reference)"
	$(BIN)/vcperf regenerate --jobs 2

## Lint, then the whole test suite (data validation, models, notebooks, environment files,
## and a real-browser test of a notebook in JupyterLab) on every core (pytest-xdist; tests sharing an
## expensive fixture run on one worker: tests/conftest.py).
test: $(STAMP) browser
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n auto --dist loadgroup

## The fast tier, for the edit-test loop (minutes, not the CI gate): lint, then the models, protocol, site
## planner, CLI and doctests -- no browser, wheel, virtual environment, notebook execution or regeneration
## (tests marked slow, browser or kernel; pyproject's markers).
FAST_MARKERS := not slow and not browser and not kernel
test-fast: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n auto -m "$(FAST_MARKERS)"

## Chromium for the browser test, from Debian (needs root; without it the browser test is skipped
## with a message). Playwright drives it; Playwright never downloads a browser here.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } ; } || \
	  echo "note: chromium could not be installed; the browser test will be skipped"

## The what-if planner (notebooks/app.py) as a Voila app, without code, on http://127.0.0.1:$(APP_PORT)/
## (builds build/app/app.ipynb from the jupytext source first; Ctrl-C stops it).
APP_PORT ?= 8866
app: $(STAMP)
	$(BIN)/python -m vcperf.app --port $(APP_PORT)

## Write the ledger summary (vcperf fidelity --summary) into README.md (a test checks they agree).
readme: $(STAMP)
	$(BIN)/vcperf fidelity --readme README.md

lint: $(STAMP)
	$(BIN)/ruff check .

## Check every data file (values, units, provenance) against the format of data/README.md.
data-check: $(STAMP)
	$(BIN)/vcperf data validate

## Re-resolve requirements/lock.txt from pyproject's direct dependencies (needs the registry).
lock:
	rm -rf /tmp/vcperf-lock && $(PYTHON) -m venv /tmp/vcperf-lock
	/tmp/vcperf-lock/bin/pip install --quiet . '.[test]' && /tmp/vcperf-lock/bin/pip uninstall -y --quiet vcperf
	{ sed -n '1,2p' requirements/lock.txt; /tmp/vcperf-lock/bin/pip freeze; } > requirements/lock.tmp && mv requirements/lock.tmp requirements/lock.txt

clean:
	rm -rf $(VENV) .venv-peers build .pytest_cache

## Benchmarks (a report, never a test): the speed a user feels with its goals met/missed -- regenerate
## --jobs 2 warm and cold, `vcperf fidelity` warm, every what-if update, every panel in JupyterLab in headless
## Chromium, a Dask speed-up, the Voila app's first render, the set-up recipe (and `make test` with
## BENCH_ARGS=--with-tests), each beside the previous release (--baseline REF) measured in the same run -- then exact MVA vs line-solver and SimPy, batched sweep, import time,
## vMotion grid -> build/bench/results.json and a printed table. The 1-min load average is recorded with
## every measurement and a measurement started on a busy machine is repeated (BENCH_ARGS, e.g.
## BENCH_ARGS="--attempts 5 --wait 60"; `python bench/run.py --help`).
## line-solver needs pandas<3, so it lives in its own venv .venv-peers (exact pins, bench-peers.txt).
PEERS       := .venv-peers
PEERS_STAMP := $(PEERS)/.installed

$(PEERS_STAMP): requirements/bench-peers.txt
	$(PYTHON) -m venv $(PEERS)
	$(PEERS)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements/bench-peers.txt
	touch $@

bench: $(STAMP) $(PEERS_STAMP) browser
	MPLBACKEND=Agg $(BIN)/python bench/run.py --peers-python $(PEERS)/bin/python $(BENCH_ARGS)

## docs/PERFORMANCE.md's tables and README's speed paragraph from the last `make bench` (build/bench/results.json).
bench-readme: $(STAMP)
	$(BIN)/python bench/report.py --readme docs/PERFORMANCE.md --summary README.md

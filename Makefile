# Fray. `make run` serves the demo; `make test` runs every test. Both set themselves up on a fresh clone.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum < requirements.lock | cut -d' ' -f1)
# The browser tests' JavaScript (axe-core, for the accessibility audit): npm ci from package-lock.json.
NODE_STAMP := node_modules/.installed-$(shell cksum < package-lock.json | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8000
PG_URL ?= postgres://postgres@127.0.0.1:5432/fray
REDIS_TEST_URL ?= redis://127.0.0.1:6379/0
# pytest-xdist workers for the unit and browser suites (a browser test module stays on one worker, with its own
# daphne); `make test XDIST=` runs each in one process.
XDIST ?= auto
# The interpreter named in .python-version: pyenv's shim, a plain python3.13/3.12, or pyenv's install folder.
PYTHON ?= $(shell v=$$(cut -d. -f1,2 .python-version); \
	for c in "python$$v" "$$HOME/.pyenv/versions/$$v"*/bin/python$$v python3.13 python3.12; do \
	  p=$$(command -v $$c 2>/dev/null) && $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { echo $$p; break; }; \
	done)

.PHONY: help setup run check test test-unit test-e2e test-integration browser node-modules haproxy bench clean

help:
	@echo "make run   - set up and serve Fray with the demo campaign on http://$(HOST):$(PORT)/"
	@echo "make test  - set up and run the whole test suite"

$(STAMP): requirements.lock
	@test -n "$(PYTHON)" || { echo "Fray needs Python 3.12 or 3.13 (see .python-version)."; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -q -r requirements.lock
	@rm -f $(VENV)/.installed-*
	@touch $@

setup: $(STAMP)
	@git rev-parse --git-dir >/dev/null 2>&1 && git config core.hooksPath .githooks || true
	$(BIN)/python manage.py migrate --noinput -v0
	$(BIN)/python manage.py collectstatic --noinput -v0

run: setup
	$(BIN)/python manage.py load_demo
	@echo "Fray: http://$(HOST):$(PORT)/  (Ctrl-C stops the web server and the Celery worker)"
	@set -m; DEBUG=$${DEBUG:-true} $(BIN)/celery -A config worker --beat --pool=solo --loglevel=warning & \
	worker=$$!; trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	DEBUG=$${DEBUG:-true} $(BIN)/daphne -b $(HOST) -p $(PORT) config.asgi:application

# Debian's Chromium drives the browser tests (Playwright never downloads its own browser here).
browser:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "Install Debian's chromium package (sudo apt-get install chromium) for the browser tests."; exit 1; fi; }

# Debian's Node.js and npm install the test-only packages of package-lock.json (never served to a browser).
$(NODE_STAMP): package-lock.json
	@command -v npm >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; \
	  else echo "Install Debian's npm package (sudo apt-get install npm) for the browser tests."; exit 1; fi; }
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

node-modules: $(NODE_STAMP)

# Lint, format, types and migrations: `make test` runs it before the suites.
check: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python manage.py makemigrations --check --dry-run

test: check test-unit test-e2e

test-unit: setup
	$(BIN)/pytest -m "not integration and not e2e" $(if $(XDIST),-n $(XDIST))

test-e2e: setup browser $(NODE_STAMP)
	$(BIN)/pytest tests/e2e -m e2e $(if $(XDIST),-n $(XDIST) --dist loadfile)

# Debian's HAProxy runs in front of two web replicas in the integration suite (tests/integration/test_proxy.py).
# Debian puts it in /usr/sbin, which is not on every user's PATH.
haproxy:
	@command -v haproxy >/dev/null || test -x /usr/sbin/haproxy || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null; \
	  else echo "Install Debian's haproxy package (sudo apt-get install haproxy) for the integration tests."; exit 1; fi; }

# Against the real services: the whole suite on PostgreSQL with the Redis channel layer and broker.
test-integration: setup haproxy
	DATABASE_URL=$(PG_URL) REDIS_URL=$(REDIS_TEST_URL) $(BIN)/pytest -m "not e2e"


# Benchmarks against baselines measured in the same run; results in bench/RESULTS.md. The live ones serve Fray
# with daphne on 127.0.0.1 (Redis at 127.0.0.1:6379 db 9 too, or BENCH_REDIS_URL, when it answers) and load a page
# in Chromium; the spectators' one holds 1,000 websockets on two daphne processes.
bench: $(STAMP) browser
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) var node_modules

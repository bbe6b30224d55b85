# The two commands a newcomer needs (README.md): `make run` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := run

PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
HOST ?= 127.0.0.1
WEB_PORT ?= 8000
export HOST WEB_PORT

# Service mode for `CI=true make test` (the machine's own PostgreSQL and Redis).
CI_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/sergeant
CI_REDIS_URL ?= redis://127.0.0.1:6379/0

.PHONY: run test venv lint schema suite suite-service suite-embedded services compose-check browser proxy

# The SDK (sdk/, its own package) is installed editable beside the platform, which imports it
# (bots sign webhook pushes with its signature function); it is not named in pyproject.toml's
# dependencies, where a bare name would be looked up on the package index.
$(VENV)/.installed: pyproject.toml sdk/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ./sdk -e '.[dev]'
	touch $@

venv: $(VENV)/.installed

## run: install, migrate, then the web server, a Celery worker, Celery beat and the move timer;
## Ctrl-C stops all.
run: venv
	$(BIN)/python manage.py migrate --noinput
	@echo "Sergeant Major is starting at http://$(HOST):$(WEB_PORT)/"
	@echo "  health: http://$(HOST):$(WEB_PORT)/healthz   API docs: http://$(HOST):$(WEB_PORT)/api/v1/docs/"
	@echo "  Ctrl-C stops the web server, the worker, beat and the move timer."
	PATH="$(BIN):$$PATH" exec $(BIN)/honcho --procfile platform/Procfile --app-root $(CURDIR) start

## test: ruff, mypy (the whole project; strict on the engine), the layers' import contracts
## (import-linter, pyproject.toml), the OpenAPI check and the whole pytest suite.
## With CI=true: starts PostgreSQL and Redis if down, checks docker-compose.yml, and runs the
## suite twice, in service mode and on the embedded default, side by side (make -j2: much of
## the suite waits on clocks, servers and workers rather than the CPU). Each run has its own
## DATA_DIR, so its own test database, Celery queue and cache keys; its output is printed
## when it ends.
ifeq ($(CI),true)
test: lint schema services compose-check browser proxy
	$(MAKE) --no-print-directory -j2 --output-sync=target suite-service suite-embedded
else
test: lint schema browser proxy suite
endif

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-logo --no-cache

schema: venv
	DJANGO_SETTINGS_MODULE=config.settings.test $(BIN)/python manage.py spectacular \
		--validate --fail-on-warn --file /dev/null

# pytest exits 5 when it collected nothing: a failure here, and said so.
define pytest_run
	@echo "== pytest ($(1)) =="
	$(2) $(BIN)/pytest $(3) $(PYTEST_ARGS) || { status=$$?; \
		if [ $$status -eq 5 ]; then echo "pytest collected no tests: failing" >&2; fi; \
		exit $$status; }
endef

suite: venv
	$(call pytest_run,$(if $(REDIS_URL),service mode,embedded default),)

# The service run, the longer one, leaves out the pure tests (none of the suite's database,
# Redis, worker or server: the same in either mode): suite-embedded runs them.
suite-service: venv
	$(call pytest_run,service mode,DATABASE_URL=$(CI_DATABASE_URL) REDIS_URL=$(CI_REDIS_URL),-m "not pure")

suite-embedded: venv
	$(call pytest_run,embedded default,env -u DATABASE_URL -u REDIS_URL DATA_DIR=$(CURDIR)/var/test-embedded)

AXE := tests/node_modules/axe-core/axe.min.js

## browser: Debian's chromium for the pages' tests (Playwright drives it; it cannot download
## its own browsers here), installed when missing; and axe-core, the accessibility checker the
## tests load into it, from the npm registry at the version tests/package-lock.json pins.
browser: $(AXE)
	command -v chromium >/dev/null || { \
		$$( [ "$$(id -u)" = 0 ] || echo sudo ) apt-get update -qq && \
		$$( [ "$$(id -u)" = 0 ] || echo sudo ) env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq chromium >/dev/null; }

$(AXE): tests/package.json tests/package-lock.json
	command -v npm >/dev/null || { \
		$$( [ "$$(id -u)" = 0 ] || echo sudo ) apt-get update -qq && \
		$$( [ "$$(id -u)" = 0 ] || echo sudo ) env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq npm >/dev/null; }
	npm ci --prefix tests --no-audit --no-fund
	touch $@

# nginx, for the test of several web processes behind a proxy (platform/nginx.conf).
proxy:
	command -v nginx >/dev/null || { \
		$$( [ "$$(id -u)" = 0 ] || echo sudo ) apt-get update -qq && \
		$$( [ "$$(id -u)" = 0 ] || echo sudo ) env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq nginx >/dev/null; }

## services: PostgreSQL and Redis on this machine, started when they are down.
services:
	pg_isready -q -h 127.0.0.1 -p 5432 || \
		pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start
	redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || \
		redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
	for i in $$(seq 100); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.2; done
	for i in $$(seq 100); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.2; done
	pg_isready -h 127.0.0.1 -p 5432
	redis-cli -h 127.0.0.1 -p 6379 ping
	psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'sergeant'" \
		| grep -q 1 || createdb -h 127.0.0.1 -U postgres sergeant

## compose-check: docker-compose.yml accepted by the compose client (no engine is needed).
compose-check:
	if docker compose version >/dev/null 2>&1; then docker compose config --quiet; \
	else command -v docker-compose >/dev/null || { apt-get install -y -q docker-compose \
		|| { apt-get update -q && apt-get install -y -q docker-compose; }; }; \
		docker-compose config --quiet; fi
	@echo "docker-compose.yml: accepted"

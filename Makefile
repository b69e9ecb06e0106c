# Every target sets up what it needs: a virtual environment in .venv with the project installed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The compiled engine's build folder is hidden: a folder named build/ in the root would stand for
# the build package in `python -m build clients/python` run from there.
ENGINE_BUILD := .build/engine
ENGINE_STAMP := $(ENGINE_BUILD)/.compiled
GENERATED := clients/python/gen clients/go/gen clients/typescript/src/gen docs/api.md \
	clients/python/mercado_client/_version.py clients/go/mercado/version.go clients/typescript/src/version.ts \
	clients/python/LICENSE clients/typescript/LICENSE clients/go/LICENSE

.PHONY: setup compile clean-compiled run test lint typecheck pytest test-go test-typescript test-web generate \
	check-generated check-api bench bench-players clean

setup: $(STAMP) $(ENGINE_STAMP)

$(STAMP): pyproject.toml clients/python/pyproject.toml VERSION
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@# setuptools' own notes about editable installs say nothing a newcomer needs.
	@# The client library is its own distribution (clients/python), which the server depends on.
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet -e clients/python -e '.[test,openspiel]'
	touch $@

# The rules engine's hot modules compiled to C (scripts/compile-engine.py), again whenever its source
# changes. Without a C compiler the engine stays interpreted, about half as fast, and says so.
compile: $(ENGINE_STAMP)

$(ENGINE_STAMP): $(STAMP) scripts/compile-engine.py $(wildcard server/games/mercado/*.py)
	@mkdir -p $(ENGINE_BUILD)
	@echo "compiling the rules engine (scripts/compile-engine.py)"
	@if ! $(BIN)/python scripts/compile-engine.py > $(ENGINE_BUILD)/log 2>&1; then \
		rm -f server/games/mercado/*.so; \
		echo "the rules engine stays interpreted: it did not compile ($(ENGINE_BUILD)/log says why)" >&2; \
	fi
	touch $@

clean-compiled:
	rm -rf $(ENGINE_BUILD) server/games/mercado/*.so

# ARGS go to `mercado serve`, e.g. make run ARGS="--log-level info" (the whole log on the terminal).
run: setup
	scripts/run.sh $(ARGS)

test: check-generated lint typecheck pytest test-go test-typescript test-web

# Each client's own toolchain installs what it needs (Go modules, npm packages).
test-go test-typescript test-web: setup
	@if [ -x scripts/$@.sh ]; then scripts/$@.sh; fi

# Generated code comes from proto/ only; CI fails when it is out of date.
generate: setup
	scripts/generate.sh

check-generated: generate
	@changed=$$(git status --porcelain -- $(GENERATED)); \
	if [ -n "$$changed" ]; then echo "generated code is out of date with proto/ (run make generate):"; echo "$$changed"; exit 1; fi

# The API stays backward compatible with the last release (also among the tests).
check-api:
	scripts/check-api.sh

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: setup
	$(BIN)/mypy

pytest: setup
	scripts/install-test-servers.sh
	$(BIN)/pytest

bench: setup
	$(BIN)/mercado bench engine

# The players' load generator (Go, on the Go client), then a thousand players on one server for a
# minute (docs/performance.md gives the commands of the larger runs).
bench-players: setup
	cd clients/go && go build -o ../../.build/bench/mercado-load ./cmd/mercado-load
	$(BIN)/mercado bench players --players 1000

clean: clean-compiled
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis .build build *.egg-info

# graphkit: `make demo` runs the seed example, `make test` runs every test.
# Both set up what they need first (a local venv, and graphviz's `dot` when missing).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint system clean

demo: $(STAMP)
	$(BIN)/python examples/seed.py

test: $(STAMP) system
	$(BIN)/ruff check graphkit tests examples benchmarks
	$(BIN)/python -m pytest -q -p no:cacheprovider --doctest-modules graphkit tests; \
	status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests: failing on purpose"; exit 1; fi; \
	exit $$status

lint: $(STAMP)
	$(BIN)/ruff check graphkit tests examples benchmarks
	$(BIN)/ruff format --check graphkit tests examples

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e ".[dev]"
	touch $(STAMP)

# System packages the drawing layer and the browser tests use; installed only when missing
# (needs root/apt): graphviz's dot, and headless Chromium with a font for the widget tests.
system:
	@missing=""; \
	command -v dot >/dev/null 2>&1 || missing="$$missing graphviz"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	dpkg -s fonts-dejavu-core >/dev/null 2>&1 || missing="$$missing fonts-dejavu-core"; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	fi

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis

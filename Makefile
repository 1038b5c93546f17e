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

# System packages the drawing layer uses; installed only when missing (needs root/apt).
system:
	@command -v dot >/dev/null 2>&1 || { \
		echo "installing graphviz (dot)"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -qq && apt-get install -y -qq --no-install-recommends graphviz; }

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis

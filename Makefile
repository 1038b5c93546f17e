# graphkit: `make course` runs the course, `make test` runs every test, `make demo` the
# seed example. Each sets up what it needs first (a local venv, and graphviz's `dot`,
# Chromium, a font and npm when missing).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUNTIME := $(VENV)/.installed-runtime

.PHONY: course demo test docs widget-js lint system clean

COURSE ?= build/course

# Copy the lessons into $(COURSE), execute each in a real kernel (outputs saved in the
# copies) and write a standalone HTML export of a debugging session; prints every path.
course: $(STAMP) system
	$(BIN)/graphkit lessons $(COURSE) --force --run

# The seed example needs only the runtime (no dependencies): seconds on a fresh machine.
demo: $(RUNTIME)
	$(BIN)/python examples/seed.py

# The suite runs on every core (pytest-xdist): on CI's two cores that halves its time.
test: $(STAMP) system widget-js
	$(BIN)/ruff check graphkit tests examples benchmarks scripts
	$(BIN)/python -m pytest -q -p no:cacheprovider -n auto --doctest-modules graphkit tests; \
	status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests: failing on purpose"; exit 1; fi; \
	exit $$status

# The documentation site (MkDocs Material), built strictly into site/; it executes the lessons.
docs: $(STAMP) widget-js
	$(BIN)/mkdocs build --strict

# The Jupyter widget manager the site's lessons render their saved widgets with, served
# from the site itself: fetched once into build/ from the npm registry, at the version and
# hash pinned in scripts/widget_js.py (the docs build fetches it too when it is missing).
# It needs npm alone (`make system` installs it), not the browser tests' packages.
widget-js: $(STAMP)
	$(BIN)/python scripts/widget_js.py

lint: $(STAMP)
	$(BIN)/ruff check graphkit tests examples benchmarks scripts
	$(BIN)/ruff format --check graphkit tests examples

$(RUNTIME): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check --no-deps -e .
	touch $(RUNTIME)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e ".[dev]"
	touch $(STAMP) $(RUNTIME)

# System packages the drawing layer and the browser tests use; installed only when missing
# (needs root/apt): graphviz's dot, headless Chromium with a font for the widget tests, and
# npm for the docs site's widget manager. Without root it names the command to run as root.
# When another apt holds its locks (two setups started together), this one waits: 2 minutes
# for the package lists, 10 for the install.
system:
	@missing=""; \
	command -v dot >/dev/null 2>&1 || missing="$$missing graphviz"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	dpkg -s fonts-dejavu-core >/dev/null 2>&1 || missing="$$missing fonts-dejavu-core"; \
	if [ -n "$$missing" ] && [ "$$(id -u)" != 0 ]; then \
		echo "missing system packages:$$missing; installing them needs root. Run" >&2; \
		echo "  sudo apt-get install -y --no-install-recommends$$missing" >&2; \
		echo "then make again." >&2; \
		exit 1; \
	fi; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing"; \
		export DEBIAN_FRONTEND=noninteractive; \
		for try in 1 2 3 4 5 6 7 8 9 10 11 12; do \
			apt-get update -qq && break; echo "apt is busy; trying again in 10 s"; sleep 10; \
		done; \
		apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $$missing; \
	fi

clean:
	rm -rf $(VENV) build site .pytest_cache .ruff_cache .hypothesis

# mcp_jupyter developer entry points.
#
#   make lab        create .venv, install the project and the tutorials' npm servers, open notebooks/01-getting-started.ipynb
#   make test       install everything the tests need (Python, npm servers, Chromium) and run the whole suite
#   make fast-test  the inner loop: the suite without the browser tests and the slow modules (tests/conftest.py)
#   make labext     build the JupyterLab extension (labextension/, TypeScript) into mcp_jupyter/labextension
#   make lint       ruff check + ruff format --check + the import-layer contract + declared dependencies (deptry)
#   make bench      run every benchmarks/bench_*.py script
#   make docs       build the documentation site into docs/_build/html (tutorials executed; fails on any warning)
#
# Every install step leaves a stamp file, so a second run skips straight to the work. A stamp depends on the
# file that pins what it installs (pyproject.toml, package-lock.json): edit that file and the step reruns.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PYTHON3 ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMPS := $(VENV)/.stamps
CHROMIUM := /usr/bin/chromium
NOTEBOOK := notebooks/01-getting-started.ipynb
PYTEST_ARGS ?=
# Four pytest workers, each taking whole test files (module fixtures such as a JupyterLab are started once per
# file). Much of the suite waits on browsers, kernels and servers: with two workers the two cores were busy
# only ~60% of the run, so four fill them (measured on the 2-core machine, with other work beside it:
# -n 2 21 min, -n 3 16 min, -n 4 14.7 min). PYTEST_WORKERS=0 runs everything in one process.
PYTEST_WORKERS ?= 4
INSTALL_JOBS ?= 4
# The Python install `make test` runs: $(STAMPS)/docs in CI, which builds the docs next (see that rule).
TEST_INSTALL ?= $(STAMPS)/test
PYTEST_PARALLEL := $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile)
DOCS_OUT := docs/_build/html
# The JupyterLab extension's sources and its build output (see "The JupyterLab extension" below).
LABEXT_DIR := labextension
LABEXT := mcp_jupyter/labextension/static/style.js
LABEXT_SRC := $(shell find $(LABEXT_DIR)/src $(LABEXT_DIR)/style $(LABEXT_DIR)/schema -type f 2>/dev/null) $(LABEXT_DIR)/tsconfig.json $(LABEXT_DIR)/package.json

.PHONY: help lab test fast-test lint bench docs chromium node-check clean labext labext-test

help:
	@sed -n '3,10p' Makefile | sed 's/^# *//'

# ---------------------------------------------------------------------------------------------------------
# Environment

$(PY):
	$(PYTHON3) -m venv $(VENV)

# uv installs every venv's packages. pip spent about a minute of CPU resolving and unpacking ".[test,docs]",
# the install step every test waits on; uv takes about 4 s, with empty caches for both (measured on a fresh
# clone of this 2-core machine). pip puts it in a folder of its own, .venv-uv, not in a venv: a uvx on the
# venv's PATH would be a runtime the tests and the tutorials do not expect (the registry's PyPI servers run
# from installed copies, and "no uvx here" says to install uv). uv does not read pip's configuration: behind
# a package mirror, point it there with UV_DEFAULT_INDEX (or UV_INDEX_URL) as well.
UV_DIR := .venv-uv
UV := $(UV_DIR)/bin/uv
# --compile-bytecode, as pip does: compiled here, in parallel beside the npm installs, rather than by the first
# test processes to import each module, all at once and under load.
UV_INSTALL = $(UV) pip install --quiet --compile-bytecode --python
$(UV): | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check --target $(UV_DIR) "uv>=0.5"

# The project was installed as "mcp-jupyter" before it took the name mcp-jupyter-kit (PyPI's mcp-jupyter is
# another project): a venv made then loses that editable install first, before the new one lays down the
# shared files (labextension, server config) that uninstalling the old one afterwards would delete.
FORGET_OLD_NAME = $(UV) pip uninstall --quiet --python $(PY) mcp-jupyter 2>/dev/null || true

# The kernelspec is installed into the venv (--sys-prefix) with an absolute interpreter path, so notebooks
# run by JupyterLab and nbclient always use this venv's Python, whatever kernels the user has elsewhere.
$(STAMPS)/lab: pyproject.toml $(LABEXT) | $(UV)
	$(FORGET_OLD_NAME)
	$(UV_INSTALL) $(PY) -e ".[lab]"
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	@mkdir -p $(STAMPS) && touch $@

# The dependencies go in first, read from pyproject.toml without the project: they install beside the npm steps,
# and only the project's own editable install (about 1 CPU-s) waits for the extension build. Installed together,
# the whole install waited for it: 14 s after the build, on a fresh clone of the 2-core machine.
$(STAMPS)/test-deps: pyproject.toml | $(UV)
	$(UV_INSTALL) $(PY) -r pyproject.toml --extra test
	@mkdir -p $(STAMPS) && touch $@

# It holds the tests' dependencies too, so it leaves their stamp as well (as $(STAMPS)/docs leaves the tests'):
# without it, `make lint` after `.ci/run`'s test run installed the tests' dependencies and the project again.
$(STAMPS)/docs-deps: pyproject.toml | $(UV)
	$(UV_INSTALL) $(PY) -r pyproject.toml --extra test --extra docs
	@mkdir -p $(STAMPS) && touch $@ $(STAMPS)/test-deps

$(STAMPS)/test: pyproject.toml $(LABEXT) $(STAMPS)/test-deps | $(UV)
	$(FORGET_OLD_NAME)
	$(UV_INSTALL) $(PY) -e ".[test]"
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	@mkdir -p $(STAMPS) && touch $@

$(STAMPS)/bench: pyproject.toml $(STAMPS)/test
	$(UV_INSTALL) $(PY) -e ".[test,bench]"
	@mkdir -p $(STAMPS) && touch $@

# The docs' packages with the tests' in one install (one resolution, one editable build): it leaves both stamps,
# so `.ci/run` installs it in place of the tests' alone (TEST_INSTALL) and `make docs` installs nothing more.
$(STAMPS)/docs: pyproject.toml $(LABEXT) $(STAMPS)/docs-deps | $(UV)
	$(FORGET_OLD_NAME)
	$(UV_INSTALL) $(PY) -e ".[test,docs]"
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	@mkdir -p $(STAMPS) && touch $@ $(STAMPS)/test

# Published servers built on the 1.x MCP SDK (they crash on 2.x) get a venv of their own.
MCP1_VENV := .venv-mcp1
$(MCP1_VENV)/.stamp: tests/servers/requirements-mcp1.txt | $(UV)
	$(PYTHON3) -m venv $(MCP1_VENV)
	$(UV_INSTALL) $(MCP1_VENV)/bin/python -r $<
	@touch $@

# A published implementation of the skills extension (nimblebrain-bundle-sdk) pins mcp<2.3: a venv of its own.
SKILLS_VENV := .venv-skills
$(SKILLS_VENV)/.stamp: tests/servers/requirements-skills.txt | $(UV)
	$(PYTHON3) -m venv $(SKILLS_VENV)
	$(UV_INSTALL) $(SKILLS_VENV)/bin/python -r $<
	@touch $@

node-check:
	@command -v node >/dev/null && command -v npm >/dev/null || { \
	  echo "Node.js 20+ and npm are needed to build the JupyterLab extension and for the tutorials' and tests' MCP servers." >&2; \
	  echo "Install them (e.g. 'apt-get install -y nodejs npm' or https://nodejs.org) and rerun make." >&2; \
	  exit 1; }
	@node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' || { \
	  echo "Node.js $$(node --version) is too old: the extension build and the pinned MCP servers need Node.js 20+." >&2; exit 1; }

# --ignore-scripts: the pinned packages need no install scripts, and we do not run code from the registry
# at install time. package.json's "dependencies" are the servers the tutorials connect (installed for
# `make lab`, --omit=dev, as Binder does); its "devDependencies" are the test suite's (conformance harness,
# published servers, Node 22), about 800 MB that a person opening the tutorials does not need. npm ci empties
# node_modules first, so a full install removes the tutorials' stamp and the tutorials' install is skipped
# while the full one is current.
node_modules/.stamp: package.json package-lock.json | node-check
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

node_modules/.stamp-tutorials: package.json package-lock.json | node-check
	@if [ node_modules/.stamp -nt package-lock.json ] && [ node_modules/.stamp -nt package.json ]; then :; \
	else npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error; fi
	@touch $@

# The JupyterLab extension: TypeScript in labextension/ (its own package.json/package-lock.json), built into
# mcp_jupyter/labextension, which the wheel ships as share/jupyter/labextensions/mcp-jupyter-labextension. The
# project's install depends on the build, so a rebuilt extension is copied into the venv; the build hook (hatch-
# jupyter-builder) then finds the build newer than labextension/src and does not build again.
$(LABEXT_DIR)/node_modules/.stamp: $(LABEXT_DIR)/package.json $(LABEXT_DIR)/package-lock.json | node-check
	cd $(LABEXT_DIR) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

$(LABEXT): $(LABEXT_DIR)/node_modules/.stamp $(LABEXT_SRC)
	cd $(LABEXT_DIR) && npm run --silent build:prod >/dev/null
	@touch $@

labext: $(LABEXT)

# The extension's TypeScript unit tests (vitest): code generation, schema -> form, snapshot -> view.
labext-test: $(LABEXT_DIR)/node_modules/.stamp
	cd $(LABEXT_DIR) && npx vitest run

chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update && apt-get install -y chromium; \
	  else \
	    echo "Browser tests need Debian's Chromium at $(CHROMIUM): run 'sudo apt-get install -y chromium'." >&2; \
	    exit 1; \
	  fi; \
	fi

# ---------------------------------------------------------------------------------------------------------
# Entry points

# The tutorials connect the npm servers from node_modules (the everything server, the MCP Apps examples):
# installed here (only those, not the test suite's), so they run offline instead of falling back to npx.
lab: $(STAMPS)/lab node_modules/.stamp-tutorials
	scripts/lab.sh $(NOTEBOOK)

# The suite starts hundreds of Python processes (kernels, servers, conformance clients), each importing
# mcp_jupyter and the tests' helpers. Where the environment sets PYTHONDONTWRITEBYTECODE (some sandboxes and
# CI images do), none of them keeps the bytecode it compiles, so every one compiled the package again (about
# 0.2 CPU-s each) and every pytest worker rewrote every test module: the suite runs with it unset. The venvs'
# packages are compiled at install time either way (--compile-bytecode above).
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest

# The install steps run side by side (INSTALL_JOBS at once; -O keeps each step's output together): on a fresh
# clone most of them wait on the registries, and only the project's install has to wait for another (the
# extension build). --durations=25 lists the slowest tests, so a test that grows slow is seen.
test:
	$(MAKE) --no-print-directory -O -j $(INSTALL_JOBS) $(TEST_INSTALL) node_modules/.stamp $(MCP1_VENV)/.stamp $(SKILLS_VENV)/.stamp chromium labext-test
	$(PYTEST) -ra --durations=25 $(PYTEST_PARALLEL) $(PYTEST_ARGS)

fast-test:
	$(MAKE) --no-print-directory -O -j $(INSTALL_JOBS) $(TEST_INSTALL) node_modules/.stamp $(MCP1_VENV)/.stamp $(SKILLS_VENV)/.stamp labext-test
	$(PYTEST) -ra --durations=25 -m "not browser and not slow" $(PYTEST_PARALLEL) $(PYTEST_ARGS)

# The extension's TypeScript: Prettier (formatting) then ESLint (the JupyterLab extension template's rules, no `any`).
# mypy: the whole package, the client with every flag of --strict and the rest at mypy's default level (pyproject.toml)
lint: $(STAMPS)/test $(LABEXT_DIR)/node_modules/.stamp
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) scripts/check_layers.py
	$(PY) -m mypy mcp_jupyter
	$(PY) -m deptry .
	cd $(LABEXT_DIR) && npm run --silent lint:check

bench: $(STAMPS)/bench node_modules/.stamp
	@shopt -s nullglob; scripts=(benchmarks/bench_*.py); \
	if [ $${#scripts[@]} -eq 0 ]; then echo "no benchmarks/bench_*.py scripts yet"; fi; \
	for script in "$${scripts[@]}"; do echo "== $$script"; $(PY) "$$script"; done

# Sphinx reads from the repository root (its conf.py is in docs/) so the tutorials run in notebooks/, as in
# JupyterLab. -E rereads every page, so the notebooks run afresh against the current code; -W --keep-going -n
# make every warning, including an unresolved reference, fail the build (after listing them all).
# docs/check_site.py then checks the built pages (API, %mcp reference, executed tutorials, internal links).
# A private IPYTHONDIR keeps the user's IPython profile and startup files out of the tutorials.
docs: $(STAMPS)/docs node_modules/.stamp
	rm -rf $(DOCS_OUT)
	IPYTHONDIR="$(CURDIR)/docs/_build/ipython" $(PY) -m sphinx -E -W --keep-going -n -q -j auto -c docs . $(DOCS_OUT)
	$(PY) docs/check_site.py $(DOCS_OUT)

clean:
	rm -rf $(VENV) $(MCP1_VENV) $(SKILLS_VENV) $(UV_DIR) node_modules .pytest_cache .ruff_cache docs/_build
	rm -rf $(LABEXT_DIR)/node_modules $(LABEXT_DIR)/lib $(LABEXT_DIR)/tsconfig.tsbuildinfo mcp_jupyter/labextension

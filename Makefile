# The two commands the README gives: `make demo` and `make test`.
# Both create or refresh the virtualenv in .venv themselves (scripts/venv.sh).

.PHONY: demo test venv

demo:
	bash scripts/demo.sh

test:
	bash scripts/test.sh

# Internal helper: create/refresh .venv only.
venv:
	bash scripts/venv.sh

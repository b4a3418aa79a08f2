# The two commands the README gives: `make demo` and `make test`.
# Both create or refresh the virtualenv in .venv themselves (scripts/venv.sh).

.PHONY: demo test venv bench docs

demo:
	bash scripts/demo.sh

test:
	bash scripts/test.sh

# Optional, not a set-up command: the docs site, HTML in build/docs/ (scripts/docs.sh).
docs:
	bash scripts/docs.sh

# Internal helper: create/refresh .venv only.
venv:
	bash scripts/venv.sh

# Not a set-up command: wall time and request counts of no-op verify runs (docs/performance.md).
# Options go through BENCH_ARGS, e.g. make bench BENCH_ARGS='--sizes 50 --reps 5 --json /tmp/bench.json'
# The inventory plugin's part: BENCH_INVENTORY_ARGS, e.g. '--guests 1000 --reps 3'; the export's: BENCH_EXPORT_ARGS;
# the qemu_agent connection's: BENCH_AGENT_ARGS, e.g. '--tasks 20 --size-kib 1024'.
bench:
	bash scripts/venv.sh
	.venv/bin/python scripts/bench.py $(BENCH_ARGS)
	.venv/bin/python scripts/bench_inventory.py $(BENCH_INVENTORY_ARGS)
	.venv/bin/python scripts/bench_export.py $(BENCH_EXPORT_ARGS)
	.venv/bin/python scripts/bench_agent.py $(BENCH_AGENT_ARGS)

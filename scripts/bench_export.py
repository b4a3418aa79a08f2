"""`make bench` (third part): wall time and request counts of ``homeflare.proxmox.export`` against the simulator.

One run starts the in-process simulator (3 members), seeds N guests over the three nodes (``seed_many_guests``) next
to the simulator's shipped objects, and measures the whole ``ansible-playbook`` process of one play holding one
export task, on the controller path: every family is read, the guests one config read each (``workers`` at a time).
The run must succeed and export exactly the N guests (templates included).

Usage: .venv/bin/python scripts/bench_export.py [--guests 1000] [--reps 3] [--workers 8] [--json PATH]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'tests'))
sys.path.insert(0, os.path.join(REPO, 'scripts'))

from bench import ansible_environment, machine  # noqa: E402 pylint: disable=wrong-import-position
from simulator import Simulator  # noqa: E402 pylint: disable=wrong-import-position
from simulator.pve.handlers.guests import seed_many_guests  # noqa: E402 pylint: disable=wrong-import-position

BIN = os.path.dirname(sys.executable)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--guests', type=int, default=1000, help='guests in the cluster (default: 1000)')
    parser.add_argument('--reps', type=int, default=3, help='repetitions (default: 3)')
    parser.add_argument('--workers', type=int, default=8, help="the export's workers (default: 8)")
    parser.add_argument('--json', metavar='PATH', help='write the results as JSON')
    return parser.parse_args(argv)


def run_export(sim, work, workers):
    book = os.path.join(work, 'export.yml')
    record = os.path.join(work, 'result.json')
    play = {'name': 'Export', 'hosts': 'localhost', 'gather_facts': False,
            'module_defaults': {'group/homeflare.proxmox.proxmox': dict(sim.module_options(), api_timeout=30)},
            'tasks': [{'name': 'Export', 'homeflare.proxmox.export': {'workers': workers}, 'register': 'exported'},
                      {'name': 'Keep', 'ansible.builtin.copy': {'content': '{{ exported | to_json }}', 'dest': record,
                                                                'mode': '0600'}}]}
    with open(book, 'w', encoding='utf-8') as handle:
        yaml.safe_dump([play], handle)
    env = ansible_environment(work, work)
    sim.clear_log()
    started = time.perf_counter()
    proc = subprocess.run([os.path.join(BIN, 'ansible-playbook'), '-i', 'localhost,', '-c', 'local', book],
                          capture_output=True, text=True, env=env, check=False)
    took = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError('ansible-playbook failed:\n%s' % (proc.stdout + proc.stderr)[-3000:])
    with open(record, encoding='utf-8') as handle:
        return took, len(sim.log), json.load(handle)


def main(argv=None):
    args = parse_args(argv)
    info = machine()
    print('machine: %(nproc)s cores, %(cpu_model)s, python %(python)s, ansible-core %(ansible_core)s' % info)
    walls, requests, objects = [], set(), None
    with tempfile.TemporaryDirectory(prefix='homeflare-bench-export-') as work, Simulator(members=3) as sim:
        seed_many_guests(sim.state, args.guests)
        for _rep in range(args.reps):
            took, count, result = run_export(sim, work, args.workers)
            guests = len(result['objects'].get('lxc', [])) + len(result['objects'].get('vm', []))
            if guests != args.guests:
                raise RuntimeError('%d guests exported, %d seeded' % (guests, args.guests))
            walls.append(took)
            requests.add(count)
            objects = sum(result['counts'].values())
    print('\n| guests | objects exported | requests | wall min | median | max |\n| --- | --- | --- | --- | --- | --- |')
    counts = '/'.join(str(count) for count in sorted(requests))
    row = (args.guests, objects, counts, min(walls), statistics.median(walls), max(walls))
    print('| %d | %d | %s | %.2f s | %.2f s | %.2f s |' % row)
    if args.json:
        with open(args.json, 'w', encoding='utf-8') as handle:
            json.dump({'machine': info, 'guests': args.guests, 'workers': args.workers, 'objects': objects,
                       'requests': sorted(requests), 'wall': walls}, handle, indent=2)
            handle.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())

"""`make bench` (second part): wall time and request counts of the inventory plugin against the simulator.

One run starts the in-process simulator (3 members), seeds N guests over the three nodes (a mix of QEMU VMs
and containers, two thirds running, tagged, some in pools; running guests report addresses), and measures the
whole ``ansible-inventory -i <file> --list`` process in three cases:

  plain       no facts: the one ``GET /cluster/resources?type=vm`` request
  addresses   want_addresses: one more request per running guest (agent or container interfaces)
  facts       want_config, want_snapshots and want_addresses: up to three more requests per guest

Every run must exit 0 and list exactly N hosts; ``plain`` must send exactly one request. Repetitions are
interleaved across the cases.

Usage: .venv/bin/python scripts/bench_inventory.py [--guests 1000] [--reps 3] [--workers 8] [--json PATH]
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
CASES = {
    'plain': {},
    'addresses': {'want_addresses': True},
    'facts': {'want_config': True, 'want_snapshots': True, 'want_addresses': True},
}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--guests', type=int, default=1000, help='guests in the cluster (default: 1000)')
    parser.add_argument('--reps', type=int, default=3, help='repetitions per case (default: 3)')
    parser.add_argument('--workers', type=int, default=8, help='facts_workers (default: 8)')
    parser.add_argument('--json', metavar='PATH', help='write the results as JSON')
    return parser.parse_args(argv)


def environment(work):
    return ansible_environment(work, work, ANSIBLE_INVENTORY_ENABLED='homeflare.proxmox.pve',
                               ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED='true')


def run_case(sim, work, case, options, guests):
    path = os.path.join(work, '%s.pve.yml' % case)
    with open(path, 'w', encoding='utf-8') as handle:
        yaml.safe_dump(dict({'plugin': 'homeflare.proxmox.pve', 'api_host': sim.members, 'api_token_id': sim.token_id,
                             'api_token_secret': sim.token_secret, 'ca_path': sim.ca_path,
                             'include_templates': True}, **options), handle)
    sim.clear_log()
    started = time.perf_counter()
    proc = subprocess.run([os.path.join(BIN, 'ansible-inventory'), '-i', path, '--list'], capture_output=True,
                          text=True, env=environment(work), check=False)
    took = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError('%s: ansible-inventory failed:\n%s' % (case, proc.stderr[-2000:]))
    hosts = json.loads(proc.stdout)['_meta']['hostvars']
    if len(hosts) != guests:
        raise RuntimeError('%s: %d hosts listed, %d guests seeded' % (case, len(hosts), guests))
    requests = len(sim.log)
    if case == 'plain' and requests != 1:
        raise RuntimeError('plain: %d requests, expected exactly one' % requests)
    return took, requests


def main(argv=None):
    args = parse_args(argv)
    info = machine()
    print('machine: %(nproc)s cores, %(cpu_model)s, python %(python)s, ansible-core %(ansible_core)s' % info)
    rows = dict((case, {'case': case, 'wall': [], 'requests': set()}) for case in CASES)
    with tempfile.TemporaryDirectory(prefix='homeflare-bench-inventory-') as work, Simulator(members=3) as sim:
        started = time.perf_counter()
        seed_many_guests(sim.state, args.guests)
        print('seeded %d guests in %.1f s' % (args.guests, time.perf_counter() - started), flush=True)
        for _rep in range(args.reps):
            for case, options in CASES.items():
                options = dict(options, facts_workers=args.workers) if options else options
                took, requests = run_case(sim, work, case, options, args.guests)
                rows[case]['wall'].append(took)
                rows[case]['requests'].add(requests)
    print('\n| case | guests | requests | wall min | median | max |\n| --- | --- | --- | --- | --- | --- |')
    for row in rows.values():
        row['requests'] = sorted(row['requests'])
        print('| %s | %d | %s | %.2f s | %.2f s | %.2f s |' % (
            row['case'], args.guests, '/'.join(str(count) for count in row['requests']), min(row['wall']),
            statistics.median(row['wall']), max(row['wall'])))
    if args.json:
        with open(args.json, 'w', encoding='utf-8') as handle:
            json.dump({'machine': info, 'guests': args.guests, 'workers': args.workers, 'rows': list(rows.values())},
                      handle, indent=2)
            handle.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())

"""`make bench` (fourth part): what a task costs through the ``qemu_agent`` connection, against the simulator.

One run starts the in-process simulator (3 members) with one running VM whose agent is enabled, and measures
the whole ``ansible-playbook`` process in three cases, each in a play of its own:

  local      N ``ansible.builtin.command: "true"`` tasks on Ansible's ``local`` connection (module shipping's floor)
  agent      the same N tasks through ``homeflare.proxmox.qemu_agent``
  files      one ``copy`` and one ``fetch`` of a SIZE file through the agent (chunked file-write, file-read)

Every run must exit 0 with the expected number of ``ok`` tasks and no failure; from the simulator's request log
each agent run records its requests, per kind. Repetitions are interleaved across the cases.

Usage: .venv/bin/python scripts/bench_agent.py [--tasks 20] [--size-kib 1024] [--reps 3] [--json PATH]
"""

import argparse
import collections
import json
import os
import re
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
from simulator.pve.handlers.agent import agent_root  # noqa: E402 pylint: disable=wrong-import-position
from simulator.pve.handlers.guests import add_guest  # noqa: E402 pylint: disable=wrong-import-position

BIN = os.path.dirname(sys.executable)
VMID = 900
RECAP = re.compile(r'^(\S+)\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)', re.M)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--tasks', type=int, default=20, help='command tasks per run (default: 20)')
    parser.add_argument('--size-kib', type=int, default=1024, help='size of the copied file (default: 1024 KiB)')
    parser.add_argument('--reps', type=int, default=3, help='repetitions per case (default: 3)')
    parser.add_argument('--json', metavar='PATH', help='write the results as JSON')
    return parser.parse_args(argv)


def play(case, tasks, home, source, fetched):
    if case == 'files':
        steps = [{'name': 'copy', 'ansible.builtin.copy': {'src': source, 'dest': home + '/bench.bin', 'mode': '0600'}},
                 {'name': 'fetch', 'ansible.builtin.fetch': {'src': home + '/bench.bin', 'dest': fetched,
                                                             'flat': True}}]
    else:
        steps = [{'name': 'true %d' % number, 'ansible.builtin.command': 'true', 'changed_when': False}
                 for number in range(tasks)]
    return [{'name': case, 'hosts': 'vm', 'gather_facts': False, 'tasks': steps}]


def run_case(sim, work, case, args, home, source):
    book = os.path.join(work, '%s.yml' % case)
    fetched = os.path.join(work, 'fetched.bin')
    with open(book, 'w', encoding='utf-8') as handle:
        yaml.safe_dump(play(case, args.tasks, home, source, fetched), handle, sort_keys=False)
    inventory = os.path.join(work, '%s.ini' % case)
    with open(inventory, 'w', encoding='utf-8') as handle:
        if case == 'local':
            handle.write('vm ansible_connection=local\n')
        else:
            handle.write('vm ansible_connection=homeflare.proxmox.qemu_agent ansible_proxmox_vmid=%d '
                         'ansible_proxmox_api_host=%s ansible_proxmox_ca_path=%s\n'
                         % (VMID, ','.join(sim.members), sim.ca_path))
    environment = ansible_environment(work, work, PROXMOX_TOKEN_ID=sim.token_id, PROXMOX_TOKEN_SECRET=sim.token_secret)
    if case != 'local':
        del environment['ANSIBLE_REMOTE_TEMP']  # the guest's own ~/.ansible/tmp
    for left in (os.path.join(home, 'bench.bin'), fetched):  # else copy and fetch find them in place
        if case == 'files' and os.path.exists(left):
            os.remove(left)
    sim.clear_log()
    started = time.perf_counter()
    proc = subprocess.run([os.path.join(BIN, 'ansible-playbook'), '-i', inventory, book], capture_output=True,
                          text=True, env=environment, check=False)
    took = time.perf_counter() - started
    recap = RECAP.search(proc.stdout)
    expected = 2 if case == 'files' else args.tasks
    if proc.returncode != 0 or recap is None or int(recap.group(2)) != expected:
        raise RuntimeError('%s: ansible-playbook failed:\n%s' % (case, (proc.stdout + proc.stderr)[-3000:]))
    if case == 'files':
        with open(source, 'rb') as one, open(fetched, 'rb') as other:
            if one.read() != other.read():
                raise RuntimeError('files: the fetched file differs from the copied one')
    kinds = collections.Counter(entry['path'].rsplit('/', 1)[-1] for entry in sim.log)
    return took, dict(kinds)


def main(argv=None):
    args = parse_args(argv)
    info = machine()
    print('machine: %(nproc)s cores, %(cpu_model)s, python %(python)s, ansible-core %(ansible_core)s' % info)
    cases = ('local', 'agent', 'files')
    rows = dict((case, {'case': case, 'wall': [], 'requests': None}) for case in cases)
    with tempfile.TemporaryDirectory(prefix='homeflare-bench-agent-') as work, Simulator(members=3) as sim:
        add_guest(sim.state, 'qemu', VMID, 'node1', {'name': 'bench', 'agent': '1'}, status='running')
        home = os.path.join(agent_root(sim.state, VMID), 'root')
        source = os.path.join(work, 'source.bin')
        with open(source, 'wb') as handle:
            handle.write(os.urandom(args.size_kib * 1024))
        for _rep in range(args.reps):
            for case in cases:
                took, kinds = run_case(sim, work, case, args, home, source)
                rows[case]['wall'].append(took)
                rows[case]['requests'] = kinds
    print('\n| case | tasks | requests (last run) | wall min | median | max |\n| --- | --- | --- | --- | --- | --- |')
    for case, row in rows.items():
        tasks = '2 (%d KiB)' % args.size_kib if case == 'files' else str(args.tasks)
        requests = ', '.join('%s %d' % item for item in sorted(row['requests'].items())) or '-'
        walls = row['wall']
        print('| %s | %s | %s | %.2f s | %.2f s | %.2f s |'
              % (case, tasks, requests, min(walls), statistics.median(walls), max(walls)))
    if args.json:
        with open(args.json, 'w', encoding='utf-8') as handle:
            json.dump({'machine': info, 'tasks': args.tasks, 'size_kib': args.size_kib, 'rows': list(rows.values())},
                      handle, indent=2)
            handle.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())

"""`make bench`: wall time and request counts of no-op verify runs against the simulator.

One run starts the in-process simulator (3 members), seeds the objects through its HTTP API, and
measures whole-process wall time of ``ansible-playbook --check --diff`` for N objects that already
exist and match, in four cases:

  ping        N ``ansible.builtin.ping`` tasks: Ansible's own floor for N tasks
  module      N single-object tasks on the module path (HOMEFLARE_PROXMOX_EXECUTION=module)
  controller  N single-object tasks on the controller path (the default for a local connection)
  declare     one ``homeflare.proxmox.declare`` task holding the N objects

Single-object cases use N distinct tasks in one play (a loop would be one task). Every run must
exit 0 and report ``changed=0`` with exactly the expected number of ``ok`` tasks; a failed run, a
drifted seed or any write fails the case loudly (and the script exits 1). From the simulator's
request log each run also records requests, GETs and writes.

Usage: .venv/bin/python scripts/bench.py [--sizes 50,1000] [--cases ping,module,controller,declare]
                                         [--reps 3] [--reps-slow 1] [--objects auto|pools|mix|guests]
                                         [--json PATH] [--no-warmup] [--keep]
"""

import argparse
import concurrent.futures
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'tests'))

from collection_root import COLLECTIONS  # noqa: E402 pylint: disable=wrong-import-position
from simulator import Simulator  # noqa: E402 pylint: disable=wrong-import-position

BIN = os.path.dirname(sys.executable)
CASES = ('ping', 'module', 'controller', 'declare')
# ping and the module path pay a new interpreter per task (~0.3-0.5 s): from this size on they run --reps-slow times.
SLOW_CASES = ('ping', 'module')
SLOW_FROM = 500
# Single-object cases up to this size use pools only (the "50 no-op single-object tasks"); above it the mix.
POOLS_UP_TO = 50
DECLARE_MODULE = os.path.join(REPO, 'plugins', 'modules', 'declare.py')
PREFIX = 'bench'
RECAP = re.compile(r'^localhost\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)'
                   r'\s+skipped=(\d+)\s+rescued=(\d+)\s+ignored=(\d+)', re.M)
ROLE_PRIVS = ['Sys.Audit', 'VM.Audit']
KINDS = ('pool', 'role', 'user', 'acl', 'storage', 'lxc')
ENV_DROPPED = ('BAO_', 'VAULT_', 'PROXMOX_', 'HOMEFLARE_PROXMOX_', 'ANSIBLE_')
PROXY_VARIABLES = ('http_proxy', 'https_proxy', 'all_proxy', 'ftp_proxy')


class BenchError(Exception):
    pass


# -- the objects ---------------------------------------------------------------------------------
def pool_only(count):
    """``count`` pools: [(kind, options), ...]."""
    return [('pool', {'poolid': '%s-only-%04d' % (PREFIX, i), 'comment': 'bench pool %d' % i}) for i in range(count)]


def mix(count):
    """The first ``count`` objects of the mixed sequence pool, role, user, ACL grant, storage (repeated).

    Grant k gives user k role k on pool k, all three declared just before it.
    """
    objects = []
    k = 0
    while len(objects) < count:
        pool = '%s-p-%04d' % (PREFIX, k)
        role = 'Bench%04d' % k
        user = '%s-u-%04d@pve' % (PREFIX, k)
        unit = [
            ('pool', {'poolid': pool, 'comment': 'bench pool %d' % k}),
            ('role', {'roleid': role, 'privs': list(ROLE_PRIVS)}),
            ('user', {'userid': user, 'email': 'u%04d@bench.invalid' % k}),
            ('acl', {'path': '/pool/%s' % pool, 'type': 'user', 'ugid': user, 'roleid': role}),
            ('storage', {'storage': '%s-s-%04d' % (PREFIX, k), 'type': 'dir', 'path': '/srv/%s-s-%04d' % (PREFIX, k),
                         'content': ['backup']}),
        ]
        objects.extend(unit[:count - len(objects)])
        k += 1
    return objects


def guests(count):
    """``count`` containers spread over the three nodes: a guest has no list read, each is judged from its own."""
    return [('lxc', {'node': 'node%d' % (i % 3 + 1), 'vmid': 1000 + i, 'hostname': '%s-ct-%04d' % (PREFIX, i),
                     'cores': 1, 'memory': 512, 'tags': ['bench']}) for i in range(count)]


def seed_request(kind, options):
    """The one API call that creates ``options`` of ``kind`` as declared."""
    if kind == 'pool':
        return 'POST', '/pools', {'poolid': options['poolid'], 'comment': options['comment']}
    if kind == 'role':
        return 'POST', '/access/roles', {'roleid': options['roleid'], 'privs': ','.join(options['privs'])}
    if kind == 'user':
        return 'POST', '/access/users', {'userid': options['userid'], 'email': options['email']}
    if kind == 'acl':
        return 'PUT', '/access/acl', {'path': options['path'], 'users': options['ugid'], 'roles': options['roleid']}
    if kind == 'lxc':
        return 'POST', '/nodes/%s/lxc' % options['node'], {
            'vmid': str(options['vmid']), 'hostname': options['hostname'], 'storage': 'local-lvm',
            'ostemplate': 'local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst', 'cores': str(options['cores']),
            'memory': str(options['memory']), 'tags': ';'.join(options['tags'])}
    if kind == 'storage':
        return 'POST', '/storage', {'storage': options['storage'], 'type': options['type'], 'path': options['path'],
                                    'content': ','.join(options['content'])}
    raise ValueError(kind)


def seed(sim, objects):
    """Create every object through the simulator's HTTP API (ACL grants last: they need their pool, user and role)."""
    started = time.perf_counter()
    unique = {}
    for kind, options in objects:
        unique[(kind, json.dumps(options, sort_keys=True))] = (kind, options)
    phases = [[o for o in unique.values() if o[0] != 'acl'], [o for o in unique.values() if o[0] == 'acl']]

    def create(item):
        method, path, form = seed_request(*item)
        status, body = sim.request(method, path, form)
        if status != 200:
            raise BenchError('seeding %s %s %s failed: %s %s' % (method, path, form, status, body))

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        for phase in phases:
            list(pool.map(create, phase))
    if sim.writes() and len(sim.writes()) != len(unique):
        raise BenchError('seeding: %d writes for %d objects' % (len(sim.writes()), len(unique)))
    sim.clear_log()
    return len(unique), time.perf_counter() - started


# -- the playbooks -------------------------------------------------------------------------------
def play(sim, tasks):
    return [{
        'name': 'bench',
        'hosts': 'localhost',
        'connection': 'local',
        'gather_facts': False,
        'no_log': False,
        'module_defaults': {'group/homeflare.proxmox.proxmox': sim.module_options()},
        'tasks': tasks,
    }]


def tasks_for(case, objects):
    """The task list of one case, and how many tasks it holds."""
    if case == 'ping':
        return [{'name': 'ping %04d' % i, 'ansible.builtin.ping': None} for i in range(len(objects))]
    if case in ('module', 'controller'):
        return [{'name': '%s %04d' % (kind, i), 'homeflare.proxmox.%s' % kind: dict(options)}
                for i, (kind, options) in enumerate(objects)]
    if case == 'declare':
        grouped = {}
        for kind, options in objects:
            grouped.setdefault(kind, []).append(dict(options))
        return [{'name': 'declare %d objects' % len(objects), 'homeflare.proxmox.declare': {'objects': grouped}}]
    raise ValueError(case)


def objects_for(case, size, choice):
    if choice == 'guests':
        return 'guests', guests(size)
    if choice == 'pools' or (choice == 'auto' and case != 'declare' and size <= POOLS_UP_TO):
        return 'pools', pool_only(size)
    return 'mix', mix(size)


def describe(objects):
    counts = {}
    for kind, _options in objects:
        counts[kind] = counts.get(kind, 0) + 1
    return ', '.join('%d %s' % (counts[kind], kind) for kind in KINDS if kind in counts)


# -- running -------------------------------------------------------------------------------------
def ansible_environment(work, runtime, **extra):
    """The environment of a timed Ansible process: none of the caller's Ansible, OpenBao, Proxmox or proxy
    settings, its homes under ``work``, ``runtime`` as its XDG runtime directory (the lease cache), plus ``extra``."""
    environment = dict((key, value) for key, value in os.environ.items()
                       if not key.startswith(ENV_DROPPED) and key.lower() not in PROXY_VARIABLES)
    environment.update({
        'ANSIBLE_COLLECTIONS_PATH': COLLECTIONS,
        'ANSIBLE_HOME': os.path.join(work, 'ansible-home'),
        'ANSIBLE_LOCAL_TEMP': os.path.join(work, 'ansible-tmp'),
        'ANSIBLE_REMOTE_TEMP': os.path.join(work, 'ansible-remote-tmp'),
        'ANSIBLE_PYTHON_INTERPRETER': sys.executable,
        'ANSIBLE_NOCOLOR': '1',
        'ANSIBLE_RETRY_FILES_ENABLED': '0',
        'ANSIBLE_LOCALHOST_WARNING': '0',
        'ANSIBLE_INVENTORY_UNPARSED_WARNING': '0',
        'XDG_RUNTIME_DIR': runtime,
        'NO_PROXY': '127.0.0.1,localhost',
        'no_proxy': '127.0.0.1,localhost',
    })
    environment.update(extra)
    return environment


class Runner:
    def __init__(self, sim, work):
        self.sim = sim
        self.work = work
        self.count = 0
        runtime = os.path.join(work, 'run')
        os.mkdir(runtime, 0o700)
        config = os.path.join(work, 'ansible.cfg')
        with open(config, 'w', encoding='utf-8') as handle:
            handle.write('[defaults]\n')
        self.environment = ansible_environment(work, runtime, ANSIBLE_CONFIG=config)

    def write(self, case, objects):
        self.count += 1
        tasks = tasks_for(case, objects)
        path = os.path.join(self.work, '%02d-%s-%d.yml' % (self.count, case, len(objects)))
        with open(path, 'w', encoding='utf-8') as handle:
            yaml.safe_dump(play(self.sim, tasks), handle, sort_keys=False)
        return path, len(tasks)

    def run(self, case, book, expected_tasks):
        """One measured ansible-playbook process: (seconds, log entries). Raises BenchError unless it was a clean no-op."""
        environment = dict(self.environment)
        if case == 'module':
            environment['HOMEFLARE_PROXMOX_EXECUTION'] = 'module'
        command = [os.path.join(BIN, 'ansible-playbook'), '-i', 'localhost,', '-c', 'local', '--check', '--diff', book]
        self.sim.clear_log()
        started = time.perf_counter()
        proc = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=self.work,
                              timeout=3600, check=False)
        seconds = time.perf_counter() - started
        log = self.sim.log
        output = proc.stdout + proc.stderr
        recap = RECAP.findall(proc.stdout)
        problem = None
        if proc.returncode != 0:
            problem = 'exit status %d' % proc.returncode
        elif len(recap) != 1:
            problem = 'no PLAY RECAP line for localhost'
        else:
            ok, changed, unreachable, failed, skipped, rescued, ignored = [int(v) for v in recap[0]]
            if changed or unreachable or failed or skipped or rescued or ignored or ok != expected_tasks:
                problem = ('not a clean no-op: ok=%d (expected %d) changed=%d unreachable=%d failed=%d skipped=%d rescued=%d '
                           'ignored=%d' % (ok, expected_tasks, changed, unreachable, failed, skipped, rescued, ignored))
        writes = [e for e in log if e['method'] in ('POST', 'PUT', 'DELETE')
                  and not (e['method'] == 'POST' and e['path'] == '/access/ticket')]
        if problem is None and writes:
            problem = '%d writes in a --check run: %s' % (len(writes), writes[:3])
        if problem is None and case == 'ping' and log:
            problem = 'ping sent %d API requests' % len(log)
        if problem:
            raise BenchError('%s (%s): %s\n--- last output ---\n%s' % (case, book, problem, output[-4000:]))
        return seconds, log


def counts(log, objects):
    gets = sum(1 for e in log if e['method'] == 'GET')
    writes = sum(1 for e in log if e['method'] in ('POST', 'PUT', 'DELETE')
                 and not (e['method'] == 'POST' and e['path'] == '/access/ticket'))
    paths = {}
    for entry in log:
        key = '%s %s' % (entry['method'], re.sub(r'/%s[-\w.@%%]*' % PREFIX, '/{id}', entry['path'], flags=re.I))
        paths[key] = paths.get(key, 0) + 1
    return {
        'requests': len(log),
        'gets': gets,
        'writes': writes,
        'requests_per_object': round(len(log) / float(objects), 3) if objects else None,
        'by_path': dict(sorted(paths.items(), key=lambda item: -item[1])),
    }


class Case:
    """One case at one size: its playbook, and the repetitions measured so far."""

    def __init__(self, runner, case, size, reps, objects_choice):
        self.runner = runner
        self.case = case
        self.size = size
        self.reps = reps
        self.kind, self.objects = objects_for(case, size, objects_choice)
        self.book, self.expected = runner.write(case, self.objects)
        self.times = []
        self.requests = None
        self.failure = None

    def pending(self, rep):
        return self.failure is None and rep < self.reps

    def run(self, rep):
        """Repetition ``rep``; a failure is kept (and printed), the case runs no more."""
        try:
            seconds, log = self.runner.run(self.case, self.book, self.expected)
            these = counts(log, self.size)
            if self.requests is not None and (these['requests'], these['gets'], these['writes']) != \
                    (self.requests['requests'], self.requests['gets'], self.requests['writes']):
                raise BenchError('%s N=%d: request counts differ between repetitions: %s vs %s'
                                 % (self.case, self.size, self.requests, these))
        except BenchError as exc:
            self.failure = str(exc)
            print('FAILED: %s' % exc, file=sys.stderr, flush=True)
            return
        self.times.append(seconds)
        self.requests = these
        print('  %-10s N=%-5d rep %d/%d: %7.2f s  %d requests' % (self.case, self.size, rep + 1, self.reps, seconds,
                                                                  these['requests']), flush=True)

    def row(self):
        if self.failure is not None:
            return {'case': self.case, 'n': self.size, 'objects': self.kind, 'status': 'FAILED', 'error': self.failure[:2000]}
        median = statistics.median(self.times)
        row = {
            'case': self.case, 'n': self.size, 'objects': self.kind, 'composition': describe(self.objects),
            'tasks': self.expected, 'reps': self.reps, 'times': [round(t, 3) for t in self.times],
            'min': round(min(self.times), 3), 'median': round(median, 3), 'max': round(max(self.times), 3),
            'ms_per_object': round(1000.0 * median / self.size, 2), 'status': 'ok',
        }
        row.update(self.requests)
        return row


def measure_size(runner, size, args, available):
    """Every case at one size, repetitions interleaved (round 1 of each case, then round 2, ...).

    On a machine whose background load drifts, interleaving spreads the drift over the cases
    instead of handing it to whichever case happened to run then.
    """
    cases = []
    rows = {}
    for case in args.cases:
        if case == 'declare' and not available:
            rows[case] = {'case': case, 'n': size, 'status': 'not available'}
            print('  %-10s N=%-5d not available' % (case, size), flush=True)
            continue
        reps = args.reps_slow if case in SLOW_CASES and size >= SLOW_FROM else args.reps
        cases.append(Case(runner, case, size, reps, args.objects))
    for rep in range(max([c.reps for c in cases] or [0])):
        for item in cases:
            if item.pending(rep):
                item.run(rep)
    for item in cases:
        rows[item.case] = item.row()
    return [rows[case] for case in args.cases], [c.failure for c in cases if c.failure]


def declare_state():
    """(available, routed to the controller) for homeflare.proxmox.declare."""
    available = os.path.exists(DECLARE_MODULE)
    # An action plugin of the module's own name, or a plugin_routing entry naming one.
    routed = os.path.exists(os.path.join(REPO, 'plugins', 'action', 'declare.py'))
    try:
        with open(os.path.join(REPO, 'meta', 'runtime.yml'), encoding='utf-8') as handle:
            runtime = yaml.safe_load(handle) or {}
        routing = (runtime.get('plugin_routing') or {}).get('modules') or {}
        routed = routed or bool((routing.get('declare') or {}).get('action_plugin'))
    except (OSError, yaml.YAMLError):
        pass
    return available, routed


def warm_up(runner):
    """One small unmeasured run per path, so the first measured run does not pay for cold caches."""
    pools = pool_only(1)
    for case in ('ping', 'module', 'controller'):
        book, expected = runner.write(case, pools)
        runner.run(case, book, expected)


def machine():
    model = None
    try:
        with open('/proc/cpuinfo', encoding='utf-8') as handle:
            for line in handle:
                if line.startswith('model name'):
                    model = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    ansible = subprocess.run([os.path.join(BIN, 'ansible-playbook'), '--version'], capture_output=True, text=True,
                             check=False).stdout.splitlines()
    return {
        'commit': git('rev-parse', 'HEAD'),
        'uncommitted_files': len(git('status', '--porcelain', '--untracked-files=all').splitlines()),
        'nproc': os.cpu_count(),
        'cpu_model': model,
        'python': platform.python_version(),
        'ansible_core': ansible[0].split('[core ')[-1].rstrip(']') if ansible else None,
        'kernel': platform.release(),
        'loadavg_at_start': [round(v, 2) for v in os.getloadavg()],
        'PYTHONDONTWRITEBYTECODE': os.environ.get('PYTHONDONTWRITEBYTECODE'),
    }


def git(*args):
    """A read-only git query about the checkout (empty when git is unavailable)."""
    try:
        return subprocess.run(['git', '-C', REPO] + list(args), capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ''


# -- the done-criteria of the issue --------------------------------------------------------------
def find(rows, case, size):
    for row in rows:
        if row['case'] == case and row['n'] == size:
            return row
    return None


def criteria(rows):
    checks = []
    controller, module = find(rows, 'controller', 50), find(rows, 'module', 50)
    name = '50 no-op single-object tasks: controller <= 1/3 of module time, one GET per object, zero writes'
    if controller and module and controller['status'] == module['status'] == 'ok':
        ratio = controller['median'] / module['median']
        holds = ratio <= 1 / 3.0 and controller['gets'] == 50 and controller['requests'] == 50 and controller['writes'] == 0
        checks.append({'criterion': name, 'result': 'PASS' if holds else 'FAIL',
                       'evidence': 'controller/module = %.3f (%.2f s / %.2f s), %d requests, %d GETs, %d writes'
                                   % (ratio, controller['median'], module['median'], controller['requests'],
                                      controller['gets'], controller['writes'])})
    else:
        checks.append({'criterion': name, 'result': 'NOT MEASURED', 'evidence': 'needs controller and module at N=50'})
    declare = find(rows, 'declare', 1000)
    name = 'no-op declare of 1,000 mixed objects: < 15 s wall, < 20 requests, zero writes'
    if declare and declare['status'] == 'ok':
        holds = declare['max'] < 15 and declare['requests'] < 20 and declare['writes'] == 0
        checks.append({'criterion': name, 'result': 'PASS' if holds else 'FAIL',
                       'evidence': '%.2f s median, %.2f s max, %d requests, %d writes on %d cores'
                                   % (declare['median'], declare['max'], declare['requests'], declare['writes'],
                                      os.cpu_count())})
    else:
        pending = declare is not None and declare['status'] == 'not available'
        checks.append({'criterion': name, 'result': 'PENDING' if pending else 'FAIL' if declare else 'NOT MEASURED',
                       'evidence': declare['status'] if declare else 'declare not run at N=1000'})
    return checks


# -- output --------------------------------------------------------------------------------------
def table(rows):
    header = ('N', 'case', 'objects', 'reps', 'min s', 'median s', 'max s', 'ms/object', 'requests', 'GETs', 'writes',
              'req/object')
    lines = [header]
    for row in rows:
        if row['status'] != 'ok':
            lines.append((str(row['n']), row['case'], row.get('objects', '-'), '-', row['status'], '', '', '', '', '', '', ''))
            continue
        lines.append((str(row['n']), row['case'], row['objects'], str(row['reps']), '%.2f' % row['min'],
                      '%.2f' % row['median'], '%.2f' % row['max'], '%.1f' % row['ms_per_object'], str(row['requests']),
                      str(row['gets']), str(row['writes']), '%.2f' % row['requests_per_object']))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = []
    for index, line in enumerate(lines):
        out.append('  '.join(cell.rjust(widths[i]) if i not in (1, 2) else cell.ljust(widths[i])
                             for i, cell in enumerate(line)).rstrip())
        if index == 0:
            out.append('  '.join('-' * width for width in widths))
    return '\n'.join(out)


def ratios(rows, sizes):
    result = {}
    for size in sizes:
        controller, module = find(rows, 'controller', size), find(rows, 'module', size)
        if controller and module and controller['status'] == module['status'] == 'ok':
            result[str(size)] = round(controller['median'] / module['median'], 3)
    return result


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--sizes', default='50,1000', help='comma-separated object counts (default: 50,1000)')
    parser.add_argument('--cases', default=','.join(CASES), help='comma-separated subset of %s' % ', '.join(CASES))
    parser.add_argument('--reps', type=int, default=3, help='repetitions per case (default: 3)')
    parser.add_argument('--reps-slow', type=int, default=1,
                        help='repetitions of ping and module from N=%d on (default: 1)' % SLOW_FROM)
    parser.add_argument('--objects', choices=('auto', 'pools', 'mix', 'guests'), default='auto',
                        help='auto: pools for single-object cases up to N=%d, the mix otherwise and for declare; '
                             'guests: containers on three nodes' % POOLS_UP_TO)
    parser.add_argument('--json', metavar='PATH', help='write the results as JSON')
    parser.add_argument('--no-warmup', action='store_true', help='skip the unmeasured warm-up runs')
    parser.add_argument('--keep', action='store_true', help='keep the work directory (playbooks) and print its path')
    args = parser.parse_args(argv)
    try:
        args.sizes = [int(s) for s in args.sizes.split(',') if s.strip()]
    except ValueError:
        parser.error('--sizes takes comma-separated integers')
    args.cases = [c.strip() for c in args.cases.split(',') if c.strip()]
    unknown = [c for c in args.cases if c not in CASES]
    if unknown or not args.cases:
        parser.error('--cases: unknown %s (known: %s)' % (', '.join(unknown), ', '.join(CASES)))
    if not args.sizes or min(args.sizes) < 1 or args.reps < 1 or args.reps_slow < 1:
        parser.error('sizes and repetitions must be positive')
    return args


def main(argv=None):
    args = parse_args(argv)
    info = machine()
    available, routed = declare_state()
    print('machine: %(nproc)s cores, %(cpu_model)s, python %(python)s, ansible-core %(ansible_core)s' % info)
    print('checkout: %s, %d uncommitted file(s)' % (info['commit'][:12] or '?', info['uncommitted_files']))
    print('declare: %s' % ('available (%s)' % ('routed to the controller' if routed else 'NOT routed to the controller')
                           if available else 'not available (plugins/modules/declare.py does not exist)'))
    work = tempfile.mkdtemp(prefix='homeflare-bench-')
    rows = []
    failures = []
    started = time.perf_counter()
    try:
        with Simulator(members=3) as sim:
            runner = Runner(sim, work)
            wanted = []
            for case in args.cases:
                for size in args.sizes:
                    if case != 'ping':
                        wanted.extend(objects_for(case, size, args.objects)[1])
            if not args.no_warmup:
                wanted.extend(pool_only(1))
            created, took = seed(sim, wanted)
            print('seeded %d objects through the API in %.1f s' % (created, took), flush=True)
            if not args.no_warmup:
                warm_up(runner)
                print('warm-up done', flush=True)
            for size in args.sizes:
                size_rows, size_failures = measure_size(runner, size, args, available)
                rows.extend(size_rows)
                failures.extend(size_failures)
    finally:
        if args.keep:
            print('work directory kept: %s' % work)
        else:
            shutil.rmtree(work, ignore_errors=True)

    print()
    print(table(rows))
    print()
    ratio = ratios(rows, args.sizes)
    for size, value in ratio.items():
        print('controller/module at N=%s: %.3f (controller takes %.1f%% of the module path\'s time)'
              % (size, value, 100 * value))
    checks = criteria(rows)
    print()
    for check in checks:
        print('[%s] %s: %s' % (check['result'], check['criterion'], check['evidence']))
    info['loadavg_at_end'] = [round(v, 2) for v in os.getloadavg()]
    print('\nload average at start %s, at end %s' % (info['loadavg_at_start'], info['loadavg_at_end']))
    print('total %.0f s' % (time.perf_counter() - started))
    if args.json:
        with open(args.json, 'w', encoding='utf-8') as handle:
            json.dump({'machine': info, 'declare': {'available': available, 'routed_to_controller': routed},
                       'options': {'sizes': args.sizes, 'cases': args.cases, 'reps': args.reps,
                                   'reps_slow': args.reps_slow, 'objects': args.objects,
                                   'slow_from': SLOW_FROM, 'pools_up_to': POOLS_UP_TO},
                       'rows': rows, 'controller_over_module': ratio, 'criteria': checks, 'failures': failures},
                      handle, indent=2)
            handle.write('\n')
        print('JSON: %s' % args.json)
    if failures:
        print('\n%d case(s) FAILED, see above' % len(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())

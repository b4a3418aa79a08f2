"""The cluster families' matrix (datacenter options, metric servers, backup jobs, replication jobs), with real
ansible-playbook runs on both execution paths.

Each step runs all four modules in one play: check-mode create writes nothing → create (one write per
object) → re-run changed=false, zero writes, one GET per object → drift made through the API behind the
module's back → --check --diff names exactly the drifted fields and writes nothing → a real run repairs with
one write per object → state=absent → again a no-op (the module path skips the two confirming re-runs). The
datacenter options always exist: their first run is an update, and they have no state=absent.

``MATRIX``, ``SETUP`` and ``GUESTS`` have the shape of test_matrix's ``FAMILIES``/``SETUP`` (plus the guests a
replication job needs, seeded into the simulator's state), so they can join the shared matrix. The tasks
name their connection themselves until the modules join the ``homeflare.proxmox.proxmox`` action group.
"""

import pytest

from conftest import EXECUTION_PATHS, connection, reconfirms
from test_matrix import api

# A replication job needs a guest with a volume on local ZFS, and a zfspool storage to hold it.
SETUP = [('POST', '/storage', {'storage': 'local-zfs', 'type': 'zfspool', 'pool': 'rpool/data',
                               'content': 'images,rootdir'}),
         ('POST', '/storage', {'storage': 'ceph-vm', 'type': 'rbd', 'pool': 'vm'})]
GUESTS = {
    100: {'type': 'qemu', 'node': 'node1', 'config': {'scsi0': 'local-zfs:vm-100-disk-0,size=32G'}},
    # on Ceph only: nothing to replicate
    101: {'type': 'qemu', 'node': 'node1', 'config': {'scsi0': 'ceph-vm:vm-101-disk-0,size=32G'}},
}

MATRIX = {
    'cluster_options': dict(
        prefix='/cluster/options',
        args={'keyboard': 'de', 'console': 'xtermjs', 'email_from': 'pve@example.org', 'max_workers': 4,
              'mac_prefix': 'BC:24:12', 'migration': 'insecure,network=10.10.0.0/24',
              'ha': 'shutdown_policy=migrate', 'crs': 'ha=static,ha-rebalance-on-start=1',
              'next_id': 'lower=1000,upper=9999', 'bwlimit': 'default=51200,migration=102400',
              'tag_style': 'shape=dense,ordering=config', 'user_tag_access': 'user-allow=list,user-allow-list=dev;lab',
              'registered_tags': ['prod', 'backup'], 'description': 'Lab cluster\nManaged by Ansible\n'},
        # migration comes back as an object, registered-tags as a list: both still compare
        drift=[('PUT', '/cluster/options', {'keyboard': 'en-us', 'migration': 'type=secure',
                                            'registered-tags': 'prod', 'language': 'fr'})],
        drifted={'keyboard': 'keyboard', 'migration': 'migration', 'registered_tags': 'registered-tags'},
        absent=None,
    ),
    'metric_server': dict(
        prefix='/cluster/metrics/server',
        args={'id': 'influx', 'type': 'influxdb', 'server': '10.0.0.5', 'port': 8086, 'influxdbproto': 'https',
              'organization': 'ops', 'bucket': 'proxmox', 'verify_certificate': False, 'max_body_size': 1000000,
              'token': 'influx-token-2f9c1e'},
        # PVE wants server and port on every write; the bucket and port drift, the token is never compared
        drift=[('PUT', '/cluster/metrics/server/influx', {'server': '10.0.0.5', 'port': '8087', 'bucket': 'other',
                                                          'token': 'someone-elses-token'})],
        drifted={'port': 'port', 'bucket': 'bucket'},
        absent={'id': 'influx', 'state': 'absent'},
    ),
    'backup_job': dict(
        prefix='/cluster/backup',
        args={'id': 'nightly', 'schedule': '21:00', 'storage': 'local', 'vmid': ['105', '1000', '100'],
              'enabled': True, 'mode': 'snapshot', 'compress': 'zstd', 'prune_backups': 'keep-daily=7,keep-last=3',
              'fleecing': '1', 'notification_mode': 'notification-system', 'comment': 'Production guests'},
        drift=[('PUT', '/cluster/backup/nightly', {'vmid': '100,105', 'prune-backups': 'keep-last=3',
                                                   'enabled': '0', 'mailnotification': 'failure'})],
        drifted={'vmid': 'vmid', 'prune_backups': 'prune-backups', 'enabled': 'enabled'},
        absent={'id': 'nightly', 'state': 'absent'},
    ),
    'replication_job': dict(
        prefix='/cluster/replication',
        args={'id': '100-0', 'target': 'node2', 'schedule': '*/30', 'rate': '50', 'comment': 'Standby copy'},
        drift=[('PUT', '/cluster/replication/100-0', {'schedule': '*/5', 'rate': '10.0', 'disable': '1'})],
        drifted={'schedule': 'schedule', 'rate': 'rate'},
        absent={'id': '100-0', 'state': 'absent'},
    ),
}
MODULES = sorted(MATRIX)
SINGLETONS = [module for module in MODULES if MATRIX[module]['absent'] is None]
REMOVABLE = [module for module in MODULES if module not in SINGLETONS]

# (module, options, the option the message must name): refused before any request.
BAD_INPUT = [
    ('cluster_options', {'keyboard': 'klingon'}, 'keyboard'),
    ('cluster_options', {'migration': 'type=fast'}, 'migration'),
    ('cluster_options', {'migration': 'secure,network=10.0.0.1'}, 'migration'),
    ('cluster_options', {'next_id': 'lower=5000,upper=4000'}, 'next_id'),
    ('cluster_options', {'next_id': 'lower=99'}, 'next_id'),
    ('cluster_options', {'crs': 'ha=fancy'}, 'crs'),
    ('cluster_options', {'tag_style': 'colour=blue'}, 'tag_style'),
    ('cluster_options', {'registered_tags': ['prod', 'bad tag']}, 'registered_tags'),
    ('cluster_options', {'email_from': 'not an email'}, 'email_from'),
    ('cluster_options', {'http_proxy': 'https://proxy:3128'}, 'http_proxy'),
    ('cluster_options', {'max_workers': 0}, 'max_workers'),
    ('cluster_options', {'description': 'x' * 65537}, 'description'),
    ('cluster_options', {'keyboard': 'de', 'state': 'absent'}, 'state'),
    ('cluster_options', {'mac_prefix': 'BC:24:11:0'}, 'mac_prefix'),
    ('metric_server', {'id': 'influx', 'type': 'influxdb', 'server': '10.0.0.5'}, 'port'),
    ('metric_server', {'id': 'g1', 'server': 'carbon', 'port': 2003}, 'type'),
    ('metric_server', {'id': 'g1', 'type': 'statsd', 'server': 'carbon', 'port': 2003}, 'type'),
    ('metric_server', {'id': '1g', 'type': 'graphite', 'server': 'carbon', 'port': 2003}, 'id'),
    ('metric_server', {'id': 'g1', 'type': 'graphite', 'server': 'bad host!', 'port': 2003}, 'server'),
    ('metric_server', {'id': 'g1', 'type': 'graphite', 'server': 'carbon', 'port': 70000}, 'port'),
    ('metric_server', {'id': 'g1', 'type': 'graphite', 'server': 'carbon', 'port': 2003, 'mtu': 1500}, 'mtu'),
    ('metric_server', {'id': 'g1', 'type': 'graphite', 'server': 'carbon', 'port': 2003, 'token': 'graphite-token-1'},
     'token'),
    ('metric_server', {'id': 'i1', 'type': 'influxdb', 'server': 'x', 'port': 8086, 'mtu': 100}, 'mtu'),
    ('metric_server', {'id': 'g1', 'type': 'graphite', 'server': 'carbon', 'port': 2003, 'path': 'pve..lab'}, 'path'),
    ('metric_server', {'id': 'o1', 'type': 'opentelemetry', 'server': 'x', 'port': 4318, 'otel_timeout': 11},
     'otel_timeout'),
    ('backup_job', {'id': 'nightly', 'schedule': 'every day', 'vmid': ['100']}, 'schedule'),
    ('backup_job', {'id': 'nightly', 'schedule': 'daily', 'vmid': ['99']}, 'vmid'),
    ('backup_job', {'id': 'nightly', 'schedule': 'daily', 'vmid': ['100'], 'all': True}, 'all'),
    ('backup_job', {'id': 'nightly', 'schedule': 'daily', 'all': True, 'prune_backups': 'keep-lots=1'},
     'prune_backups'),
    ('backup_job', {'id': 'nightly', 'schedule': 'daily', 'all': True, 'fleecing': 'enabled=maybe'}, 'fleecing'),
    ('backup_job', {'id': 'nightly', 'schedule': 'daily', 'all': True, 'performance': 'max-workers=512'},
     'performance'),
    ('backup_job', {'id': 'nightly', 'schedule': 'daily', 'all': True, 'mode': 'live'}, 'mode'),
    ('backup_job', {'id': 'nightly', 'schedule': 'daily', 'all': True, 'ionice': 9}, 'ionice'),
    ('backup_job', {'id': 'nightly', 'schedule': 'daily', 'all': True, 'mailto': ['ops team']}, 'mailto'),
    ('backup_job', {'id': '1nightly', 'schedule': 'daily', 'all': True}, 'id'),
    ('backup_job', {'id': 'n' * 51, 'state': 'absent'}, 'id'),
    ('backup_job', {'id': 'nightly', 'all': True, 'storage': ''}, 'storage'),
    ('backup_job', {'id': 'nightly', 'schedule': 'daily', 'all': True, 'notes_template': 'x'}, 'notes_template'),
    ('replication_job', {'id': '100', 'target': 'node2'}, 'id'),
    ('replication_job', {'id': '99-0', 'target': 'node2'}, 'id'),
    ('replication_job', {'id': '100-0', 'target': 'node_2'}, 'target'),
    ('replication_job', {'id': '100-0', 'target': 'node2', 'rate': '0.5'}, 'rate'),
    ('replication_job', {'id': '100-0', 'target': 'node2', 'rate': 'fast'}, 'rate'),
    ('replication_job', {'id': '100-0', 'target': 'node2', 'schedule': 'sometimes'}, 'schedule'),
    ('replication_job', {'id': '100-0', 'target': 'node2', 'type': 'remote'}, 'type'),
    ('replication_job', {'id': '100-0', 'target': 'node2', 'comment': 'x' * 4097}, 'comment'),
]

SECRETS = {
    'metric_server': [
        {'id': 'influx', 'type': 'influxdb', 'server': '10.0.0.5', 'port': 8086, 'token': 'influx-token-7d41aa'},
        {'id': 'otel', 'type': 'opentelemetry', 'server': '10.0.0.6', 'port': 4318,
         'otel_headers': 'eyJBdXRob3JpemF0aW9uIjogIkJlYXJlciBvdGVsLXNlY3JldCJ9'},
    ],
}


def prepare(sim):
    api(sim, SETUP)
    with sim.state.lock:
        sim.state.guests.update(GUESTS)


def of(module, entries):
    prefix = MATRIX[module]['prefix']
    return [entry for entry in entries if entry['path'] == prefix or entry['path'].startswith(prefix + '/')]


def tasks_for(sim, declarations):
    """One task per (module, options), each naming the connection itself."""
    return [{'name': '%s %d' % (module, index), 'homeflare.proxmox.%s' % module: dict(args, **connection(sim)),
             'ignore_errors': True}
            for index, (module, args) in enumerate(declarations)]


def step(sim, playbook, path, key, check=False, diff=False, modules=None):
    """Run ``key`` (args or absent) of ``modules`` in one play; {module: result}."""
    modules = modules or MODULES
    sim.clear_log()
    run = playbook(tasks_for(sim, [(module, MATRIX[module][key]) for module in modules]), check=check, diff=diff,
                   env=EXECUTION_PATHS[path])
    assert run.rc == 0 and not run.failed, [(line['task'], line['result'].get('msg')) for line in run.failed] or run
    return run, dict((line['task'].split(' ')[0], line['result']) for line in run.results)


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_cluster_families_matrix(sim, playbook, path):
    prepare(sim)

    # 1. check mode: create (the datacenter options: update) and nothing written
    run, results = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        assert results[module]['changed'] is True, module
        assert results[module]['plan']['action'] == ('update' if module in SINGLETONS else 'create'), module
    assert sim.writes() == []

    # 2. create: one write per object; the secret goes with the create and never comes back
    run, results = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert results[module]['changed'] is True, module
        assert len(of(module, sim.writes())) == 1, (module, sim.writes())
    assert sim.state.metric_secrets == {'influx': 'influx-token-2f9c1e'}
    assert 'influx-token-2f9c1e' not in run.output + str(results)

    # 3. re-run: adopted, zero writes, one GET per object
    run, results = step(sim, playbook, path, 'args')
    for module in MODULES:
        assert results[module]['plan'] == {'read': 'found', 'action': 'none', 'changed': []}, (module, results[module])
        assert [entry['method'] for entry in of(module, sim.log)] == ['GET'], (module, sim.log)
    assert sim.writes() == []

    # 4. drift behind the module's back
    for module in MODULES:
        api(sim, MATRIX[module]['drift'])

    # 5. --check --diff names exactly the drifted fields and writes nothing
    run, results = step(sim, playbook, path, 'args', check=True, diff=True)
    for module in MODULES:
        drifted = sorted(MATRIX[module]['drifted'])
        assert results[module]['plan']['action'] == 'update', module
        assert sorted(results[module]['plan']['changed']) == drifted, (module, results[module]['plan'])
        diff = results[module]['diff']
        assert sorted(key for key in diff['after'] if diff['before'].get(key) != diff['after'][key]) == drifted, module
    for field in set().union(*(MATRIX[module]['drifted'] for module in MODULES)):
        assert field in run.output, 'the --diff output must show %s' % field
    assert sim.writes() == []

    # 6. a real run repairs with one write per object, carrying the drifted fields
    run, results = step(sim, playbook, path, 'args')
    for module in MODULES:
        written = of(module, sim.writes())
        assert results[module]['changed'] is True and len(written) == 1, (module, written)
        sent = set(written[0]['form']) | set(str(written[0]['form'].get('delete', '')).split(','))
        assert set(MATRIX[module]['drifted'].values()) <= sent, (module, written)
    # what PVE takes only alongside: server and port with every metric server write
    assert {'server', 'port'} <= set(of('metric_server', sim.writes())[0]['form'])
    # the token someone else set is not compared, so it is left alone
    assert sim.state.metric_secrets == {'influx': 'someone-elses-token'}
    if reconfirms(path):
        run, results = step(sim, playbook, path, 'args')
        assert not any(results[module]['changed'] for module in MODULES) and sim.writes() == []

    # 7. state=absent removes (a replication job is marked, pvesr removes it), 8. again a no-op
    run, results = step(sim, playbook, path, 'absent', modules=REMOVABLE)
    for module in REMOVABLE:
        assert results[module]['plan']['action'] == 'delete' and len(of(module, sim.writes())) == 1, module
    assert 'influx' not in sim.state.metric_servers and 'influx' not in sim.state.metric_secrets
    assert 'nightly' not in sim.state.backup_jobs
    assert sim.state.replication_jobs['100-0']['remove_job'] == 'full'
    if reconfirms(path):
        run, results = step(sim, playbook, path, 'absent', modules=REMOVABLE)
        for module in REMOVABLE:
            assert results[module]['changed'] is False and results[module]['object'] == {}, module
        assert sim.writes() == []


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_secrets_never_appear_in_output_result_or_diff(sim, playbook, path):
    secrets = ['influx-token-7d41aa', 'eyJBdXRob3JpemF0aW9uIjogIkJlYXJlciBvdGVsLXNlY3JldCJ9']
    declarations = [(module, args) for module, objects in SECRETS.items() for args in objects]
    for check in (True, False, False):
        run = playbook(tasks_for(sim, declarations), check=check, diff=True, verbosity=3, env=EXECUTION_PATHS[path])
        assert run.rc == 0 and not run.failed, run
        for secret in secrets:
            assert secret not in run.output and secret not in str(run.results)
    assert sim.state.metric_secrets == {'influx': 'influx-token-7d41aa'}
    assert sim.state.metric_servers['otel']['otel-headers'] == secrets[1]


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_pves_replication_refusal_is_reported_as_it_is(sim, playbook, path):
    prepare(sim)
    run = playbook(tasks_for(sim, [('replication_job', {'id': '101-0', 'target': 'node2'})]),
                   env=EXECUTION_PATHS[path])
    line = run.results[-1]
    assert line['status'] == 'failed' and 'No replicatable volumes found' in line['result']['msg'], line
    assert sim.state.replication_jobs == {}

"""``homeflare.proxmox.export`` through real ``ansible-playbook`` runs: a cluster populated through the API (every
family's matrix object, non-default fields included) is exported, and ``declare`` of the export in ``--check
--diff`` judges every object a match with zero writes; a second export equals the first; drift made after the
export is named field by field. The same for a backup server.
"""

import os

import pytest
import yaml

from conftest import EXECUTION_PATHS, REPO
from test_access_notify_families import SETUP as ACCESS_NOTIFY_SETUP
from test_cluster_families import SETUP as CLUSTER_SETUP
from test_declare_families import GUESTS, MATRIX as DECLARE_MATRIX, MODULES as DECLARE_MODULES, TOKEN_MADE_BEFORE
from test_fabric_families import MATRIX as FABRIC, SETUP as FABRIC_SETUP
from test_snapshot_family import SETUP as SNAPSHOT_SETUP
from test_firewall_families import SETUP as FIREWALL_SETUP
from test_firewall_guest_sets import OBJECTS as GUEST_FIREWALL, SETUP as GUEST_FIREWALL_SETUP
from test_guest_families import seed_guests
from test_matrix import FAMILIES as FOUNDATION, SETUP as FOUNDATION_SETUP, api
from test_network_families import MATRIX as NETWORK, SETUP as NETWORK_SETUP
from test_pbs_families import ROLE_VARIABLES, backup_server_declaration, pbs_api, pbs_connection, role_task
from test_storage_hw_families import MATRIX as STORAGE_HW, as_root, seed_storage_hw

from simulator.pve.handlers.guests import add_guest

CIFS_PASSWORD = 'Cifs-Share-Secret-42'
CIFS = ('POST', '/storage', {'storage': 'share', 'type': 'cifs', 'server': '10.0.0.9', 'share': 'backups',
                             'username': 'pve', 'password': CIFS_PASSWORD, 'content': 'backup'})


def without_create_missing(options):
    return dict((key, value) for key, value in options.items() if key != 'create_missing')


def export_with_the_example(playbook, destination):
    """examples/export.yml as a user runs it, writing the declaration to ``destination``; the run."""
    with open(os.path.join(REPO, 'examples', 'export.yml')) as handle:
        play = yaml.safe_load(handle)[0]
    run = playbook(play['tasks'], play_extra={'vars': dict(play['vars'], export_destination=str(destination))})
    assert run.rc == 0, run
    return run


def populated(sim, playbook):
    """Every PVE family's matrix object, declared in one task (root's password: the OSD needs it), plus a CIFS
    storage made through the API. Returns the declared objects."""
    api(sim, FOUNDATION_SETUP + ACCESS_NOTIFY_SETUP + CLUSTER_SETUP + FIREWALL_SETUP + NETWORK_SETUP +
        FABRIC_SETUP + SNAPSHOT_SETUP + [TOKEN_MADE_BEFORE, CIFS])
    with sim.state.lock:
        sim.state.guests.update(GUESTS)
    seed_guests(sim)
    seed_storage_hw(sim)
    objects = dict((module, [without_create_missing(DECLARE_MATRIX[module]['args'])]) for module in DECLARE_MODULES)
    for group in (FOUNDATION, NETWORK, FABRIC, STORAGE_HW):
        objects.update((module, [entry['args']]) for module, entry in group.items())
    objects.update(network_apply=[{'node': 'node1'}], sdn_apply=[{}])
    run = playbook([{'name': 'Populate', 'homeflare.proxmox.declare': as_root(sim, {'objects': objects})}])
    assert run.rc == 0, run
    sim.clear_log()
    return objects


def export_then_declare(sim, playbook, path='controller', check_connection=None, **export):
    """One play: export (on ``path``), then declare its objects unchanged in check mode; both results."""
    declare = {'objects': '{{ exported.objects }}'}
    tasks = [{'name': 'Export', 'homeflare.proxmox.export': export, 'register': 'exported'},
             {'name': 'Declare', 'homeflare.proxmox.declare': dict(declare, **(check_connection or {}))}]
    run = playbook(tasks, check=True, diff=True, env=EXECUTION_PATHS[path])
    assert run.rc == 0, run
    return run.result(0), run.result(1)


def test_every_pve_family_exports_as_a_declaration_that_applies_as_a_no_op(sim, playbook):
    declared = populated(sim, playbook)
    exported, judged = export_then_declare(sim, playbook, check_connection=as_root(sim, {}))
    # a family whose list carries every managed field is one read (the export's, then declare's own)
    for path in ('/pools', '/access/roles', '/access/groups', '/storage', '/access/acl', '/cluster/ha/rules'):
        assert [entry['path'] for entry in sim.log if entry['method'] == 'GET'].count(path) == 2, path
    # every declared family is in the export (the applies are not objects; a snapshot is no declaration)
    assert set(declared) - set(exported['objects']) == {'network_apply', 'sdn_apply', 'snapshot'}, exported['objects']
    # only the families that are no declaration are left out, each with its reason
    assert set(exported['not_exported']) == {'snapshot', 'backup', 'realm_sync'}, exported['not_exported']
    assert 'point in time' in exported['not_exported']['snapshot']
    assert 'not an object' in exported['not_exported']['realm_sync']
    assert 'not a declaration' in exported['not_exported']['backup']
    # a guest is its config: nothing that would create, resize, move or power it
    for module in ('lxc', 'vm'):
        for guest in exported['objects'][module]:
            assert not set(guest) & {'ostemplate', 'clone', 'full', 'storage', 'pool', 'state', 'password'}, guest
    assert judged['summary']['judged'] == sum(exported['counts'].values()) > 60
    drifted = [(entry['module'], entry['name'], entry['plan']) for entry in judged['results']
               if entry['plan']['action'] != 'none']
    assert drifted == [] and judged['summary']['matched'] == judged['summary']['judged']
    assert sim.writes() == []
    # in declare's order, objects in identity order
    from ansible_collections.homeflare.proxmox.plugins.module_utils.registry import ORDER
    assert list(exported['objects']) == [module for module in ORDER if module in exported['objects']]

    again, _judged = export_then_declare(sim, playbook, check_connection=as_root(sim, {}))
    assert again['objects'] == exported['objects'] and again['secrets'] == exported['secrets']


def test_every_guest_s_and_vnet_s_firewall_exports_with_its_scope(sim, playbook):
    """A VM's aliases, IP set, options and rules, a container's alias (it lives on node3) and a vnet's options and
    rules, each exported with its scope and its owner where it lives; declared back, a no-op."""
    api(sim, GUEST_FIREWALL_SETUP)
    add_guest(sim.state, 'lxc', 101, 'node3')
    tasks = [{'name': name, 'homeflare.proxmox.%s' % module: args} for name, (module, args) in GUEST_FIREWALL.items()]
    tasks.append({'name': 'vnet options', 'homeflare.proxmox.firewall_options': {
        'scope': 'vnet', 'vnet': 'app', 'enable': True, 'policy_forward': 'DROP'}})
    assert playbook(tasks).rc == 0
    firewall = ['firewall_alias', 'firewall_ipset', 'firewall_options', 'firewall_rules']
    sim.clear_log()
    exported, judged = export_then_declare(sim, playbook, include=firewall)
    objects = exported['objects']

    def owned(module, scope):
        return [tuple(entry[key] for key in ('node', 'vmid', 'name', 'vnet') if key in entry)
                for entry in objects[module] if entry['scope'] == scope]

    assert owned('firewall_alias', 'vm') == [('node1', 100, 'backup'), ('node1', 100, 'db'), ('node3', 101, 'db')]
    assert owned('firewall_alias', 'cluster') == [('office',)]
    assert owned('firewall_ipset', 'vm') == [('node1', 100, 'admins')]
    assert owned('firewall_options', 'vm') == [('node1', 100)] and owned('firewall_options', 'vnet') == [('app',)]
    assert owned('firewall_rules', 'vm') == [('node1', 100)] and owned('firewall_rules', 'vnet') == [('app',)]
    ipset = [entry for entry in objects['firewall_ipset'] if entry['scope'] == 'vm'][0]
    assert sorted(entry['cidr'] for entry in ipset['entries']) == ['192.0.2.0/24', 'guest/backup', 'office'], ipset
    rules = [entry for entry in objects['firewall_rules'] if entry['scope'] == 'vm'][0]['rules']
    assert [rule.get('source') or rule.get('dest') or rule['action'] for rule in rules] == [
        'webs', '+guest/admins', 'db'], rules
    # (an empty rule list of the cluster or a node reads as gone: warned as before, and none of a guest or vnet)
    assert exported['refused'] == []
    assert not [text for text in exported['warnings'] if 'guest' in text or 'vnet' in text], exported['warnings']
    assert judged['summary']['matched'] == judged['summary']['judged'] == sum(exported['counts'].values())
    assert sim.writes() == []


def test_drift_after_the_export_is_named_field_by_field(sim, playbook):
    populated(sim, playbook)
    run = playbook([{'name': 'Export', 'homeflare.proxmox.export': {}}])
    assert run.rc == 0, run
    objects = run.result(0)['objects']
    drifts = {'pool': FOUNDATION['pool'], 'storage': FOUNDATION['storage'], 'sdn_zone': NETWORK['sdn_zone'],
              'sdn_fabric_node': FABRIC['sdn_fabric_node'], 'ha_rule': DECLARE_MATRIX['ha_rule'],
              'notification_matcher': DECLARE_MATRIX['notification_matcher']}
    for entry in drifts.values():
        api(sim, entry['drift'])
    sim.clear_log()
    # the objects as a declaration file holds them: its placeholders name variables, given here
    variables = dict((entry['variable'], 'kept-in-a-vault') for entry in run.result(0)['secrets'])
    run = playbook([{'name': 'Declare', 'homeflare.proxmox.declare': {'objects': objects, 'fail_on_drift': True}}],
                   check=True, diff=True, play_extra={'vars': variables})
    assert run.rc != 0
    result = run.result()
    assert 'differ from the declaration' in result['msg'], result
    changed = dict((entry['module'], sorted(entry['plan']['changed'])) for entry in result['results']
                   if entry['plan']['action'] != 'none')
    assert changed == dict((module, sorted(entry['drifted'])) for module, entry in drifts.items()), changed
    assert sim.writes() == []


def test_secrets_are_placeholders_and_the_variables_are_listed(sim, playbook):
    populated(sim, playbook)
    families = ['storage', 'notification_endpoint', 'realm']
    run = playbook([{'name': 'Export', 'homeflare.proxmox.export': {'include': families}}], verbosity=3)
    assert run.rc == 0, run
    result = run.result()
    for secret in (CIFS_PASSWORD, sim.token_secret, DECLARE_MATRIX['notification_endpoint']['args']['password']):
        assert secret not in run.output and secret not in str(result)
    share = [entry for entry in result['objects']['storage'] if entry['storage'] == 'share'][0]
    assert share['password'] == '{{ storage_share_password }}'
    variables = dict((entry['variable'], (entry['module'], entry['option'])) for entry in result['secrets'])
    assert variables['storage_share_password'] == ('storage', 'password')
    assert variables['notification_endpoint_smtp_ops_mail_password'] == ('notification_endpoint', 'password')
    assert variables['realm_corp_password'] == ('realm', 'password')
    # only the secrets each type takes: no gotify token or webhook secret on an smtp endpoint, no keyring on cifs
    assert not any(name.endswith(('_token', '_secret', '_keyring', '_client_key')) and 'ops_mail' in name
                   for name in variables)
    assert 'storage_share_keyring' not in variables


def test_include_exclude_identity_pattern_and_builtins(sim, playbook):
    populated(sim, playbook)
    run = playbook([
        {'name': 'Some', 'homeflare.proxmox.export': {'include': ['pool', 'role', 'user', 'storage'],
                                                      'exclude': ['storage']}},
        {'name': 'Builtin', 'homeflare.proxmox.export': {'include': ['role', 'realm', 'user', 'storage'],
                                                         'include_builtin': True}},
        {'name': 'Pattern', 'homeflare.proxmox.export': {'include': ['user', 'api_token'],
                                                         'identity_pattern': '^ci@pve'}},
        {'name': 'Unknown', 'homeflare.proxmox.export': {'include': ['pools']}, 'ignore_errors': True},
        {'name': 'Wrong server', 'homeflare.proxmox.export': {'include': ['pbs_user']}, 'ignore_errors': True},
    ])
    some, builtin, pattern, unknown, wrong = [line['result'] for line in run.results]
    assert [line['status'] for line in run.results] == ['ok', 'ok', 'ok', 'failed', 'failed'], run
    assert sorted(some['objects']) == ['pool', 'role', 'user']
    assert [entry['roleid'] for entry in some['objects']['role']] == ['Monitoring']
    assert 'root@pam' not in [entry['userid'] for entry in some['objects']['user']]
    assert 'PVEAuditor' in [entry['roleid'] for entry in builtin['objects']['role']]
    assert {'pam', 'pve'} <= set(entry['realm'] for entry in builtin['objects']['realm'])
    assert 'root@pam' in [entry['userid'] for entry in builtin['objects']['user']]
    assert 'local' in [entry['storage'] for entry in builtin['objects']['storage']]
    assert [entry['userid'] for entry in pattern['objects']['user']] == ['ci@pve']
    assert [(entry['userid'], entry['tokenid']) for entry in pattern['objects']['api_token']] == [('ci@pve', 'deploy')]
    assert 'option include: pools' in unknown['msg']
    assert 'pbs_user' in wrong['msg'] and 'option server' in wrong['msg']


@pytest.mark.compat
def test_the_module_path_exports_the_same(sim, playbook):
    populated(sim, playbook)
    runs = [playbook([{'name': 'Export', 'homeflare.proxmox.export': {}}], env=EXECUTION_PATHS[path])
            for path in sorted(EXECUTION_PATHS)]
    assert all(run.rc == 0 for run in runs), runs
    assert runs[0].result()['objects'] == runs[1].result()['objects']


def test_a_backup_server_exports_as_a_declaration_the_role_applies_as_a_no_op(sim, playbook):
    variables = dict(backup_server_declaration(), backup_server_connection=pbs_connection(sim))
    pbs_api(sim, [('POST', '/access/users', {'userid': 'ci@pbs'}), ('POST', '/access/users/ci@pbs/token/deploy', {})])
    assert playbook([role_task(variables)], defaults={}).rc == 0
    sim.clear_log()
    connection = pbs_connection(sim)
    run = playbook([{'name': 'Export', 'homeflare.proxmox.export': {'server': 'pbs'}, 'register': 'exported'},
                    role_task({'backup_server_objects': '{{ exported.objects }}',
                               'backup_server_fail_on_drift': True})],
                   check=True, diff=True, defaults=connection)
    assert run.rc == 0, run
    exported, judged = run.results[0]['result'], run.results[-1]['result']
    assert sorted(exported['objects']) == sorted(ROLE_VARIABLES)  # every family the role declared
    assert judged['summary']['matched'] == judged['summary']['judged'] == sum(exported['counts'].values())
    assert sim.writes() == []


def test_the_cluster_role_takes_the_export_unchanged_and_the_example_writes_it(sim, playbook, tmp_path):
    populated(sim, playbook)
    destination = tmp_path / 'cluster.yml'
    run = export_with_the_example(playbook, destination)
    written = yaml.safe_load(destination.read_text())
    assert set(written) == {'cluster_objects'} and written['cluster_objects']['pool'] == [FOUNDATION['pool']['args']]

    # the written file, loaded as the role's variables, is a no-op (its placeholders are never sent for an
    # existing object, but a vars file is templated: the listed variables are given)
    secrets = run.result(0)['secrets']
    variables = dict((entry['variable'], 'provided-elsewhere') for entry in secrets)
    sim.clear_log()
    run = playbook([{'name': 'Apply', 'ansible.builtin.include_role': {'name': 'homeflare.proxmox.cluster'},
                     'vars': dict(variables, cluster_fail_on_drift=True,
                                  cluster_connection=as_root(sim, dict(sim.module_options(), api_timeout=5)))}],
                   check=True, play_extra={'vars_files': [str(destination)]})
    assert run.rc == 0, run
    assert sim.writes() == []

    # a key the role does not declare fails, naming it
    run = playbook([{'name': 'Apply', 'ansible.builtin.include_role': {'name': 'homeflare.proxmox.cluster'},
                     'vars': {'cluster_objects': {'pbs_user': []}}}], check=True)
    assert run.rc != 0 and 'pbs_user' in run.output


def test_a_failed_read_fails_the_export_and_is_never_taken_for_no_objects(sim, playbook):
    populated(sim, playbook)
    sim.force('GET', r'^/pools$', 403, 'Permission check failed (/pool, Pool.Audit)')
    run = playbook([{'name': 'Export', 'homeflare.proxmox.export': {}, 'ignore_errors': True}])
    assert run.results[0]['status'] == 'failed', run
    assert 'Permission check failed' in run.result()['msg'] and 'objects' not in run.result()

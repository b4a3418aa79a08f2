"""The two execution paths: the controller path (in Ansible's worker) and the module path (a shipped module).

Every family's task goes through plugins/action/controller.py. It must give the same result on both
paths, pick the module path for a task whose connection is not local, and honour the switch.
"""

import json
import sys

import pytest

from conftest import EXECUTION_PATHS

SECRET = 'Paths-Storage-Passw0rd-4q'
# From the environment, as a vault or lookup would give it: Ansible shows a failed task's source lines,
# and a literal in the playbook file is not what this test is about.
SECRET_LOOKUP = "{{ lookup('ansible.builtin.env', 'PATHS_SECRET') }}"

# One play that touches every kind of result: found, created (check), drift shown with --diff, refusals
# by the argument spec and by the field kinds, a secret, a batch, a batch with a bad object.
TASKS = [
    {'name': 'match', 'homeflare.proxmox.pool': {'poolid': 'lab', 'comment': 'Lab'}},
    {'name': 'drift', 'homeflare.proxmox.group': {'groupid': 'ops', 'comment': 'declared'}},
    {'name': 'create', 'homeflare.proxmox.storage': {
        'storage': 'pbs1', 'type': 'pbs', 'server': 'backup.invalid', 'datastore': 'main', 'username': 'sync@pbs',
        'password': SECRET_LOOKUP, 'content': ['backup']}},
    {'name': 'unsupported', 'homeflare.proxmox.pool': {'poolid': 'lab', 'bogus': 1}, 'ignore_errors': True},
    {'name': 'pattern', 'homeflare.proxmox.pool': {'poolid': 'bad pool!'}, 'ignore_errors': True},
    {'name': 'type', 'homeflare.proxmox.user': {'userid': 'a@pve', 'expire': 'soon'}, 'ignore_errors': True},
    {'name': 'choices', 'homeflare.proxmox.acl': {'path': '/', 'type': 'robot', 'ugid': 'x', 'roleid': 'R'},
     'ignore_errors': True},
    {'name': 'missing', 'homeflare.proxmox.role': {'privs': ['VM.Audit']}, 'ignore_errors': True},
    {'name': 'batch', 'homeflare.proxmox.declare': {'objects': {
        'pool': [{'poolid': 'lab', 'comment': 'Lab'}, {'poolid': 'new'}],
        'storage': [{'storage': 'cifs1', 'type': 'cifs', 'server': 'nas.invalid', 'share': 's', 'password': SECRET_LOOKUP}]}}},
    {'name': 'bad batch', 'homeflare.proxmox.declare': {'objects': {'pool': [{'poolid': 'ok'}, {'poolid': 'x y'}]}},
     'ignore_errors': True},
]


def seed(sim):
    assert sim.request('POST', '/pools', {'poolid': 'lab', 'comment': 'Lab'})[0] == 200
    assert sim.request('POST', '/access/groups', {'groupid': 'ops', 'comment': 'edited'})[0] == 200


@pytest.mark.compat
def test_both_paths_give_the_same_results(sim, playbook):
    seed(sim)
    sim.clear_log()
    runs = dict((path, playbook(TASKS, check=True, diff=True, verbosity=3, env=dict(env, PATHS_SECRET=SECRET)))
                for path, env in EXECUTION_PATHS.items())
    assert sim.writes() == []
    controller, module = runs['controller'], runs['module']
    assert len(controller.results) == len(TASKS)
    assert [line['status'] for line in controller.results] == ['ok'] * 3 + ['failed'] * 5 + ['ok', 'failed']
    # Identical to the last key: plans, objects, diffs, messages, masked invocation.
    assert controller.results == module.results
    # Only the module path builds and ships a payload.
    assert 'AnsiballZ_' not in controller.output
    assert 'AnsiballZ_pool.py' in module.output
    for run in runs.values():
        assert SECRET not in run.output and SECRET not in json.dumps(run.results)
        assert sim.token_secret not in run.output
    messages = dict((line['task'], line['result']['msg']) for line in controller.results if line['status'] == 'failed')
    assert messages['unsupported'].startswith('Unsupported parameters for (homeflare.proxmox.pool) module: bogus.')
    assert 'poolid' in messages['pattern']
    assert "argument 'expire' is of type" in messages['type']
    assert 'value of type must be one of: user, group, token' in messages['choices']
    assert 'missing required arguments: roleid' in messages['missing']
    assert messages['bad batch'].startswith('1 declared object(s) are invalid; nothing was read or written.')
    assert 'objects.pool[1]' in messages['bad batch']


def pool_task(**extra):
    task = {'name': 'pool', 'homeflare.proxmox.pool': {'poolid': 'lab'}}
    task.update(extra)
    return task


def test_a_variable_forces_the_module_path_and_a_wrong_value_is_refused(sim, playbook):
    run = playbook([pool_task(vars={'homeflare_proxmox_execution': 'module'}),
                    pool_task(vars={'homeflare_proxmox_execution': 'controller'})], check=True, verbosity=3)
    assert run.rc == 0, run
    assert run.output.count('AnsiballZ_pool.py') >= 1
    wrong = playbook([pool_task(vars={'homeflare_proxmox_execution': 'remote'})], check=True)
    assert wrong.rc != 0
    assert "homeflare_proxmox_execution (or HOMEFLARE_PROXMOX_EXECUTION) must be one of auto, controller, module, " \
           "not 'remote'" in wrong.failed[0]['result']['msg']


def test_a_host_that_is_not_local_gets_the_module_unless_delegated(sim, playbook, sim_connection):
    # 'jump' is reached through a connection that is not ansible.builtin.local: like a jump host
    # inside the cluster's network, it must run the shipped module. Delegated to localhost, the task
    # runs in the controller's worker.
    inventory = ['jump ansible_connection=jumphost ansible_python_interpreter=%s\n' % sys.executable]
    run = playbook([pool_task(), pool_task(name='delegated', delegate_to='localhost')], hosts=['jump'],
                   inventory_lines=inventory, verbosity=3, check=True)
    assert run.rc == 0, run
    assert [line['result']['plan']['action'] for line in run.results] == ['create', 'create']
    assert run.output.count('AnsiballZ_pool.py') >= 1
    shipped = run.output.split('TASK [delegated]')
    assert 'AnsiballZ_pool.py' in shipped[0] and 'AnsiballZ_' not in shipped[1]


@pytest.mark.parametrize('path', sorted(EXECUTION_PATHS))
def test_task_environment_and_task_check_mode(sim, playbook, sim_connection, path):
    # The secret comes only from the task's environment: the PROXMOX_* fallback must see it.
    defaults = dict(sim_connection)
    del defaults['api_token_secret']
    tasks = [pool_task(environment={'PROXMOX_TOKEN_SECRET': sim.token_secret}, check_mode=True),
             pool_task(name='unset')]
    run = playbook(tasks, defaults=defaults, env=EXECUTION_PATHS[path])
    assert run.results[0]['status'] == 'ok', run
    assert run.results[0]['result']['plan']['action'] == 'create'
    assert sim.writes() == []  # check_mode on the task, not on the command line
    assert run.results[1]['status'] == 'failed'
    assert 'api_token_id and api_token_secret must be given together' in run.results[1]['result']['msg']


def test_every_module_has_the_controller_action():
    import glob
    import importlib
    import os
    from ansible_collections.homeflare.proxmox.plugins.plugin_utils.controller import ActionModule

    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    modules = sorted(os.path.basename(path)[:-3] for path in glob.glob(os.path.join(repo, 'plugins', 'modules', '*.py')))
    actions = sorted(os.path.basename(path)[:-3] for path in glob.glob(os.path.join(repo, 'plugins', 'action', '*.py')))
    assert modules == actions
    for module in modules:
        shim = importlib.import_module('ansible_collections.homeflare.proxmox.plugins.action.%s' % module)
        # The shared class, or (api_token: a result holding a new secret is hidden) a subclass of it.
        assert issubclass(shim.ActionModule, ActionModule), module

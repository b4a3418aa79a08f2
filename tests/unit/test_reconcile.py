"""reconcile(): plans, forms and read-back, against an in-memory client (no HTTP)."""

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    ApiError, Conflict, DeclarationError, Forbidden, NotConverged, Refused, Unreachable)
from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import argument_spec
from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import field_plan, reconcile
from ansible_collections.homeflare.proxmox.plugins.modules import acl, pool, role, storage, user


class FakeClient:
    """Answers reads from ``objects`` (path → raw) and records every call."""

    def __init__(self, objects=None, errors=None, ignore_writes=False, missing=None):
        self.objects = dict(objects or {})
        self.errors = dict(errors or {})
        self.ignore_writes = ignore_writes
        self.missing = missing or ApiError.for_status(500, "pool 'x' does not exist")
        self.calls = []

    @staticmethod
    def _item(path, values):
        """A pool is addressed as /pools?poolid= (QueryStore); its object is kept under /pools/<poolid>."""
        if path == '/pools' and values and 'poolid' in values:
            return '/pools/' + values['poolid']
        return path

    def _fail(self, method, path):
        error = self.errors.get((method, path))
        if isinstance(error, list):  # one error per call, then success
            error = error.pop(0) if error else None
        if error:
            raise error

    def get(self, path, params=None, role='read'):
        self.calls.append(('GET', path, params, role))
        self._fail('GET', path)
        item = self._item(path, params)
        if item not in self.objects:
            raise self.missing
        return [self.objects[item]] if item != path else self.objects[item]

    def shared_get(self, path, params=None, role='read'):
        return self.get(path, params, role)  # the real client sends it once per declare's reads (sharing_reads)

    def _write(self, method, path, form, role):
        self.calls.append((method, path, form, role))
        self._fail(method, path)
        return path if method == 'POST' else self._item(path, form)

    def post(self, path, form=None, role='provision'):
        self._write('POST', path, form, role)
        if not self.ignore_writes:
            key = form.get('poolid') or form.get('storage') or form.get('userid') or form.get('roleid')
            self.objects['%s/%s' % (path, key)] = dict((k, v) for k, v in form.items() if k not in ('password',))

    def put(self, path, form=None, role='provision'):
        path = self._write('PUT', path, form, role)
        if not self.ignore_writes and path in self.objects:
            live = self.objects[path]
            for key in (form.get('delete') or '').split(','):
                live.pop(key, None)
            live.update((k, v) for k, v in form.items() if k not in ('delete', 'digest'))

    def delete(self, path, params=None, role='provision'):
        path = self._write('DELETE', path, params, role)
        if not self.ignore_writes:
            self.objects.pop(path, None)

    def writes(self):
        return [call for call in self.calls if call[0] != 'GET']


def params(family_module, **values):
    spec = argument_spec(family_module.FAMILY)
    result = dict((name, option.get('default')) for name, option in spec.items())
    result.update(api_host=['sim'], api_token_id='root@pam!sim', api_token_secret='s')
    result.update(values)
    return result


def test_missing_object_is_created_then_adopted():
    client = FakeClient()
    first = reconcile(client, pool.FAMILY, params(pool, poolid='lab', comment='Lab'))
    assert first['plan'] == {'read': 'absent', 'action': 'create', 'changed': ['comment']}
    assert client.writes() == [('POST', '/pools', {'poolid': 'lab', 'comment': 'Lab'}, 'provision')]
    client.calls = []
    second = reconcile(client, pool.FAMILY, params(pool, poolid='lab', comment='Lab'))
    assert second['changed'] is False and second['plan']['action'] == 'none'
    assert client.calls == [('GET', '/pools', {'poolid': 'lab'}, 'read')]


def test_check_mode_plans_without_writing():
    client = FakeClient({'/pools/lab': {'comment': 'by hand', 'members': []}})
    result = reconcile(client, pool.FAMILY, params(pool, poolid='lab', comment='Lab'), check_mode=True)
    assert result['changed'] is True
    assert result['plan'] == {'read': 'found', 'action': 'update', 'changed': ['comment']}
    assert result['diff'] == {
        'before': {'poolid': 'lab', 'comment': 'by hand'},
        'after': {'poolid': 'lab', 'comment': 'Lab'},
    }
    assert client.writes() == []


def test_undeclared_default_field_is_drift():
    client = FakeClient({'/pools/lab': {'comment': 'added in the UI'}})
    result = reconcile(client, pool.FAMILY, params(pool, poolid='lab'), check_mode=True)
    assert result['plan']['changed'] == ['comment']


@pytest.mark.parametrize('error', [
    Forbidden(403, 'Permission check failed (/pool/lab, Pool.Audit)'),
    ApiError.for_status(401, 'authentication failure'),
    ApiError.for_status(500, 'cfs lock timeout'),
    Unreachable([('a:1', 'connection refused')]),
])
def test_a_failed_read_is_never_absent(error):
    client = FakeClient(errors={('GET', '/pools'): error})
    with pytest.raises(type(error)):
        reconcile(client, pool.FAMILY, params(pool, poolid='lab'))
    assert client.writes() == []


def test_write_that_did_nothing_fails_loudly():
    client = FakeClient(ignore_writes=True)
    with pytest.raises(NotConverged, match='still absent'):
        reconcile(client, pool.FAMILY, params(pool, poolid='lab'))


def test_leftover_drift_after_write_names_the_field():
    client = FakeClient({'/pools/lab': {'comment': 'x'}}, ignore_writes=True)
    with pytest.raises(NotConverged, match='comment'):
        reconcile(client, pool.FAMILY, params(pool, poolid='lab', comment='y'))


def test_delete_then_absent_is_noop():
    client = FakeClient({'/pools/lab': {'comment': ''}})
    assert reconcile(client, pool.FAMILY, params(pool, poolid='lab', state='absent'))['plan']['action'] == 'delete'
    assert client.writes() == [('DELETE', '/pools', {'poolid': 'lab'}, 'provision')]
    again = reconcile(client, pool.FAMILY, params(pool, poolid='lab', state='absent'))
    assert again['changed'] is False and again['object'] == {}


def test_role_privs_compare_as_a_set_and_replace_whole():
    live = {'/access/roles/Mon': {'VM.Audit': 1, 'Sys.Audit': 1, 'Sys.Console': 1}}
    client = FakeClient(live, missing=ApiError.for_status(500, "role 'Mon' does not exist"))
    result = reconcile(client, role.FAMILY, params(role, roleid='Mon', privs=['VM.Audit', 'Sys.Audit']),
                       check_mode=True)
    assert result['plan']['changed'] == ['privs']
    decl = role.FAMILY.declaration(params(role, roleid='Mon', privs=['Sys.Audit', 'VM.Audit', 'Sys.Console']))
    assert field_plan(role.FAMILY, decl, live['/access/roles/Mon']).action == 'none'


def test_role_needs_a_privilege():
    with pytest.raises(DeclarationError, match='privs'):
        role.FAMILY.declaration(params(role, roleid='Mon'))


def test_user_sends_only_drift_and_clears_with_empty_values():
    client = FakeClient({'/access/users/a@pve': {'groups': ['ops', 'dev'], 'email': 'x@example.org', 'expire': '0'}})
    reconcile(client, user.FAMILY, params(user, userid='a@pve', groups=['ops']))
    assert client.writes() == [('PUT', '/access/users/a@pve', {'email': '', 'groups': 'ops'}, 'provision')]


def test_storage_clear_wins_and_digest_is_sent():
    live = {'storage': 'nfs1', 'type': 'nfs', 'server': 'nas', 'export': '/e', 'content': 'iso,backup',
            'nodes': 'node1', 'digest': 'abc'}
    client = FakeClient({'/storage/nfs1': live})
    reconcile(client, storage.FAMILY, params(storage, storage='nfs1', type='nfs', server='nas', export='/e',
                                             content=['iso'], nodes=[]))
    method, path, form = client.writes()[0][:3]
    assert (method, path) == ('PUT', '/storage/nfs1')
    assert form == {'content': 'iso', 'delete': 'nodes', 'digest': 'abc'}
    assert 'nodes' not in form


def test_storage_type_change_is_refused_before_any_write():
    client = FakeClient({'/storage/nfs1': {'type': 'nfs', 'server': 'nas'}})
    with pytest.raises(Refused, match='type'):
        reconcile(client, storage.FAMILY, params(storage, storage='nfs1', type='dir', path='/srv'))
    assert client.writes() == []


def test_storage_secret_is_sent_on_create_only_and_never_shown():
    client = FakeClient()
    result = reconcile(client, storage.FAMILY, params(storage, storage='pbs1', type='pbs', server='pbs',
                                                      datastore='main', password='hunter22', content=['backup']))
    assert client.writes()[0][2]['password'] == 'hunter22'
    assert 'hunter22' not in repr(result)
    client.calls = []
    again = reconcile(client, storage.FAMILY, params(storage, storage='pbs1', type='pbs', server='pbs',
                                                     datastore='main', password='other', content=['backup']))
    assert again['changed'] is False and client.writes() == []


def test_storage_removal_needs_confirmation_before_any_request():
    client = FakeClient({'/storage/nfs1': {'type': 'nfs'}})
    with pytest.raises(Refused, match='confirm_removal'):
        reconcile(client, storage.FAMILY, params(storage, storage='nfs1', state='absent'))
    assert client.calls == []


class AclClient(FakeClient):
    """Answers the ACL list and the caller's privileges on any path."""

    def __init__(self, rows, privileges=None):
        super(AclClient, self).__init__({'/access/acl': rows})
        self.privileges = {'Permissions.Modify': 1} if privileges is None else privileges

    def get(self, path, params=None, role='read'):
        if path == '/access/permissions':
            self.calls.append(('GET', path, params, role))
            return {params['path']: self.privileges} if self.privileges else {}
        return super(AclClient, self).get(path, params, role)


def test_acl_grant_matches_normalised_path_and_absent_propagate():
    client = AclClient([{'path': '/pool/house', 'type': 'group', 'ugid': 'ops', 'roleid': 'PVEAuditor'}])
    result = reconcile(client, acl.FAMILY, params(acl, path='/pool/house/', type='group', ugid='ops',
                                                  roleid='PVEAuditor'))
    assert result['changed'] is False and client.writes() == []


def test_acl_removal_is_a_put_with_delete():
    rows = [{'path': '/', 'type': 'user', 'ugid': 'a@pve', 'roleid': 'PVEAuditor', 'propagate': 1}]
    client = AclClient(rows)
    client.put = lambda path, form=None, role='provision': (client.calls.append(('PUT', path, form, role)),
                                                            rows.clear())
    reconcile(client, acl.FAMILY, params(acl, path='/', type='user', ugid='a@pve', roleid='PVEAuditor',
                                         state='absent'))
    assert client.writes() == [('PUT', '/access/acl',
                                {'path': '/', 'roles': 'PVEAuditor', 'users': 'a@pve', 'delete': '1'}, 'provision')]


def test_acl_is_read_with_the_write_role():
    client = AclClient([])
    reconcile(client, acl.FAMILY, params(acl, path='/', type='user', ugid='a@pve', roleid='R'), check_mode=True)
    assert client.calls == [('GET', '/access/acl', None, 'provision'),
                            ('GET', '/access/permissions', {'path': '/'}, 'provision')]


@pytest.mark.parametrize('path, privileges, judged', [
    ('/', {'Sys.Audit': 1, 'VM.Audit': 1}, False),                  # field-notes §6.3: an auditor sees []
    ('/', {}, False),
    ('/pool/lab', {'Pool.Allocate': 1}, True),                      # PVE's check_perm_modify alternatives
    ('/storage/nfs1', {'Datastore.Allocate': 1}, True),
    ('/storage/nfs1', {'Pool.Allocate': 1}, False),
    ('/vms/100', {'Permissions.Modify': 1}, True),
])
def test_a_missing_row_is_absent_only_when_the_credential_could_see_it(path, privileges, judged):
    from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import Unreadable
    client = AclClient([], privileges)
    declaration = params(acl, path=path, type='group', ugid='ops', roleid='PVEAuditor')
    if judged:
        assert reconcile(client, acl.FAMILY, declaration, check_mode=True)['plan']['action'] == 'create'
    else:
        with pytest.raises(Unreadable, match='cannot be judged'):
            reconcile(client, acl.FAMILY, declaration)
        assert client.writes() == []


def test_a_found_grant_costs_one_get():
    client = AclClient([{'path': '/', 'type': 'group', 'ugid': 'ops', 'roleid': 'R'}], privileges={})
    reconcile(client, acl.FAMILY, params(acl, path='/', type='group', ugid='ops', roleid='R'))
    assert [call[1] for call in client.calls] == ['/access/acl']


TASK_UPID = 'UPID:node1:000A1B2C:0123ABCD:6790ABCD:zfscreate:tank:root@pam:'


def task_family():
    from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
    from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import (
        Absence, Family, Lifecycle, Where)
    return Family('zfs_pool', 'zfs pool', identity=[Text('name', required=True)], fields=[Text('comment')],
                  where=Where(collection='/nodes/node1/disks/zfs', item='/nodes/node1/disks/zfs/{name}',
                              absence=Absence((500,), 'does not exist')), lifecycle=Lifecycle(task_timeout=120))


class TaskClient(FakeClient):
    def __init__(self, exitstatus):
        super(TaskClient, self).__init__(missing=ApiError.for_status(500, "zfs pool 'tank' does not exist"))
        self.exitstatus = exitstatus

    def post(self, path, form=None, role='provision'):
        super(TaskClient, self).post(path, dict(form, poolid=form['name']), role)
        self.objects['/nodes/node1/disks/zfs/tank'] = {'comment': form.get('comment', '')}
        return TASK_UPID

    def get(self, path, params=None, role='read'):
        if '/tasks/' in path:
            self.calls.append(('GET', path, params, role))
            return [] if path.endswith('/log') else {'status': 'stopped', 'exitstatus': self.exitstatus}
        return super(TaskClient, self).get(path, params, role)


def test_families_that_start_tasks_get_a_timeout_option_and_wait_with_the_write_role():
    family = task_family()
    assert argument_spec(family)['task_timeout'] == {'type': 'int', 'default': 120}
    client = TaskClient('WARNINGS: 1')
    result = reconcile(client, family, {'name': 'tank', 'comment': 'x', 'state': 'present', 'task_timeout': 5})
    assert result['warnings'] == ['task %s ended with WARNINGS: 1' % TASK_UPID]
    polls = [call for call in client.calls if '/tasks/' in call[1]]
    assert polls and all(call[3] == 'provision' for call in polls)


def test_a_failed_task_fails_the_run():
    from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import TaskFailed
    with pytest.raises(TaskFailed, match='no space left'):
        reconcile(TaskClient('no space left'), task_family(), {'name': 'tank', 'state': 'present', 'task_timeout': 5})


def test_an_esxi_storage_is_not_created_without_its_password():
    client = FakeClient()
    with pytest.raises(DeclarationError, match='option password is required to create a esxi storage'):
        reconcile(client, storage.FAMILY, params(storage, storage='esx1', type='esxi', server='esx.example.org',
                                                 username='root'))
    assert client.writes() == []


def test_an_existing_esxi_storage_is_adopted_without_its_password():
    live = {'storage': 'esx1', 'type': 'esxi', 'server': 'esx.example.org', 'username': 'root', 'content': 'import'}
    client = FakeClient({'/storage/esx1': live})
    result = reconcile(client, storage.FAMILY, params(storage, storage='esx1', type='esxi', server='esx.example.org',
                                                      username='root'))
    assert result['changed'] is False and client.writes() == []


MODIFIED = 'update storage failed: detected modified configuration - file changed by other user? Try again.'


def nfs_live(digest):
    return {'storage': 'nfs1', 'type': 'nfs', 'server': 'nas', 'export': '/e', 'content': 'backup', 'digest': digest}


def nfs_params(**changes):
    return params(storage, **dict(dict(storage='nfs1', type='nfs', server='nas', export='/e', content=['iso']),
                                  **changes))


def test_a_digest_refusal_is_read_and_judged_again_once():
    client = FakeClient({'/storage/nfs1': nfs_live('d1')},
                        errors={('PUT', '/storage/nfs1'): [ApiError.for_status(500, MODIFIED)]})
    result = reconcile(client, storage.FAMILY, nfs_params())
    puts = [call for call in client.writes() if call[0] == 'PUT']
    assert len(puts) == 2 and result['changed'] is True
    assert any('another writer' in warning for warning in result['warnings'])


def test_a_second_digest_refusal_is_a_conflict_and_nothing_more_is_sent():
    refusals = [ApiError.for_status(500, MODIFIED), ApiError.for_status(500, MODIFIED)]
    client = FakeClient({'/storage/nfs1': nfs_live('d1')}, errors={('PUT', '/storage/nfs1'): refusals})
    with pytest.raises(Conflict, match='refused twice'):
        reconcile(client, storage.FAMILY, nfs_params())
    assert len(client.writes()) == 2


def test_a_create_refused_as_existing_is_judged_again_and_may_already_match():
    client = FakeClient(errors={('POST', '/pools'): [ApiError.for_status(500, "pool 'lab' already exists")]})
    original_fail = client._fail

    def another_writer_created_it(method, path):
        if method == 'POST':
            client.objects['/pools/lab'] = {'poolid': 'lab', 'comment': 'Lab'}
        original_fail(method, path)

    client._fail = another_writer_created_it
    result = reconcile(client, pool.FAMILY, params(pool, poolid='lab', comment='Lab'))
    assert result['changed'] is False and result['plan']['action'] == 'none'
    assert len(client.writes()) == 1


def test_other_write_errors_are_not_retried():
    client = FakeClient({'/storage/nfs1': nfs_live('d1')},
                        errors={('PUT', '/storage/nfs1'): [ApiError.for_status(500, 'got timeout')]})
    with pytest.raises(ApiError, match='got timeout'):
        reconcile(client, storage.FAMILY, nfs_params())
    assert len(client.writes()) == 1


def singleton_family():
    from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Text
    from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family, Lifecycle, Where
    return Family('cluster_options', 'datacenter options', identity=[], fields=[Text('keyboard'), Text('console')],
                  where=Where(item='/cluster/options'), lifecycle=Lifecycle(singleton=True, send_digest=True))


def test_a_singleton_has_no_state_option_and_is_never_created():
    family = singleton_family()
    assert 'state' not in argument_spec(family)
    client = FakeClient({'/cluster/options': {'keyboard': 'en-us', 'digest': 'd1'}})
    result = reconcile(client, family, {'keyboard': 'de', 'console': None})
    assert result['plan'] == {'read': 'found', 'action': 'update', 'changed': ['keyboard']}
    assert client.writes()[0][:3] == ('PUT', '/cluster/options', {'keyboard': 'de', 'digest': 'd1'})


def test_a_singleton_that_answers_nothing_is_unreadable_never_created():
    family = singleton_family()
    client = FakeClient(missing=ApiError.for_status(404, 'no such file'))
    with pytest.raises(ApiError):
        reconcile(client, family, {'keyboard': 'de', 'console': None})
    assert client.writes() == []


def test_always_sent_fields_go_with_every_update():
    from ansible_collections.homeflare.proxmox.plugins.module_utils.fields import Integer, Text
    from ansible_collections.homeflare.proxmox.plugins.module_utils.reconcile import Family, Where
    family = Family('metric_server', 'metric server', identity=[Text('id', required=True)],
                    where=Where(create_on='item', item='/cluster/metrics/server/{id}'),
                    fields=[Text('server', always_send=True), Integer('port', always_send=True), Integer('mtu')])
    live = {'server': 'influx', 'port': '8086', 'mtu': 1500}
    client = FakeClient({'/cluster/metrics/server/m1': live})
    reconcile(client, family, {'id': 'm1', 'server': 'influx', 'port': 8086, 'mtu': 9000, 'state': 'present'})
    assert client.writes()[0][2] == {'mtu': '9000', 'server': 'influx', 'port': '8086'}

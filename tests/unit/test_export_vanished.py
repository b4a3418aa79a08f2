"""The export meets an object deleted between its listing and its read as "gone since listed", for every kind
of absence (a guest's carries the cluster's guest list it was confirmed with), never as a traceback."""

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import ApiError
from ansible_collections.homeflare.proxmox.plugins.module_utils.export import EXPORT


class ListedThenGone:
    """node1 lists containers 101 and 102; 101 is deleted before its config is read (PVE's typed answer), and the
    cluster's resource list no longer holds it."""

    def __init__(self):
        self.calls = []

    def for_this_thread(self):
        return self

    def shared_get(self, path, params=None, role='read'):
        return self.get(path, params, role)  # the real client sends it once per declare's reads (sharing_reads)

    def get(self, path, params=None, role='read'):
        self.calls.append(('GET', path))
        if path == '/nodes':
            return [{'node': 'node1'}]
        if path == '/nodes/node1/lxc':
            return [{'vmid': 101}, {'vmid': 102}]
        if path == '/nodes/node1/lxc/101/pending':
            raise ApiError.for_status(500, "Configuration file 'nodes/node1/lxc/101.conf' does not exist")
        if path == '/nodes/node1/lxc/102/pending':
            return [{'key': 'digest', 'value': 'd1'}, {'key': 'hostname', 'value': 'web2'},
                    {'key': 'ostype', 'value': 'debian'}]
        if path == '/cluster/resources':
            return [{'type': 'lxc', 'vmid': 102, 'node': 'node1', 'name': 'web2'}]
        raise AssertionError('unexpected read %s' % path)


def test_a_guest_deleted_between_its_listing_and_its_read_is_gone_since_listed():
    client = ListedThenGone()
    result = EXPORT.run(client, {'include': ['lxc'], 'workers': 1}, check_mode=True)
    assert [options['vmid'] for options in result['objects']['lxc']] == [102]
    assert result['warnings'] == ['CT 101 on node1: gone since listed (deleted while the export ran); not exported']
    assert result['refused'] == []
    assert ('GET', '/nodes/node1/lxc/101/pending') in client.calls

"""A playbook that talks to the simulator with ansible.builtin.uri, as users' playbooks talk to PVE: an API
token header, the simulator's CA, the raw JSON. It reads the next free VMID (pve-manager API2/Cluster.pm
nextid: a JSON string) and a node's task list (API2/Tasks.pm node_tasks: ``total`` beside ``data``)."""

from simulator.pve.handlers.guests import add_guest


def test_uri_reads_nextid_and_the_task_list(sim, playbook):
    add_guest(sim.state, 'qemu', 100, 'node1')
    add_guest(sim.state, 'lxc', 101, 'node2')
    upid = sim.start_task('node1', 'qmstart', '100', sim.token_id)
    request = {
        'headers': {'Authorization': 'PVEAPIToken=%s=%s' % (sim.token_id, sim.token_secret)},
        'ca_path': sim.ca_path,
        'validate_certs': True,
        'return_content': True,
    }
    base = sim.url(0) + '/api2/json'
    run = playbook([
        {'name': 'nextid', 'ansible.builtin.uri': dict(request, url=base + '/cluster/nextid'), 'register': 'nextid'},
        {'name': 'nextid is the free vmid', 'ansible.builtin.assert': {'that': [
            'nextid.status == 200', 'nextid.json.data == "102"', 'nextid.json.data is string']}},
        {'name': 'tasks', 'ansible.builtin.uri': dict(request, url=base + '/nodes/node1/tasks'), 'register': 'tasks'},
        {'name': 'the task is listed', 'ansible.builtin.assert': {'that': [
            'tasks.json.total == 1',
            'tasks.json.data[0].upid == %r' % upid,
            'tasks.json.data[0].user == "root@pam"',
            'tasks.json.data[0].tokenid == "sim"',
            'tasks.json.data[0].status == "OK"']}},
    ])
    assert run.rc == 0, run
    assert [(entry['method'], entry['path'], entry['status']) for entry in sim.log] == [
        ('GET', '/cluster/nextid', 200), ('GET', '/nodes/node1/tasks', 200)]

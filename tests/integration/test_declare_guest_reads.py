"""``declare`` reads the guests of a batch at once (a guest has no list read that carries its config), on the
per-thread clients the export uses: still one read per guest, the results in the declared order, and a failed
read attributed to its own guest, never taken for absent, with nothing written.
"""

import threading
import time

from conftest import connection

from simulator.pve.handlers.guests import add_guest

VMIDS = list(range(300, 316))


def seed(sim):
    for index, vmid in enumerate(VMIDS):
        add_guest(sim.state, 'lxc', vmid, 'node%d' % (index % 3 + 1),
                  {'hostname': 'ct%d' % vmid, 'cores': '1', 'rootfs': 'local-lvm:2'})


def declare(sim, playbook, ignore=False):
    objects = {'lxc': [{'node': 'node%d' % (index % 3 + 1), 'vmid': vmid, 'hostname': 'ct%d' % vmid, 'cores': 1}
                       for index, vmid in enumerate(VMIDS)]}
    task = {'name': 'declare', 'homeflare.proxmox.declare': dict(objects=objects, **connection(sim))}
    if ignore:
        task['ignore_errors'] = True
    sim.clear_log()
    return playbook([task], check=True)


def test_every_guest_is_read_once_and_judged_in_the_declared_order(sim, playbook):
    seed(sim)
    run = declare(sim, playbook)
    assert run.rc == 0, run
    reads = sorted(entry['path'] for entry in sim.log)
    assert reads == sorted('/nodes/node%d/lxc/%d/pending' % (index % 3 + 1, vmid) for index, vmid in enumerate(VMIDS))
    result = run.result()
    assert [entry['name'] for entry in result['results']] == ["CT %d on node%d" % (vmid, index % 3 + 1)
                                                              for index, vmid in enumerate(VMIDS)]
    assert result['summary']['matched'] == len(VMIDS) and sim.writes() == []


class InFlight:
    """A hook on every pending read: counts the reads the simulator is answering at once (each held briefly)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.now = self.most = 0

    def __call__(self, params):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(0.05)
        with self.lock:
            self.now -= 1


def test_the_reads_are_made_at_once(sim, playbook):
    seed(sim)
    in_flight = InFlight()
    sim.before('GET', r'^/nodes/node\d/lxc/\d+/pending$', in_flight)
    run = declare(sim, playbook)
    assert run.rc == 0, run
    assert in_flight.most > 1, 'the guests were read one after another'


def test_a_failed_read_is_its_own_guests_failure_and_nothing_is_written(sim, playbook):
    seed(sim)
    sim.force('GET', r'^/nodes/node2/lxc/304/pending$', 500, 'simulated read failure')
    run = declare(sim, playbook, ignore=True)
    message = run.result()['msg']
    assert '1 of %d objects could not be judged' % len(VMIDS) in message and '304' in message, message
    assert 'simulated read failure' in message
    assert sim.writes() == []

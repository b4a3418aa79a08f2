"""The node settings a Day-0 playbook declares (tests/simulator/pve/handlers/node_settings.py): /nodes/{node}/dns,
/time, /hosts and /config, over real HTTPS.

Each answers as pve-manager (PVE/API2/Nodes.pm, API2/NodeConfig.pm, PVE/NodeConfig.pm) over pve-common
(INotify.pm, Systemd.pm) builds it: the node as the installer leaves it, the files as PVE reads and writes them,
the digests, who may do what, and the errors in PVE's words.

Run: python -m pytest tests/unit/test_simulator_node_settings.py -q
"""

import base64
import hashlib
import sys
import time
import zoneinfo
from datetime import datetime
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from simulator.pve.handlers.cloudinit import dns_conf  # noqa: E402
from simulator.pve.handlers.node_settings import settings  # noqa: E402
# sim and _no_faults are fixtures: imported, pytest finds them here
from simulator.fixtures import ok, refused  # noqa: E402
from simulator.fixtures import _no_faults, sim  # noqa: E402,F401  pylint: disable=unused-import

MODIFIED = "detected modified configuration - file changed by other user? Try again.\n"
INSTALLER_HOSTS = (
    "127.0.0.1 localhost.localdomain localhost\n"
    "127.0.0.1 node1.sim.lan node1\n\n"
    "# The following lines are desirable for IPv6 capable hosts\n\n"
    "::1     ip6-localhost ip6-loopback\n"
    "fe00::0 ip6-localnet\n"
    "ff00::0 ip6-mcastprefix\n"
    "ff02::1 ip6-allnodes\n"
    "ff02::2 ip6-allrouters\n"
    "ff02::3 ip6-allhosts\n")


def sha1(text):
    return hashlib.sha1(text.encode('utf-8')).hexdigest()


@pytest.fixture(autouse=True)
def _fresh_nodes(request):
    """Every test starts with the nodes as the installer left them, and without extra users or roles."""
    if 'sim' not in request.fixturenames:
        yield
        return
    state = request.getfixturevalue('sim').state
    with state.lock:
        state.node_settings.clear()
    yield
    with state.lock:
        for userid in [userid for userid in state.users if userid != 'root@pam']:
            for name in list(state.users[userid]['tokens']):
                state.remove_token(userid, name)
            state.drop_acl_subject('users', userid)
            del state.users[userid]
        state.custom_roles.clear()


def token_with(sim, name, *grants):
    """A privilege-separated token of ``ops@pve`` with ``grants`` ((path, role) pairs) on the user and the token."""
    state = sim.state
    if 'ops@pve' not in state.users:
        state.add_user('ops@pve')
    secret = state.add_token('ops@pve', name, privsep=1)
    for path, role in grants:
        state.set_acl(path, role, users='ops@pve', tokens='ops@pve!' + name)
    return 'ops@pve!' + name, secret


# -- the node as the installer leaves it ------------------------------------------------------------------------

def test_every_node_starts_as_the_installer_leaves_it(sim):
    for node in ('node1', 'node2'):
        assert ok(sim, 'GET', '/nodes/%s/dns' % node) == {'search': 'sim.lan', 'dns1': '127.0.0.1'}
        assert ok(sim, 'GET', '/nodes/%s/time' % node)['timezone'] == 'UTC'
        assert ok(sim, 'GET', '/nodes/%s/config' % node) == {}
    hosts = ok(sim, 'GET', '/nodes/node1/hosts')
    assert hosts == {'digest': sha1(INSTALLER_HOSTS), 'data': INSTALLER_HOSTS}
    assert ok(sim, 'GET', '/nodes/node2/hosts')['data'].splitlines()[1] == '127.0.0.1 node2.sim.lan node2'
    assert settings(sim.state, 'node1')['resolv.conf'] == 'search sim.lan\nnameserver 127.0.0.1\n'


def test_an_unknown_node_fails_the_proxy_lookup(sim):
    assert refused(sim, 'GET', '/nodes/node9/dns') == (
        500, "hostname lookup 'node9' failed - failed to get address info for: node9: Name or service not known\n",
        None)


# -- DNS ---------------------------------------------------------------------------------------------------------

def test_dns_read_follows_read_etc_resolv_conf(sim):
    settings(sim.state, 'node1')['resolv.conf'] = (
        'search first.lan\n# a comment\ndomain corp.lan other.lan\noptions rotate\n'
        'nameserver 10.0.0.1 # the router\n  nameserver fe80::1\nnameserver bogus\nnameserver 10.0.0.3\n'
        'nameserver 10.0.0.4\n')
    # the last search/domain line's first word; the first three addresses (the start of each line matched)
    assert ok(sim, 'GET', '/nodes/node1/dns') == {'search': 'corp.lan', 'dns1': '10.0.0.1', 'dns2': 'fe80::1',
                                                  'dns3': '10.0.0.3'}
    settings(sim.state, 'node1')['resolv.conf'] = 'options edns0\n'
    assert ok(sim, 'GET', '/nodes/node1/dns') == {}


def test_dns_write_follows_update_etc_resolv_conf(sim):
    settings(sim.state, 'node1')['resolv.conf'] = (
        'search old.lan\n# managed by hand\ndomain older.lan\nnameserver 9.9.9.9\noptions rotate\n')
    assert ok(sim, 'PUT', '/nodes/node1/dns',
              {'search': 'corp.lan', 'dns1': '10.1.1.1', 'dns2': '10.1.1.1', 'dns3': '0.0.0.0'}) is None
    # a repeated address and 0.0.0.0 are not written; the other lines stay, after the new ones
    assert settings(sim.state, 'node1')['resolv.conf'] == (
        'search corp.lan\nnameserver 10.1.1.1\n# managed by hand\noptions rotate\n')
    assert ok(sim, 'GET', '/nodes/node1/dns') == {'search': 'corp.lan', 'dns1': '10.1.1.1'}
    assert ok(sim, 'GET', '/nodes/node2/dns') == {'search': 'sim.lan', 'dns1': '127.0.0.1'}
    # a nameserver not sent is dropped; a search domain list reads back as its first word
    ok(sim, 'PUT', '/nodes/node1/dns', {'search': 'a.lan b.lan', 'dns2': '2001:db8::53'})
    assert ok(sim, 'GET', '/nodes/node1/dns') == {'search': 'a.lan', 'dns1': '2001:db8::53'}
    # a Perl-false search is not written
    ok(sim, 'PUT', '/nodes/node1/dns', {'search': '0', 'dns1': '10.1.1.1'})
    assert settings(sim.state, 'node1')['resolv.conf'] == 'nameserver 10.1.1.1\n# managed by hand\noptions rotate\n'


def test_dns_write_needs_search_and_addresses(sim):
    assert refused(sim, 'PUT', '/nodes/node1/dns', {'dns1': '10.1.1.1'}) == (
        400, 'Parameter verification failed.\n', {'search': 'property is missing and it is not optional'})
    status, _message, errors = refused(sim, 'PUT', '/nodes/node1/dns', {'search': 'a.lan', 'dns1': 'dns.lan'})
    assert status == 400 and set(errors) == {'dns1'}
    assert ok(sim, 'GET', '/nodes/node1/dns') == {'search': 'sim.lan', 'dns1': '127.0.0.1'}


def test_cloud_init_takes_the_nodes_resolv_conf(sim):
    assert dns_conf(sim.state, 'node1', {}) == (['sim.lan'], ['127.0.0.1'])
    ok(sim, 'PUT', '/nodes/node1/dns', {'search': 'corp.lan lab.lan', 'dns1': '10.1.1.1', 'dns2': '10.1.1.2'})
    assert dns_conf(sim.state, 'node1', {}) == (['corp.lan'], ['10.1.1.1', '10.1.1.2'])
    assert dns_conf(sim.state, 'node2', {}) == (['sim.lan'], ['127.0.0.1'])


def test_dns_permissions_are_the_schemas(sim):
    auditor = token_with(sim, 'audit', ('/nodes/node1', 'PVEAuditor'))
    assert ok(sim, 'GET', '/nodes/node1/dns', token=auditor)['search'] == 'sim.lan'
    assert refused(sim, 'PUT', '/nodes/node1/dns', {'search': 'x.lan'}, token=auditor) == (
        403, 'Permission check failed (/nodes/node1, Sys.Modify)\n', None)
    assert refused(sim, 'GET', '/nodes/node2/dns', token=auditor) == (
        403, 'Permission check failed (/nodes/node2, Sys.Audit)\n', None)
    sim.state.custom_roles['NodeModify'] = frozenset({'Sys.Modify'})
    writer = token_with(sim, 'write', ('/nodes/node1', 'NodeModify'))
    assert ok(sim, 'PUT', '/nodes/node1/dns', {'search': 'x.lan'}, token=writer) is None


# -- time --------------------------------------------------------------------------------------------------------

def test_time_reads_the_zone_and_the_clock(sim):
    before = int(time.time())
    answer = ok(sim, 'GET', '/nodes/node1/time')
    assert answer['timezone'] == 'UTC' and isinstance(answer['time'], int) and isinstance(answer['localtime'], int)
    assert before <= answer['time'] <= time.time() and answer['localtime'] == answer['time']
    assert ok(sim, 'PUT', '/nodes/node1/time', {'timezone': 'Asia/Kolkata'}) is None
    answer = ok(sim, 'GET', '/nodes/node1/time')
    # timegm(localtime(time())): the local wall clock read as if it were UTC
    offset = datetime.fromtimestamp(answer['time'], zoneinfo.ZoneInfo('Asia/Kolkata')).utcoffset().total_seconds()
    assert answer['timezone'] == 'Asia/Kolkata' and answer['localtime'] - answer['time'] == offset == 19800
    assert ok(sim, 'GET', '/nodes/node2/time')['timezone'] == 'UTC'


def test_a_zone_timedatectl_does_not_list_is_refused(sim):
    for zone in ('Mars/Olympus', 'localtime', 'europe/vienna', ''):
        assert refused(sim, 'PUT', '/nodes/node1/time', {'timezone': zone}) == (
            400, 'Parameter verification failed.\n', {'timezone': 'No such timezone'}), zone
    for zone in ('Europe/Vienna', 'Etc/UTC', 'UTC', 'America/New_York'):
        ok(sim, 'PUT', '/nodes/node1/time', {'timezone': zone})
        assert ok(sim, 'GET', '/nodes/node1/time')['timezone'] == zone
    assert refused(sim, 'PUT', '/nodes/node1/time', {}) == (
        400, 'Parameter verification failed.\n', {'timezone': 'property is missing and it is not optional'})


def test_time_permissions_are_the_schemas(sim):
    auditor = token_with(sim, 'audit', ('/nodes/node1', 'PVEAuditor'))
    assert ok(sim, 'GET', '/nodes/node1/time', token=auditor)['timezone'] == 'UTC'
    assert refused(sim, 'PUT', '/nodes/node1/time', {'timezone': 'UTC'}, token=auditor) == (
        403, 'Permission check failed (/nodes/node1, Sys.Modify)\n', None)


# -- /etc/hosts --------------------------------------------------------------------------------------------------

def test_hosts_write_with_and_without_digest(sim):
    digest = ok(sim, 'GET', '/nodes/node1/hosts')['digest']
    new = INSTALLER_HOSTS + '10.1.1.20 web.sim.lan web\n'
    assert ok(sim, 'POST', '/nodes/node1/hosts', {'data': new, 'digest': digest}) is None
    assert ok(sim, 'GET', '/nodes/node1/hosts') == {'digest': sha1(new), 'data': new}
    # the old digest is stale now: refused before the data is even looked at
    assert refused(sim, 'POST', '/nodes/node1/hosts', {'data': 'bogus line', 'digest': digest}) == (
        500, MODIFIED, None)
    # without a digest (or an empty one) the last writer wins
    ok(sim, 'POST', '/nodes/node1/hosts', {'data': INSTALLER_HOSTS})
    ok(sim, 'POST', '/nodes/node1/hosts', {'data': new, 'digest': ''})
    assert ok(sim, 'GET', '/nodes/node1/hosts')['data'] == new
    assert ok(sim, 'GET', '/nodes/node2/hosts')['data'] != new
    assert refused(sim, 'POST', '/nodes/node1/hosts', {}) == (
        400, 'Parameter verification failed.\n', {'data': 'property is missing and it is not optional'})


@pytest.mark.parametrize('data, error', [
    ('10.1.1.300 web\n', "Invalid IP '10.1.1.300'"),
    ('web 10.1.1.1\n', "Invalid IP 'web'"),
    ('  10.1.1.1 web\n', "Invalid IP ''"),  # split(/\s+/) keeps the empty field before leading white space
    ('10.1.1.1 web_1\n', "Invalid Hostname 'web_1'"),
    ('10.1.1.1 web # the web server\n', "Invalid Hostname '#'"),
])
def test_hosts_lines_are_checked_as_write_etc_hosts_does(sim, data, error):
    assert refused(sim, 'POST', '/nodes/node1/hosts', {'data': INSTALLER_HOSTS + data}) == (
        400, 'Parameter verification failed.\n', {'data': error})
    assert ok(sim, 'GET', '/nodes/node1/hosts')['data'] == INSTALLER_HOSTS


def test_hosts_comments_blank_lines_and_utf8(sim):
    data = '# Zürich office\n\n   \n\t# indented comment\n::1 localhost6 ip6.localhost\n10.1.1.1\tweb\t \n'
    ok(sim, 'POST', '/nodes/node1/hosts', {'data': data})
    assert ok(sim, 'GET', '/nodes/node1/hosts') == {'digest': sha1(data), 'data': data}


def test_hosts_permissions_are_the_schemas(sim):
    # the read checks Sys.Audit on / (not on the node); the write Sys.Modify on the node
    node_auditor = token_with(sim, 'node', ('/nodes/node1', 'PVEAuditor'))
    assert refused(sim, 'GET', '/nodes/node1/hosts', token=node_auditor) == (
        403, 'Permission check failed (/, Sys.Audit)\n', None)
    auditor = token_with(sim, 'root', ('/', 'PVEAuditor'))
    assert ok(sim, 'GET', '/nodes/node1/hosts', token=auditor)['data'] == INSTALLER_HOSTS
    assert refused(sim, 'POST', '/nodes/node1/hosts', {'data': INSTALLER_HOSTS}, token=auditor) == (
        403, 'Permission check failed (/nodes/node1, Sys.Modify)\n', None)


# -- /etc/pve/nodes/<node>/config --------------------------------------------------------------------------------

def test_node_config_is_written_and_read_as_nodeconfig_does(sim):
    ok(sim, 'PUT', '/nodes/node1/config', {
        'description': 'Rack 3: top\n  second line, 100%\n\nÜberlauf\n', 'wakeonlan': 'BC:24:11:00:00:01',
        'startall-onboot-delay': '010', 'ballooning-target': '70',
        'acme': 'account=prod,domains=node1.example.com;pve.example.com',
        'acmedomain0': 'domain=alt.example.com,plugin=standalone'})
    text = settings(sim.state, 'node1')['config']
    assert text == (
        '#Rack 3%3A top\n#  second line, 100%25\n#\n#%C3%9Cberlauf\n'
        'acme: account=prod,domains=node1.example.com;pve.example.com\n'
        'acmedomain0: domain=alt.example.com,plugin=standalone\n'
        'ballooning-target: 70\nstartall-onboot-delay: 010\nwakeonlan: BC:24:11:00:00:01\n')
    # values as the file has them (text, as sent); the comment lines each plus a newline; the file's SHA-1
    assert ok(sim, 'GET', '/nodes/node1/config') == {
        'description': 'Rack 3: top\n  second line, 100%\n\nÜberlauf\n', 'wakeonlan': 'BC:24:11:00:00:01',
        'startall-onboot-delay': '010', 'ballooning-target': '70',
        'acme': 'account=prod,domains=node1.example.com;pve.example.com',
        'acmedomain0': 'domain=alt.example.com,plugin=standalone', 'digest': sha1(text)}
    assert ok(sim, 'GET', '/nodes/node2/config') == {}


def test_node_config_property_answers_one_key_or_nothing(sim):
    assert ok(sim, 'GET', '/nodes/node1/config', {'property': 'description'}) == {}
    ok(sim, 'PUT', '/nodes/node1/config', {'wakeonlan': 'mac=BC:24:11:00:00:01,broadcast-address=10.1.1.255'})
    assert ok(sim, 'GET', '/nodes/node1/config', {'property': 'wakeonlan'}) == {
        'wakeonlan': 'mac=BC:24:11:00:00:01,broadcast-address=10.1.1.255'}
    assert ok(sim, 'GET', '/nodes/node1/config', {'property': 'acme'}) == {}
    # parse_config always sets the comment key once there is a file
    assert ok(sim, 'GET', '/nodes/node1/config', {'property': 'description'}) == {'description': ''}
    status, _message, errors = refused(sim, 'GET', '/nodes/node1/config', {'property': 'all'})
    assert status == 400 and set(errors) == {'property'}


def test_node_config_digest(sim):
    # no file: no digest to compare
    ok(sim, 'PUT', '/nodes/node1/config', {'ballooning-target': '90', 'digest': '0' * 40})
    digest = ok(sim, 'GET', '/nodes/node1/config')['digest']
    ok(sim, 'PUT', '/nodes/node1/config', {'ballooning-target': '85', 'digest': digest})
    assert refused(sim, 'PUT', '/nodes/node1/config', {'ballooning-target': '10', 'digest': digest}) == (
        500, MODIFIED, None)
    assert ok(sim, 'GET', '/nodes/node1/config')['ballooning-target'] == '85'


def test_node_config_delete(sim):
    ok(sim, 'PUT', '/nodes/node1/config', {'description': 'notes', 'ballooning-target': '90',
                                           'wakeonlan': 'BC:24:11:00:00:01'})
    # delete runs after the values: an option both set and deleted is gone; an unknown name is ignored
    ok(sim, 'PUT', '/nodes/node1/config', {'ballooning-target': '50', 'delete': 'ballooning-target,foo,acme'})
    assert ok(sim, 'GET', '/nodes/node1/config') == {
        'description': 'notes\n', 'wakeonlan': 'BC:24:11:00:00:01',
        'digest': sha1('#notes\nwakeonlan: BC:24:11:00:00:01\n')}
    # an empty file reads as no file at all
    ok(sim, 'PUT', '/nodes/node1/config', {'delete': 'description;wakeonlan'})
    assert settings(sim.state, 'node1')['config'] == ''
    assert ok(sim, 'GET', '/nodes/node1/config') == {}


def test_a_perl_false_description_is_not_written(sim):
    ok(sim, 'PUT', '/nodes/node1/config', {'description': '0', 'ballooning-target': '90'})
    assert settings(sim.state, 'node1')['config'] == 'ballooning-target: 90\n'
    assert ok(sim, 'GET', '/nodes/node1/config')['description'] == ''


def test_node_config_checks_the_acme_domains(sim):
    cases = [
        ({'acme': 'domains=a.example.com;b.example.com;A.example.com'},
         "duplicate domain 'a.example.com' in ACME config properties\n"),
        ({'acme': 'domains=a.example.com', 'acmedomain2': 'A.Example.com'},
         "duplicate domain 'a.example.com' in ACME config properties 'acmedomain2' and 'acme'\n"),
        ({'acmedomain0': 'b.example.com', 'acmedomain5': 'b.example.com,plugin=standalone'},
         "duplicate domain 'b.example.com' in ACME config properties 'acmedomain5' and 'acmedomain0'\n"),
        ({'acmedomain1': 'c.example.com,plugin=cloudflare,alias=_acme.example.net'},
         "plugin 'cloudflare' for domain 'c.example.com' not found!\n"),
    ]
    for form, message in cases:
        assert refused(sim, 'PUT', '/nodes/node1/config', form) == (500, message, None), form
    assert settings(sim.state, 'node1')['config'] is None
    # a domain already in the file counts too
    ok(sim, 'PUT', '/nodes/node1/config', {'acmedomain0': 'd.example.com'})
    assert refused(sim, 'PUT', '/nodes/node1/config', {'acmedomain3': 'd.example.com'})[1] == (
        "duplicate domain 'd.example.com' in ACME config properties 'acmedomain3' and 'acmedomain0'\n")


def test_node_config_property_formats(sim):
    def error_of(form):
        status, message, errors = refused(sim, 'PUT', '/nodes/node1/config', form)
        assert status == 400 and message == 'Parameter verification failed.\n', (status, message)
        return errors

    # acmedomain0 .. acmedomain5, as NodeConfig.pm's $MAXDOMAINS declares them
    assert error_of({'acmedomain6': 'e.example.com'}) == {
        'acmedomain6': 'property is not defined in schema and the schema does not allow additional properties'}
    assert error_of({'acmedomain1': 'localhost'}) == {'acmedomain1': (
        "invalid format - format error\nacmedomain1.domain: invalid format - value 'localhost' does not look like "
        "a valid domain name!\n\n")}
    assert error_of({'acmedomain1': 'e.example.com,alias=-x.example.net'}) == {'acmedomain1': (
        "invalid format - format error\nacmedomain1.alias: invalid format - value '-x.example.net' does not look "
        "like a valid alias name!\n\n")}
    assert set(error_of({'acme': 'domains=e.example.com;under_score.example.com;bad'})) == {'acme'}
    assert set(error_of({'wakeonlan': 'BC:24:11:00:00:01,bind-interface=1eth'})) == {'wakeonlan'}
    assert set(error_of({'startall-onboot-delay': '301'})) == {'startall-onboot-delay'}
    ok(sim, 'PUT', '/nodes/node1/config', {'acmedomain1': 'e.example.com,alias=_acme.example.net'})


def test_a_newline_in_a_value_is_refused_when_written(sim):
    # the mac-addr check's $ matches before a trailing newline, write_node_config then refuses the line
    assert refused(sim, 'PUT', '/nodes/node1/config', {'wakeonlan': 'BC:24:11:00:00:01\n'}) == (
        500, "detected invalid newline inside property 'wakeonlan'\n", None)
    assert settings(sim.state, 'node1')['config'] is None


def test_node_config_permissions_are_the_schemas(sim):
    node_auditor = token_with(sim, 'node', ('/nodes/node1', 'PVEAuditor'))
    assert refused(sim, 'GET', '/nodes/node1/config', token=node_auditor) == (
        403, 'Permission check failed (/, Sys.Audit)\n', None)
    auditor = token_with(sim, 'root', ('/', 'PVEAuditor'))
    assert ok(sim, 'GET', '/nodes/node1/config', token=auditor) == {}
    assert refused(sim, 'PUT', '/nodes/node1/config', {'ballooning-target': '90'}, token=auditor) == (
        403, 'Permission check failed (/, Sys.Modify)\n', None)
    sim.state.custom_roles['NodeModify'] = frozenset({'Sys.Modify'})
    node_writer = token_with(sim, 'write', ('/nodes/node1', 'NodeModify'))
    assert refused(sim, 'PUT', '/nodes/node1/config', {'ballooning-target': '90'}, token=node_writer) == (
        403, 'Permission check failed (/, Sys.Modify)\n', None)


def test_an_acme_domain_may_name_a_dns_plugin_of_the_cluster_and_no_unknown_one(sim):
    # NodeConfig.pm get_acme_conf looks the plugin up in plugins.cfg (/cluster/acme/plugins)
    data = base64.b64encode(b'CF_Token=abc\n').decode()
    ok(sim, 'POST', '/cluster/acme/plugins', {'id': 'cfdns', 'type': 'dns', 'api': 'cf', 'data': data})
    ok(sim, 'PUT', '/nodes/node2/config', {'acmedomain0': 'domain=dns.example.com,plugin=cfdns'})
    assert ok(sim, 'GET', '/nodes/node2/config')['acmedomain0'] == 'domain=dns.example.com,plugin=cfdns'
    assert refused(sim, 'PUT', '/nodes/node2/config', {'acmedomain1': 'domain=x.example.com,plugin=nope'})[:2] == (
        500, "plugin 'nope' for domain 'x.example.com' not found!\n")

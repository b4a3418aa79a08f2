"""The pure parts of the node_dns, node_time, node_hosts and node_config families, each checked against the
simulator's port of PVE where there is one: what PVE reads back after a DNS write (update_etc_resolv_conf, then
read_etc_resolv_conf), which time zone names have the tz database's shape, how a hosts file is judged and
repaired (and that PVE's write_etc_hosts takes the repair), how a node description reads back (write_node_config,
then parse_node_config), and which slots a change of the ACME domains keeps, fills and clears."""

import itertools
import zoneinfo

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import DeclarationError
from ansible_collections.homeflare.proxmox.plugins.module_utils.families import node_config, node_dns, node_hosts
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.node_time import FAMILY as TIME, ZONE
from simulator.pve.handlers import node_settings as simulated

# -- DNS ----------------------------------------------------------------------------------------------------------

SERVERS = ['', '10.0.0.1', '10.0.0.2', '0.0.0.0']


@pytest.mark.parametrize('sent', [dict(zip(node_dns.SERVERS, combo))
                                  for combo in itertools.product(SERVERS, repeat=3)])
def test_what_pve_reads_after_a_dns_write_is_the_simulators(sent):
    form = dict((key, server) for key, server in sent.items() if server)
    text = simulated.update_resolv_conf('search old.lan\nnameserver 10.9.9.9\noptions rotate\n',
                                        dict(form, search='x.lan'))
    read = simulated.read_resolv_conf(text)
    assert node_dns.written(sent) == dict((key, read.get(key, '')) for key in node_dns.SERVERS)
    assert text.endswith('options rotate\n')  # the other lines stay


def test_a_dns_write_sends_what_is_declared_and_the_live_rest():
    live = {'dns1': '10.0.0.1', 'dns2': '10.0.0.2'}
    assert node_dns.sent_servers({'dns3': '10.0.0.3'}, live) == dict(live, dns3='10.0.0.3')
    assert node_dns.sent_servers({'dns2': ''}, live) == {'dns1': '10.0.0.1', 'dns2': '', 'dns3': ''}


@pytest.mark.parametrize('declared, option', [
    ({'dns1': '', 'dns3': '10.0.0.3'}, 'dns1'),
    ({'dns2': '', 'dns3': '10.0.0.3'}, 'dns2'),
    ({'dns1': '10.0.0.1', 'dns2': '10.0.0.1'}, 'dns2'),
    ({'dns1': '0.0.0.0'}, 'dns1'),
    ({'search': 'a.lan b.lan'}, 'search'),
])
def test_dns_declarations_pve_could_never_read_back_are_refused(declared, option):
    with pytest.raises(DeclarationError) as refused:
        node_dns.FAMILY.declaration(dict(node='node1', **declared))
    assert str(refused.value).startswith('option %s' % option)


def test_a_declared_gap_after_the_last_server_is_fine():
    declaration = node_dns.FAMILY.declaration({'node': 'node1', 'dns1': '10.0.0.1', 'dns2': '', 'dns3': ''})
    assert declaration.values == {'dns1': '10.0.0.1', 'dns2': '', 'dns3': ''}


# -- time zones ---------------------------------------------------------------------------------------------------

def test_every_zone_of_the_tz_database_has_the_shape():
    zones = zoneinfo.available_timezones() - {'localtime'}
    if not zones:
        pytest.skip('no tz database on this machine')
    assert sorted(zone for zone in zones if not ZONE.fullmatch(zone)) == []


@pytest.mark.parametrize('zone', ['Europe Vienna', 'europe/vienna', 'Europe/', '/Europe', 'Europe//Vienna', '../x',
                                  'Europe/Vienna\n', 'localtime', 'A' * 15, 'Europe/Vienna;id'])
def test_malformed_zones_are_refused_naming_the_option(zone):
    with pytest.raises(DeclarationError) as refused:
        TIME.declaration({'node': 'node1', 'timezone': zone})
    assert str(refused.value).startswith('option timezone')


# -- /etc/hosts ---------------------------------------------------------------------------------------------------

HOSTS = simulated.installer_hosts('10.0.0.11', 'pve1', 'example.org')
WEB = {'ip': '10.0.0.20', 'names': ['web.example.org', 'web']}


def entries(*pairs):
    return [{'ip': node_hosts.address_of(ip), 'names': list(names)} for ip, names in pairs]


@pytest.mark.parametrize('declared, exclusive, live, text', [
    # present: nothing to write
    (entries(('10.0.0.11', ['pve1.example.org', 'pve1'])), False,
     entries(('10.0.0.11', ['pve1.example.org', 'pve1'])), HOSTS),
    # other names: the line is replaced in place
    (entries(('10.0.0.11', ['pve1.corp.org', 'pve1'])), False, entries(('10.0.0.11', ['pve1.example.org', 'pve1'])),
     HOSTS.replace('10.0.0.11 pve1.example.org pve1', '10.0.0.11 pve1.corp.org pve1')),
    # the same names in another order are not the entry
    (entries(('10.0.0.11', ['pve1', 'pve1.example.org'])), False,
     entries(('10.0.0.11', ['pve1.example.org', 'pve1'])),
     HOSTS.replace('10.0.0.11 pve1.example.org pve1', '10.0.0.11 pve1 pve1.example.org')),
    # a new address: appended
    ([WEB], False, [], HOSTS + '10.0.0.20 web.example.org web\n'),
    # exclusive: the node's line goes, loopback, the IPv6 lines, comments and blank lines stay
    ([WEB], True, entries(('10.0.0.11', ['pve1.example.org', 'pve1'])),
     HOSTS.replace('10.0.0.11 pve1.example.org pve1\n', '') + '10.0.0.20 web.example.org web\n'),
])
def test_hosts_are_judged_and_repaired(declared, exclusive, live, text):
    assert node_hosts.live_entries(HOSTS, declared, exclusive) == live
    repaired = node_hosts.repaired(HOSTS, declared, exclusive)
    assert repaired == text
    simulated.check_hosts(repaired)  # PVE's write_etc_hosts takes it
    assert node_hosts.live_entries(repaired, declared, exclusive) == declared


def test_addresses_are_compared_as_addresses_and_comments_end_the_names():
    data = '# hosts\nFE80::0001 router  # the router\n10.0.0.5\tdb\n'
    assert node_hosts.every_entry(data) == entries(('fe80::1', ['router']), ('10.0.0.5', ['db']))
    # an export: the first line of each address, none of the installer's lines for addresses no host holds
    assert node_hosts.every_entry(HOSTS + '10.0.0.11 again\n') == entries(('10.0.0.11', ['pve1.example.org', 'pve1']))
    assert node_hosts.live_entries(data, entries(('fe80::1', ['router'])), False) == entries(('fe80::1', ['router']))


def test_a_file_without_a_final_newline_gets_one_before_an_appended_line():
    assert node_hosts.repaired('127.0.0.1 localhost', [WEB], False) == (
        '127.0.0.1 localhost\n10.0.0.20 web.example.org web\n')
    assert node_hosts.repaired('', [WEB], True) == '10.0.0.20 web.example.org web\n'


def test_the_line_sharing_a_name_is_the_one_replaced():
    data = '127.0.0.1 localhost\n127.0.0.1 pve1.old pve1\n'
    declared = entries(('127.0.0.1', ['pve1.example.org', 'pve1']))
    assert node_hosts.repaired(data, declared, False) == '127.0.0.1 localhost\n127.0.0.1 pve1.example.org pve1\n'
    # exclusive keeps loopback lines, the other one for the address too
    assert node_hosts.repaired(data, declared, True) == '127.0.0.1 localhost\n127.0.0.1 pve1.example.org pve1\n'


@pytest.mark.parametrize('data, named', [
    (HOSTS, True), ('10.0.0.11 PVE1.example.org\n', True), ('10.0.0.11 pve10\n', False),
    ('# 10.0.0.11 pve1\n', False), ('10.0.0.11 other # pve1\n', False)])
def test_whether_a_line_names_the_node(data, named):
    assert node_hosts.names_node(data, 'pve1') is named


# -- the node config ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize('text', ['notes', 'notes\n', 'a  \n  b\n\n\nc\n\n', '0', '', 'tab\tend\t', ' lead',
                                  'Zürich: 100%', '\n\nfirst', 'x \n \n'])
def test_a_description_reads_back_as_nodeconfig_writes_and_parses_it(text):
    written = simulated.write_node_config({'description': text})
    read = simulated.parse_node_config(written)['description'] if written else ''
    assert node_config.node_comment(text) == read


SLOT = ['acmedomain%d' % index for index in range(6)]


@pytest.mark.parametrize('live, wanted, sets, cleared', [
    # nothing there: from acmedomain0 on
    ({}, ['domain=a.example.com', 'domain=b.example.com'],
     {SLOT[0]: 'domain=a.example.com', SLOT[1]: 'domain=b.example.com'}, []),
    # kept where they are, the new one in the first free slot, the dropped one cleared
    ({SLOT[0]: 'A.example.com,plugin=standalone', SLOT[2]: 'b.example.com', SLOT[4]: 'c.example.com'},
     ['domain=a.example.com', 'domain=c.example.com', 'domain=d.example.com'], {SLOT[1]: 'domain=d.example.com'},
     [SLOT[2]]),
    # another plugin for a domain: its slot is set again (never set and deleted at once)
    ({SLOT[0]: 'a.example.com'}, ['domain=a.example.com,plugin=cf'], {SLOT[0]: 'domain=a.example.com,plugin=cf'}, []),
    # all cleared
    ({SLOT[3]: 'a.example.com', SLOT[5]: 'b.example.com'}, [], {}, [SLOT[3], SLOT[5]]),
])
def test_acme_domain_slots(live, wanted, sets, cleared):
    assert node_config.ACME_DOMAINS.slots(wanted, live) == (sets, cleared)


def test_acme_domains_compare_as_pve_reads_them():
    field = node_config.ACME_DOMAINS
    assert field.declared(['b.example.com', 'domain=A.example.com,plugin=standalone,alias=_x.example.net']) == [
        'alias=_x.example.net,domain=a.example.com', 'domain=b.example.com']
    assert field.live(['a.example.com']) == field.declared(['domain=a.example.com,plugin=standalone'])


def test_a_view_gathers_the_slots():
    raw = {SLOT[5]: 'b.example.com', SLOT[1]: 'a.example.com', 'digest': 'x'}
    assert node_config.FAMILY.current(raw)['acme_domains'] == ['domain=a.example.com', 'domain=b.example.com']

"""docs/simulator.md's source map and coverage figure agree with what the simulator serves.

The section between ``<!-- source-map:begin -->`` and ``<!-- source-map:end -->`` is written by
scripts/source_map.py from the Proxmox mirrors (never in CI); this test needs no mirror. It fails when a
served route (``simulator.pve.handlers.ROUTES``, ``simulator.pbs.handlers.ROUTES``) has no row, when a row
names a route that is not served, and, with the official schemas beside the checkout, when the served count
is lower than the figure written there or the list of unserved methods is not the one computed
(``simulator.coverage``, the definition the script uses). After adding a route, run
``.venv/bin/python scripts/source_map.py``.
"""

import importlib.util
import os
import re

import pytest

from simulator import coverage

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(REPO, 'docs', 'simulator.md')
REGENERATE = 'run .venv/bin/python scripts/source_map.py'
ROW = re.compile(r'^\| (GET|POST|PUT|DELETE) \| `([^`]+)` \| (.+?) \| (.+) \|$')
FIGURE = re.compile(r'^Coverage: (\d+) of (\d+) schema methods under the simulated paths are served')
UNSERVED = re.compile(r'^\* `(GET|POST|PUT|DELETE) (\S+)`$')


def parse(section):
    """product -> {'rows': [(method, path)], 'sources': {(method, path): source}, 'figure': (served, total),
    'unserved': [(method, path)]} of the section's ``### PVE`` / ``### PBS`` parts."""
    products, current = {}, None
    for line in section.splitlines():
        heading = re.match(r'^### (PVE|PBS)$', line)
        if heading:
            current = products.setdefault(heading.group(1).lower(),
                                          {'rows': [], 'sources': {}, 'figure': None, 'unserved': []})
            continue
        if current is None:
            continue
        row, figure, unserved = ROW.match(line), FIGURE.match(line), UNSERVED.match(line)
        if row:
            current['rows'].append((row.group(1), row.group(2)))
            current['sources'][(row.group(1), row.group(2))] = row.group(3)
        elif figure:
            current['figure'] = (int(figure.group(1)), int(figure.group(2)))
        elif unserved:
            current['unserved'].append((unserved.group(1), unserved.group(2)))
    return products


def doc_section(text):
    start, end = text.find(coverage.BEGIN), text.find(coverage.END)
    assert 0 <= start < end, 'docs/simulator.md has no %s ... %s section' % (coverage.BEGIN, coverage.END)
    return text[start:end]


def missing_rows(rows, served):
    return sorted(set(served) - set(rows), key=lambda key: (key[1], key[0]))


def stale_rows(rows, served):
    """Rows of routes that are not served, and rows given twice."""
    seen, stale = set(), []
    for key in rows:
        if key not in served or key in seen:
            stale.append(key)
        seen.add(key)
    return stale


def routes_text(keys):
    return ', '.join('%s %s' % key for key in keys)


@pytest.fixture(scope='module')
def documented():
    with open(DOC, encoding='utf-8') as handle:
        return parse(doc_section(handle.read()))


@pytest.mark.parametrize('product', coverage.PRODUCTS)
def test_every_served_route_has_a_row(documented, product):
    missing = missing_rows(documented[product]['rows'], coverage.served_routes(product))
    assert not missing, '%s routes without a source-map row (%s): %s' % (product, REGENERATE, routes_text(missing))


@pytest.mark.parametrize('product', coverage.PRODUCTS)
def test_no_row_for_a_route_that_is_not_served(documented, product):
    stale = stale_rows(documented[product]['rows'], coverage.served_routes(product))
    assert not stale, 'stale %s source-map rows (%s): %s' % (product, REGENERATE, routes_text(stale))


@pytest.mark.parametrize('product', coverage.PRODUCTS)
def test_coverage_only_goes_up_and_the_unserved_list_is_current(documented, product, capsys):
    if not os.path.isfile(coverage.schema_file(product)):
        pytest.skip('the official %s schema is not at %s' % (product, coverage.schema_file(product)))
    figure = coverage.product_coverage(product)
    with capsys.disabled():
        print('\n%s %s' % (product.upper(), coverage.coverage_sentence(figure)))
    recorded = documented[product]['figure']
    assert recorded, 'no coverage figure for %s in docs/simulator.md (%s)' % (product, REGENERATE)
    assert figure.served >= recorded[0], ('%s serves %d schema methods, the doc records %d: the figure only goes up'
                                          % (product, figure.served, recorded[0]))
    written = documented[product]['unserved']
    gone = sorted(set(written) - set(figure.unserved))
    new = sorted(set(figure.unserved) - set(written))
    assert written == figure.unserved, ('the doc\'s unserved %s list is not current (%s); listed but served or '
                                        'no longer under a simulated path: %s; missing: %s'
                                        % (product, REGENERATE, routes_text(gone), routes_text(new)))


def test_the_checks_name_missing_and_stale_rows():
    served = {('GET', '/pools'), ('POST', '/pools')}
    rows = [('GET', '/pools'), ('PUT', '/pools'), ('GET', '/pools')]
    assert missing_rows(rows, served) == [('POST', '/pools')]
    assert stale_rows(rows, served) == [('PUT', '/pools'), ('GET', '/pools')]


def test_parse_reads_rows_figures_and_unserved_lists_per_product():
    section = '\n'.join([
        coverage.BEGIN, '### PVE',
        'Coverage: 2 of 3 schema methods under the simulated paths are served (66.7%).',
        '<details><summary>x</summary>', '', '* `GET /pools/{poolid}`', '', '</details>',
        '| method | path | source | handler |', '| --- | --- | --- | --- |',
        '| GET | `/pools` | pve-manager:PVE/API2/Pool.pm:25 | `index` |',
        '| POST | `/pools` | not found in pve-manager | schema name `create_pool` |',
        '### PBS', '| GET | `/version` | proxmox-backup:src/api2/version.rs:9 | `get_version` |'])
    parsed = parse(section)
    assert parsed['pve']['rows'] == [('GET', '/pools'), ('POST', '/pools')]
    assert parsed['pve']['sources'][('POST', '/pools')] == 'not found in pve-manager'
    assert parsed['pve']['figure'] == (2, 3)
    assert parsed['pve']['unserved'] == [('GET', '/pools/{poolid}')]
    assert parsed['pbs'] == {'rows': [('GET', '/version')],
                             'sources': {('GET', '/version'): 'proxmox-backup:src/api2/version.rs:9'},
                             'figure': None, 'unserved': []}


# -- the coverage definition (simulator/coverage.py) -------------------------------------------------------------

SCHEMA_TREE = [
    {'path': '/version', 'info': {'GET': {}}},
    {'path': '/pools', 'info': {'GET': {}, 'POST': {}}, 'children': [
        {'path': '/pools/{poolid}', 'info': {'GET': {}, 'PUT': {}}}]},
    {'path': '/nodes', 'info': {'GET': {}}, 'children': [
        {'path': '/nodes/{node}', 'info': {'GET': {}}, 'children': [
            {'path': '/nodes/{node}/qemu', 'info': {'GET': {}}, 'children': [
                {'path': '/nodes/{node}/qemu/{vmid}', 'info': {'GET': {}}}]},
            {'path': '/nodes/{node}/lxc', 'info': {'GET': {}}},
            {'path': '/nodes/{node}/lxc-like', 'info': {'GET': {}}}]}]},
]


def test_schema_methods_walks_the_tree():
    methods = coverage.schema_methods(SCHEMA_TREE)
    assert ('PUT', '/pools/{poolid}') in methods and ('GET', '/nodes/{node}/qemu/{vmid}') in methods
    assert len(methods) == 11


def test_parent():
    assert coverage.parent('/version') == '/'
    assert coverage.parent('/nodes/{node}/qemu') == '/nodes/{node}'


def test_simulated_paths_are_served_paths_and_their_siblings():
    paths = set(key[1] for key in coverage.schema_methods(SCHEMA_TREE))
    # /nodes/{node}/qemu served: itself and its siblings (lxc, lxc-like); not what lies below it ({vmid}), nor its
    # parent /nodes/{node}, nor /nodes, nor another top-level path.
    assert coverage.simulated_paths(paths, {'/nodes/{node}/qemu'}) == {
        '/nodes/{node}/qemu', '/nodes/{node}/lxc', '/nodes/{node}/lxc-like'}
    # A top-level path's siblings are every top-level path; nothing below them comes along.
    assert coverage.simulated_paths(paths, {'/version', '/nodes/{node}/lxc'}) == {
        '/version', '/pools', '/nodes', '/nodes/{node}/qemu', '/nodes/{node}/lxc', '/nodes/{node}/lxc-like'}


def test_coverage_counts_schema_methods_under_the_simulated_paths():
    served = {('GET', '/pools'), ('GET', '/pools/{poolid}'), ('GET', '/nowhere')}
    figure = coverage.coverage(coverage.schema_methods(SCHEMA_TREE), served)
    # Simulated: /pools and /pools/{poolid} (served), /version and /nodes (siblings of /pools).
    assert figure.total == 6
    assert figure.served == 2  # /nowhere is no schema method
    assert figure.unserved == [('GET', '/nodes'), ('POST', '/pools'), ('PUT', '/pools/{poolid}'), ('GET', '/version')]
    assert coverage.coverage_sentence(figure) == (
        'Coverage: 2 of 6 schema methods under the simulated paths are served (33.3%).')
    assert FIGURE.match(coverage.coverage_sentence(figure))


# -- the script's parsers (scripts/source_map.py; the walks themselves need the mirrors) -------------------------

@pytest.fixture(scope='module')
def script():
    spec = importlib.util.spec_from_file_location('source_map', os.path.join(REPO, 'scripts', 'source_map.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_perl_literals(script):
    assert script.literal("'{storage}', # /storage/config/{storage}") == '{storage}'
    assert script.literal('"PVE::API2::Qemu",') == 'PVE::API2::Qemu'
    assert script.literal('$command,') is None
    assert script.literal('"{vmid}/$sub"') is None


PERL = '''package PVE::API2::Example::Base;

use base qw(PVE::RESTHandler);

sub register_get_things {
    my ($class) = @_;

    $class->register_method({
        name => 'get_things',
        path => '',
        method => 'GET',
        parameters => {
            properties => { method => { type => 'string' } },
        },
        code => sub { return []; },
    });
}

sub register_handlers {
    my ($class) = @_;

    $class->register_get_things();
}

package PVE::API2::Example;

use base qw(PVE::API2::Example::Base);

__PACKAGE__->register_method({
    subclass => "PVE::API2::Example::Child",
    path => '{id:\\d+}/child',
});

__PACKAGE__->register_method({
    name => 'create',
    protected => 1,
    path => '{id}', # /example/{id}
    method => 'POST',
    code => sub { },
});

__PACKAGE__->register_handlers();

package PVE::API2::Example::Child;

__PACKAGE__->register_method({
    name => 'child_index',
    path => '',
    code => sub { },
});
'''


def test_perl_blocks_generators_and_walk(script):
    lines = PERL.split('\n')
    starts = [index for index, line in enumerate(lines) if line.startswith('package ')]
    mirror = type('Mirror', (), {'name': 'demo'})()
    packages = {}
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(lines)
        name = lines[start].split()[1].rstrip(';')
        packages[name] = script.Package(name, mirror, 'Example.pm', lines[start:end], start + 1)
    packages['PVE::API2'] = script.Package('PVE::API2', mirror, 'API2.pm', [
        '__PACKAGE__->register_method({', '    subclass => "PVE::API2::Example",', "    path => 'example',", '});'], 1)
    base, example = packages['PVE::API2::Example::Base'], packages['PVE::API2::Example']
    assert base.bases == ['PVE::RESTHandler'] and example.bases == ['PVE::API2::Example::Base']
    assert [block.in_sub for block in base.blocks] == ['register_get_things']
    # The nested "method" key of the parameters is not the block's method.
    assert base.blocks[0].keys['method'] == 'GET'
    walk = script.PveWalk(packages)
    create = walk.methods[('POST', '/example/{id}')]
    line = lines.index("    name => 'create',") + 1
    assert (create.file, create.line, create.name, create.via) == ('Example.pm', line, 'create', None)
    things = walk.methods[('GET', '/example')]
    assert things.name == 'get_things' and things.line == lines.index("        name => 'get_things',") + 1
    assert things.via.startswith('generated by `PVE::API2::Example::Base::register_get_things`')
    # A subclass path's {name:regex} is the schema's {name}; without "method =>" RESTHandler says GET.
    assert walk.mounts['/example/{id}/child'] == 'PVE::API2::Example::Child'
    assert walk.methods[('GET', '/example/{id}/child')].name == 'child_index'


RUST = '''use proxmox_router::{list_subdirs_api_method, Router, SubdirMap};
use crate::api2::other::{self, API_METHOD_ELSEWHERE as ELSEWHERE};

pub mod user;

#[api()]
/// List things.
pub fn list_things() -> Result<(), Error> {
    Ok(())
}

const SUBDIRS: SubdirMap = &sorted!([
    ("user", &user::ROUTER),
    // ("lvm", &lvm::ROUTER),
    ("inline", &Router::new().get(&API_METHOD_LIST_THINGS)),
]);

pub const ROUTER: Router = Router::new()
    .get(&list_subdirs_api_method!(SUBDIRS))
    .subdirs(SUBDIRS)
    .match_all("name", &ITEM_ROUTER);
'''


def test_rust_modules_uses_and_routers(script):
    module = script.RustFile('src/api2/things.rs', RUST)
    assert sorted(module.consts) == ['ROUTER', 'SUBDIRS']
    assert 'lvm' not in module.consts['SUBDIRS'][1]
    assert module.mods == {'user'}
    assert module.uses['other'] == 'crate::api2::other'
    assert module.uses['ELSEWHERE'] == 'crate::api2::other::API_METHOD_ELSEWHERE'
    assert module.fn_line('list_things') == 8
    assert script.chained_calls(module.consts['ROUTER'][1].strip()[len('Router::new()'):]) == [
        ('get', ['&list_subdirs_api_method!(SUBDIRS)']), ('subdirs', ['SUBDIRS']),
        ('match_all', ['"name"', '&ITEM_ROUTER'])]


def test_join_path_drops_regexes(script):
    assert script.join_path('/nodes', '{node}/qemu') == '/nodes/{node}/qemu'
    assert script.join_path('/', '{id:\\d+}/child') == '/{id}/child'

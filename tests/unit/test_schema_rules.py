"""Rules the collection copies from PVE, checked against the official schema so they cannot drift apart.

The collection cannot read ../shared/pve-api at run time, so it keeps the few rules it needs in code;
this test reads the schema (``$PVE_API_SCHEMA``, else ``<repo>/../shared/pve-api/pve-api-schema.json``)
and is skipped, saying so, where that file is not beside the checkout.
"""

import json
import os
import re

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import TOKEN_IDS
from ansible_collections.homeflare.proxmox.plugins.module_utils.families.role import PRIVILEGES

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = os.environ.get('PVE_API_SCHEMA') or os.path.join(REPO, '..', 'shared', 'pve-api', 'pve-api-schema.json')


@pytest.fixture(scope='module')
def schema_text():
    if not os.path.isfile(SCHEMA):
        pytest.skip('the official PVE schema is not at %s' % SCHEMA)
    with open(SCHEMA) as handle:
        return handle.read()


def parameters(schema_text, name):
    """Every definition of the parameter ``name`` in the schema."""
    found = []

    def walk(node):
        for info in (node.get('info') or {}).values():
            prop = ((info.get('parameters') or {}).get('properties') or {}).get(name)
            if prop:
                found.append(prop)
        for child in node.get('children') or []:
            walk(child)

    for node in json.loads(schema_text):
        walk(node)
    return found


def test_every_privilege_the_schema_names_is_known(schema_text):
    named = set(re.findall(r'"((?:Datastore|Group|Mapping|Permissions|Pool|Realm|SDN|Sys|User|VM)\.[A-Za-z.]+)"',
                           schema_text))
    assert len(named) > 30  # the pattern really found the schema's permission checks
    assert sorted(named - set(PRIVILEGES)) == []


def test_the_token_id_rule_is_the_schemas(schema_text):
    # /access/permissions takes a userid or a token id with PVE's own (Perl) pattern.
    patterns = [prop['pattern'] for prop in parameters(schema_text, 'userid') if prop.get('pattern')]
    assert patterns, 'the schema no longer gives a userid pattern'
    perl = patterns[0]
    # Perl's (?^:...) groups are plain groups in Python.
    schema_rule = re.compile(perl.replace('(?^:', '(?:'))
    for token_id in ('root@pam!ci', 'ci@pve!ro', 'a.b@my-realm!tok_1', 'root@pam!c', 'root@pam!1x', 'root@pam',
                     'root!ci', 'ro ot@pam!ci', 'root@pam!ci!x', 'root@1pam!ci'):
        is_token = '!' in token_id
        assert bool(TOKEN_IDS['pve'].match(token_id)) == (is_token and bool(schema_rule.match(token_id))), token_id

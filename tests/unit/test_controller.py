"""Which path a task takes (plugins/plugin_utils/controller.py), table-driven."""

import pytest

from ansible_collections.homeflare.proxmox.plugins.plugin_utils.controller import plain, runs_on_controller

CASES = [
    # choice, transport, async, has requests, lacks hvac → on the controller
    ('auto', 'local', False, True, False, True),
    ('auto', 'ssh', False, True, False, False),
    ('auto', 'local', True, True, False, False),
    ('auto', 'local', False, False, False, False),
    ('auto', 'local', False, True, True, False),
    ('module', 'local', False, True, False, False),
    ('controller', 'ssh', False, True, False, True),
    ('controller', 'ssh', True, True, False, False),
    ('controller', 'local', False, False, False, False),
]


@pytest.mark.parametrize('choice, transport, is_async, has_requests, lacks_hvac, expected', CASES)
def test_runs_on_controller(choice, transport, is_async, has_requests, lacks_hvac, expected):
    assert runs_on_controller(choice, transport, is_async, has_requests, lacks_hvac) is expected


def test_plain_gives_json_types():
    class Tagged(str):
        pass

    value = plain({Tagged('objects'): {'pool': [{'poolid': Tagged('lab'), 'n': 3, 'ok': True}]}, 'x': (Tagged('a'),)})
    assert value == {'objects': {'pool': [{'poolid': 'lab', 'n': 3, 'ok': True}]}, 'x': ['a']}
    assert type(value['objects']['pool'][0]['poolid']) is str  # pylint: disable=unidiomatic-typecheck
    assert all(type(key) is str for key in value)  # pylint: disable=unidiomatic-typecheck

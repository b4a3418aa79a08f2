"""Calendar events (pve-calendar-event): the same yes/no as Proxmox's own parser (proxmox-time).

Sources of the examples: the PVE admin guide "Schedule Format" table (pve-docs calendar-events.adoc),
the PBS "Calendar Events" table (proxmox-backup docs/calendarevents.rst) and proxmox-time's own tests
(src/test.rs). The quirks are what that parser does, read from its source.
"""

import pytest

from ansible_collections.homeflare.proxmox.plugins.module_utils.calendar_event import parse_calendar_event

ACCEPTED = [
    # special words, each only alone
    'minutely', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'annually', 'quarterly',
    'semiannually', 'semi-annually',
    # what they stand for (PBS/PVE docs)
    '*-*-* *:*:00', '*-*-* *:00:00', '*-*-* 00:00:00', 'mon *-*-* 00:00:00', '*-*-01 00:00:00',
    '*-01-01 00:00:00', '*-01,04,07,10-01 00:00:00', '*-01,07-01 00:00:00',
    # PVE "Schedule Examples"
    'mon,tue,wed,thu,fri', 'mon..fri', 'sat,sun', 'sat..sun', 'mon,wed,fri', '12:05', '*/5', '0/5',
    'mon..wed 30/10', 'mon,tue,wed 30/10', 'mon..fri 8..17,22:0/15', 'fri 12..13:5/20', 'fri 12,13:5/20',
    '12,14,16,18,20,22:5', '12/2:5', '*', '*/1', '*-05', 'Sat *-1..7 15:00', '2015-10-21',
    'mon..fri 22', '8:00/15',
    # PBS examples
    '*:00/5', '0/1:0/5', 'mon..wed *:30/10', '*:*', '0/1:0/1',
    # proxmox-time tests
    '0', '*:0', '*:*:*', '*:3:5', 'mon *:*', 'mon 2:*', 'mon 2:50', 'tue', 'thursday', 'MON', 'monDay',
    'Tuesday', 'fri..mon', 'mon,wed..fri', 'mon,tue..wednesday,fri..sat', '4..10/2:0', '5,10:4,8',
    '6,4..10:23,5/5', '4..10,6:5/5,23', '5/2:0', '1:0', '2020-07-31', '02-28', '02-29', '1965/5-01-01',
    '2020-7..9-2/2', '2020,2021-12-31',
    # everyday schedules
    'mon..fri 02:30', 'sat 03:00', 'sun 04:00', '*-*-* 00/2:00', '2:30', '*:0/15', 'mon,wed,fri 22:00',
    '12-25', '*-01-01', '2026-*-01 12:00', '21:00:30', 'sat 23:59:59', '2199-12-31 23:59',
    # a trailing UTC (proxmox-time 1.1.2) computes the event in UTC
    'daily UTC', 'mon 02:00 UTC', '*:0/15 UTC',
    # dates that never come still parse
    '2021-02-29', '02-30',
]

# Accepted by Proxmox although they look wrong: an hour that is out of range is retried as minutes,
# so these mean "every hour at minute 24/25, second 0".
QUIRKS = ['24:00', '25:00', 'sun 24:00']

REFUSED = [
    '', ' ', 'UTC',
    'blah', 'every day', 'Daily', 'DAILY', 'daily 02:00', 'mon,daily', 'daily,weekly', 'mon 02:00 utc',
    'monday..', 'mon..', 'mon..xyz', 'mon..fri..sun', 'mon,', 'sat 03:00, sun 04:00', '12:30 mon',
    '12:60', '*:60', '*:0/60', '24:00:00', '25:00:00', '1:2:3:4', '12:', '2:30pm', '*-*-* *:*:60', 'mon 1:99',
    '13-01', '*-*-32', '2026-13-01', '2200-01-01', '2020-01-01T00:00', '2020-03~01', '5..3:00', '*/0',
    '@12345', '-1', '1.5', '0x10',
]

REASONS = [
    # (text, words the reason must contain)
    ('', 'empty'),
    ('12:60', 'minute 60'),
    ('*-*-32', 'day 32'),
    ('13-01', 'month 13'),
    ('2200-01-01', 'year 2200'),
    ('25:00:00', 'hour 25'),
    ('blah', "'blah'"),
    ('mon..xyz', "'xyz'"),
    ('daily 02:00', 'alone'),
    ('mon 2:00 foo', "'foo'"),
    (' daily', 'blanks'),
    (30, 'string'),
]


def test_tables_are_large_enough():
    assert len(ACCEPTED) >= 40
    assert len(REFUSED) >= 25


@pytest.mark.parametrize('text', ACCEPTED + QUIRKS)
def test_accepted(text):
    assert parse_calendar_event(text) is None


@pytest.mark.parametrize('text', REFUSED)
def test_refused(text):
    reason = parse_calendar_event(text)
    assert isinstance(reason, str) and reason


@pytest.mark.parametrize('text, words', REASONS)
def test_reason(text, words):
    assert words in parse_calendar_event(text)

# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Proxmox calendar events (``pve-calendar-event``): does Proxmox accept this schedule?

Backup jobs, replication jobs and the PBS prune, sync and verify jobs take their
``schedule`` in Proxmox's systemd.time-like calendar event format, which Proxmox
parses in Rust (proxmox-time). This module answers the same yes/no question
locally, so a bad schedule is refused before any request is sent::

    [WEEKDAYS] [[YEARS-]MONTHS-DAYS] [[HOURS:]MINUTES[:SECONDS]] [UTC]

or one special word alone: minutely, hourly, daily, weekly, monthly, yearly,
annually, quarterly, semiannually, semi-annually.

* WEEKDAYS: comma list of days or ``a..b`` ranges (mon..fri, fri..mon wraps);
  short or long English names, any letter case.
* Each number field: ``*``, ``*/N`` or a comma list of ``N``, ``A..B``, ``N/R`` and
  ``A..B/R``. Values must stay below 2200 (year), 13 (month), 32 (day), 24 (hour)
  and 60 (minute, second); a repetition ``R`` obeys the same bound.
* At least one of weekdays, date or time must be given. A lone number is a
  minute, so ``30`` means every hour at half past.

Like Proxmox's parser, this one backtracks: a part that does not fit as hours is
tried as minutes, which is why Proxmox accepts ``25:00`` (minute 25, second 0)
but refuses ``12:60``. The text is taken as given: Proxmox VE trims it first,
Proxmox Backup Server does not.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

SPECIAL_WORDS = frozenset((
    'minutely', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'annually',
    'quarterly', 'semiannually', 'semi-annually',
))
WEEKDAYS = frozenset((
    'mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun',
    'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday',
))

_DIGITS = '0123456789'
_LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'
_BLANKS = ' \t'

# (name, exclusive upper bound): the bounds Proxmox checks; it has no lower bound beyond 0.
_YEAR = ('year', 2200)
_MONTH = ('month', 13)
_DAY = ('day', 32)
_HOUR = ('hour', 24)
_MINUTE = ('minute', 60)
_SECOND = ('second', 60)
_TIME_FIELDS = ('hour', 'minute', 'second')
_DATE_FIELDS = ('year', 'month', 'day')


def parse_calendar_event(text):
    """None when ``text`` is a calendar event Proxmox accepts, else a short reason (str) why not."""
    if not isinstance(text, str):
        return 'a calendar event must be a string, not %s' % type(text).__name__
    if not text.strip():
        return 'the calendar event is empty'
    reason = _Parser(text).run()
    if reason is not None and text != text.strip() and _Parser(text.strip()).run() is None:
        return 'the calendar event has leading or trailing blanks'
    return reason


class _Parser:
    """One parse of one text; each piece takes a position and returns the position after it, or None."""

    def __init__(self, text):
        self.text = text
        self.end = len(text)
        # Used only to explain a refusal: the problems met on the way as (position, kind of part, message),
        # and how far any piece got.
        self.notes = []
        self.reach = 0

    def run(self):
        text = self.text
        if text.endswith('UTC'):
            self.end -= 3
            while self.end > 0 and text[self.end - 1] == ' ':
                self.end -= 1
        body = text[:self.end]
        pos = 0
        found = False
        if body and body[0] in _LETTERS:
            if body in SPECIAL_WORDS:
                return None
            after = self._weekday_list(0)
            if after is None:
                return self._reason(0)
            found = True
            pos = self._blanks(after)
        after = self._date(pos)
        if after is not None:
            found = True
            pos = self._blanks(after)
        after = self._time(pos)
        if after is not None:
            found = True
            pos = after
        if found and pos == self.end:
            return None
        return self._reason(pos)

    # -- pieces ------------------------------------------------------------------------------------

    def _at(self, pos, literal):
        return self.text.startswith(literal, pos, self.end)

    def _reached(self, pos):
        self.reach = max(self.reach, pos)
        return pos

    def _blanks(self, pos):
        while pos < self.end and self.text[pos] in _BLANKS:
            pos += 1
        return pos

    def _weekday(self, pos):
        stop = pos
        while stop < self.end and self.text[stop] in _LETTERS:
            stop += 1
        if stop == pos:
            return None
        word = self.text[pos:stop]
        if word.lower() in WEEKDAYS:
            return self._reached(stop)
        if word in SPECIAL_WORDS:
            self.notes.append((pos, 'word', "'%s' must stand alone, without weekdays, dates or times" % word))
        else:
            self.notes.append((pos, 'word', "'%s' is not a weekday (mon..sun) nor a special word like daily" % word))
        return None

    def _weekday_range(self, pos):
        after = self._weekday(pos)
        if after is None:
            return None
        if self._at(after, '..'):
            end = self._weekday(after + 2)
            if end is not None:
                return end
        return after

    def _weekday_list(self, pos):
        after = self._weekday_range(pos)
        if after is None:
            return None
        while self._at(after, ','):
            more = self._weekday_range(after + 1)
            if more is None:
                break
            after = more
        return after

    def _number(self, pos, field):
        """A run of digits below the field's bound: (value, position after) or None."""
        stop = pos
        while stop < self.end and self.text[stop] in _DIGITS:
            stop += 1
        if stop == pos:
            return None
        value = int(self.text[pos:stop])
        name, bound = field
        if value >= bound:
            self.notes.append((pos, name, '%s %s is too large (at most %d)' % (name, self.text[pos:stop], bound - 1)))
            return None
        return value, self._reached(stop)

    def _value(self, pos, field):
        """``N``, ``A..B``, ``N/R`` or ``A..B/R``."""
        first = self._number(pos, field)
        if first is None:
            return None
        after = first[1]
        if self._at(after, '..'):
            last = self._number(after + 2, field)
            if last is not None:
                if first[0] > last[0]:
                    self.notes.append((pos, field[0], 'the range %s starts after its end' % self.text[pos:last[1]]))
                    return None
                after = last[1]
        if self._at(after, '/'):
            step = self._number(after + 1, field)
            return None if step is None else step[1]
        return after

    def _field(self, pos, field):
        """``*``, ``*/R`` or a comma list of values."""
        if self._at(pos, '*'):
            if self._at(pos + 1, '/'):
                step = self._number(pos + 2, field)
                if step is None:
                    return None
                if step[0] > 0:
                    return step[1]
            return self._reached(pos + 1)
        after = self._value(pos, field)
        if after is None:
            return None
        while self._at(after, ','):
            more = self._value(after + 1, field)
            if more is None:
                break
            after = more
        return after

    def _date(self, pos):
        """``YEARS-MONTHS-DAYS`` or else ``MONTHS-DAYS``."""
        after = self._field(pos, _YEAR)
        if after is not None and self._at(after, '-'):
            after = self._field(after + 1, _MONTH)
            if after is not None and self._at(after, '-'):
                after = self._field(after + 1, _DAY)
                if after is not None:
                    return after
        after = self._field(pos, _MONTH)
        if after is not None and self._at(after, '-'):
            return self._field(after + 1, _DAY)
        return None

    def _time(self, pos):
        """``[HOURS:]MINUTES[:SECONDS]``; hours that do not parse are retried as minutes."""
        after = self._field(pos, _HOUR)
        start = after + 1 if after is not None and self._at(after, ':') else pos
        after = self._field(start, _MINUTE)
        if after is None:
            return None
        if self._at(after, ':'):
            seconds = self._field(after + 1, _SECOND)
            if seconds is not None:
                return seconds
        return after

    # -- explaining a refusal ----------------------------------------------------------------------

    def _reason(self, pos):
        """Why the parse stopped at ``pos``: the best note within the word there, else what is left."""
        text = self.text
        start = self._blanks(pos)
        if start >= self.end:
            if pos == 0:
                return 'no weekday, date or time is given'
            return "cannot parse '%s'" % text
        if start == pos:
            while start > 0 and text[start - 1] not in _BLANKS:
                start -= 1
        stop = start
        while stop < self.end and text[stop] not in _BLANKS:
            stop += 1
        word = text[start:stop]
        if ':' in word:
            preferred = _TIME_FIELDS
        elif '-' in word:
            preferred = _DATE_FIELDS
        else:
            preferred = ('word',)
        # A piece got past every problem noted in this word: the text after it is what does not fit,
        # unless nothing is left there.
        reach = self.reach if start <= self.reach < stop else start
        best = None
        for note_pos, kind, message in self.notes:
            if start <= note_pos < stop and (note_pos >= reach or kind in preferred):
                key = (note_pos >= reach, note_pos, kind in preferred)
                if best is None or key > best[0]:
                    best = (key, message)
        if best is not None and best[0][0]:
            return best[1]
        rest = text[max(pos, reach):stop]
        if rest == word:
            reason = "cannot parse '%s'" % word
        else:
            reason = "cannot parse '%s' at '%s'" % (word, rest)
        if best is not None and preferred is _TIME_FIELDS:
            # the usual cause: hours out of range were retried as minutes
            reason += '; ' + best[1]
        return reason

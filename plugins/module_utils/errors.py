# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Typed errors of the collection.

Every failure inside module_utils is one of these; only the module entry point
turns them into ``fail_json``. Messages never carry a secret.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ProxmoxError(Exception):
    """Base of every error this collection raises on purpose."""


class DeclarationError(ProxmoxError):
    """The task's own input is wrong; raised before any request is sent."""


class CredentialError(ProxmoxError):
    """No usable credential could be had (missing, refused, malformed)."""


class ApiError(ProxmoxError):
    """An HTTP answer other than success from PVE or PBS."""

    def __init__(self, status, message, method=None, path=None, errors=None, member=None):
        self.status = status
        self.reason = (message or '').strip()
        self.method = method
        self.path = path
        self.errors = errors or {}
        self.member = member
        super(ApiError, self).__init__(self.describe())

    def describe(self):
        text = '%s %s' % (self.status, self.reason or 'no reason given')
        if self.errors:
            details = '; '.join('%s: %s' % (key, str(value).strip()) for key, value in sorted(self.errors.items()))
            text = '%s (%s)' % (text, details)
        return text

    @staticmethod
    def for_status(status, message, **kwargs):
        """The most specific subclass for an HTTP status."""
        kind = {400: InvalidParameters, 401: AuthenticationFailed, 403: Forbidden, 501: NotImplementedPath}.get(status)
        if kind is None:
            kind = ServerError if status >= 500 else ApiError
        return kind(status, message, **kwargs)


class InvalidParameters(ApiError):
    """400: the server refused the parameters."""


class AuthenticationFailed(ApiError):
    """401: the credential was not accepted (wrong, expired or revoked)."""


class Forbidden(ApiError):
    """403: the credential lacks a privilege."""


class NotImplementedPath(ApiError):
    """501: the path or method does not exist on this server."""


class ServerError(ApiError):
    """5xx: PVE's handler died (PVE also reports missing objects this way)."""


class TransportError(ProxmoxError):
    """No HTTP answer could be had."""


class Unreachable(TransportError):
    """Every member failed; ``failures`` is a list of (member, why)."""

    def __init__(self, failures):
        self.failures = list(failures)
        super(Unreachable, self).__init__(
            'all members failed: ' + '; '.join('%s (%s)' % (member, why) for member, why in self.failures))


class MaybeApplied(TransportError):
    """A write left for a member and no answer came back: it may have been applied."""

    def __init__(self, method, path, member, why):
        self.member = member
        super(MaybeApplied, self).__init__(
            '%s %s on %s got no answer (%s); the write may have been applied, so it was not resent to '
            'another member. Re-run the task: it reads the live state and reconciles.' % (method, path, member, why))


class TaskError(ProxmoxError):
    """Base of task (UPID) outcomes that are not success."""

    def __init__(self, upid, message):
        self.upid = upid
        super(TaskError, self).__init__(message)


class TaskFailed(TaskError):
    """The task ended with an exit status other than OK or WARNINGS."""


class TaskUnknown(TaskError):
    """The task's status could not be read, or it was still running when waiting stopped."""


class Unreadable(ProxmoxError):
    """The read answered, but cannot tell present from absent for this credential (never "absent")."""


class Refused(ProxmoxError):
    """The plan asks for something this collection will not do (a sentence says why)."""


class MissingReference(Refused):
    """The object names another (a mapping, a pool member) that neither exists nor is declared beside it. A real
    run refuses it; a single task's check run only warns, since an earlier task of the same play may create it."""


class Conflict(ProxmoxError):
    """Another writer changed the object between read and write, again after one re-read: nothing was overwritten."""


class NotConverged(ProxmoxError):
    """The write was answered with success but the read-back still differs."""


class BatchError(ProxmoxError):
    """A ``declare`` task that did not finish cleanly; ``result`` carries every object's judgement."""

    def __init__(self, message, result):
        self.result = result
        super(BatchError, self).__init__(message)


class BatchFailed(BatchError):
    """Some objects of a batch could not be judged or written."""


class DriftFound(BatchError):
    """A check run with ``fail_on_drift``: the cluster differs from the declaration."""

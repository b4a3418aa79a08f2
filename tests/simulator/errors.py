"""PVE-shaped failures raised by the simulator core and its handlers.

These mirror ``PVE::Exception`` and plain Perl ``die``: an ``ApiError`` becomes
``{"data": null, "message": ..., "errors": ...}`` with the HTTP reason phrase set
to the message's first line. ``AuthFailure`` is the auth layer's 401, which PVE
answers with a status line and no body.
"""

from contextlib import contextmanager


class ApiError(Exception):
    """An answer other than 200 produced by the API layer or a handler."""

    def __init__(self, status, message, errors=None, exception=True):
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors
        # True for PVE::Exception objects (raise/raise_param_exc/raise_perm_exc);
        # False for plain `die "...\n"` strings. Matters when a lock wrapper
        # stringifies the error (see `locked`).
        self.exception = exception

    def stringify(self):
        """Perl ``"$err"`` of this error (PVE::Exception::stringify)."""
        if not self.exception:
            return self.message
        msg = f"{self.status} {self.message}" if self.status else self.message
        if not msg.endswith("\n"):
            msg += "\n"
        for key, text in (self.errors or {}).items():
            msg += f"{key}: {text}\n"
        return msg


class AuthFailure(Exception):
    """401 from the auth layer: status line only, reason = this text."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


def die(message):
    """Perl ``die "message\\n"`` inside an API handler: HTTP 500."""
    if not message.endswith("\n"):
        message += "\n"
    return ApiError(500, message, exception=False)


def perl_at(source, line):
    """The suffix Perl appends to a ``die`` whose text has no trailing newline: `` at FILE line N.``, with the
    module as installed (``PVE/API2/Ceph/OSD.pm`` -> ``/usr/share/perl5/PVE/API2/Ceph/OSD.pm``). ``line`` is the
    line of that ``die`` in the source read (the commit is in docs/simulator.md's source map)."""
    return f" at /usr/share/perl5/{source} line {line}."


def die_at(message, source, line):
    """Perl ``die "message"`` (no newline) at ``source`` line ``line``: HTTP 500 with Perl's location suffix."""
    return ApiError(500, message + perl_at(source, line) + "\n", exception=False)


def param_exc(errors):
    """``raise_param_exc``: HTTP 400 'Parameter verification failed.'."""
    return ApiError(400, "Parameter verification failed.\n", errors=dict(errors))


def perm_exc(what=None):
    """``raise_perm_exc``: HTTP 403 'Permission check failed (...)'."""
    msg = "Permission check failed"
    if what:
        msg += f" ({what})"
    return ApiError(403, msg + "\n")


@contextmanager
def locked(state, errmsg=None):
    """``lock_user_config`` / ``lock_storage_config``: run under the state lock,
    write nothing when the block fails (PVE only writes the file at the end),
    and prefix the error the way PVE does (``"$errmsg: $err"``, always a 500)."""
    with state.lock:
        snapshot = state.snapshot()
        try:
            yield
        except ApiError as err:
            state.restore(snapshot)
            if not errmsg:
                raise
            raise ApiError(500, f"{errmsg}: {err.stringify()}", exception=False) from err
        except Exception:
            state.restore(snapshot)
            raise

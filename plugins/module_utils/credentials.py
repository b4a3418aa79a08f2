# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a credential comes from, and the connection options every module shares.

Sources: a static API token; a user and password exchanged for a ticket; an
OpenBao/Vault KV v2 secret holding a token; an OpenBao/Vault dynamic secrets mount
(``<mount>/creds/<role>``) that mints a token per credential role, reused through the
lease cache. Each source answers ``auth_for(role, client)`` with an object that adds
the right headers to one request. Exactly one source per task; never a fallback.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import hashlib
import json
import os
import re
import ssl
import stat
import tempfile
import time

try:
    import fcntl
except ImportError:  # pragma: no cover - the controller is POSIX
    fcntl = None

try:
    import requests
except ImportError:  # pragma: no cover - reported by the entry point
    requests = None

# hvac is imported on first use: it costs ~0.2 s, and most tasks never talk to OpenBao.
hvac = None
HVAC_IMPORT_ERROR = None


def has_hvac():
    """Whether hvac can be imported here (imports it once)."""
    global hvac, HVAC_IMPORT_ERROR  # pylint: disable=global-statement
    if hvac is None and HVAC_IMPORT_ERROR is None:
        try:
            # With the global statement these bind the module-level name.
            import hvac  # pylint: disable=import-outside-toplevel,redefined-outer-name
            import hvac.exceptions  # pylint: disable=import-outside-toplevel,redefined-outer-name
        except ImportError as exc:  # pragma: no cover - reported when an OpenBao source is used
            HVAC_IMPORT_ERROR = exc
    return hvac is not None


from ansible.module_utils.common.parameters import env_fallback

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import check_port
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import (
    ApiError, CredentialError, DeclarationError)
from ansible_collections.homeflare.proxmox.plugins.module_utils.formats import TOKENID

# One place for the options of the connection doc fragment (plugins/doc_fragments/connection.py).
CONNECTION_ARGUMENT_SPEC = dict(
    api_host=dict(type='list', elements='str', required=True, fallback=(env_fallback, ['PROXMOX_HOST'])),
    api_port=dict(type='int', fallback=(env_fallback, ['PROXMOX_PORT'])),
    api_token_id=dict(type='str', fallback=(env_fallback, ['PROXMOX_TOKEN_ID'])),
    api_token_secret=dict(type='str', no_log=True, fallback=(env_fallback, ['PROXMOX_TOKEN_SECRET'])),
    api_user=dict(type='str', fallback=(env_fallback, ['PROXMOX_USER'])),
    api_password=dict(type='str', no_log=True, fallback=(env_fallback, ['PROXMOX_PASSWORD'])),
    validate_certs=dict(type='bool', default=True, fallback=(env_fallback, ['PROXMOX_VALIDATE_CERTS'])),
    ca_path=dict(type='path', fallback=(env_fallback, ['PROXMOX_CA_PATH'])),
    api_timeout=dict(type='int', default=20, fallback=(env_fallback, ['PROXMOX_TIMEOUT'])),
)

# The OpenBao/Vault options (doc fragment connection.openbao), shared by every module and the token lookup.
# Their environment variables follow the bao CLI's precedence, which needs to know which variable won
# (an agent address means "send no token"), so openbao_settings() resolves them, not the argspec.
OPENBAO_ARGUMENT_SPEC = dict(
    bao_addr=dict(type='str'),
    bao_token=dict(type='str', no_log=True),
    bao_namespace=dict(type='str'),
    bao_ca_path=dict(type='path'),
    bao_approle_role_id=dict(type='str'),
    bao_approle_secret_id=dict(type='str', no_log=True),
    bao_approle_mount=dict(type='str', default='approle'),
    bao_kv_mount=dict(type='str', default='secret'),
    bao_kv_path=dict(type='str'),
    bao_creds_mount=dict(type='str'),
    bao_read_role=dict(type='str', default='read'),
    bao_provision_role=dict(type='str', default='provision'),
    bao_lease_cache=dict(type='bool', default=True),
    bao_timeout=dict(type='int', default=60),
)
CONNECTION_ARGUMENT_SPEC.update(OPENBAO_ARGUMENT_SPEC)

# A token id per scheme: PVE's pve-tokenid (a pve-userid, '!', the token name; PVE::AccessControl) and
# PBS's auth-id of a token (pbs-api-schema.json, auth-id).
TOKEN_IDS = {
    'pve': re.compile('^%s$' % TOKENID.pattern),
    'pbs': re.compile(r'^[^\s:/]+@[A-Za-z0-9_][A-Za-z0-9._\-]*![A-Za-z0-9_][A-Za-z0-9._\-]*$'),
}


def check_ca_file(option, path):
    """A CA file that does not exist, or holds no PEM certificate, is refused before any request."""
    if not os.path.isfile(path):
        raise DeclarationError('option %s: %s does not exist or is not a file' % (option, path))
    try:
        ssl.create_default_context(cafile=path)
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise DeclarationError('option %s: %s holds no PEM certificate (%s)' % (option, path, exc))


def check_timeout(option, value):
    if value is not None and value <= 0:
        raise DeclarationError('option %s: %s is not a positive number of seconds' % (option, value))


def member_list(value):
    """``api_host`` as a list: a plugin's option may come as one comma-separated string (an inventory file, a host
    variable), where a module's argument spec splits it itself."""
    if isinstance(value, str):
        return [host.strip() for host in value.split(',') if host.strip()]
    return value


def check_connection(params):
    """The PVE/PBS connection options that cannot work, refused naming the option before any request.

    Members (api_host) and ports are checked where they are parsed, in api.Member.
    """
    if not params.get('api_host'):
        raise DeclarationError('option api_host: name at least one cluster member')
    check_timeout('api_timeout', params.get('api_timeout'))
    if params.get('api_port') is not None:
        check_port('api_port', params['api_port'])
    if params.get('validate_certs', True) and params.get('ca_path'):
        check_ca_file('ca_path', params['ca_path'])


# The bao CLI's order; for each pair a present BAO_* (even empty) wins over its VAULT_* twin.
ADDRESS_VARIABLES = ('BAO_AGENT_ADDR', 'BAO_ADDR', 'VAULT_AGENT_ADDR', 'VAULT_ADDR')
DEFAULT_ADDRESS = 'https://127.0.0.1:8200'
TWIN_VARIABLES = {
    'bao_token': ('BAO_TOKEN', 'VAULT_TOKEN'),
    'bao_namespace': ('BAO_NAMESPACE', 'VAULT_NAMESPACE'),
    'bao_ca_path': ('BAO_CACERT', 'VAULT_CACERT'),
}
# Reuse a minted token until this many seconds before its lease ends.
LEASE_MARGIN = 60


class TokenAuth:
    """``Authorization: PVEAPIToken=<id>=<secret>`` (PBS: ``PBSAPIToken=<id>:<secret>``)."""

    def __init__(self, header):
        self._header = header

    def apply(self, method, headers):
        headers['Authorization'] = self._header


class TicketAuth:
    """The ticket cookie on every request and the CSRF token on writes."""

    def __init__(self, cookie, csrf):
        self._cookie = cookie
        self._csrf = csrf

    def apply(self, method, headers):
        headers['Cookie'] = self._cookie
        if method != 'GET':
            headers['CSRFPreventionToken'] = self._csrf


class TokenSource:
    """A source of API tokens: ``credential(role)`` gives (token id, secret) for a credential role."""

    def credential(self, role):
        raise NotImplementedError

    def auth_for(self, role, client):
        return TokenAuth(client.scheme.token_header(*self.credential(role)))


class StaticToken(TokenSource):
    """One API token for every role."""

    def __init__(self, token_id, secret, scheme='pve'):
        if not TOKEN_IDS[scheme].match(token_id):
            raise DeclarationError("option api_token_id: %r must look like 'user@realm!name'" % token_id)
        self.token_id = token_id
        self._secret = secret

    def credential(self, role):
        return self.token_id, self._secret


class PasswordTicket:
    """A user and password exchanged once per process for a ticket (``POST /access/ticket``)."""

    def __init__(self, user, password):
        self.user = user
        self._password = password
        self._auth = None

    @property
    def password(self):
        """The login's own password: what PVE and PBS ask of anybody but root@pam to change a password."""
        return self._password

    def auth_for(self, role, client):
        if self._auth is None:
            try:
                answer = client.send('POST', '/access/ticket', {'username': self.user, 'password': self._password},
                                     None, repeatable=True).data
            except ApiError as exc:
                raise CredentialError('Logging in as %s failed: %s' % (self.user, exc.describe()))
            cookie = '%s=%s' % (client.scheme.cookie_name, answer['ticket'])
            self._auth = TicketAuth(cookie, answer['CSRFPreventionToken'])
        return self._auth

    def renew(self, role):
        """After a 401 with a ticket this source got: log in again once (a node that joined a cluster no longer
        knows the ticket its old key signed). A ticket refused before any login here is not retried."""
        if self._auth is None:
            return False
        self._auth = None
        return True

    def for_server(self):
        """The same user and password, logged in to another server on their own."""
        return PasswordTicket(self.user, self._password)


def is_root_login(credentials):
    """Whether requests go as root@pam itself (a password login): what PVE's ``$authuser eq 'root@pam'`` checks
    allow. An API token never is, not even one of root@pam's (its authid is root@pam!<name>)."""
    return isinstance(credentials, PasswordTicket) and credentials.user == 'root@pam'


class OpenBaoSettings:
    """Where OpenBao is and how to log in, after the bao CLI's environment precedence."""

    def __init__(self, address, agent, token, namespace, ca_path, role_id, secret_id, approle_mount, timeout):
        self.address = address.rstrip('/')
        self.agent = agent
        self.token = token
        self.namespace = namespace
        self.ca_path = ca_path
        self.role_id = role_id
        self.secret_id = secret_id
        self.approle_mount = approle_mount
        self.timeout = timeout


def _first_present(names, environ):
    for name in names:
        if name in environ:
            return name, environ[name]
    return None, None


def openbao_settings(params, environ=None):
    """Options first, then the environment: BAO_AGENT_ADDR > BAO_ADDR > VAULT_AGENT_ADDR > VAULT_ADDR.

    An address taken from an *_AGENT_ADDR variable is an agent or proxy: it injects its own
    token, so none is sent. The same for BAO_TOKEN > VAULT_TOKEN, namespaces and the CA file.
    """
    environ = os.environ if environ is None else environ
    address, agent = params.get('bao_addr'), False
    if not address:
        variable, address = _first_present(ADDRESS_VARIABLES, environ)
        agent = bool(variable and 'AGENT' in variable)
    values = {}
    for option, names in TWIN_VARIABLES.items():
        values[option] = params.get(option) if params.get(option) is not None else _first_present(names, environ)[1]
    if params.get('bao_approle_role_id') and not params.get('bao_approle_secret_id'):
        raise DeclarationError('bao_approle_role_id needs bao_approle_secret_id')
    check_timeout('bao_timeout', params.get('bao_timeout'))
    if values['bao_ca_path']:
        check_ca_file('bao_ca_path', values['bao_ca_path'])
    return OpenBaoSettings(address or DEFAULT_ADDRESS, agent, None if agent else values['bao_token'],
                           values['bao_namespace'] or None, values['bao_ca_path'] or None,
                           params.get('bao_approle_role_id'), params.get('bao_approle_secret_id'),
                           params.get('bao_approle_mount') or 'approle', params.get('bao_timeout') or 60)


def _openbao_reason(exc):
    """OpenBao's own reason, never a header or a success body."""
    if hvac is not None and isinstance(exc, hvac.exceptions.VaultError):
        kind = {
            hvac.exceptions.Forbidden: 'permission denied',
            hvac.exceptions.InvalidPath: 'no such path (is the mount or role missing?)',
            hvac.exceptions.VaultDown: 'OpenBao is sealed',
            hvac.exceptions.Unauthorized: 'not authorised',
        }.get(type(exc), 'refused')
        errors = '; '.join(str(error) for error in (exc.errors or []) if error)
        return '%s%s' % (kind, ' (%s)' % errors if errors else '')
    if requests is not None and isinstance(exc, requests.exceptions.SSLError):
        return 'TLS certificate of OpenBao not trusted'
    if requests is not None and isinstance(exc, requests.exceptions.RequestException):
        return 'unreachable (%s)' % type(exc).__name__
    return type(exc).__name__


class OpenBao:
    """One OpenBao/Vault server, logged in on first use (token, AppRole, or an agent's own token)."""

    def __init__(self, settings):
        self.settings = settings
        self._client = None

    def client(self):
        if self._client is None:
            if not has_hvac():
                raise CredentialError('the hvac Python library is needed for OpenBao/Vault credentials: %s'
                                      % HVAC_IMPORT_ERROR)
            settings = self.settings
            session = requests.Session()
            session.trust_env = False  # the task's CA file decides, not REQUESTS_CA_BUNDLE
            session.verify = settings.ca_path or True  # hvac takes a given session's verify over its own argument
            client = hvac.Client(url=settings.address, token=settings.token, namespace=settings.namespace,
                                 verify=settings.ca_path or True, timeout=settings.timeout, session=session)
            if settings.role_id:
                try:
                    client.auth.approle.login(role_id=settings.role_id, secret_id=settings.secret_id,
                                              mount_point=settings.approle_mount)
                except Exception as exc:  # pylint: disable=broad-except
                    raise CredentialError('OpenBao at %s: AppRole login at auth/%s failed: %s'
                                          % (settings.address, settings.approle_mount, _openbao_reason(exc)))
            self._client = client
        return self._client

    def read(self, path, action):
        try:
            return self.client().read(path)
        except CredentialError:
            raise
        except Exception as exc:  # pylint: disable=broad-except
            raise CredentialError('OpenBao at %s: %s failed: %s' % (self.settings.address, action, _openbao_reason(exc)))

    def read_kv(self, mount, path):
        try:
            kv = self.client().secrets.kv.v2
            answer = kv.read_secret_version(path=path, mount_point=mount, raise_on_deleted_version=True)
        except CredentialError:
            raise
        except Exception as exc:  # pylint: disable=broad-except
            raise CredentialError('OpenBao at %s: reading KV secret %s/%s failed: %s'
                                  % (self.settings.address, mount, path, _openbao_reason(exc)))
        return ((answer or {}).get('data') or {}).get('data') or {}


def _token_fields(values, where):
    token_id, secret = values.get('token_id'), values.get('secret')
    if not token_id or not secret:
        missing = [name for name in ('token_id', 'secret') if not values.get(name)]
        raise CredentialError('%s holds no %s: refusing to continue without a credential' % (where, ' or '.join(missing)))
    return token_id, secret


class OpenBaoKV(TokenSource):
    """A KV v2 secret holding ``token_id`` and ``secret``, used for every role."""

    def __init__(self, bao, mount, path):
        self.bao = bao
        self.mount = mount
        self.path = path
        self._token = None

    def credential(self, role):
        if self._token is None:
            values = self.bao.read_kv(self.mount, self.path)
            self._token = _token_fields(values, 'KV secret %s/%s' % (self.mount, self.path))
        return self._token


class Lease:
    def __init__(self, token_id, secret, expires_at, lease_id=None):
        self.token_id = token_id
        self.secret = secret
        self.expires_at = expires_at
        self.lease_id = lease_id

    def usable(self, now):
        """Still good for LEASE_MARGIN s; a lease of unknown length (expires_at None) is never reused."""
        return self.expires_at is not None and self.expires_at - LEASE_MARGIN > now

    def as_dict(self):
        return dict(token_id=self.token_id, secret=self.secret, expires_at=self.expires_at, lease_id=self.lease_id)


def default_cache_directory(environ=None):
    environ = os.environ if environ is None else environ
    runtime = environ.get('XDG_RUNTIME_DIR')
    if runtime and os.path.isdir(runtime):
        return os.path.join(runtime, 'homeflare-proxmox')
    return os.path.join(tempfile.gettempdir(), 'homeflare-proxmox-%d' % os.getuid())


class LeaseCache:
    """Minted tokens shared by every task and fork of a run, until LEASE_MARGIN s before the lease ends.

    One file per (OpenBao address, namespace, mount, role, scheme), named by a hash of that key (no
    secret in a name), 0600 in a 0700 directory. A miss takes the key's file lock, so concurrent
    misses share one mint. Expired entries are pruned on every mint.
    """

    def __init__(self, directory=None, clock=time.time):
        self.directory = directory or default_cache_directory()
        self.clock = clock

    def _private_directory(self):
        try:
            os.makedirs(self.directory, 0o700)
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise
        info = os.lstat(self.directory)
        if os.path.islink(self.directory) or info.st_uid != os.getuid():
            raise CredentialError('lease cache directory %s is not a private directory of this user' % self.directory)
        os.chmod(self.directory, 0o700)

    def _file(self, key):
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode('utf-8')).hexdigest()[:40]
        return os.path.join(self.directory, 'lease-%s.json' % digest)

    def _load(self, path):
        """The lease in ``path``, or None when there is none to trust.

        A file that is not a regular file of this user readable by it alone (a link, another
        owner, group or world bits) may have been planted or read by someone else: it is never
        trusted, and the next mint replaces it.
        """
        try:
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
                return None
            with open(path) as handle:
                values = json.load(handle)
            return Lease(values['token_id'], values['secret'], values['expires_at'], values.get('lease_id'))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _store(self, path, lease):
        fd, temporary = tempfile.mkstemp(dir=self.directory, prefix='.lease-')
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, 'w') as handle:
                json.dump(lease.as_dict(), handle)
            os.rename(temporary, path)
        except Exception:
            os.unlink(temporary)
            raise

    def _prune(self, now):
        for name in os.listdir(self.directory):
            if name.startswith('lease-') and name.endswith('.json'):
                path = os.path.join(self.directory, name)
                lease = self._load(path)
                if lease is None or lease.expires_at is None or lease.expires_at <= now:
                    try:
                        os.unlink(path)
                    except OSError:
                        pass

    def get(self, key, mint):
        """The cached lease for ``key``, or a fresh one from ``mint()`` (stored when its lease allows)."""
        self._private_directory()
        path = self._file(key)
        with open(path[:-len('.json')] + '.lock', 'a') as lock:
            os.chmod(lock.name, 0o600)
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                now = self.clock()
                lease = self._load(path)
                if lease is not None and lease.usable(now):
                    return lease, True
                lease = mint()
                if lease.usable(now):
                    self._store(path, lease)
                self._prune(now)
                return lease, False
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def discard(self, key, lease):
        """Forget ``lease`` for ``key`` (a 401 proved it dead), unless another task already replaced it."""
        path = self._file(key)
        current = self._load(path)
        if current is not None and current.token_id == lease.token_id:
            try:
                os.unlink(path)
            except OSError:
                pass


class OpenBaoDynamic(TokenSource):
    """A dynamic secrets mount: ``<mount>/creds/<role>`` mints a token per credential role.

    The ``read`` role serves reads, the ``provision`` role writes (both names configurable, one
    role for both is allowed). A lease is reused through the cache; a 401 on a cached token
    re-mints once (see ``renew``).
    """

    def __init__(self, bao, mount, roles, scheme, cache=None, clock=time.time):
        self.bao = bao
        self.mount = mount
        self.roles = roles
        self.scheme = scheme
        self.cache = cache
        self.clock = clock
        self._leases = {}

    def _key(self, bao_role):
        settings = self.bao.settings
        return [settings.address, settings.namespace, self.mount, bao_role, self.scheme]

    def mint(self, bao_role):
        path = '%s/creds/%s' % (self.mount, bao_role)
        answer = self.bao.read(path, 'minting a token at %s' % path) or {}
        token_id, secret = _token_fields(answer.get('data') or {}, 'the answer of %s' % path)
        # A missing or zero lease_duration is never cached (an unknown lease could end any moment).
        duration = int(answer.get('lease_duration') or 0)
        return Lease(token_id, secret, self.clock() + duration if duration else None, answer.get('lease_id'))

    def lease(self, role):
        bao_role = self.roles[role]
        lease = self._leases.get(bao_role)
        # Within one task a lease of unknown length is used as is: it is at least one mint per task.
        if lease is not None and (lease[0].expires_at is None or lease[0].usable(self.clock())):
            return lease[0]
        if self.cache is None:
            lease = (self.mint(bao_role), False)
        else:
            lease = self.cache.get(self._key(bao_role), lambda: self.mint(bao_role))
        self._leases[bao_role] = lease
        return lease[0]

    def credential(self, role):
        lease = self.lease(role)
        return lease.token_id, lease.secret

    def renew(self, role):
        """After a 401: drop a lease that came from the cache and say whether a retry may help."""
        bao_role = self.roles[role]
        lease, from_cache = self._leases.pop(bao_role, (None, False))
        if lease is None or not from_cache:
            return False
        if self.cache is not None:
            self.cache.discard(self._key(bao_role), lease)
        return True


def credentials_from_params(params, scheme='pve', environ=None):
    """The one credential source a task's options name; never a silent fallback to another."""
    token_id, secret = params.get('api_token_id'), params.get('api_token_secret')
    user, password = params.get('api_user'), params.get('api_password')
    sources = [name for name, given in (
        ('api_token_id/api_token_secret', token_id or secret),
        ('api_user/api_password', user or password),
        ('bao_kv_path', params.get('bao_kv_path')),
        ('bao_creds_mount', params.get('bao_creds_mount')),
    ) if given]
    if len(sources) > 1:
        raise DeclarationError('%s are mutually exclusive: name one credential source' % ' and '.join(sources))
    if not sources:
        raise DeclarationError('no credential: set api_token_id and api_token_secret, api_user and api_password, '
                               'bao_kv_path or bao_creds_mount (or the PROXMOX_TOKEN_ID/PROXMOX_TOKEN_SECRET '
                               'environment variables)')
    if token_id or secret:
        if not (token_id and secret):
            raise DeclarationError('api_token_id and api_token_secret must be given together')
        return StaticToken(token_id, secret, scheme)
    if user or password:
        if not (user and password):
            raise DeclarationError('api_user and api_password must be given together')
        return PasswordTicket(user, password)
    bao = OpenBao(openbao_settings(params, environ))
    if params.get('bao_kv_path'):
        return OpenBaoKV(bao, params.get('bao_kv_mount') or 'secret', params['bao_kv_path'])
    roles = {'read': params.get('bao_read_role') or 'read', 'provision': params.get('bao_provision_role') or 'provision'}
    cache = LeaseCache() if params.get('bao_lease_cache', True) else None
    return OpenBaoDynamic(bao, params['bao_creds_mount'], roles, scheme, cache)

# -*- coding: utf-8 -*-
# Copyright (c) 2026 homeflare.proxmox contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
name: qemu_agent
short_description: Run tasks inside a Proxmox VE virtual machine through its QEMU guest agent, without SSH
version_added: 0.1.0
author:
  - homeflare.proxmox contributors (@homeflare)
description:
  - Runs commands and moves files inside a QEMU VM over the Proxmox VE API - C(agent/exec), C(agent/exec-status),
    C(agent/file-write) and C(agent/file-read) - so Ansible needs no network path to the guest, only to the
    cluster, and the guest needs only its QEMU guest agent.
  - Connects like the collection's modules - the same members with failover, token, password, certificate checks
    and OpenBao/Vault options with the lease cache - and the same environment variables.
  - The VM is found where it runs (C(/cluster/resources)), so a VM that HA moved to another node is reached there.
  - Files are written in chunks PVE takes (45 KiB each); a chunk is its own file, written whole (PVE opens it
    C(wb)), so a chunk sent again after a member stopped answering is there once; the chunks are joined by one
    command. Files are read in 4 MiB reads.
  - I(become) works as with other connections. A password goes to C(sudo -S) as the command's standard input
    (C(input-data)), never on the command line PVE passes to the guest; a become method that asks for its password
    on a terminal (C(su)) is refused with a sentence, as there is none (without a password it works).
  - A VM that is stopped, or whose agent is not configured or not answering, fails with PVE's answer (for
    example C(VM 100 is not running)) and the host is unreachable.
  - There is no pipelining (C(input-data) holds at most 64 KiB) and no TTY.
options:
  vmid:
    description: The VM's id.
    type: int
    required: true
    vars:
      - name: ansible_proxmox_vmid
      - name: proxmox_vmid
  command_timeout:
    description:
      - Seconds a command may run before the task fails. The command itself is not stopped (the agent cannot stop
        it); its pid is in the message.
    type: int
    default: 3600
    vars:
      - name: ansible_proxmox_command_timeout
  api_host:
    description:
      - The cluster members, each C(host) or C(host:port). The member that answered last is tried first; a member
        that refuses, hangs past O(api_timeout) or cannot be reached is skipped (for a command only when the
        request provably never left, so a command never runs twice).
    type: list
    elements: str
    required: true
    vars:
      - name: ansible_proxmox_api_host
    env:
      - name: PROXMOX_HOST
  api_port:
    description: Port for members given without one (V(8006) by default).
    type: int
    vars:
      - name: ansible_proxmox_api_port
    env:
      - name: PROXMOX_PORT
  api_token_id:
    description: API token id, C(user@realm!name); give it with O(api_token_secret).
    type: str
    vars:
      - name: ansible_proxmox_api_token_id
    env:
      - name: PROXMOX_TOKEN_ID
  api_token_secret:
    description: The token's secret. Never shown.
    type: str
    vars:
      - name: ansible_proxmox_api_token_secret
    env:
      - name: PROXMOX_TOKEN_SECRET
  api_user:
    description: A user for a password login (a ticket), C(user@realm); give it with O(api_password).
    type: str
    vars:
      - name: ansible_proxmox_api_user
    env:
      - name: PROXMOX_USER
  api_password:
    description: The user's password. Never shown.
    type: str
    vars:
      - name: ansible_proxmox_api_password
    env:
      - name: PROXMOX_PASSWORD
  validate_certs:
    description: Whether the members' certificates are verified (against O(ca_path) when given).
    type: bool
    default: true
    vars:
      - name: ansible_proxmox_validate_certs
    env:
      - name: PROXMOX_VALIDATE_CERTS
  ca_path:
    description: A PEM file of the CA that signed the members' certificates.
    type: path
    vars:
      - name: ansible_proxmox_ca_path
    env:
      - name: PROXMOX_CA_PATH
  api_timeout:
    description: Seconds to wait for a member to connect and to answer before the next member is tried.
    type: int
    default: 20
    vars:
      - name: ansible_proxmox_api_timeout
    env:
      - name: PROXMOX_TIMEOUT
  bao_addr:
    description: OpenBao/Vault address (else E(BAO_ADDR), E(VAULT_ADDR), as for the modules).
    type: str
    vars:
      - name: ansible_proxmox_bao_addr
  bao_token:
    description: OpenBao/Vault token (else E(BAO_TOKEN), E(VAULT_TOKEN), or the CLI's token file). Never shown.
    type: str
    vars:
      - name: ansible_proxmox_bao_token
  bao_namespace:
    description: OpenBao/Vault namespace.
    type: str
    vars:
      - name: ansible_proxmox_bao_namespace
  bao_ca_path:
    description: CA file for the OpenBao/Vault server.
    type: path
    vars:
      - name: ansible_proxmox_bao_ca_path
  bao_approle_role_id:
    description: AppRole role id, to log in to OpenBao/Vault with AppRole.
    type: str
    vars:
      - name: ansible_proxmox_bao_approle_role_id
  bao_approle_secret_id:
    description: AppRole secret id. Never shown.
    type: str
    vars:
      - name: ansible_proxmox_bao_approle_secret_id
  bao_approle_mount:
    description: Mount of the AppRole auth method.
    type: str
    default: approle
    vars:
      - name: ansible_proxmox_bao_approle_mount
  bao_kv_mount:
    description: Mount of the KV version 2 engine holding a token (with O(bao_kv_path)).
    type: str
    default: secret
    vars:
      - name: ansible_proxmox_bao_kv_mount
  bao_kv_path:
    description: Path of a KV version 2 secret holding C(token_id) and C(secret).
    type: str
    vars:
      - name: ansible_proxmox_bao_kv_path
  bao_creds_mount:
    description:
      - A dynamic secrets mount minting PVE tokens. Every request of this connection uses the O(bao_provision_role)
        token (the agent's commands need C(VM.GuestAgent.Unrestricted)), through the lease cache.
    type: str
    vars:
      - name: ansible_proxmox_bao_creds_mount
  bao_read_role:
    description: Not used by this connection (it asks for the provision role only); accepted so one set of variables
      serves the modules and the connection.
    type: str
    default: read
    vars:
      - name: ansible_proxmox_bao_read_role
  bao_provision_role:
    description: The mount's role this connection mints with.
    type: str
    default: provision
    vars:
      - name: ansible_proxmox_bao_provision_role
  bao_lease_cache:
    description: Whether minted tokens are kept in the lease cache shared with the modules.
    type: bool
    default: true
    vars:
      - name: ansible_proxmox_bao_lease_cache
  bao_timeout:
    description: Seconds to wait for OpenBao/Vault.
    type: int
    default: 60
    vars:
      - name: ansible_proxmox_bao_timeout
notes:
  - The credential needs C(VM.GuestAgent.Unrestricted) on C(/vms/<vmid>) (C(exec) and C(exec-status) ask for it), and
    C(VM.Audit) to find the VM.
  - Commands run as the guest agent's user (root on most guests); I(become) to another user works with C(sudo).
  - The homeflare.proxmox.pve inventory sets this connection and its variables with
    O(homeflare.proxmox.pve#inventory:connection_for_vms) (no secret among them).
seealso:
  - plugin: homeflare.proxmox.pve
    plugin_type: inventory
'''

EXAMPLES = r'''
# group_vars/proxmox_guests.yml: the credential from the environment (PROXMOX_TOKEN_ID, PROXMOX_TOKEN_SECRET)
ansible_connection: homeflare.proxmox.qemu_agent
ansible_proxmox_api_host: [pve1.example.org, pve2.example.org]
ansible_proxmox_ca_path: /etc/ssl/certs/pve-ca.pem

# host_vars/web1.yml
ansible_proxmox_vmid: 120

# or per play, with a token minted from OpenBao
# - hosts: web
#   vars:
#     ansible_connection: homeflare.proxmox.qemu_agent
#     ansible_proxmox_bao_addr: https://bao.example.org:8200
#     ansible_proxmox_bao_creds_mount: proxmox-c1
#   tasks:
#     - ansible.builtin.command: uptime
'''

import base64
import itertools
import os
import time
import uuid

from ansible.errors import AnsibleConnectionFailure, AnsibleError, AnsibleFileNotFound
from ansible.module_utils.common.text.converters import to_bytes, to_native, to_text
from ansible.plugins.connection import ConnectionBase
from ansible.utils.display import Display

from ansible_collections.homeflare.proxmox.plugins.module_utils.api import Repeated
from ansible_collections.homeflare.proxmox.plugins.module_utils.credentials import CONNECTION_ARGUMENT_SPEC, member_list
from ansible_collections.homeflare.proxmox.plugins.module_utils.entry import client_from_params
from ansible_collections.homeflare.proxmox.plugins.module_utils.errors import ApiError, ProxmoxError

display = Display()

# file-write takes at most 60 KiB of content (API2/Qemu/Agent.pm): 45 KiB of bytes is 60 KiB of base64.
WRITE_CHUNK = 45 * 1024
# file-read reads up to 16 MiB per call; 4 MiB keeps each answer (base64 in JSON) small.
READ_CHUNK = 4 * 1024 * 1024
# exec-status polls: soon at first (most commands take well under a second), then every half second.
FIRST_POLL = 0.02
LONGEST_POLL = 0.5
# Where PVE's answer means the agent cannot be used at all: the host is unreachable, not the task failed.
UNREACHABLE = ('No QEMU guest agent configured', 'is not running', 'does not exist')


class Connection(ConnectionBase):
    """A QEMU VM through the PVE API's guest agent commands (see DOCUMENTATION)."""

    transport = 'homeflare.proxmox.qemu_agent'
    has_pipelining = False
    has_tty = False

    def __init__(self, *args, **kwargs):
        super(Connection, self).__init__(*args, **kwargs)
        self._client = None
        self._base = None

    # -- the API ------------------------------------------------------------------------------------
    def _connect(self):
        if self._connected:
            return self
        vmid = self.get_option('vmid')
        params = dict((name, self.get_option(name)) for name in CONNECTION_ARGUMENT_SPEC)
        params['api_host'] = member_list(params['api_host'])
        try:
            self._client = client_from_params(params, 'pve')
            rows = self._client.request('GET', '/cluster/resources', {'type': 'vm'}, role='provision').data or []
        except ProxmoxError as exc:
            raise AnsibleConnectionFailure('homeflare.proxmox.qemu_agent: VM %s: %s' % (vmid, exc))
        row = next((row for row in rows if str(row.get('vmid')) == str(vmid)), None)
        if row is None:
            raise AnsibleConnectionFailure('homeflare.proxmox.qemu_agent: no guest %s in the cluster (or the '
                                           'credential may not see it: VM.Audit)' % vmid)
        if row.get('type') != 'qemu':
            raise AnsibleConnectionFailure('homeflare.proxmox.qemu_agent: guest %s is a container (%s): the QEMU '
                                           'guest agent is for VMs' % (vmid, row.get('type')))
        self._base = '/nodes/%s/qemu/%s/agent' % (row['node'], vmid)
        display.vvv(u'ESTABLISH PROXMOX QEMU AGENT CONNECTION TO VM %s ON %s' % (vmid, row['node']),
                    host=self._play_context.remote_addr)
        self._connected = True
        return self

    def _agent(self, method, command, form, repeatable=False):
        """One agent call; PVE's refusal names the VM. A refusal meaning the agent cannot be used (VM stopped,
        agent off or silent, VM gone) makes the host unreachable; the guest's own errors fail the task."""
        try:
            return self._client.request(method, '%s/%s' % (self._base, command), form, role='provision',
                                        repeatable=repeatable).data
        except ApiError as exc:
            message = 'homeflare.proxmox.qemu_agent: VM %s: %s' % (self.get_option('vmid'), exc.reason or exc)
            if any(text in exc.reason for text in UNREACHABLE) and not exc.reason.startswith('Agent error'):
                raise AnsibleConnectionFailure(message)
            raise AnsibleError(message)
        except ProxmoxError as exc:
            raise AnsibleConnectionFailure('homeflare.proxmox.qemu_agent: VM %s: %s' % (self.get_option('vmid'), exc))

    def _run(self, argv, stdin=None):
        """exec, then exec-status until it exited: (rc, stdout bytes, stderr bytes)."""
        form = {'command': Repeated(argv)}
        if stdin:
            form['input-data'] = to_text(stdin, errors='surrogate_or_strict')
        pid = self._agent('POST', 'exec', form)['pid']
        deadline = time.monotonic() + self.get_option('command_timeout')
        pause = FIRST_POLL
        while True:
            status = self._agent('GET', 'exec-status', {'pid': pid})
            if status.get('exited'):
                break
            if time.monotonic() > deadline:
                raise AnsibleError('homeflare.proxmox.qemu_agent: VM %s: the command (pid %s in the guest) is still '
                                   'running after %s s' % (self.get_option('vmid'), pid,
                                                           self.get_option('command_timeout')))
            time.sleep(pause)
            pause = min(pause * 2, LONGEST_POLL)
        rc = status['exitcode'] if status.get('exitcode') is not None else -int(status.get('signal') or 1)
        return rc, agent_bytes(status.get('out-data')), agent_bytes(status.get('err-data'))

    # -- ConnectionBase -----------------------------------------------------------------------------
    def exec_command(self, cmd, in_data=None, sudoable=True):
        super(Connection, self).exec_command(cmd, in_data=in_data, sudoable=sudoable)
        display.vvv(u'EXEC %s' % to_text(cmd), host=self._play_context.remote_addr)
        stdin = b''
        prompting = bool(sudoable and self.become and self.become.expect_prompt())
        if prompting:
            prompt = getattr(self.become, 'prompt', None)
            if not (isinstance(prompt, str) and prompt and prompt in cmd):
                # su, doas and the like ask on a terminal, and this connection has none
                raise AnsibleError('homeflare.proxmox.qemu_agent: become method %s asks for its password on a '
                                   'terminal, which this connection does not have: use sudo, or become without a '
                                   'password' % self.become.name)
            # sudo -S reads the password as the first line of stdin: it never reaches a command line
            stdin = to_bytes(self.become.get_option('become_pass') or '') + b'\n'
        if in_data:
            stdin += in_data
        rc, out, err = self._run(['/bin/sh', '-c', to_text(cmd)], stdin)
        if prompting:
            err = err.replace(to_bytes(self.become.prompt), b'')
            if self.become.check_incorrect_password(err):
                raise AnsibleError('Incorrect %s password' % self.become.name)
            if self.become.check_missing_password(err):
                raise AnsibleError('Missing %s password' % self.become.name)
        return rc, out, err

    def put_file(self, in_path, out_path):
        super(Connection, self).put_file(in_path, out_path)
        display.vvv(u'PUT %s TO %s' % (in_path, out_path), host=self._play_context.remote_addr)
        if not os.path.exists(to_bytes(in_path, errors='surrogate_or_strict')):
            raise AnsibleFileNotFound('file or module does not exist: %s' % to_native(in_path))
        with open(to_bytes(in_path, errors='surrogate_or_strict'), 'rb') as handle:
            chunks = iter(lambda: handle.read(WRITE_CHUNK), b'')
            first = next(chunks, b'')
            second = next(chunks, None)
            if second is None:
                self._write(out_path, first)
                return
            # Each chunk a file of its own (written whole, so a repeat is there once), joined by one command.
            stem = '%s.%s.part' % (out_path, uuid.uuid4().hex[:12])
            for number, chunk in enumerate(itertools.chain([first, second], chunks)):
                self._write('%s%08d' % (stem, number), chunk)
        join = 'cat -- "$1"[0-9]* > "$2" && rm -f -- "$1"[0-9]*'
        rc, _out, err = self._run(['/bin/sh', '-c', join, 'join', stem, out_path])
        if rc != 0:
            raise AnsibleError('homeflare.proxmox.qemu_agent: VM %s: writing %s failed: %s'
                               % (self.get_option('vmid'), out_path, to_text(err).strip()))

    def _write(self, path, data):
        self._agent('POST', 'file-write', {'file': path, 'encode': 0,
                                           'content': base64.b64encode(data).decode('ascii')}, repeatable=True)

    def fetch_file(self, in_path, out_path):
        super(Connection, self).fetch_file(in_path, out_path)
        display.vvv(u'FETCH %s TO %s' % (in_path, out_path), host=self._play_context.remote_addr)
        offset = 0
        with open(to_bytes(out_path, errors='surrogate_or_strict'), 'wb') as handle:
            while True:
                answer = self._agent('GET', 'file-read', {'file': in_path, 'decode': 0, 'offset': offset,
                                                          'count': READ_CHUNK})
                data = base64.b64decode(answer.get('content') or '')
                handle.write(data)
                offset += len(data)
                if not answer.get('truncated') or not data:
                    return

    def close(self):
        self._connected = False


def agent_bytes(text):
    """exec-status output as the guest wrote it. PVE sends qemu-ga's decoded output as a Perl byte string, so
    each byte arrives as one character (Latin-1); text with wider characters came from elsewhere and is UTF-8."""
    if not text:
        return b''
    try:
        return text.encode('latin-1')
    except UnicodeEncodeError:
        return text.encode('utf-8')

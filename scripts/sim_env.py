"""Turn the simulator's JSON line into shell `export` lines for the modules' env fallbacks.

Usage: python scripts/sim_env.py FILE   (FILE holds the simulator's stdout)

tests/simulator/serve.py prints one JSON object on a line of its own once it
listens. This reads the first such line and prints, shell-quoted:

  PROXMOX_HOST          comma-separated members, e.g. 127.0.0.1:40001,127.0.0.1:40002
  PROXMOX_TOKEN_ID      user@realm!name
  PROXMOX_TOKEN_SECRET  the token's secret
  PROXMOX_CA_PATH       PEM file of the simulator's CA

Accepted keys, so the simulator's exact shape is not pinned here:
  members: ["host:port", ...] | [{"host": h, "port": p}, ...] | [{"url": "https://h:p"}, ...]
           (or "hosts"; or "url"/"urls" alone)
  token_id + token_secret | token: {"id"/"token_id": ..., "secret"/"token_secret": ...}
  ca_path | ca | ca_file | cafile
Exit status 1 with a message on stderr when no line or a needed key is missing.
"""

import json
import shlex
import sys
from urllib.parse import urlsplit


def first_json_object(path):
    with open(path, encoding='utf-8') as handle:
        for line in handle:
            line = line.strip()
            if line.startswith('{'):
                try:
                    value = json.loads(line)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    return value
    return None


def member(item):
    if isinstance(item, str):
        if '://' in item:
            parts = urlsplit(item)
            return parts.netloc
        return item
    if isinstance(item, dict):
        if 'url' in item:
            return member(item['url'])
        host = item.get('host') or item.get('address') or '127.0.0.1'
        port = item.get('port')
        return '%s:%s' % (host, port) if port else host
    raise ValueError('unknown member entry: %r' % (item,))


def pick(data, *names):
    for name in names:
        if data.get(name) not in (None, ''):
            return data[name]
    return None


def main(argv):
    if len(argv) != 2:
        sys.exit('usage: sim_env.py FILE')
    data = first_json_object(argv[1])
    if data is None:
        print('sim_env: no JSON line from the simulator', file=sys.stderr)
        return 1

    members = pick(data, 'members', 'hosts', 'urls')
    if members is None and pick(data, 'url') is not None:
        members = [data['url']]
    token = data.get('token') if isinstance(data.get('token'), dict) else {}
    found = {
        'PROXMOX_HOST': ','.join(member(m) for m in members) if members else None,
        'PROXMOX_TOKEN_ID': pick(data, 'token_id', 'api_token_id') or pick(token, 'id', 'token_id'),
        'PROXMOX_TOKEN_SECRET': pick(data, 'token_secret', 'api_token_secret') or pick(token, 'secret', 'token_secret'),
        'PROXMOX_CA_PATH': pick(data, 'ca_path', 'ca', 'ca_file', 'cafile'),
    }
    missing = [name for name, value in found.items() if not value]
    if missing:
        print('sim_env: the simulator line lacks %s: %s' % (', '.join(missing), json.dumps(data)), file=sys.stderr)
        return 1
    for name, value in found.items():
        print('export %s=%s' % (name, shlex.quote(str(value))))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

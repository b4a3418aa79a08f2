"""Turn the simulator's contract line into shell `export` lines for the modules' env fallbacks.

Usage: python scripts/sim_env.py FILE   (FILE holds the simulator's stdout)

tests/simulator/serve.py prints one JSON line once it listens (docs/simulator.md):
{"members": ["127.0.0.1:PORT", ...], "ca_path": ..., "token_id": ..., "token_secret": ..., ...}.
This prints, shell-quoted, PROXMOX_HOST (comma-separated members), PROXMOX_TOKEN_ID,
PROXMOX_TOKEN_SECRET and PROXMOX_CA_PATH. Exit status 1 while no complete line is there yet.
"""

import json
import shlex
import sys


def contract_line(path):
    with open(path, encoding='utf-8') as handle:
        for line in handle:
            if line.startswith('{'):
                try:
                    return json.loads(line)
                except ValueError:
                    return None  # still being written
    return None


def main(argv):
    if len(argv) != 2:
        sys.exit('usage: sim_env.py FILE')
    line = contract_line(argv[1])
    if line is None:
        print('sim_env: no contract line from the simulator yet', file=sys.stderr)
        return 1
    exports = {
        'PROXMOX_HOST': ','.join(line['members']),
        'PROXMOX_TOKEN_ID': line['token_id'],
        'PROXMOX_TOKEN_SECRET': line['token_secret'],
        'PROXMOX_CA_PATH': line['ca_path'],
    }
    for name, value in exports.items():
        print('export %s=%s' % (name, shlex.quote(value)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

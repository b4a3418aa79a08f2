"""Make drift behind Ansible's back for `make demo`: what a person clicking in the UI would do.

Reads the connection from the PROXMOX_* environment that scripts/demo.sh exports.
"""

import os
import sys

import requests

CHANGES = [
    ('PUT', '/pools/lab', {'comment': 'renamed in the UI'}),
    ('PUT', '/access/roles/Monitoring', {'privs': 'Sys.Audit,VM.Audit,Datastore.Audit,Sys.Console'}),
    ('PUT', '/storage/backup', {'content': 'backup'}),
    ('PUT', '/nodes/node1/lxc/200/config', {'cores': '2'}),
    # a rule added on top of the container's firewall, as the UI adds one
    ('POST', '/nodes/node1/lxc/200/firewall/rules', {'type': 'in', 'action': 'ACCEPT', 'enable': '1',
                                                     'comment': 'added in the UI'}),
]


def main():
    member = os.environ['PROXMOX_HOST'].split(',')[0]
    token = '%s=%s' % (os.environ['PROXMOX_TOKEN_ID'], os.environ['PROXMOX_TOKEN_SECRET'])
    headers = {'Authorization': 'PVEAPIToken=' + token}
    for method, path, form in CHANGES:
        response = requests.request(method, 'https://%s/api2/json%s' % (member, path), data=form, headers=headers,
                                    verify=os.environ['PROXMOX_CA_PATH'], timeout=10)
        print('drift: %s %s %s -> %s' % (method, path, form, response.status_code))
        if response.status_code != 200:
            return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())

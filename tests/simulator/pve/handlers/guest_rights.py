"""Who may write which VM options, and a container's template conversion.

* ``check_config_perm``: qemu-server ``API2/Qemu.pm`` ``$check_vm_modify_config_perm`` with its device checks
  (``$check_vm_create_serial_perm``, ``check_usb_perm``, ``check_hostpci_perm``), as create_vm and update_vm
  call them: root@pam passes; for anyone else (an API token included: its authid is never ``root@pam``) an option
  in none of PVE's option classes is root's alone (``only root can set 'affinity' config``), a host serial device,
  a host USB device (not ``spice``) and a PCI device by host id are too, and a PCI ``romfile`` is a parameter
  error. A device the VM already has is checked as well when it is changed or deleted (the update's
  ``only root can modify/delete`` branches). The per-privilege checks of each class are the ACL's
  (``access.check`` on the create and update paths), not repeated here. PVE makes the device checks of an update
  inside ``$updatefn``; here they run before it, with the same words.
* ``POST /nodes/{node}/lxc/{vmid}/template``: pve-container ``API2/LXC.pm`` template (a ``vztemplate`` task):
  refused with snapshots, for a template and while running; the volumes become base volumes.
"""

import re

from ...errors import die, param_exc
from . import guests as g
from .base import route

# API2/Qemu.pm's option classes: an option in one of them is checked against its privilege, any other is root's.
CPU = {"cores", "cpu", "runningcpu", "cpulimit", "cpuunits", "numa", "smp", "sockets", "vcpus"}
MEMORY = {"memory", "balloon", "shares", "allow-ksm"}
HWTYPE = {"acpi", "hotplug", "kvm", "machine", "runningmachine", "scsihw", "smbios1", "tablet", "vga", "watchdog",
          "audio0", "rng0"}
GENERAL = {"agent", "autostart", "bios", "description", "keyboard", "localtime", "migrate_downtime",
           "migrate_speed", "name", "onboot", "ostype", "protection", "reboot", "startdate", "startup", "tdf",
           "template"}
POWER = {"freeze"}
DISK = {"boot", "bootdisk", "vmstatestorage"}
CLOUDINIT = {"cicustom", "cipassword", "citype", "ciuser", "ciupgrade", "nameserver", "searchdomain", "sshkeys"}
CLASSES = CPU | MEMORY | HWTYPE | GENERAL | POWER | DISK | CLOUDINIT
# skipped by $check_vm_modify_config_perm: drives and devices are checked by value elsewhere
BY_VALUE = re.compile(r"^(?:(?:ide|sata|scsi|virtio|unused|serial|usb|hostpci|virtiofs)\d+|efidisk0|tpmstate0|cdrom|"
                      r"tags)$")
OTHER_CLASSES = re.compile(r"^(?:numa\d+|net\d+|ipconfig\d+|running-nets-host-mtu|vmstate)$")


def _pairs(value):
    pairs = {}
    for part in str(value or "").split(","):
        key, sep, item = part.partition("=")
        if sep:
            pairs[key.strip()] = item.strip()
        elif part.strip():
            pairs["host"] = part.strip()
    return pairs


def _device(opt, value, verb):
    """The device checks' refusal for one value, or None."""
    if opt.startswith("serial"):
        return None if value == "socket" else f"only root can {verb} '{opt}' config for real devices"
    device = _pairs(value)
    if opt.startswith("usb"):
        if device.get("host"):
            return None if device["host"].lower() == "spice" else f"only root can set '{opt}' config for real devices"
        return None if device.get("mapping") else "either 'host' or 'mapping' must be set."
    if device.get("host"):
        return f"only root can set '{opt}' config for non-mapped devices"
    if not device.get("mapping"):
        return "either 'host' or 'mapping' must be set."
    return None


def check_config_perm(ctx, params, conf=None, delete=()):
    """create_vm / update_vm: ``params`` the options sent, ``conf`` the VM's config (an update), ``delete`` the
    keys deleted."""
    if ctx.authid == "root@pam":
        return
    conf = conf or {}
    for opt in list(delete) + sorted(params):
        if not (opt in CLASSES or BY_VALUE.match(opt) or OTHER_CLASSES.match(opt)):
            raise die(f"only root can set '{opt}' config")
    for opt in sorted(params):
        if re.match(r"^(?:serial|usb|hostpci)\d+$", opt):
            old = conf.get(opt)
            if old is not None and old != params[opt]:
                refusal = _device(opt, old, "modify")
                if refusal:
                    raise die(refusal)
            refusal = _device(opt, params[opt], "modify" if old is not None else "set")
            if refusal:
                raise die(refusal)
            if opt.startswith("hostpci") and "romfile" in _pairs(params[opt]):
                raise param_exc({opt: "only root@pam can set 'romfile' option"})
    for opt in delete:
        if re.match(r"^(?:serial|usb|hostpci)\d+$", opt) and conf.get(opt) is not None:
            refusal = _device(opt, conf[opt], "delete")
            if refusal:
                raise die(refusal)


@route("POST", "/nodes/{node}/lxc/{vmid}/template")
def lxc_template(ctx, p):
    state, vmid = ctx.state, p["vmid"]

    def load_and_check():
        guest = g.writable(g.load_guest(state, "lxc", p["node"], vmid))
        g.check_lock(guest)
        if guest["snapshots"]:
            raise die("unable to create template, because CT contains snapshots")
        if str(guest["config"].get("template", "0")) == "1":
            raise die("you can't convert a template to a template")
        if guest["status"] == "running":
            raise die("you can't convert a CT to template if the CT is running")
        return guest

    load_and_check()

    def work(log):
        guest = load_and_check()
        g.FAMILIES["lxc"].make_template(state, guest)
        g.reload(guest)

    return g.run_task(ctx, p["node"], "vztemplate", vmid, work)

"""The user.cfg entry rules the access handlers share (pools, users, groups, roles)."""

from ...errors import die


def must_exist(table, key, kind):
    """``table[key]``, or Perl's ``die "<kind> '<key>' does not exist\\n"`` (Group.pm read_group/update_group/
    delete_group, Role.pm read_role/update_role/delete_role, pve-manager Pool.pm index/update_pool/delete_pool)."""
    entry = table.get(key)
    if entry is None:
        raise die(f"{kind} '{key}' does not exist")
    return entry


def must_be_new(table, key, kind):
    """Perl's ``die "<kind> '<key>' already exists\\n"`` when ``key`` is taken (User.pm create_user, Group.pm
    create_group, Role.pm create_role, Pool.pm create_pool)."""
    if key in table:
        raise die(f"{kind} '{key}' already exists")


def written(value):
    """Whether write_user_config writes a text: only a Perl-true one (``$d->{comment} ? encode_text(...) : ''``)."""
    return bool(value) and value != "0"


def set_or_drop(entry, key, value):
    """Set an optional text; an empty value (or ``0``, false in Perl) does not survive user.cfg."""
    if written(value):
        entry[key] = value
    else:
        entry.pop(key, None)

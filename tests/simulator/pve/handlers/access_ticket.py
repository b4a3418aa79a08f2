"""/access/ticket: password (or ticket renewal) -> ticket + CSRF token."""

from ...errors import ApiError
from .base import route


@route("GET", "/access/ticket")
def ticket_form(ctx, p):
    return None


@route("POST", "/access/ticket")
def create_ticket(ctx, p):
    username = p["username"]
    if p.get("realm") and "@" not in username:
        username = f"{username}@{p['realm']}"
    auth = ctx.authenticator
    state = ctx.state
    password = p["password"]
    ok = False
    if password.startswith("PVE:"):
        ok = auth.verify_ticket(password) == username  # ticket renewal
    else:
        ok = auth.check_password(username, password)
    if not ok or not state.user_enabled(username):
        raise ApiError(401, "authentication failure\n")
    answer = {
        "username": username,
        "ticket": auth.assemble_ticket(username),
        "CSRFPreventionToken": auth.assemble_csrf(username),
        "cap": ctx.access.compute_api_permission(username),
    }
    if state.cluster_name:  # API2/AccessControl.pm create_ticket: only when pmxcfs knows a cluster
        answer["clustername"] = state.cluster_name
    return answer

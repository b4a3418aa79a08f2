"""/access/domains: authentication realms (domains.cfg)."""

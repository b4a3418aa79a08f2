"""/cluster/ha: HA resources and rules (ha/resources.cfg, ha/rules.cfg)."""

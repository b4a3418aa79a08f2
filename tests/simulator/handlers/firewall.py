"""/cluster/firewall and /nodes/{node}/firewall: aliases, ipsets, options, rules, security groups."""

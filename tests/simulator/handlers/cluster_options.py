"""/cluster/options: datacenter.cfg."""

"""/cluster/backup: vzdump backup jobs (jobs.cfg)."""

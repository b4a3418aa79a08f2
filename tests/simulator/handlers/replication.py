"""/cluster/replication: storage replication jobs (replication.cfg)."""

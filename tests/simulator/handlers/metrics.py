"""/cluster/metrics/server: external metric servers (status.cfg)."""

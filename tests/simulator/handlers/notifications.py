"""/cluster/notifications: endpoints and matchers (notifications.cfg)."""

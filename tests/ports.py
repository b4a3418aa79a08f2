"""A free TCP port on the loopback address (bound, read, released: nothing listens on it afterwards)."""

import socket


def free_port():
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    port = sock.getsockname()[1]
    sock.close()
    return port

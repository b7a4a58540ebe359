"""Recognising an HTTP request that this very kernel sent to its own server.

A cell that calls the kernel's own server over HTTP (``mj.connect("me", handle.url, ...)`` then
``.call(...)``) blocks the main thread until the answer comes; a tool queued behind that cell would
wait for it forever. Such a request is recognised by its source port: the client end of the TCP
connection is a socket of this process. It is then run beside the waiting cell, as an in-process
call is. (Checked only while a cell is running, so other requests pay nothing.)
"""

from __future__ import annotations

import os
from pathlib import Path


def client_port_is_ours(port: int) -> bool:
    """Whether a TCP socket of this process has ``port`` as its local port."""
    try:
        import psutil
    except ImportError:
        return _proc_says_ours(port)
    try:
        return any(c.laddr and c.laddr.port == port for c in psutil.Process().net_connections(kind="tcp"))
    except (psutil.Error, OSError):
        return _proc_says_ours(port)


def _proc_says_ours(port: int) -> bool:
    """Linux without psutil: match the socket inode in /proc/net/tcp* against /proc/self/fd."""
    inodes = _inodes_with_local_port(port)
    if not inodes:
        return False
    try:
        for fd in os.listdir("/proc/self/fd"):
            try:
                link = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:[") and link[8:-1] in inodes:
                return True
    except OSError:
        return False
    return False


def _inodes_with_local_port(port: int) -> set[str]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return inodes

"""Connect to the demo server over stdio, print the server's pid, and exit WITHOUT closing.

Proves interpreter exit leaves no child process behind.
"""

import os
import sys

import mcp_jupyter as mj

conn = mj.connect("demo", [sys.executable, "-m", "mcp_jupyter.demo"])
children = [
    p
    for p in os.listdir("/proc")
    if p.isdigit() and open(f"/proc/{p}/stat").read().split(") ")[1].split()[1] == str(os.getpid())
]
print(" ".join(children), flush=True)

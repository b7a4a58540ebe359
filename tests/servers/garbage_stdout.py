"""A 'server' that writes non-JSON-RPC text to stdout, then (optionally) runs the real demo server.

Usage: python garbage_stdout.py [--then-serve]
"""

import sys

print("Hello! I am not JSON-RPC.", flush=True)
print("{not json either", flush=True)
print("starting up...", file=sys.stderr, flush=True)
if "--then-serve" in sys.argv:
    from mcp_jupyter.demo.__main__ import main

    main([])
else:
    import time

    time.sleep(600)
